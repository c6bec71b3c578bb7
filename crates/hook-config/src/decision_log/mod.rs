//! The decision log, `~/.aimon/decisions.jsonl`: one JSON line per hook decision.
//!
//! Every declarative hook that runs sends one [`DecisionRecord`] (time, client, session, event,
//! tool, the tool input cut to 1 kB, hook id, the file:line it came from, outcome, reason,
//! elapsed, `audit` or `enforced`) to the process's [`DecisionLog`], when one is installed
//! ([`DecisionLog::install`]; the front ends `run`, `claude` and `serve` do it). Recording never
//! waits and never fails a decision: the record goes through a bounded channel to a writer
//! thread, which gathers the lines of 10 ms and writes them at once; a full channel or a failed
//! write is counted ([`LogStats`]) and the record dropped.
//! The writer appends with mode 0600 and rotates at [`LogOptions::max_bytes`] (50 MB), keeping
//! three files (`decisions.jsonl`, `.1`, `.2`); a rotation happens between two lines, so it loses
//! none.
//!
//! Which client a decision answers is the front end's to say: [`scoped`] runs an evaluation with
//! its client name in a task-local, and hands back the decisions audit-mode hooks made (counted
//! by `serve`'s `/metrics` under `mode="audit"`).

mod writer;

use std::cell::RefCell;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{SyncSender, TrySendError};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, SystemTime};

use hook_core::{Decision, FlowControl, HookContext, HookEventType, HookResult};
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub(crate) use writer::{Located, SourceFile};

/// The environment variable naming the log's path, or `off`.
pub const DECISION_LOG_ENV: &str = "AIMON_DECISION_LOG";

/// How much of a tool input a record keeps, in bytes of its JSON text.
pub const INPUT_LIMIT: usize = 1024;

/// One line of the decision log.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct DecisionRecord {
    /// When the hook answered (RFC 3339, UTC, milliseconds).
    pub time: String,
    /// The client whose call it was (`claude`, `aimon`, …).
    pub client: String,
    /// The session, when the payload named one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// The event (AIMON name).
    pub event: String,
    /// The tool, on tool events.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// The tool input's JSON, cut to 1 kB (`…` ends a cut one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<String>,
    /// The hook's id.
    pub hook: String,
    /// `file:line` of the handler (the file alone for a skill, or when the file changed since).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
    /// What the hook said: `deny`, `block`, `ask`, `defer`, `allow`, `rewrite`, `none`, `error`,
    /// `timeout`.
    pub outcome: String,
    /// Its reason or feedback, or why it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// How long the hook took, in milliseconds.
    pub elapsed_ms: f64,
    /// `enforced`, or `audit` when the decision was only logged.
    pub mode: String,
}

impl DecisionRecord {
    /// The line as a person reads it: an audited decision says what it would have done.
    pub fn render(&self) -> String {
        let outcome = if self.mode == AUDIT { format!("would {}", self.outcome) } else { self.outcome.clone() };
        let mut line = format!("{} {} {}", self.time, self.client, self.session.as_deref().unwrap_or("-"));
        line.push(' ');
        line.push_str(&self.event);
        if let Some(tool) = &self.tool {
            line.push(' ');
            line.push_str(tool);
        }
        line.push_str(&format!(": {outcome} by {}", self.hook));
        if let Some(at) = &self.at {
            line.push_str(&format!(" ({at})"));
        }
        line.push_str(&format!(" in {:.1} ms", self.elapsed_ms));
        if let Some(reason) = &self.reason {
            line.push_str(&format!(": {}", reason.replace('\n', " ")));
        }
        line
    }
}

/// The mode of an audited record.
pub const AUDIT: &str = "audit";
/// The mode of an enforced record.
pub const ENFORCED: &str = "enforced";

/// Where a log goes and when it rotates.
#[derive(Clone, Debug)]
pub struct LogOptions {
    /// The log file (`decisions.jsonl`).
    pub path: PathBuf,
    /// Rotate before a line would take the file past this size (50 MB).
    pub max_bytes: u64,
    /// Records waiting for the writer at most (more are dropped and counted).
    pub capacity: usize,
}

impl LogOptions {
    /// 50 MB files, 4096 records in flight.
    pub fn new(path: impl Into<PathBuf>) -> Self {
        LogOptions { path: path.into(), max_bytes: 50 * 1024 * 1024, capacity: 4096 }
    }

