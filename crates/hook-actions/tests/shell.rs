//! Shell hooks as real processes (R-ACT-SH, R-CC-1/2/4, R-CFG-4c, R-EXEC-5, REL-2, REL-4).
//!
//! Contents: exit codes; the decision channel per event; Claude Code JSON on stdout; stdin and
//! environment; working directory; timeout, cancellation and process groups; output floods;
//! hostile tool input; failClosed.

use std::path::Path;
use std::time::{Duration, Instant};

use hook_actions::{MAX_REASON_CHARS, ShellAction, ShellSpec};
use std::sync::Arc;

use hook_core::{
    CancellationToken, Decision, ExecutionHook, FlowControl, HookContext, HookEventType, HookExecutionPolicy,
    HookExecutor, HookResult, ToolCall,
};
use serde_json::{Value, json};

fn pre_tool() -> HookContext {
    HookContext::new(HookEventType::PRE_TOOL).with_tool(ToolCall::new("Bash", json!({"command": "ls"})))
}

async fn run_spec(ctx: &HookContext, spec: ShellSpec) -> HookResult {
    ShellAction::new("command@test#0", "test#0", spec).execute(ctx).await.expect("a shell hook never errors")
}

async fn run(ctx: &HookContext, command: &str) -> HookResult {
    run_spec(ctx, ShellSpec::new(command)).await
}

type Axes = (Decision, FlowControl);

fn axes(r: &HookResult) -> Axes {
    (r.decision, r.flow)
}

const ALLOW: Axes = (Decision::Allow, FlowControl::Continue);
const BLOCK: Axes = (Decision::Allow, FlowControl::Block);
const DENY: Axes = (Decision::Deny, FlowControl::Continue);
const ASK: Axes = (Decision::Ask, FlowControl::Continue);

#[tokio::test]
async fn exit_codes_follow_the_seed_rules_on_pre_tool() {
    // R-ACT-SH-3: (command, axes, feedback, failure recorded).
    #[rustfmt::skip]
    let cases: &[(&str, Axes, Option<&str>, Option<&str>)] = &[
        ("exit 0", ALLOW, None, None),
        ("echo 'rm is not allowed' >&2; exit 2", BLOCK, Some("rm is not allowed"), None),
        ("echo broken >&2; exit 1", ALLOW, None, Some("exited with status 1: broken")),
        ("no-such-command-xyz", ALLOW, None, Some("exited with status 127: sh: 1: no-such-command-xyz: not found")),
        ("kill -9 $$", ALLOW, None, Some("crashed: signal: 9 (SIGKILL)")),
    ];
    for (command, want, feedback, failure) in cases {
        let r = run(&pre_tool(), command).await;
        let failure_prefix = r.failure.as_deref().map(|f| &f[..failure.map_or(f.len(), str::len).min(f.len())]);
        assert_eq!((axes(&r), r.feedback.as_deref(), failure_prefix), (*want, *feedback, *failure), "{command}");
    }
}

#[tokio::test]
async fn exit_2_acts_on_the_decision_channel_of_each_event() {
    // R-ACT-SH-3 and the postTool clause (a block the chain ignores, whose reason reaches the
    // model): (event, axes, feedback).
    #[rustfmt::skip]
    let cases = [
        (HookEventType::PRE_TOOL, BLOCK, Some("no")),
        (HookEventType::ON_START, BLOCK, Some("no")),
        (HookEventType::PRE_COMPACT, BLOCK, Some("no")),
        (HookEventType::PERMISSION_REQUEST, DENY, Some("no")),
        (HookEventType::POST_TOOL, BLOCK, Some("no")),
        (HookEventType::ON_STOP, BLOCK, Some("no")),
        (HookEventType::TEAMMATE_IDLE, BLOCK, Some("no")),
        (HookEventType::USER_PROMPT_SUBMIT, BLOCK, Some("no")),
        (HookEventType::ON_SESSION_END, ALLOW, None),
    ];
    for (event, want, feedback) in cases {
        let r = run(&HookContext::new(event), "echo no >&2; exit 2").await;
        assert_eq!((axes(&r), r.feedback.as_deref(), r.failure.as_deref()), (want, feedback, None), "{event}");
    }
}

