//! The decision log: every line arrives, rotation loses none, the file is private, a full
//! channel drops and counts, an audit-mode hook is logged with its file:line but says nothing,
//! and two engines of one process keep their own logs and audit switches (issue #42).

use std::os::unix::fs::PermissionsExt as _;
use std::sync::atomic::Ordering;
use std::time::Duration;

use hook_config::{
    Audited, BuildEnv, DecisionLog, DecisionRecord, DeclarativeHook, LogOptions, Recording, TierPaths, load_tiers,
};
use hook_core::{
    CancellationToken, ExecutionHook, HookContext, HookEngine, HookEventType, HookResult, ToolCall, Verdict,
};
use serde_json::json;

fn ctx(n: usize) -> HookContext {
    HookContext::new(HookEventType::PRE_TOOL)
        .with_tool(ToolCall::new("Bash", json!({"command": format!("echo {n}")})))
        .with_session(format!("s{n}"))
}

trait WithSession {
    fn with_session(self, id: String) -> Self;
}

impl WithSession for HookContext {
    fn with_session(mut self, id: String) -> Self {
        self.session_id = Some(id);
        self
    }
}

fn lines(options: &LogOptions) -> Vec<DecisionRecord> {
    options
        .files()
        .iter()
        .filter_map(|f| std::fs::read_to_string(f).ok())
        .flat_map(|text| text.lines().map(|l| hook_config::parse_line(l).expect("a record")).collect::<Vec<_>>())
        .collect()
}

fn numbered(n: usize) -> HookResult {
    HookResult::deny(format!("line {n}"))
}

#[test]
fn rotation_keeps_three_files_and_loses_no_line_between_them() {
    let dir = tempfile::tempdir().expect("dir");
    let mut options = LogOptions::new(dir.path().join("decisions.jsonl"));
    options.max_bytes = 4_000;
    options.capacity = 100_000;
    let log = DecisionLog::open(options.clone()).expect("opens");
    let sent = 60;
    for n in 0..sent {
        log.record(&ctx(n), "deny@project#0#1", &numbered(n), Duration::from_millis(1));
    }
    assert!(log.flush(Duration::from_secs(5)), "the writer answers");
    let stats = log.stats();
    assert_eq!(stats.written.load(Ordering::Relaxed), sent as u64);
    assert_eq!(stats.dropped.load(Ordering::Relaxed), 0);
    let rotations = stats.rotations.load(Ordering::Relaxed);
    assert!(rotations >= 3, "small files rotate: {rotations}");
    for file in options.files() {
        let size = std::fs::metadata(&file).expect("three files kept").len();
        assert!(size <= 4_000, "{} has {size} bytes", file.display());
    }
    assert!(!dir.path().join("decisions.jsonl.3").exists(), "no fourth file");
    // The kept lines are the last ones sent, every one of them, in order: no gap at a rotation.
    let kept: Vec<usize> = lines(&options)
        .iter()
        .map(|r| r.reason.as_deref().and_then(|r| r.strip_prefix("line ")).expect("reason").parse().expect("n"))
        .collect();
    assert!(kept.len() > 20, "{kept:?}");
    let first = kept[0];
    assert_eq!(kept, (first..sent).collect::<Vec<_>>());
}

