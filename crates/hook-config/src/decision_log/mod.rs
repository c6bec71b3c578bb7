//! The decision log, `~/.aimon/decisions.jsonl`: one JSON line per hook decision.
//!
//! Every declarative hook that runs sends one [`DecisionRecord`] (time, client, session, event,
//! tool, the tool input cut to 1 kB, hook id, the file:line it came from, outcome, reason,
//! elapsed, `audit` or `enforced`) to the [`DecisionLog`] of its build, when it has one: the log
//! and the audit-all switch are values of the build environment ([`Recording`], carried by
//! `BuildEnv`), so two engines of one process keep theirs apart; nothing here is process-wide
//! and nothing reads the process environment (the caller resolves `AIMON_DECISION_LOG` and
//! `AIMON_AUDIT`, [`LogOptions::path_from`]). Recording never fails a decision. A daemon's log
//! ([`DecisionLog::open`]) sends each record through a bounded channel to a writer thread, which
//! gathers the lines of 10 ms and writes them at once; a full channel is counted ([`LogStats`])
//! and the record dropped. A one-shot command's log ([`DecisionLog::open_one_shot`]) has no
//! thread: it keeps its records and writes them in the caller's thread when flushed or when its
//! last clone is dropped, after the answer went out. Either way the last clone dropped writes
//! what is left (the writer thread is waited for up to two seconds).
//! The writer appends with mode 0600 and rotates at [`LogOptions::max_bytes`] (50 MB), keeping
//! three files (`decisions.jsonl`, `.1`, `.2`); a rotation happens between two lines, so it loses
//! none.
//!
//! Which client a decision answers is the call's: [`hook_core::HookContext::client`]. The
//! decisions of audit-mode hooks are handed to the [`Recording`]'s counter, when it has one
//! (`serve`'s `/metrics`, `mode="audit"`).

mod writer;

use std::ffi::OsStr;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use hook_core::{Decision, FlowControl, HookContext, HookEventType, HookResult};
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub(crate) use writer::{Located, SourceFile};

