//! The process environment the libraries no longer read: resolved once, here, and handed on as
//! values (issue #42). hook-config, hook-server and hook-core take the decision log, the audit
//! switch and the like as arguments; this is where the binary reads the variables behind them.
//!
//! [`Env::get`] reads them on first use and keeps them for the rest of the process (one
//! command per process), so every command sees the same values: the variables, the working
//! directory and `HOME`. No other module of the binary reads the process environment.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use hook_config::{DECISION_LOG_ENV, DecisionLog, LogOptions, Recording};
use hook_core::{HookEngine, HookRegistry};

/// `AIMON_AUDIT`: every hook of the process in audit mode.
const AUDIT_ENV: &str = "AIMON_AUDIT";
/// `AIMON_TRUST_PROJECT_HOOKS`: every project's files trusted (CI, headless runs).
const TRUST_ENV: &str = "AIMON_TRUST_PROJECT_HOOKS";
/// Claude Code's cap on consecutive "keep working" answers of a session, which the engine honours.
const STOP_CAP_ENV: &str = "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP";

/// The variables the commands act on, read once.
#[derive(Debug, Clone)]
pub(crate) struct Env {
    /// `AIMON_DECISION_LOG`: the log's path, `off`, or unset (the default path).
    pub(crate) decision_log: Option<OsString>,
    /// `AIMON_AUDIT` set to anything but empty or `0`.
    pub(crate) audit: bool,
    /// `AIMON_TRUST_PROJECT_HOOKS` is `1` or `true`.
    pub(crate) trust_project_hooks: bool,
    /// `CLAUDE_CODE_STOP_HOOK_BLOCK_CAP`, when it is a number.
    pub(crate) continuation_cap: Option<u32>,
    /// `AIMON_REWAKE_STORE`: the rewake store's URL or path, when set.
    pub(crate) store: Option<String>,
    /// `AIMON_NO_SERVE` set to anything but empty or `0`: a client's call is answered in-process.
    pub(crate) no_serve: bool,
    /// The directory the command started in, or why it cannot be read.
    cwd: Result<PathBuf, String>,
    /// `HOME`, when set and not empty.
    home: Option<PathBuf>,
    /// Each client's project-directory variable that is set (`CLAUDE_PROJECT_DIR`, …).
    project_dirs: Vec<(&'static str, PathBuf)>,
    /// `CLAUDE_CODE_SHELL_PREFIX`: what Claude Code puts in front of every Bash command.
    shell_prefix: Option<String>,
    /// `TMPDIR`: the client's, which the commands it runs inherit.
    pub(crate) tmpdir: Option<String>,
}

impl Env {
    /// Reads the variables now.
    pub(crate) fn read() -> Env {
        Env {
            decision_log: std::env::var_os(DECISION_LOG_ENV),
            audit: std::env::var_os(AUDIT_ENV).is_some_and(|v| !v.is_empty() && v != "0"),
            trust_project_hooks: std::env::var(TRUST_ENV).is_ok_and(|v| v == "1" || v.eq_ignore_ascii_case("true")),
            continuation_cap: std::env::var(STOP_CAP_ENV).ok().and_then(|v| v.trim().parse().ok()),
            store: std::env::var(hook_host::STORE_ENV).ok(),
            no_serve: std::env::var_os("AIMON_NO_SERVE").is_some_and(|v| !v.is_empty() && v != "0"),
            cwd: std::env::current_dir().map_err(|e| e.to_string()),
            home: std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from),
            project_dirs: hook_wire::Client::ALL
                .iter()
                .filter_map(|client| client.project_dir_env())
                .filter_map(|name| Some((name, PathBuf::from(std::env::var_os(name)?))))
                .collect(),
            shell_prefix: std::env::var(hook_wire::claude::SHELL_PREFIX).ok(),
            tmpdir: std::env::var("TMPDIR").ok(),
        }
    }

