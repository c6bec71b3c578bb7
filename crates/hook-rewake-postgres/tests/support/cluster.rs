//! A throwaway PostgreSQL cluster for the tests, started from the system's server binaries.
//! Shared by this crate's tests and benchmark and by hook-cli's daemon tests (which include this
//! file with `#[path]`), so it depends only on std, tokio, tokio-postgres and tempfile.
//!
//! One cluster per test binary (started on first use), a fresh database per test. The cluster
//! lives in a temporary directory, listens on 127.0.0.1 on a free port with trust
//! authentication, and runs as `nobody` when the tests run as root (PostgreSQL refuses root).
//! A watchdog `sh` holds a pipe from the test process: when the process ends, whether it
//! finished, panicked or was killed, the pipe closes and the watchdog runs
//! `pg_ctl stop -m immediate` and deletes the directory. A [`Cluster`] owned by a test also
//! stops on drop. `AIMON_TEST_PG_URL=postgres://…` points the shared server at an existing one.

#![allow(dead_code, unreachable_pub)]

use std::net::TcpListener;
use std::os::unix::fs::MetadataExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, OnceLock};

/// Where the binaries come from when they are missing.
const INSTALL: &str = "the PostgreSQL tests need the server binaries `initdb` and `pg_ctl`: install the Debian \
                       package `postgresql` (apt-get install postgresql), or set AIMON_TEST_PG_URL to an existing \
                       server";

/// A running cluster in a temporary directory.
#[derive(Debug)]
pub struct Cluster {
    bin: PathBuf,
    dir: PathBuf,
    port: u16,
    options: String,
    user: Option<(u32, u32)>,
    _watchdog: Child,
}

/// The server the tests use: the shared throwaway cluster or `AIMON_TEST_PG_URL`.
#[derive(Debug)]
pub enum Server {
    Own(Cluster),
    External(String),
}

static SHARED: OnceLock<Server> = OnceLock::new();
static NEXT_DB: AtomicU32 = AtomicU32::new(0);
static CREATE: Mutex<()> = Mutex::new(());

/// The shared server of this test binary.
pub fn server() -> &'static Server {
    SHARED.get_or_init(|| match std::env::var("AIMON_TEST_PG_URL") {
        Ok(url) if !url.is_empty() => Server::External(url),
        _ => Server::Own(Cluster::start()),
    })
}

/// A new, empty database on the shared server; returns its URL.
pub fn fresh_db() -> String {
    server().create_db()
}

impl Server {
    fn admin_url(&self) -> String {
        match self {
            Server::Own(c) => c.url("postgres"),
            Server::External(url) => url.clone(),
        }
    }

    fn url(&self, db: &str) -> String {
        match self {
            Server::Own(c) => c.url(db),
            Server::External(url) => with_db(url, db),
        }
    }

    /// Creates a database named after this process and a counter.
    pub fn create_db(&self) -> String {
        let name = format!("aimon_t_{}_{}", std::process::id(), NEXT_DB.fetch_add(1, Ordering::Relaxed));
        let _one_at_a_time = CREATE.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        admin(&self.admin_url(), &format!("CREATE DATABASE {name}"));
        self.url(&name)
    }
}

/// `url` with its database replaced by `db` (its `?parameters` kept).
fn with_db(url: &str, db: &str) -> String {
    let (base, query) = url.split_once('?').map_or((url, String::new()), |(b, q)| (b, format!("?{q}")));
    let scheme_end = base.find("://").map_or(0, |i| i + 3);
    match base[scheme_end..].find('/') {
        Some(slash) => format!("{}/{db}{query}", &base[..scheme_end + slash]),
        None => format!("{base}/{db}{query}"),
    }
}

/// Runs one statement on `url` (on a thread of its own, so a test's runtime is not nested).
pub fn admin(url: &str, sql: &str) {
    let (url, sql) = (url.to_owned(), sql.to_owned());
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
        rt.block_on(async {
            let (client, conn) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
                .await
                .unwrap_or_else(|e| panic!("cannot connect to the test server: {e}"));
            tokio::spawn(conn);
            client.batch_execute(&sql).await.unwrap_or_else(|e| panic!("{sql}: {e:?}"));
        });
    })
    .join()
    .expect("admin statement");
}

/// The directory holding `initdb` and `pg_ctl`: PATH first, then the newest
/// /usr/lib/postgresql/*/bin.
fn binaries() -> PathBuf {
    let has = |dir: &Path| dir.join("initdb").is_file() && dir.join("pg_ctl").is_file();
    let path = std::env::var_os("PATH").unwrap_or_default();
    if let Some(dir) = std::env::split_paths(&path).find(|d| has(d)) {
        return dir;
    }
    let mut versions: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .map(|dirs| dirs.filter_map(Result::ok).map(|d| d.path().join("bin")).filter(|d| has(d)).collect())
        .unwrap_or_default();
    versions.sort_by_key(|d| {
        d.parent().and_then(|v| v.file_name()).and_then(|v| v.to_str()).and_then(|v| v.parse::<u32>().ok())
    });
    versions.pop().unwrap_or_else(|| panic!("{INSTALL}"))
}

