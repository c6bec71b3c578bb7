//! `~/.aimon/trusted.json`: which repository files the person trusts, by SHA-256.
//!
//! ```json
//! {
//!   "version": 1,
//!   "projects": {
//!     "/home/me/src/app": {
//!       "trustedAt": "2026-12-01T03:40:58Z",
//!       "files": { "/home/me/src/app/.aimon/hooks.json": "<sha256 hex>" }
//!     }
//!   }
//! }
//! ```
//!
//! Readers take no lock: every write replaces the file with one `rename` of a complete temporary
//! file (mode 0600) from the same directory, so a reader sees the old or the new document, never
//! half of one. Writers serialise on an exclusive lock of `trusted.json.lock` (std's
//! `File::lock`, an `flock` on Unix), held from reading the document to the rename, so no
//! concurrent `trust` loses another's entries.

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{ErrorKind, Write as _};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use super::sha256_hex;
use crate::error::Error;

/// The document's format version.
const VERSION: u32 = 1;

/// The whole store document.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrustDocument {
    /// Format version (1).
    pub version: u32,
    /// Trusted projects by canonical directory.
    pub projects: BTreeMap<PathBuf, TrustedProject>,
}

/// One trusted project: when, and the SHA-256 of each of its files then.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TrustedProject {
    /// RFC 3339 time of the `trust` call.
    pub trusted_at: String,
    /// Canonical file path → SHA-256 (lower-case hex).
    pub files: BTreeMap<PathBuf, String>,
}

/// The trust store of one home directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrustStore {
    path: PathBuf,
}

impl TrustStore {
    /// `<home>/.aimon/trusted.json`.
    pub fn in_home(home: &Path) -> Self {
        TrustStore { path: hook_core::AimonDir::under(home).trust_store() }
    }

    /// The store file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn error(&self, message: impl std::fmt::Display) -> Error {
        Error::Trust { path: self.path.clone(), message: message.to_string() }
    }

    /// The current document; a missing store is an empty one.
    pub fn read(&self) -> Result<TrustDocument, Error> {
        let text = match std::fs::read_to_string(&self.path) {
            Ok(text) => text,
            Err(e) if e.kind() == ErrorKind::NotFound => {
                return Ok(TrustDocument { version: VERSION, projects: BTreeMap::new() });
            }
            Err(e) => return Err(self.error(format!("cannot read the trust store: {e}"))),
        };
        let doc: TrustDocument = serde_json::from_str(&text)
            .map_err(|e| self.error(format!("the trust store is not valid (fix or delete it): {e}")))?;
        if doc.version != VERSION {
            return Err(self.error(format!(
                "the trust store has version {}, this aimon-hooks reads version {VERSION}",
                doc.version
            )));
        }
        Ok(doc)
    }

    /// Records every repository file of `project` ([`project_files`]) as it is now, replacing
    /// what was recorded for the project before (files that are gone are dropped). Returns the
    /// canonical project directory and its new record (no files: the project is removed).
    pub fn trust(&self, project: &Path) -> Result<(PathBuf, TrustedProject), Error> {
        let canon = canonical_dir(project)?;
        let mut files = BTreeMap::new();
        for file in project_files(&canon) {
            let read = |e: std::io::Error| self.error(format!("cannot read {}: {e}", file.display()));
            let bytes = std::fs::read(&file).map_err(read)?;
            files.insert(std::fs::canonicalize(&file).map_err(read)?, sha256_hex(&bytes));
        }
        let record =
            TrustedProject { trusted_at: humantime::format_rfc3339_seconds(SystemTime::now()).to_string(), files };
        let stored = record.clone();
        let key = canon.clone();
        self.update(move |doc| {
            if stored.files.is_empty() {
                doc.projects.remove(&key);
            } else {
                doc.projects.insert(key, stored);
            }
        })?;
        Ok((canon, record))
    }

    /// Forgets `project`; returns its record, `None` when nothing was recorded.
    pub fn revoke(&self, project: &Path) -> Result<(PathBuf, Option<TrustedProject>), Error> {
        let canon = canonical_dir(project)?;
        if !self.read()?.projects.contains_key(&canon) {
            return Ok((canon, None));
        }
        let key = canon.clone();
        let removed = self.update(move |doc| doc.projects.remove(&key))?;
        Ok((canon, removed))
    }

    /// Reads, changes and atomically rewrites the document under the exclusive lock.
    fn update<T>(&self, change: impl FnOnce(&mut TrustDocument) -> T) -> Result<T, Error> {
        let dir = self.path.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir).map_err(|e| self.error(format!("cannot create {}: {e}", dir.display())))?;
        let lock_path = dir.join("trusted.json.lock");
        let lock = private_file(&lock_path)
            .map_err(|e| self.error(format!("cannot open the lock {}: {e}", lock_path.display())))?;
        lock.lock().map_err(|e| self.error(format!("cannot lock {}: {e}", lock_path.display())))?;
        let mut doc = self.read()?;
        let out = change(&mut doc);
        let write = |e: std::io::Error| self.error(format!("cannot write the trust store: {e}"));
        let mut tmp = tempfile::Builder::new().prefix(".trusted.json.").tempfile_in(dir).map_err(write)?;
        let text = serde_json::to_string_pretty(&doc).map_err(|e| self.error(e))?;
        tmp.write_all(text.as_bytes()).and_then(|()| tmp.write_all(b"\n")).map_err(write)?;
        set_private(tmp.as_file()).map_err(write)?;
        tmp.as_file().sync_all().map_err(write)?;
        tmp.persist(&self.path).map_err(|e| write(e.error))?;
        // The rename is durable once the directory is; a failure here loses nothing already read.
        if let Ok(d) = File::open(dir) {
            let _ = d.sync_all();
        }
        drop(lock);
        Ok(out)
    }
}