    /// Whether `client` runs the commands of its calls under this binary's guard: Claude Code
    /// with the shell prefix `init claude` writes (which it hands to its hooks as well).
    pub(crate) fn guards_commands(&self, client: hook_wire::Client) -> bool {
        client == hook_wire::Client::Claude
            && self.shell_prefix.as_deref().is_some_and(|prefix| {
                std::env::current_exe().is_ok_and(|exe| hook_wire::claude::prefix_guards(prefix, &exe))
            })
    }

    /// The directory the command started in.
    pub(crate) fn cwd(&self) -> anyhow::Result<&Path> {
        self.cwd.as_deref().map_err(|e| anyhow::anyhow!("cannot read the current directory: {e}"))
    }

    /// The directory the command started in, or the empty path when it cannot be read.
    pub(crate) fn cwd_or_empty(&self) -> &Path {
        self.cwd.as_deref().unwrap_or(Path::new(""))
    }

    /// `HOME`, when set and not empty.
    pub(crate) fn home(&self) -> Option<&Path> {
        self.home.as_deref()
    }

    /// The value of a client's project-directory variable (`CLAUDE_PROJECT_DIR`, …), when set.
    pub(crate) fn project_dir(&self, name: &str) -> Option<&Path> {
        self.project_dirs.iter().find(|(n, _)| *n == name).map(|(_, dir)| dir.as_path())
    }

    /// The process's environment, read on first use.
    pub(crate) fn get() -> &'static Env {
        static ENV: OnceLock<Env> = OnceLock::new();
        ENV.get_or_init(Env::read)
    }

    /// An engine over `registry` with the continuation cap the environment sets, if any.
    pub(crate) fn engine(&self, registry: std::sync::Arc<HookRegistry>) -> HookEngine {
        let engine = HookEngine::new(registry);
        match self.continuation_cap {
            Some(cap) => engine.with_continuation_cap(cap),
            None => engine,
        }
    }

    /// The decision log's path for `home` ([`LogOptions::path_from`]); `None` when it is off.
    pub(crate) fn decision_log_path(&self, home: Option<&Path>) -> Option<PathBuf> {
        LogOptions::path_from(self.decision_log.as_deref(), home)
    }

    /// Where `AIMON_DECISION_LOG` moved the log, when it did (self-protection guards it there).
    pub(crate) fn moved_log(&self) -> Option<&Path> {
        self.decision_log.as_deref().filter(|v| !v.is_empty() && *v != "off").map(Path::new)
    }

    /// What a command's hooks record to when it logs nothing: the audit switch alone.
    pub(crate) fn unlogged(&self) -> Recording {
        Recording::new().with_audit_all(self.audit)
    }

    /// A one-shot command's recording (`run`, `claude`): the log for `home` without a writer
    /// thread, written once the answer is out (when the last hook holding it is dropped).
    pub(crate) fn one_shot(&self, home: Option<&Path>) -> Recording {
        let log = self.decision_log_path(home).map(|path| DecisionLog::open_one_shot(LogOptions::new(path)));
        self.unlogged().with_log(log)
    }

    /// The daemon's recording: the log for `home` with its batching writer thread (a log that
    /// cannot start is one WARN), every hook audited when `audit` (`serve --audit`) or
    /// `AIMON_AUDIT` says so.
    pub(crate) fn daemon(&self, home: &Path, audit: bool) -> Recording {
        let log = self.decision_log_path(Some(home)).and_then(|path| match DecisionLog::open(LogOptions::new(path)) {
            Ok(log) => Some(log),
            Err(e) => {
                tracing::warn!("hooks: the decision log cannot start ({e}); decisions are not logged");
                None
            }
        });
        Recording::new().with_log(log).with_audit_all(audit || self.audit)
    }
}

/// How long a stopping daemon waits for its log's last lines.
pub(crate) const LOG_FLUSH: Duration = Duration::from_secs(2);