/// `nobody`'s uid and gid when this process runs as root (PostgreSQL refuses root).
fn unprivileged() -> Option<(u32, u32)> {
    let me = std::fs::metadata("/proc/self").map(|m| m.uid()).unwrap_or(0);
    if me != 0 {
        return None;
    }
    let passwd = std::fs::read_to_string("/etc/passwd").expect("/etc/passwd");
    let ids = passwd.lines().find_map(|line| {
        let fields: Vec<&str> = line.split(':').collect();
        if fields.first() != Some(&"nobody") || fields.len() < 4 {
            return None;
        }
        Some((fields[2].parse().ok()?, fields[3].parse().ok()?))
    });
    Some(ids.unwrap_or((65534, 65534)))
}

fn chown_tree(path: &Path, (uid, gid): (u32, u32)) {
    std::os::unix::fs::chown(path, Some(uid), Some(gid)).expect("chown");
    if path.is_dir() {
        for entry in std::fs::read_dir(path).expect("read_dir").flatten() {
            chown_tree(&entry.path(), (uid, gid));
        }
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).expect("free port").port()
}

impl Cluster {
    /// initdb in a temporary directory and start the server; panics with a sentence on failure.
    pub fn start() -> Cluster {
        let bin = binaries();
        let dir = tempfile::Builder::new().prefix("aimon-pg-").tempdir().expect("tempdir").keep();
        let user = unprivileged();
        if let Some(ids) = user {
            chown_tree(&dir, ids);
        }
        let port = free_port();
        // The watchdog first, so that even a failed start is cleaned up.
        let mut watchdog = Command::new("sh");
        watchdog
            .arg("-c")
            .arg(r#"cat >/dev/null; "$0" stop -D "$1/data" -m immediate -w >/dev/null 2>&1; rm -rf "$1""#)
            .arg(bin.join("pg_ctl"))
            .arg(&dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let options = format!(
            "-p {port} -k {} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off \
             -c full_page_writes=off -c max_connections=300",
            dir.display()
        );
        let watchdog = as_user(&mut watchdog, user).spawn().expect("watchdog");
        let cluster = Cluster { bin, dir, port, options, user, _watchdog: watchdog };
        cluster.run(
            "initdb",
            &["-D", "data", "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync", "--no-instructions"],
        );
        cluster.start_again();
        cluster
    }

    /// Runs a server binary in the cluster directory as the cluster's user; panics with its log.
    fn run(&self, program: &str, args: &[&str]) {
        let log = self.dir.join(format!("{program}.out"));
        let out = std::fs::File::create(&log).expect("log file");
        if let Some(ids) = self.user {
            std::os::unix::fs::chown(&log, Some(ids.0), Some(ids.1)).expect("chown log");
        }
        let mut cmd = Command::new(self.bin.join(program));
        cmd.args(args)
            .current_dir(&self.dir)
            .env("LC_ALL", "C")
            .stdin(Stdio::null())
            .stdout(out.try_clone().expect("log"))
            .stderr(out);
        let status = as_user(&mut cmd, self.user).status().unwrap_or_else(|e| panic!("{program}: {e}; {INSTALL}"));
        if !status.success() {
            let text = std::fs::read_to_string(&log).unwrap_or_default();
            let server = std::fs::read_to_string(self.dir.join("server.log")).unwrap_or_default();
            panic!("{program} {args:?} failed ({status}):\n{text}\n{server}");
        }
    }

    /// The URL of database `db`.
    pub fn url(&self, db: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{db}", self.port)
    }

    /// A new, empty database on this cluster.
    pub fn create_db(&self) -> String {
        let name = format!("aimon_c_{}", NEXT_DB.fetch_add(1, Ordering::Relaxed));
        admin(&self.url("postgres"), &format!("CREATE DATABASE {name}"));
        self.url(&name)
    }

    /// Stops the server (`-m fast`: connections are cut) and starts it again on the same port.
    pub fn restart(&self) {
        self.run("pg_ctl", &["restart", "-D", "data", "-m", "fast", "-w", "-t", "60"]);
    }

    /// Stops the server (`-m fast`).
    pub fn stop(&self) {
        self.run("pg_ctl", &["stop", "-D", "data", "-m", "fast", "-w", "-t", "60"]);
    }

    /// Starts a stopped server again.
    pub fn start_again(&self) {
        self.run("pg_ctl", &["start", "-D", "data", "-l", "server.log", "-w", "-t", "60", "-o", &self.options]);
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let mut cmd = Command::new(self.bin.join("pg_ctl"));
        cmd.args(["stop", "-D", "data", "-m", "immediate", "-w"])
            .current_dir(&self.dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let _ = as_user(&mut cmd, self.user).status();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn as_user(cmd: &mut Command, user: Option<(u32, u32)>) -> &mut Command {
    if let Some((uid, gid)) = user {
        cmd.uid(uid).gid(gid);
    }
    cmd
}
