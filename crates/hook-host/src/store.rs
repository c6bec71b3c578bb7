//! Which rewake store a process uses (R-RW-11b).

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use hook_rewake::{RewakeStore, SqliteStore};

use crate::error::Error;

/// The environment variable naming the store: `sqlite:PATH` or `postgres://…`.
pub const STORE_ENV: &str = "AIMON_REWAKE_STORE";

/// Where pending envelopes and session mailboxes live.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StoreLocation {
    /// An embedded SQLite file.
    Sqlite(PathBuf),
    /// A PostgreSQL server (shared by several daemons, R-RW-10).
    Postgres(String),
}

impl StoreLocation {
    /// The store of `url` (the value of [`STORE_ENV`] or `serve --store`), else `<home>/.aimon/rewake.db`.
    /// A relative `sqlite:` path is taken as given (relative to the working directory).
    pub fn select(url: Option<&str>, home: Option<&Path>) -> Result<StoreLocation, Error> {
        let url = url.map(str::trim).filter(|u| !u.is_empty());
        let Some(url) = url else {
            let home = home.ok_or_else(|| {
                Error::StoreUrl(format!(
                    "no rewake store: $HOME is not set and {STORE_ENV} does not name one (e.g. sqlite:/path/rewake.db)"
                ))
            })?;
            return Ok(StoreLocation::Sqlite(hook_core::AimonDir::under(home).rewake_db()));
        };
        if let Some(path) = url.strip_prefix("sqlite:") {
            let path = path.strip_prefix("//").unwrap_or(path);
            if path.is_empty() {
                return Err(Error::StoreUrl(format!("{STORE_ENV}={url} names no file; write sqlite:/path/rewake.db")));
            }
            return Ok(StoreLocation::Sqlite(PathBuf::from(path)));
        }
        if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            return Ok(StoreLocation::Postgres(url.to_owned()));
        }
        Err(Error::StoreUrl(format!(
            "{STORE_ENV}={url} is not a store URL; expected sqlite:PATH or postgres://USER@HOST/DB"
        )))
    }

    /// Opens the store, creating the SQLite file and its directory if needed.
    pub fn open(&self) -> Result<Arc<dyn RewakeStore>, Error> {
        match self {
            StoreLocation::Sqlite(path) => {
                if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                    std::fs::create_dir_all(dir).map_err(|source| Error::StoreDir { dir: dir.to_owned(), source })?;
                }
                match SqliteStore::open(path) {
                    Ok(store) => Ok(Arc::new(store)),
                    Err(source) => Err(Error::Open { store: self.to_string(), source }),
                }
            }
            StoreLocation::Postgres(url) => self.open_postgres(url),
        }
    }

    /// Connects to the PostgreSQL store (migrating its schema); fails when it cannot be reached.
    #[cfg(feature = "postgres")]
    fn open_postgres(&self, url: &str) -> Result<Arc<dyn RewakeStore>, Error> {
        match hook_rewake_postgres::PgStore::connect(url) {
            Ok(store) => Ok(Arc::new(store)),
            Err(source) => Err(Error::Open { store: self.to_string(), source }),
        }
    }

    /// This build has no PostgreSQL client: say which feature brings it.
    #[cfg(not(feature = "postgres"))]
    fn open_postgres(&self, _url: &str) -> Result<Arc<dyn RewakeStore>, Error> {
        Err(Error::Unsupported(format!(
            "this build has no PostgreSQL rewake store ({self}): build it with the cargo feature `postgres` \
             (on by default for the aimon-hooks binary), or use sqlite:PATH"
        )))
    }

    /// Opens the store only if it can hold anything: a SQLite file that does not exist yet has
    /// no mail, so a hook call does not create it just to look.
    pub fn open_existing(&self) -> Result<Option<Arc<dyn RewakeStore>>, Error> {
        match self {
            StoreLocation::Sqlite(path) if !path.exists() => Ok(None),
            _ => self.open().map(Some),
        }
    }
}

impl fmt::Display for StoreLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreLocation::Sqlite(path) => write!(f, "sqlite:{}", path.display()),
            StoreLocation::Postgres(url) => f.write_str(&redact(url)),
        }
    }
}

/// `url` without its password.
fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else { return url.to_owned() };
    match rest.split_once('@') {
        Some((user, host)) if user.contains(':') => {
            let name = user.split(':').next().unwrap_or_default();
            format!("{scheme}://{name}:***@{host}")
        }
        _ => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_store_url_selects_the_store_and_home_is_the_default() {
        let home = Path::new("/h");
        let cases: [(Option<&str>, Result<StoreLocation, &str>); 7] = [
            (None, Ok(StoreLocation::Sqlite(PathBuf::from("/h/.aimon/rewake.db")))),
            (Some("  "), Ok(StoreLocation::Sqlite(PathBuf::from("/h/.aimon/rewake.db")))),
            (Some("sqlite:/tmp/x.db"), Ok(StoreLocation::Sqlite(PathBuf::from("/tmp/x.db")))),
            (Some("sqlite:///tmp/x.db"), Ok(StoreLocation::Sqlite(PathBuf::from("/tmp/x.db")))),
            (Some("postgres://u:p@db/aimon"), Ok(StoreLocation::Postgres("postgres://u:p@db/aimon".into()))),
            (Some("sqlite:"), Err("names no file")),
            (Some("mysql://db"), Err("is not a store URL")),
        ];
        for (url, expected) in cases {
            let got = StoreLocation::select(url, Some(home));
            match (got, expected) {
                (Ok(got), Ok(expected)) => assert_eq!(got, expected, "{url:?}"),
                (Err(err), Err(text)) => assert!(err.to_string().contains(text), "{url:?}: {err}"),
                (got, expected) => panic!("{url:?}: got {got:?}, expected {expected:?}"),
            }
        }
    }

    #[cfg(not(feature = "postgres"))]
    #[test]
    fn without_the_postgres_feature_a_postgres_store_names_the_feature_and_hides_the_password() {
        let location = StoreLocation::select(Some("postgres://me:secret@db/aimon"), None).expect("url");
        let err = location.open().expect_err("not in this build").to_string();
        assert!(err.contains("cargo feature `postgres`"), "{err}");
        assert!(!err.contains("secret"), "{err}");
    }

    #[cfg(feature = "postgres")]
    #[test]
    fn an_unreachable_postgres_store_fails_to_open_with_a_sentence_that_hides_the_password() {
        // Port 1 on loopback: nothing listens there, the connection is refused at once.
        let location = StoreLocation::select(Some("postgres://me:secret@127.0.0.1:1/aimon"), None).expect("url");
        let err = location.open().expect_err("nothing listens on port 1").to_string();
        assert!(err.starts_with("cannot open the rewake store postgres://me:***@127.0.0.1:1/aimon: "), "{err}");
        assert!(!err.contains("secret"), "{err}");
    }
}