#[test]
fn until_it_rotates_every_line_sent_is_in_the_files() {
    let dir = tempfile::tempdir().expect("dir");
    let mut options = LogOptions::new(dir.path().join("sub/decisions.jsonl"));
    options.max_bytes = 20_000;
    options.capacity = 100_000;
    let log = DecisionLog::open(options.clone()).expect("opens");
    for n in 0..50 {
        log.record(&ctx(n), "deny@project#0#1", &numbered(n), Duration::from_millis(1));
    }
    assert!(log.flush(Duration::from_secs(5)));
    let records = lines(&options);
    assert_eq!(records.len(), 50);
    assert_eq!(log.stats().rotations.load(Ordering::Relaxed), 0, "one file so far");
    let first = &records[0];
    assert_eq!(
        (first.client.as_str(), first.session.as_deref(), first.event.as_str(), first.tool.as_deref()),
        ("unknown", Some("s0"), "preTool", Some("Bash"))
    );
    assert_eq!((first.outcome.as_str(), first.mode.as_str()), ("deny", "enforced"));
    assert_eq!(first.input.as_deref(), Some(r#"{"command":"echo 0"}"#));
    let mode = std::fs::metadata(&options.path).expect("file").permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
}

#[test]
fn a_tool_input_is_cut_to_one_kilobyte() {
    let dir = tempfile::tempdir().expect("dir");
    let options = LogOptions::new(dir.path().join("decisions.jsonl"));
    let log = DecisionLog::open(options.clone()).expect("opens");
    let ctx = HookContext::new(HookEventType::PRE_TOOL)
        .with_tool(ToolCall::new("Write", json!({"content": "é".repeat(5000)})));
    log.record(&ctx, "h", &HookResult::allow(), Duration::ZERO);
    assert!(log.flush(Duration::from_secs(5)));
    let input = lines(&options).remove(0).input.expect("input");
    assert!(input.len() <= 1024 && input.len() > 1000, "{}", input.len());
    assert!(input.ends_with('…'));
}

#[test]
fn a_full_channel_drops_and_counts_instead_of_waiting() {
    let dir = tempfile::tempdir().expect("dir");
    let mut options = LogOptions::new(dir.path().join("decisions.jsonl"));
    options.capacity = 1;
    let log = DecisionLog::open(options).expect("opens");
    let sent = 5_000u64;
    let started = std::time::Instant::now();
    for n in 0..sent {
        log.record(&ctx(n as usize), "h", &numbered(n as usize), Duration::ZERO);
    }
    let took = started.elapsed();
    assert!(log.flush(Duration::from_secs(5)));
    let (written, dropped) = (log.stats().written.load(Ordering::Relaxed), log.stats().dropped.load(Ordering::Relaxed));
    assert_eq!(written + dropped, sent);
    assert!(dropped > 0, "a one-record channel overflows ({written} written in {took:?})");
}

#[test]
fn a_write_that_fails_is_counted_and_the_decision_goes_on() {
    let dir = tempfile::tempdir().expect("dir");
    // The log's directory is a file: every write fails.
    std::fs::write(dir.path().join("blocker"), "").expect("file");
    let log = DecisionLog::open(LogOptions::new(dir.path().join("blocker/decisions.jsonl"))).expect("opens");
    log.record(&ctx(1), "h", &HookResult::allow(), Duration::ZERO);
    assert!(log.flush(Duration::from_secs(5)));
    assert_eq!(log.stats().failed.load(Ordering::Relaxed), 1);
}

fn engine_of(project: &std::path::Path, recording: Recording) -> (HookEngine, Vec<std::sync::Arc<DeclarativeHook>>) {
    let paths = TierPaths::new(None, project);
    let (config, _) = load_tiers(&paths).expect("loads");
    let hooks = config.into_hooks(&BuildEnv::new(&paths).with_recording(recording));
    let registry = std::sync::Arc::new(hook_core::HookRegistry::new());
    for (event, hook) in &hooks {
        registry.register(*event, hook.clone() as std::sync::Arc<dyn ExecutionHook>);
    }
    (HookEngine::new(registry), hooks.into_iter().map(|(_, h)| h).collect())
}

fn project_with(dir: &std::path::Path, name: &str, text: &str) -> std::path::PathBuf {
    let project = dir.join(name);
    std::fs::create_dir_all(project.join(".aimon")).expect("mkdir");
    std::fs::write(project.join(".aimon/hooks.json"), text).expect("write");
    project
}

#[tokio::test]
async fn an_audit_mode_deny_is_logged_as_audit_with_its_file_and_line_and_answers_nothing() {
    let dir = tempfile::tempdir().expect("dir");
    let text = "{\"hooks\": {\"PreToolUse\": [\n  {\"matcher\": \"Bash\", \"hooks\": [\n    {\"type\": \"deny\", \"reason\": \"audited\", \"mode\": \"audit\"},\n    {\"type\": \"deny\", \"reason\": \"enforced\", \"if\": \"Bash(rm *)\"}\n  ]}\n]}}\n";
    let project = project_with(dir.path(), "project", text);
    let options = LogOptions::new(dir.path().join("decisions.jsonl"));
    let log = DecisionLog::open(options.clone()).expect("opens");
    let audited = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let counted = audited.clone();
    let recording = Recording::new()
        .with_log(Some(log.clone()))
        .with_audit_counter(std::sync::Arc::new(move |a: &Audited| counted.lock().expect("lock").push(a.clone())));
    let (engine, hooks) = engine_of(&project, recording);
    assert_eq!(hooks[0].location(), Some(format!("{}:3", project.join(".aimon/hooks.json").display())));
    let verdict = engine.run_event(&ctx(7).with_client("claude"), &CancellationToken::new()).await;
    assert_eq!(verdict.outcome, Verdict::Proceed, "an audited deny lets the call run");
    {
        let audited = audited.lock().expect("lock");
        assert_eq!(audited.len(), 1);
        assert_eq!(audited[0].outcome, "deny");
    }
    let rm = HookContext::new(HookEventType::PRE_TOOL)
        .with_tool(ToolCall::new("Bash", json!({"command": "rm x"})))
        .with_client("claude");
    let denied = engine.run_event(&rm, &CancellationToken::new()).await;
    assert_eq!(denied.outcome, Verdict::Denied, "the enforced one still binds");
    assert!(log.flush(Duration::from_secs(5)));
    let records = lines(&options);
    assert_eq!(records.len(), 3, "{records:?}");
    let audit = &records[0];
    assert_eq!((audit.mode.as_str(), audit.outcome.as_str(), audit.client.as_str()), ("audit", "deny", "claude"));
    assert_eq!(audit.at, Some(format!("{}:3", project.join(".aimon/hooks.json").display())));
    assert!(audit.render().contains(": would deny by deny@project#0#"), "{}", audit.render());
    assert_eq!(records[2].at, Some(format!("{}:4", project.join(".aimon/hooks.json").display())));
    assert_eq!(records[2].mode, "enforced");
}

/// Issue #42: the log and the audit switch are the build's, not the process's.
#[tokio::test]
async fn two_engines_in_one_process_keep_their_own_log_and_audit_switch() {
    let dir = tempfile::tempdir().expect("dir");
    let rule = r#"{"hooks": {"PreToolUse": [{"matcher": "Bash(git push:*)", "hooks": [{"type": "deny", "reason": "no pushes"}]}]}}"#;
    let project = project_with(dir.path(), "project", rule);
    let (audit_file, enforce_file) = (dir.path().join("audit.jsonl"), dir.path().join("enforce.jsonl"));
    // One engine on a daemon's threaded log, auditing everything; one on a one-shot log, enforcing.
    let audit_log = DecisionLog::open(LogOptions::new(&audit_file)).expect("opens");
    let enforce_log = DecisionLog::open_one_shot(LogOptions::new(&enforce_file));
    let (auditing, audit_hooks) =
        engine_of(&project, Recording::new().with_log(Some(audit_log.clone())).with_audit_all(true));
    let (enforcing, enforce_hooks) = engine_of(&project, Recording::new().with_log(Some(enforce_log.clone())));
    assert!(audit_hooks.iter().all(|h| h.audited()) && !enforce_hooks.iter().any(|h| h.audited()));
    let push = HookContext::new(HookEventType::PRE_TOOL)
        .with_tool(ToolCall::new("Bash", json!({"command": "git push origin main"})));
    let audited = auditing.run_event(&push.clone().with_client("codex"), &CancellationToken::new()).await;
    let denied = enforcing.run_event(&push.with_client("claude"), &CancellationToken::new()).await;
    assert_eq!((audited.outcome, denied.outcome), (Verdict::Proceed, Verdict::Denied));
    // The one-shot log holds its line until it is flushed or let go of; the hooks hold it too.
    assert!(!enforce_file.exists(), "nothing written before the one-shot log is let go of");
    drop((enforcing, enforce_hooks, enforce_log));
    assert!(audit_log.flush(Duration::from_secs(5)));
    let read = |file: &std::path::Path| -> Vec<DecisionRecord> {
        std::fs::read_to_string(file)
            .expect("the log file")
            .lines()
            .map(|l| hook_config::parse_line(l).expect("a record"))
            .collect()
    };
    let (audit, enforce) = (read(&audit_file), read(&enforce_file));
    assert_eq!(audit.len(), 1, "{audit:?}");
    assert_eq!(enforce.len(), 1, "{enforce:?}");
    assert_eq!(
        (audit[0].client.as_str(), audit[0].outcome.as_str(), audit[0].mode.as_str()),
        ("codex", "deny", "audit")
    );
    assert_eq!(
        (enforce[0].client.as_str(), enforce[0].outcome.as_str(), enforce[0].mode.as_str()),
        ("claude", "deny", "enforced")
    );
}

#[test]
fn a_one_shot_log_writes_its_lines_when_its_last_clone_is_dropped() {
    let dir = tempfile::tempdir().expect("dir");
    let options = LogOptions::new(dir.path().join("sub/decisions.jsonl"));
    let log = DecisionLog::open_one_shot(options.clone());
    let held = log.clone();
    log.record(&ctx(1), "h", &numbered(1), Duration::ZERO);
    drop(log);
    assert!(!options.path.exists(), "a clone still holds the line");
    drop(held);
    let records = lines(&options);
    assert_eq!(records.len(), 1);
    assert_eq!(records[0].reason.as_deref(), Some("line 1"));
}

#[test]
fn a_threaded_log_writes_its_last_lines_when_its_last_clone_is_dropped() {
    let dir = tempfile::tempdir().expect("dir");
    let options = LogOptions::new(dir.path().join("decisions.jsonl"));
    let log = DecisionLog::open(options.clone()).expect("opens");
    for n in 0..5 {
        log.record(&ctx(n), "h", &numbered(n), Duration::ZERO);
    }
    drop(log);
    assert_eq!(lines(&options).len(), 5, "no flush: the drop waited for the writer");
}

#[test]
fn the_log_path_comes_from_the_callers_setting_not_the_environment() {
    use std::ffi::OsStr;
    let home = std::path::Path::new("/home/someone");
    let cases: [(Option<&str>, Option<&str>); 4] = [
        (None, Some("/home/someone/.aimon/decisions.jsonl")),
        (Some("off"), None),
        (Some(""), None),
        (Some("/var/log/d.jsonl"), Some("/var/log/d.jsonl")),
    ];
    for (setting, want) in cases {
        let got = LogOptions::path_from(setting.map(OsStr::new), Some(home));
        assert_eq!(got.as_deref(), want.map(std::path::Path::new), "{setting:?}");
    }
    assert_eq!(LogOptions::path_from(None, None), None, "no home, no default");
}
