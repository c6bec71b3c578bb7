//! The decision log: every line arrives, rotation loses none, the file is private, a full
//! channel drops and counts, and an audit-mode hook is logged with its file:line but says nothing.

use std::os::unix::fs::PermissionsExt as _;
use std::sync::atomic::Ordering;
use std::time::Duration;

use hook_config::{BuildEnv, DecisionLog, DecisionRecord, LogOptions, TierPaths, load_tiers};
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

/// The one test of this binary that installs the process's log.
#[tokio::test]
async fn an_audit_mode_deny_is_logged_as_audit_with_its_file_and_line_and_answers_nothing() {
    let dir = tempfile::tempdir().expect("dir");
    let project = dir.path().join("project");
    std::fs::create_dir_all(project.join(".aimon")).expect("mkdir");
    let text = "{\"hooks\": {\"PreToolUse\": [\n  {\"matcher\": \"Bash\", \"hooks\": [\n    {\"type\": \"deny\", \"reason\": \"audited\", \"mode\": \"audit\"},\n    {\"type\": \"deny\", \"reason\": \"enforced\", \"if\": \"Bash(rm *)\"}\n  ]}\n]}}\n";
    std::fs::write(project.join(".aimon/hooks.json"), text).expect("write");
    let options = LogOptions::new(dir.path().join("decisions.jsonl"));
    let log = DecisionLog::open(options.clone()).expect("opens").install().expect("the first install");
    let paths = TierPaths::new(None, &project);
    let (config, _) = load_tiers(&paths).expect("loads");
    let hooks = config.into_hooks(&BuildEnv::new(&paths));
    assert_eq!(hooks[0].1.location(), Some(format!("{}:3", project.join(".aimon/hooks.json").display())));
    let registry = std::sync::Arc::new(hook_core::HookRegistry::new());
    for (event, hook) in &hooks {
        registry.register(*event, hook.clone() as std::sync::Arc<dyn ExecutionHook>);
    }
    let engine = HookEngine::new(registry);
    let (verdict, audited) = hook_config::scoped("claude", engine.run_event(&ctx(7), &CancellationToken::new())).await;
    assert_eq!(verdict.outcome, Verdict::Proceed, "an audited deny lets the call run");
    assert_eq!(audited.len(), 1);
    assert_eq!(audited[0].outcome, "deny");
    let (denied, _) = hook_config::scoped(
        "claude",
        engine.run_event(
            &HookContext::new(HookEventType::PRE_TOOL).with_tool(ToolCall::new("Bash", json!({"command": "rm x"}))),
            &CancellationToken::new(),
        ),
    )
    .await;
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