/// The environment variable naming the log's path, or `off` (read by the binary, not here).
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

    /// The log's path from `setting` (the value of [`DECISION_LOG_ENV`], as the caller read
    /// it), else `<home>/.aimon/decisions.jsonl`; `None` when it is `off` (or empty), or there
    /// is no home.
    pub fn path_from(setting: Option<&OsStr>, home: Option<&Path>) -> Option<PathBuf> {
        match setting {
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

/// A decision log: a writer thread behind a bounded channel ([`DecisionLog::open`]), or records
/// kept until the caller writes them ([`DecisionLog::open_one_shot`]). Cheap to share; the last
/// clone dropped writes what is left.
#[derive(Clone)]
pub struct DecisionLog {
    inner: Arc<Inner>,
}

struct Inner {
    sink: Sink,
    stats: Arc<LogStats>,
    path: PathBuf,
}

enum Sink {
    /// A writer thread batching the lines of 10 ms (a daemon); it says on `done` when it ended.
    Thread { tx: Option<SyncSender<Msg>>, done: Mutex<Receiver<()>> },
    /// Records kept until a flush or the last clone's drop, then written in that thread (a
    /// one-shot command: its answer goes out before the line is written).
    Held(Mutex<Held>),
}

struct Held {
    writer: writer::Writer,
    records: Vec<Pending>,
}

impl Held {
    fn write_all(&mut self) {
        for pending in std::mem::take(&mut self.records) {
            self.writer.record(&pending);
        }
        self.writer.flush();
    }
}

impl fmt::Debug for DecisionLog {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.inner.sink {
            Sink::Thread { .. } => "thread",
            Sink::Held(_) => "one-shot",
        };
        f.debug_struct("DecisionLog").field("path", &self.inner.path).field("writer", &kind).finish()
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        match &mut self.sink {
            Sink::Thread { tx, done } => {
                // The last sender gone, the writer writes what it has and ends.
                drop(tx.take());
                if let Ok(done) = done.get_mut() {
                    let _ = done.recv_timeout(Duration::from_secs(2));
                }
            }
            Sink::Held(held) => {
                if let Ok(held) = held.get_mut() {
                    held.write_all();
                }
            }
        }
    }
}

impl DecisionLog {
    /// Starts the writer thread of `options` (a daemon's log: lines batched). The file is opened
    /// on the first line.
    pub fn open(options: LogOptions) -> std::io::Result<DecisionLog> {
        let (tx, rx) = std::sync::mpsc::sync_channel(options.capacity.max(1));
        let (done_tx, done) = std::sync::mpsc::sync_channel(1);
        let stats = Arc::new(LogStats::default());
        let path = options.path.clone();
        writer::spawn(options, rx, stats.clone(), done_tx)?;
        let sink = Sink::Thread { tx: Some(tx), done: Mutex::new(done) };
        Ok(DecisionLog { inner: Arc::new(Inner { sink, stats, path }) })
    }

    /// A one-shot command's log: no thread; records are kept (at most `options.capacity`, more
    /// are dropped and counted) and written in the caller's thread by [`DecisionLog::flush`] or
    /// when the last clone is dropped. The file is opened on the first line.
    pub fn open_one_shot(options: LogOptions) -> DecisionLog {
        let stats = Arc::new(LogStats::default());
        let path = options.path.clone();
        let held = Held { writer: writer::Writer::new(options, stats.clone()), records: Vec::new() };
        DecisionLog { inner: Arc::new(Inner { sink: Sink::Held(Mutex::new(held)), stats, path }) }
    }

    /// The log's file.
    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    /// What it did so far.
    pub fn stats(&self) -> &LogStats {
        &self.inner.stats
    }

    /// Hands a record to the writer, or counts it dropped; never waits for a write.
    pub(crate) fn send(&self, pending: Pending) {
        let kept = match &self.inner.sink {
            Sink::Thread { tx: Some(tx), .. } => tx.try_send(Msg::Record(Box::new(pending))).is_ok(),
            Sink::Thread { tx: None, .. } => false,
            Sink::Held(held) => match held.lock() {
                Ok(mut held) if held.records.len() < held.writer.capacity() => {
                    held.records.push(pending);
                    true
                }
                _ => false,
            },
        };
        if !kept {
            self.inner.stats.dropped.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Records one enforced decision given by a front end itself (not by a declarative hook).
    pub fn record(&self, ctx: &HookContext, hook: &str, result: &HookResult, elapsed: Duration) {
        self.send(pending(ctx, hook, None, result, elapsed, false));
    }

    /// Waits up to `timeout` until every record sent before is written (or dropped); `false`
    /// when the writer did not answer in time. A one-shot log writes them now.
    pub fn flush(&self, timeout: Duration) -> bool {
        match &self.inner.sink {
            Sink::Thread { tx: Some(tx), .. } => {
                let (ack, done) = std::sync::mpsc::sync_channel(1);
                if tx.send(Msg::Flush(ack)).is_err() {
                    return false;
                }
                done.recv_timeout(timeout).is_ok()
            }
            Sink::Thread { tx: None, .. } => false,
            Sink::Held(held) => match held.lock() {
                Ok(mut held) => {
                    held.write_all();
                    true
                }
                Err(_) => false,
            },
        }
    }
}

/// What the hooks of one build record their decisions to: a [`DecisionLog`] (or none), whether
/// every hook is in audit mode (`serve --audit`, `AIMON_AUDIT=1` as the caller read it), and who
/// counts the decisions of audit-mode hooks. Carried by `BuildEnv` into every hook it builds.
#[derive(Clone, Default)]
pub struct Recording {
    log: Option<DecisionLog>,
    audit_all: bool,
    counter: Option<AuditCounter>,
}

/// Called with each decision an audit-mode hook made.
pub type AuditCounter = Arc<dyn Fn(&Audited) + Send + Sync>;

impl fmt::Debug for Recording {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Recording")
            .field("log", &self.log)
            .field("audit_all", &self.audit_all)
            .field("counter", &self.counter.is_some())
            .finish()
    }
}

impl Recording {
    /// No log, nothing audited beyond `"mode": "audit"` handlers, nothing counted.
    pub fn new() -> Self {
        Recording::default()
    }

    /// Records to `log` (none: decisions are not logged).
    pub fn with_log(mut self, log: Option<DecisionLog>) -> Self {
        self.log = log;
        self
    }

    /// Puts every hook in audit mode, or not.
    pub fn with_audit_all(mut self, on: bool) -> Self {
        self.audit_all = on;
        self
    }

    /// Hands each decision of an audit-mode hook to `counter`.
    pub fn with_audit_counter(mut self, counter: AuditCounter) -> Self {
        self.counter = Some(counter);
        self
    }

    /// The log, if any.
    pub fn log(&self) -> Option<&DecisionLog> {
        self.log.as_ref()
    }

    /// Whether every hook is in audit mode.
    pub fn audits_all(&self) -> bool {
        self.audit_all
    }

    /// Counts an audited decision.
    pub(crate) fn count_audited(&self, audited: Audited) {
        if let Some(counter) = &self.counter {
            counter(&audited);
        }
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
        client: ctx.client.unwrap_or("unknown"),
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

/// Reads the lines of a log file; a line that is not a record is `Err` with its text.
pub fn parse_line(line: &str) -> Result<DecisionRecord, String> {
    serde_json::from_str(line).map_err(|e| format!("{e}"))
}