/// The project directory `dir` canonicalised.
fn canonical_dir(dir: &Path) -> Result<PathBuf, Error> {
    let error = |message: String| Error::Trust { path: dir.to_owned(), message };
    let canon = std::fs::canonicalize(dir).map_err(|e| error(format!("cannot resolve the project directory: {e}")))?;
    if !canon.is_dir() {
        return Err(error("the project is not a directory".to_owned()));
    }
    Ok(canon)
}

/// Opens (creating, mode 0600) a file for reading and writing.
fn private_file(path: &Path) -> std::io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true).write(true).create(true).truncate(false);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)
}

#[cfg(unix)]
fn set_private(file: &File) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt as _;
    file.set_permissions(std::fs::Permissions::from_mode(0o600))
}

#[cfg(not(unix))]
fn set_private(_file: &File) -> std::io::Result<()> {
    Ok(())
}

/// The repository files of `project` that trust covers and that exist, sorted: the PROJECT and
/// LOCAL tier files, `.aimon/mcp.json`, and every `SKILL.md` inside the directory (symlinked
/// directories are not followed; `.git/` is skipped).
pub fn project_files(project: &Path) -> Vec<PathBuf> {
    let aimon = hook_core::AimonDir::under(project);
    let mut files: Vec<PathBuf> =
        [aimon.hooks(), aimon.local_hooks(), aimon.mcp()].into_iter().filter(|p| p.is_file()).collect();
    let skills = walkdir::WalkDir::new(project)
        .into_iter()
        .filter_entry(|e| !(e.file_type().is_dir() && e.file_name() == ".git"))
        .filter_map(Result::ok)
        .filter(|e| e.file_name() == "SKILL.md" && e.path().is_file())
        .map(walkdir::DirEntry::into_path);
    files.extend(skills);
    files.sort();
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn project_files_are_the_tier_files_mcp_json_and_skills_but_not_git() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path();
        for rel in [".aimon/hooks.json", ".aimon/mcp.json", "a/b/SKILL.md", ".git/x/SKILL.md", ".aimon/other.json"] {
            let path = p.join(rel);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            std::fs::write(&path, "{}").expect("write");
        }
        let rel: Vec<PathBuf> =
            project_files(p).iter().map(|f| f.strip_prefix(p).expect("inside").to_owned()).collect();
        assert_eq!(rel, [".aimon/hooks.json", ".aimon/mcp.json", "a/b/SKILL.md"].map(PathBuf::from));
    }

    #[test]
    fn trust_records_hashes_and_revoke_forgets_them_and_the_file_is_private() {
        let home = tempfile::tempdir().expect("home");
        let project = tempfile::tempdir().expect("project");
        std::fs::create_dir_all(project.path().join(".aimon")).expect("mkdir");
        std::fs::write(project.path().join(".aimon/hooks.json"), "abc").expect("write");
        let store = TrustStore::in_home(home.path());
        let (canon, record) = store.trust(project.path()).expect("trust");
        let file = canon.join(".aimon/hooks.json");
        assert_eq!(record.files.get(&file).map(String::as_str), Some(sha256_hex(b"abc").as_str()));
        assert_eq!(store.read().expect("read").projects.get(&canon), Some(&record));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = std::fs::metadata(store.path()).expect("stat").permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        assert_eq!(store.revoke(project.path()).expect("revoke").1, Some(record));
        assert_eq!(store.revoke(project.path()).expect("again").1, None);
        assert!(store.read().expect("read").projects.is_empty());
    }

    #[test]
    fn a_store_that_is_not_json_is_an_error_and_is_left_alone() {
        let home = tempfile::tempdir().expect("home");
        let store = TrustStore::in_home(home.path());
        std::fs::create_dir_all(home.path().join(".aimon")).expect("mkdir");
        std::fs::write(store.path(), "{oops").expect("write");
        let err = store.trust(home.path()).expect_err("corrupt store");
        assert!(err.to_string().contains("not valid"), "{err}");
        assert_eq!(std::fs::read_to_string(store.path()).expect("read"), "{oops");
    }
}