#[tokio::test]
async fn an_exit_2_reason_is_clamped_at_4000_characters() {
    let r = run(&pre_tool(), "head -c 9000 /dev/zero | tr '\\0' x >&2; exit 2").await;
    let reason = r.feedback.expect("reason");
    assert_eq!(reason.chars().count(), MAX_REASON_CHARS);
    let (kept, marker) = reason.split_once('\n').expect("a marker line");
    assert!(kept.chars().all(|c| c == 'x'), "{kept}");
    assert_eq!(marker, "[… cut at 4000 characters]");
}

#[tokio::test]
async fn claude_code_json_on_stdout_decides_in_each_form() {
    // R-CC-2: (event, stdout JSON, exit code, axes, feedback).
    #[rustfmt::skip]
    let cases: &[(HookEventType, &str, i32, Axes, Option<&str>)] = &[
        (HookEventType::PRE_TOOL, r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"nope"}}"#, 0, DENY, Some("nope")),
        (HookEventType::PRE_TOOL, r#"{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"check"}}"#, 0, ASK, Some("check")),
        (HookEventType::PRE_TOOL, r#"{"hookSpecificOutput":{"permissionDecision":"allow"}}"#, 0, ALLOW, None),
        (HookEventType::PRE_TOOL, r#"{"decision":"approve"}"#, 0, ALLOW, None),
        (HookEventType::PRE_TOOL, r#"{"decision":"block","reason":"legacy"}"#, 0, DENY, Some("legacy")),
        (HookEventType::PRE_COMPACT, r#"{"decision":"block","reason":"busy"}"#, 0, BLOCK, Some("busy")),
        (HookEventType::POST_TOOL, r#"{"decision":"block","reason":"check the output"}"#, 0, BLOCK, Some("check the output")),
        (HookEventType::ON_STOP, r#"{"decision":"block","reason":"keep going"}"#, 0, BLOCK, Some("keep going")),
        (HookEventType::PERMISSION_REQUEST, r#"{"hookSpecificOutput":{"decision":{"behavior":"deny","message":"no way"}}}"#, 0, DENY, Some("no way")),
        (HookEventType::PERMISSION_REQUEST, r#"{"hookSpecificOutput":{"decision":{"behavior":"allow"}}}"#, 0, ALLOW, None),
        (HookEventType::ON_START, r#"{"continue":false,"stopReason":"maintenance"}"#, 0, BLOCK, Some("maintenance")),
        (HookEventType::PRE_TOOL, r#"{"hookSpecificOutput":{"additionalContext":"remember the tests"}}"#, 0, ALLOW, Some("remember the tests")),
        // Other non-zero exits: valid JSON decides.
        (HookEventType::PRE_TOOL, r#"{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"json wins"}}"#, 1, DENY, Some("json wins")),
        // Leading blank lines are fine: the first non-blank character is `{`.
        (HookEventType::PRE_TOOL, "\n  {\"decision\":\"deny\",\"reason\":\"spaced\"}", 0, DENY, Some("spaced")),
    ];
    for (event, stdout, code, want, feedback) in cases {
        let ctx = HookContext::new(*event).with_tool(ToolCall::new("Bash", json!({})));
        let command = format!("cat <<'JSON'\n{stdout}\nJSON\nexit {code}");
        let r = run(&ctx, &command).await;
        assert_eq!((axes(&r), r.feedback.as_deref(), r.failure.as_deref()), (*want, *feedback, None), "{stdout}");
    }
}

#[tokio::test]
async fn json_updates_and_system_message_come_through() {
    let command = r#"echo '{"systemMessage":"rewrote it","hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"command":"ls -la"}}}'"#;
    let r = run(&pre_tool(), command).await;
    assert_eq!(r.updated_input, Some(json!({"command": "ls -la"})));
    assert_eq!(r.system_message.as_deref(), Some("rewrote it"));
    assert_eq!(r.feedback, None);

    let ctx = HookContext::new(HookEventType::POST_TOOL).with_tool(ToolCall::new("Bash", json!({})));
    let r = run(&ctx, r#"echo '{"hookSpecificOutput":{"updatedToolOutput":{"stdout":"redacted"}}}'"#).await;
    assert_eq!(r.updated_output, Some(json!({"stdout": "redacted"})));

    // A block without a reason uses the system message as its reason (R-CC-2).
    let r = run(&pre_tool(), r#"echo '{"systemMessage":"policy says no","decision":"deny"}'"#).await;
    assert_eq!((r.decision, r.feedback.as_deref()), (Decision::Deny, Some("policy says no")));
}

#[tokio::test]
async fn json_allow_with_exit_2_still_blocks_with_the_stderr_reason() {
    // R-CC-2: exit 2 always vetoes; the reason is stderr unless the JSON makes a blocking one.
    let command = r#"echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'; echo 'stderr says no' >&2; exit 2"#;
    let r = run(&pre_tool(), command).await;
    assert_eq!((axes(&r), r.feedback.as_deref()), (BLOCK, Some("stderr says no")));
    let command = r#"echo '{"decision":"block","reason":"json says no"}'; echo 'stderr' >&2; exit 2"#;
    let r = run(&HookContext::new(HookEventType::PRE_COMPACT), command).await;
    assert_eq!((axes(&r), r.feedback.as_deref()), (BLOCK, Some("json says no")));
}

#[tokio::test]
async fn exit_2_with_a_json_decision_keeps_the_veto_and_the_json_decision() {
    // R-CC-7: (stdout JSON, axes, reason), each with stderr "stderr" and exit 2.
    #[rustfmt::skip]
    let cases: &[(&str, Axes, &str)] = &[
        (r#"{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"json deny"}}"#, DENY, "json deny"),
        (r#"{"decision":"deny","reason":"seed deny"}"#, DENY, "seed deny"),
        (r#"{"decision":"block","reason":"legacy block"}"#, DENY, "legacy block"),
        (r#"{"hookSpecificOutput":{"permissionDecision":"deny"}}"#, DENY, "stderr"),
        (r#"{"hookSpecificOutput":{"permissionDecision":"allow"}}"#, BLOCK, "stderr"),
        (r#"{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"sure?"}}"#, BLOCK, "stderr"),
    ];
    for (stdout, want, reason) in cases {
        let command = format!("echo '{stdout}'; echo stderr >&2; exit 2");
        let r = run(&pre_tool(), &command).await;
        assert_eq!((axes(&r), r.feedback.as_deref()), (*want, Some(*reason)), "{stdout}");
    }
}

#[tokio::test]
async fn non_json_stdout_is_ignored() {
    // Plain text, a JSON array and broken JSON are all plain text (R-CC-2).
    for command in ["echo hello world", "echo '[1,2]'", "echo '{not json'", "echo '\"deny\"'"] {
        let r = run(&pre_tool(), command).await;
        assert_eq!(r, HookResult::allow(), "{command}");
    }
}

#[tokio::test]
async fn stdin_and_environment_come_from_one_map_and_the_parent_env_is_inherited() {
    // R-ACT-SH-2, R-ACT-SH-2b, R-CC-1, R-CC-4.
    let dir = tempfile::tempdir().expect("tempdir");
    let mut tool = ToolCall::new("Write", json!({"file_path": "/tmp/x", "content": "hi"}));
    tool.use_id = Some("toolu_9".into());
    let mut ctx = HookContext::new(HookEventType::PRE_TOOL).with_tool(tool);
    ctx.session_id = Some("sess-1".into());
    ctx.project_dir = Some(dir.path().to_path_buf());
    ctx.permission_mode = Some("default".into());
    let command = "IFS= read -r line; printf '%s' \"$line\" > stdin.json; \
                   env | grep -E '^(AIMON_|HOME=)' | sort > env.txt";
    let r = run(&ctx, command).await;
    assert_eq!(r, HookResult::allow());

    let stdin: Value = serde_json::from_str(&std::fs::read_to_string(dir.path().join("stdin.json")).expect("stdin"))
        .expect("one JSON line");
    assert_eq!(stdin["hook_event_name"], "PreToolUse");
    assert_eq!(stdin["event"], "preTool");
    assert_eq!(stdin["tool_name"], "Write");
    assert_eq!(stdin["tool_input"], json!({"file_path": "/tmp/x", "content": "hi"}));
    assert_eq!(stdin["tool_use_id"], "toolu_9");
    assert_eq!(stdin["session_id"], "sess-1");
    assert_eq!(stdin["permission_mode"], "default");
    assert_eq!(stdin["project_dir"], dir.path().display().to_string());
    assert!(stdin.get("transcript_path").is_none(), "unknown values are omitted");

    let env = std::fs::read_to_string(dir.path().join("env.txt")).expect("env");
    let home = std::env::var("HOME").expect("HOME is set");
    for line in [
        "AIMON_EVENT=preTool".to_owned(),
        "AIMON_TOOL_NAME=Write".to_owned(),
        "AIMON_TOOL_USE_ID=toolu_9".to_owned(),
        "AIMON_SESSION_ID=sess-1".to_owned(),
        "AIMON_SKILL_NAME=test#0".to_owned(),
        format!("AIMON_PROJECT_DIR={}", dir.path().display()),
        format!("HOME={home}"),
    ] {
        assert!(env.lines().any(|l| l == line), "{line} missing from\n{env}");
    }
    // Every AIMON_ variable is a key of the stdin JSON with the same value.
    for l in env.lines().filter_map(|l| l.strip_prefix("AIMON_")) {
        let (key, value) = l.split_once('=').expect("name=value");
        let json_value = &stdin[key.to_ascii_lowercase()];
        let json_text = json_value.as_str().map_or_else(|| json_value.to_string(), str::to_owned);
        assert_eq!(json_text, value, "AIMON_{key}");
    }
}

#[tokio::test]
async fn the_command_runs_in_the_context_cwd_else_the_project_dir() {
    let cwd = tempfile::tempdir().expect("tempdir");
    let project = tempfile::tempdir().expect("tempdir");
    let mut ctx = pre_tool();
    ctx.project_dir = Some(project.path().to_path_buf());
    run(&ctx, "pwd > where.txt").await;
    assert!(project.path().join("where.txt").exists());
    ctx.cwd = Some(cwd.path().to_path_buf());
    run(&ctx, "pwd > where.txt").await;
    let written = std::fs::read_to_string(cwd.path().join("where.txt")).expect("written in cwd");
    assert_eq!(Path::new(written.trim()).canonicalize().ok(), cwd.path().canonicalize().ok());
}

/// Waits until no live process has `pid` (a zombie reaped by init counts as gone once reaped).
async fn gone(pid: u32) -> bool {
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            Err(_) => return true,
            // Field 3 is the state; `Z` means dead and only waiting for its reaper.
            Ok(stat) if stat.rsplit(')').next().is_some_and(|rest| rest.trim_start().starts_with('Z')) => return true,
            Ok(_) => tokio::time::sleep(Duration::from_millis(20)).await,
        }
    }
    false
}

async fn background_pid(file: &Path) -> u32 {
    std::fs::read_to_string(file).expect("pid written").trim().parse().expect("a pid")
}

#[tokio::test]
async fn a_hook_that_outlives_its_timeout_is_killed_with_its_whole_group() {
    // R-ACT-SH-5, R-EXEC-5: `sleep 1000 & wait` leaves no process behind.
    let dir = tempfile::tempdir().expect("tempdir");
    let mut ctx = pre_tool();
    ctx.cwd = Some(dir.path().to_path_buf());
    let spec = ShellSpec::new("sleep 1000 & echo $! > bg.pid; wait").with_timeout(Duration::from_millis(500));
    let r = run_spec(&ctx, spec).await;
    assert_eq!((axes(&r), r.failure.as_deref()), (ALLOW, Some("timed out after 500ms")));
    let pid = background_pid(&dir.path().join("bg.pid")).await;
    assert!(gone(pid).await, "sleep {pid} survived its hook");
}

#[tokio::test]
async fn a_timeout_blocks_when_the_hook_fails_closed() {
    // R-CFG-4c
    let spec = ShellSpec::new("sleep 1000 & wait").with_timeout(Duration::from_millis(200)).with_fail_closed(true);
    let r = run_spec(&pre_tool(), spec).await;
    assert_eq!(axes(&r), BLOCK);
    assert_eq!(r.failure.as_deref(), Some("timed out after 200ms"));
    assert_eq!(r.feedback.as_deref(), Some("hook 'command@test#0' failed closed: timed out after 200ms"));
}

#[tokio::test(start_paused = true)]
async fn a_handler_timeout_above_ten_minutes_is_clamped_so_fail_closed_still_blocks() {
    // REL-6: a declared 20-minute timeout fires at the 10-minute maximum, before the executor's
    // net (10 min + 5 s) under the fail-open policy, so the handler's failClosed decides.
    let action: Arc<dyn ExecutionHook> = Arc::new(ShellAction::new(
        "command@test#0",
        "test#0",
        ShellSpec::new("sleep 3600").with_timeout(Duration::from_secs(20 * 60)).with_fail_closed(true),
    ));
    assert_eq!(action.execution_budget(), Some(Duration::from_secs(20 * 60)), "declared as written");
    let policy = HookExecutionPolicy::fail_open();
    let report = HookExecutor.execute([&action], &pre_tool(), &policy, &CancellationToken::new()).await;
    let run = &report.runs[0];
    assert_eq!((axes(&report.merged), run.error.as_deref()), (BLOCK, None), "the executor's net did not fire");
    assert_eq!(run.result.failure.as_deref(), Some("timed out after 600s"));
    assert_eq!(run.elapsed, HookExecutionPolicy::MAX_DECLARED_BUDGET);
}

#[tokio::test]
async fn dropping_the_hook_future_kills_its_process_group() {
    // R-EXEC-5: cancellation by the caller (the executor's net, a cancelled turn).
    let dir = tempfile::tempdir().expect("tempdir");
    let mut ctx = pre_tool();
    ctx.cwd = Some(dir.path().to_path_buf());
    let action = ShellAction::new(
        "command@test#0",
        "test#0",
        ShellSpec::new("sleep 1000 & echo $! > bg.tmp; mv bg.tmp bg.pid; wait"),
    );
    let pid_file = dir.path().join("bg.pid");
    let mut fut = action.execute(&ctx);
    let started = async {
        while !pid_file.exists() {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    };
    tokio::select! {
        _ = &mut fut => panic!("the hook cannot finish on its own"),
        () = started => {}
    }
    drop(fut);
    let pid = background_pid(&pid_file).await;
    assert!(gone(pid).await, "sleep {pid} survived its cancelled hook");
}

#[tokio::test]
async fn a_hook_flooding_100_mb_to_stdout_and_stderr_finishes() {
    // R-ACT-SH-6: capture is bounded and the pipes keep draining, so the writer is never stuck.
    let command = "head -c 100000000 /dev/zero; head -c 100000000 /dev/zero | tr '\\0' e >&2; exit 2";
    let r = run(&pre_tool(), command).await;
    assert_eq!(axes(&r), BLOCK);
    assert_eq!(r.feedback.map(|f| f.chars().count()), Some(MAX_REASON_CHARS));
}

#[tokio::test]
async fn failures_block_on_decision_events_only_when_fail_closed() {
    // R-CFG-4c: (cause, command).
    #[rustfmt::skip]
    let cases: &[(&str, &str)] = &[
        ("exited with status 1", "exit 1"),
        ("exited with status 127", "no-such-command-xyz"),
        ("crashed", "kill -9 $$"),
    ];
    for (cause, command) in cases {
        let mut ctx = pre_tool();
        for (event, fail_closed, want) in [
            (HookEventType::PRE_TOOL, false, ALLOW),
            (HookEventType::PRE_TOOL, true, BLOCK),
            (HookEventType::PERMISSION_REQUEST, true, DENY),
            (HookEventType::POST_TOOL, true, ALLOW),
        ] {
            ctx.event = event;
            let r = run_spec(&ctx, ShellSpec::new(*command).with_fail_closed(fail_closed)).await;
            assert_eq!(axes(&r), want, "{command} on {event}, failClosed {fail_closed}");
            assert!(r.failure.as_deref().is_some_and(|f| f.starts_with(cause)), "{command}: {:?}", r.failure);
        }
    }
}

#[tokio::test]
async fn a_cwd_or_project_that_is_gone_still_runs_the_hook_and_its_veto_holds() {
    // DESIGN-0.3 §2: no payload value keeps a hook from starting (it once was a spawn failure).
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("file");
    std::fs::write(&file, "x").expect("write");
    let missing = Path::new("/nonexistent/aimon-hooks-test");
    for (cwd, project, runs_in) in [
        (missing, dir.path(), dir.path()),
        (file.as_path(), dir.path(), dir.path()),
        (missing, missing, Path::new(env!("CARGO_MANIFEST_DIR"))),
    ] {
        let mut ctx = pre_tool();
        ctx.cwd = Some(cwd.to_path_buf());
        ctx.project_dir = Some(project.to_path_buf());
        let r = run_spec(&ctx, ShellSpec::new("pwd -P >&2; exit 2")).await;
        assert_eq!(axes(&r), BLOCK, "cwd {}", cwd.display());
        let ran_in = r.feedback.as_deref().map(str::trim).map(Path::new).map(Path::to_path_buf);
        assert_eq!(ran_in, Some(runs_in.canonicalize().expect("canonical")), "cwd {}", cwd.display());
    }
}

#[tokio::test]
async fn hostile_tool_input_never_reaches_the_shell_command_line() {
    // R-ACT-SH-1, REL-4: the input travels on stdin only; the command line is the handler's text.
    let dir = tempfile::tempdir().expect("tempdir");
    let marker = dir.path().join("pwned");
    let m = marker.display();
    let hostile = format!("x\"; touch {m}; echo \"$(touch {m})`touch {m}`'\n; touch {m} ${{tool_input.command}}");
    let mut ctx =
        HookContext::new(HookEventType::PRE_TOOL).with_tool(ToolCall::new("Bash", json!({"command": hostile})));
    ctx.cwd = Some(dir.path().to_path_buf());
    let command =
        "cat > stdin.json; tr '\\0' '\\n' < /proc/$$/cmdline > cmdline.txt; echo \"${AIMON_TOOL_NAME}\" > name.txt";
    let r = run(&ctx, command).await;
    assert_eq!(r, HookResult::allow());
    assert!(!marker.exists(), "tool input was executed");
    let cmdline = std::fs::read_to_string(dir.path().join("cmdline.txt")).expect("cmdline");
    assert_eq!(cmdline.lines().collect::<Vec<_>>(), ["sh", "-c", command]);
    let stdin: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("stdin.json")).expect("stdin")).expect("JSON");
    assert_eq!(stdin["tool_input"]["command"], json!(hostile));
}

#[test]
fn the_action_reports_its_id_source_and_timeout_as_budget() {
    // R-ACT-SH-4, R-EXEC-4
    let a = ShellAction::new("command@user#0", "user#0", ShellSpec::new("true"));
    assert_eq!((a.id(), a.source(), a.execution_budget()), ("command@user#0", "user#0", Some(Duration::from_secs(30))));
    let a = ShellAction::new("c", "s", ShellSpec::new("true").with_timeout(Duration::from_millis(1500)));
    assert_eq!(a.execution_budget(), Some(Duration::from_millis(1500)));
}

#[tokio::test]
async fn plain_stdout_is_context_where_the_event_says_so_and_the_path_of_a_worktree() {
    // R-EVT-7: plain stdout on exit 0 counts on userPromptSubmit and onSessionStart; elsewhere it is ignored.
    let r = run(&HookContext::new(HookEventType::USER_PROMPT_SUBMIT), "echo 'the build is red'").await;
    assert_eq!((axes(&r), r.feedback.as_deref()), (ALLOW, Some("the build is red")));
    let r = run(&HookContext::new(HookEventType::ON_SESSION_START), "echo hello").await;
    assert_eq!(r.feedback.as_deref(), Some("hello"));
    let r = run(&HookContext::new(HookEventType::ON_STOP), "echo ignored").await;
    assert_eq!(r.feedback, None);
    // R-EVT-6: WorktreeCreate's answer is the last non-empty stdout line.
    let r = run(&HookContext::new(HookEventType::WORKTREE_CREATE), "echo creating; echo /tmp/wt/feature; echo").await;
    assert_eq!(r.passthrough.get("worktreePath"), Some(&serde_json::json!("/tmp/wt/feature")));
}

#[tokio::test]
async fn hook_specific_output_the_engine_does_not_model_is_kept_for_the_client() {
    let json = r#"{"hookSpecificOutput":{"hookEventName":"Elicitation","action":"accept","content":{"name":"x"},"additionalContext":"fyi"}}"#;
    let r = run(&HookContext::new(HookEventType::ELICITATION), &format!("echo '{json}'")).await;
    let kept: Vec<&str> = r.passthrough.keys().map(String::as_str).collect();
    assert_eq!(kept, ["action", "content"]);
}

#[tokio::test]
async fn continue_false_on_stop_is_a_stop_request_not_a_block() {
    let r = run(&HookContext::new(HookEventType::ON_STOP), r#"echo '{"continue":false,"stopReason":"budget spent"}'"#)
        .await;
    assert_eq!((axes(&r), r.stop_reason.as_deref()), (ALLOW, Some("budget spent")));
    let r = run(&HookContext::new(HookEventType::ON_START), r#"echo '{"continue":false,"stopReason":"halt"}'"#).await;
    assert_eq!((axes(&r), r.stop_reason.as_deref()), (BLOCK, Some("halt")));
}