    /// The log's path from [`DECISION_LOG_ENV`], else `<home>/.aimon/decisions.jsonl`; `None`
    /// when it is `off` (or empty), or there is no home.
    pub fn path_from_env(home: Option<&Path>) -> Option<PathBuf> {
        match std::env::var_os(DECISION_LOG_ENV) {
            Some(v) if v == "off" || v.is_empty() => None,
            Some(v) => Some(PathBuf::from(v)),
            None => home.map(|h| hook_core::AimonDir::under(h).path().join("decisions.jsonl")),
        }
    }

    /// The files of the log, oldest first (`.2`, `.1`, the current one).
    pub fn files(&self) -> Vec<PathBuf> {
        (1..=2).rev().map(|k| rotated(&self.path, k)).chain([self.path.clone()]).collect()
    }
}

/// `<path>.<k>`.
pub(crate) fn rotated(path: &Path, k: u32) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(format!(".{k}"));
    PathBuf::from(name)
}

/// What the log did: lines written, records dropped because the channel was full, writes that
/// failed (their records are dropped too), rotations.
#[derive(Debug, Default)]
pub struct LogStats {
    /// Lines written.
    pub written: AtomicU64,
    /// Records dropped at a full channel.
    pub dropped: AtomicU64,
    /// Lines whose write failed.
    pub failed: AtomicU64,
    /// Rotations done.
    pub rotations: AtomicU64,
}

/// A record on its way to the writer: formatting waits for the writer thread.
pub(crate) struct Pending {
    pub(crate) time: SystemTime,
    pub(crate) client: &'static str,
    pub(crate) session: Option<String>,
    pub(crate) event: HookEventType,
    pub(crate) tool: Option<(String, Value)>,
    pub(crate) hook: String,
    pub(crate) at: Option<Arc<Located>>,
    pub(crate) outcome: &'static str,
    pub(crate) reason: Option<String>,
    pub(crate) elapsed: Duration,
    pub(crate) audit: bool,
}

pub(crate) enum Msg {
    Record(Box<Pending>),
    Flush(SyncSender<()>),
}

/// A decision log: a bounded channel in front of a writer thread. Cheap to share.
#[derive(Debug, Clone)]
pub struct DecisionLog {
    tx: SyncSender<Msg>,
    stats: Arc<LogStats>,
    path: PathBuf,
}

static INSTALLED: OnceLock<DecisionLog> = OnceLock::new();

impl DecisionLog {
    /// Starts the writer of `options`. The file is opened on the first line.
    pub fn open(options: LogOptions) -> std::io::Result<DecisionLog> {
        let (tx, rx) = std::sync::mpsc::sync_channel(options.capacity.max(1));
        let stats = Arc::new(LogStats::default());
        let path = options.path.clone();
        writer::spawn(options, rx, stats.clone())?;
        Ok(DecisionLog { tx, stats, path })
    }

    /// Makes `self` the log every declarative hook of this process records to; the first
    /// install wins (a second one is handed back).
    pub fn install(self) -> Result<&'static DecisionLog, DecisionLog> {
        let mut spare = Some(self);
        let installed = INSTALLED.get_or_init(|| spare.take().expect("taken once"));
        match spare {
            None => Ok(installed),
            Some(spare) => Err(spare),
        }
    }

    /// Opens and installs the log [`LogOptions::path_from_env`] names, when there is one; a log
    /// that cannot start is one WARN, never an error.
    pub fn install_from_env(home: Option<&Path>) -> Option<&'static DecisionLog> {
        if let Some(installed) = INSTALLED.get() {
            return Some(installed);
        }
        let path = LogOptions::path_from_env(home)?;
        match DecisionLog::open(LogOptions::new(path)) {
            Ok(log) => Some(log.install().unwrap_or_else(|_| INSTALLED.get().expect("installed"))),
            Err(e) => {
                tracing::warn!("hooks: the decision log cannot start ({e}); decisions are not logged");
                None
            }
        }
    }

    /// The installed log, if any.
    pub fn installed() -> Option<&'static DecisionLog> {
        INSTALLED.get()
    }

    /// The log's file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What it did so far.
    pub fn stats(&self) -> &LogStats {
        &self.stats
    }

    /// Hands a record to the writer, or counts it dropped; never waits.
    pub(crate) fn send(&self, pending: Pending) {
        if let Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) =
            self.tx.try_send(Msg::Record(Box::new(pending)))
        {
            self.stats.dropped.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Records one enforced decision given by a front end itself (not by a declarative hook).
    pub fn record(&self, ctx: &HookContext, hook: &str, result: &HookResult, elapsed: Duration) {
        self.send(pending(ctx, hook, None, result, elapsed, false));
    }

    /// Waits up to `timeout` until every record sent before is written (or dropped); `false`
    /// when the writer did not answer in time.
    pub fn flush(&self, timeout: Duration) -> bool {
        let (ack, done) = std::sync::mpsc::sync_channel(1);
        if self.tx.send(Msg::Flush(ack)).is_err() {
            return false;
        }
        done.recv_timeout(timeout).is_ok()
    }
}

/// Flushes the installed log, if any, for up to two seconds (a one-shot command's last act).
pub fn flush_installed() {
    if let Some(log) = INSTALLED.get() {
        log.flush(Duration::from_secs(2));
    }
}

/// What a hook result says, as one word.
pub fn outcome_word(result: &HookResult) -> &'static str {
    match (result.decision, result.flow) {
        (Decision::Deny, _) => "deny",
        (_, FlowControl::Block) => "block",
        (Decision::Ask, _) => "ask",
        (Decision::Defer, _) => "defer",
        (Decision::Allow, _) if result.failure.is_some() => "error",
        (Decision::Allow, _) if result.updated_input.is_some() || result.updated_output.is_some() => "rewrite",
        (Decision::Allow, _) if result.explicit_allow => "allow",
        (Decision::Allow, _) => "none",
    }
}

/// The record of `result` of hook `hook` for `ctx`.
pub(crate) fn pending(
    ctx: &HookContext,
    hook: &str,
    at: Option<Arc<Located>>,
    result: &HookResult,
    elapsed: Duration,
    audit: bool,
) -> Pending {
    let reason = result.feedback.clone().or_else(|| result.failure.clone()).or_else(|| result.stop_reason.clone());
    Pending {
        time: SystemTime::now(),
        client: client(),
        session: ctx.session_id.clone(),
        event: ctx.event,
        tool: ctx.tool.as_ref().map(|t| (t.name.clone(), t.input.clone())),
        hook: hook.to_owned(),
        at,
        outcome: outcome_word(result),
        reason,
        elapsed,
        audit,
    }
}

/// What an audit-mode hook would have done to a call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Audited {
    /// The event.
    pub event: HookEventType,
    /// The hook's id.
    pub hook: String,
    /// Its outcome word ([`outcome_word`]).
    pub outcome: &'static str,
}

/// What an evaluation runs under: its client, and what its audit-mode hooks decided.
struct Scope {
    client: &'static str,
    audited: RefCell<Vec<Audited>>,
}

tokio::task_local! {
    static SCOPE: Scope;
}

/// Runs `evaluation` as a call of `client` (`claude`, `aimon`, …); returns its output and the
/// decisions its audit-mode hooks made.
pub async fn scoped<F: Future>(client: &'static str, evaluation: F) -> (F::Output, Vec<Audited>) {
    let scope = Scope { client, audited: RefCell::new(Vec::new()) };
    SCOPE
        .scope(scope, async {
            let out = evaluation.await;
            let audited = SCOPE.with(|s| s.audited.take());
            (out, audited)
        })
        .await
}

/// The client of the current evaluation (`unknown` outside [`scoped`]).
fn client() -> &'static str {
    SCOPE.try_with(|s| s.client).unwrap_or("unknown")
}

/// Notes an audited decision in the current evaluation's scope.
pub(crate) fn note_audited(audited: Audited) {
    let _ = SCOPE.try_with(|s| s.audited.borrow_mut().push(audited));
}

/// Whether every hook of this process is in audit mode: `serve --audit` ([`audit_everything`]),
/// or `AIMON_AUDIT=1`.
pub fn audit_all() -> bool {
    static FROM_ENV: OnceLock<bool> = OnceLock::new();
    AUDIT_ALL.load(Ordering::Relaxed) != 0
        || *FROM_ENV.get_or_init(|| std::env::var_os("AIMON_AUDIT").is_some_and(|v| !v.is_empty() && v != "0"))
}

static AUDIT_ALL: AtomicU64 = AtomicU64::new(0);

/// Puts every hook of this process in audit mode (`serve --audit`).
pub fn audit_everything() {
    AUDIT_ALL.store(1, Ordering::Relaxed);
}

/// Reads the lines of a log file; a line that is not a record is `Err` with its text.
pub fn parse_line(line: &str) -> Result<DecisionRecord, String> {
    serde_json::from_str(line).map_err(|e| format!("{e}"))
}
