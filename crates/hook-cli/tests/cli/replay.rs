//! `aimon-hooks replay` on session files written in each client's format: what the policy would
//! decide differently, the handlers it skipped, and the lines it could not read.

use crate::support::{Outcome, Sandbox};

/// Claude Code's directory name for a project (every character but ASCII letters and digits → `-`).
fn mangled(project: &std::path::Path) -> String {
    project.display().to_string().chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect()
}

fn transcript(session: &str) -> String {
    let line = |v: serde_json::Value| v.to_string();
    let cwd = "/p";
    [
        line(serde_json::json!({"type": "user", "sessionId": session, "cwd": cwd, "timestamp": "2026-12-01T10:00:00.000Z",
            "message": {"role": "user", "content": "ship it"}})),
        line(serde_json::json!({"type": "assistant", "sessionId": session, "cwd": cwd, "timestamp": "2026-12-01T10:00:01.000Z",
            "message": {"role": "assistant", "content": [
                {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "cargo test"}},
                {"type": "tool_use", "id": "t2", "name": "Bash", "input": {"command": "git push --force origin main"}}]}})),
        "{this line is cut".to_owned(),
        line(serde_json::json!({"type": "user", "sessionId": session, "cwd": cwd, "timestamp": "2026-12-01T10:00:02.000Z",
            "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": "ok"},
                {"type": "tool_result", "tool_use_id": "t2", "content": "pushed"}]}})),
        line(serde_json::json!({"type": "assistant", "sessionId": session, "cwd": cwd, "timestamp": "2026-12-01T10:00:03.000Z",
            "message": {"role": "assistant", "stop_reason": "end_turn", "content": [{"type": "text", "text": "done"}]}})),
    ]
    .join("\n")
}

fn policy(sandbox: &Sandbox) {
    sandbox.project_hooks(&serde_json::json!({"hooks": {
        "PreToolUse": [
            {"matcher": "Bash(git push:*)", "hooks": [
                {"type": "deny", "reason": "pushes are reviewed"},
                {"type": "command", "command": "touch ran-a-handler"}]}
        ],
        "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "touch ran-a-handler"}]}]
    }}));
}

#[test]
fn a_transcript_replayed_under_a_deny_policy_reports_the_call_it_would_deny() {
    let sandbox = Sandbox::new();
    policy(&sandbox);
    let dir = format!("home/.claude/projects/{}", mangled(&sandbox.project()));
    sandbox.write(&format!("{dir}/s1.jsonl"), &transcript("s1"));
    let out = Outcome::of(sandbox.cmd().arg("replay"));
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let expected = [
        "s1.jsonl:2: preTool Bash {\"command\":\"git push --force origin main\"}: ran, would deny",
        "    reason: pushes are reviewed",
        "6 call(s) from 1 session file(s)",
        ": 1 decided differently",
        "skipped (command, http, mcp, prompt and agent handlers run only with --run-handlers):",
    ];
    for text in expected {
        assert!(out.stdout.contains(text), "missing {text:?} in:\n{}", out.stdout);
    }
    assert!(
        out.stdout.contains(&format!("{}:6)", sandbox.project().join(".aimon/hooks.json").display())),
        "{}",
        out.stdout
    );
    assert!(out.stderr.contains("s1.jsonl:3: skipped"), "{}", out.stderr);
    assert!(!sandbox.project().join("ran-a-handler").exists(), "no command handler ran");

    let json = Outcome::of(sandbox.cmd().args(["replay", "--json"])).json();
    assert_eq!(json["calls"], 6);
    let differences = json["differences"].as_array().expect("differences");
    assert_eq!(differences.len(), 1);
    assert_eq!(differences[0]["tool"], "Bash");
    assert_eq!(differences[0]["session"], "s1");
    assert_eq!(differences[0]["would"], "deny");
    assert_eq!(json["summary"]["preTool"]["calls"], 2);
    assert_eq!(json["unreadable"][0]["line"], 3);
    let skipped = json["skipped_handlers"].as_object().expect("skipped");
    assert_eq!(skipped.values().map(|v| v.as_u64().unwrap_or(0)).sum::<u64>(), 2, "{skipped:?}");

    // --since after the session: nothing to replay but the calls without a time.
    let later = Outcome::of(sandbox.cmd().args(["replay", "--json", "--since", "2026-12-01T11:00:00Z"])).json();
    assert_eq!(later["calls"], 0);
}

#[test]
fn with_run_handlers_the_command_handlers_run_too() {
    let sandbox = Sandbox::new();
    policy(&sandbox);
    let file = sandbox.write("s.jsonl", &transcript("s2"));
    let out = Outcome::of(sandbox.cmd().arg("replay").arg(&file).arg("--run-handlers"));
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(!out.stdout.contains("skipped ("), "{}", out.stdout);
    assert!(sandbox.project().join("ran-a-handler").exists(), "the handlers ran in the project");
}

#[test]
fn a_codex_rollout_replays_its_shell_calls() {
    let sandbox = Sandbox::new();
    policy(&sandbox);
    let rollout = [
        r#"{"timestamp":"2026-12-01T10:00:00.000Z","type":"session_meta","payload":{"id":"codex-1","cwd":"/p"}}"#,
        r#"{"timestamp":"2026-12-01T10:00:01.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"git push origin main\"]}","call_id":"c1"}}"#,
        r#"{"timestamp":"2026-12-01T10:00:02.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"done"}}"#,
    ]
    .join("\n");
    sandbox.write("home/.codex/sessions/2026/12/01/rollout-1.jsonl", &rollout);
    let file = sandbox.home().join(".codex/sessions");
    let json = Outcome::of(sandbox.cmd().args(["replay", "--client", "codex", "--json"]).arg(&file)).json();
    assert_eq!(json["calls"], 2);
    assert_eq!(json["differences"][0]["input"]["command"], "git push origin main");
    assert_eq!(json["differences"][0]["session"], "codex-1");
}

#[test]
fn no_sessions_is_an_error_that_says_where_it_looked() {
    let sandbox = Sandbox::new();
    let out = Outcome::of(sandbox.cmd().arg("replay"));
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains(".claude/projects/"), "{}", out.stderr);
}

#[test]
fn replay_counts_the_tool_calls_the_read_only_pack_would_have_allowed() {
    let sandbox = Sandbox::new();
    let line = |v: serde_json::Value| v.to_string();
    let uses = ["git log --oneline -3", "ls -la | head", "cargo test", "rm -r target"]
        .iter()
        .enumerate()
        .map(|(i, c)| serde_json::json!({"type": "tool_use", "id": format!("t{i}"), "name": "Bash", "input": {"command": c}}))
        .collect::<Vec<_>>();
    let text = [line(
        serde_json::json!({"type": "assistant", "sessionId": "s", "cwd": "/p", "timestamp": "2026-12-01T10:00:01.000Z",
            "message": {"role": "assistant", "content": uses}}),
    )]
    .join("\n");
    sandbox.write("sessions/s.jsonl", &text);
    let out = Outcome::of(sandbox.cmd().arg("replay").arg(sandbox.root().join("sessions")));
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains("aimon/read-only: would have allowed 2 of 4 tool call(s) without a prompt"),
        "{}",
        out.stdout
    );
    let json = Outcome::of(sandbox.cmd().args(["replay", "--json"]).arg(sandbox.root().join("sessions"))).json();
    assert_eq!(json["read_only"], serde_json::json!({"tool_calls": 4, "would_allow": 2}));
}

/// Issue #42: `replay` reads a recorded patch as `aimon-hooks codex` reads a live one. Every
/// patch of hook-wire's patch table (`tests/fixtures/codex/patches.json`: several files, `Move
/// to:`, unreadable patches) goes once through `replay --client codex` on a rollout holding it,
/// and once through `aimon-hooks codex` as its PreToolUse call, under a policy that denies Edit on
/// some paths: both decide alike, and the table holds denies and allows both.
#[test]
fn replay_and_codex_decide_every_patch_of_the_table_alike() {
    let table = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../hook-wire/tests/fixtures/codex/patches.json");
    let table: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(&table).expect("the patch table")).expect("JSON");
    let sandbox = Sandbox::new();
    let deny = |path: &str| serde_json::json!({"matcher": format!("Edit({path})"), "hooks": [{"type": "deny", "reason": format!("{path} is kept")}]});
    sandbox
        .project_hooks(&serde_json::json!({"hooks": {"PreToolUse": [deny(".env"), deny("secrets/**"), deny("b.rs")]}}));
    let project = sandbox.project().display().to_string();
    let mut decided = Vec::new();
    for (i, row) in table.iter().enumerate() {
        let (name, patch) = (row["name"].as_str().expect("a name"), row["patch"].as_str().expect("a patch"));
        let payload = serde_json::json!({
            "session_id": "s-patch", "transcript_path": "/tmp/r.jsonl", "cwd": project, "permission_mode": "default",
            "hook_event_name": "PreToolUse", "turn_id": "t", "model": "m",
            "tool_name": "apply_patch", "tool_input": {"command": patch}, "tool_use_id": "c1"
        });
        let live = Outcome::of(sandbox.cmd().args(["codex", "--no-serve"]).write_stdin(payload.to_string()));
        let answer: serde_json::Value = serde_json::from_str(&live.stdout).unwrap_or(serde_json::Value::Null);
        let live_denies = live.code == 2 || answer["hookSpecificOutput"]["permissionDecision"] == "deny";
        assert!(live.code == 0 || live.code == 2, "{name}: codex exit {}: {}", live.code, live.stderr);

        let rollout = [
            serde_json::json!({"timestamp": "2026-12-01T10:00:00.000Z", "type": "session_meta",
                "payload": {"id": "s-patch", "cwd": project}}),
            serde_json::json!({"timestamp": "2026-12-01T10:00:01.000Z", "type": "response_item",
                "payload": {"type": "custom_tool_call", "name": "apply_patch", "input": patch, "call_id": "c1"}}),
            serde_json::json!({"timestamp": "2026-12-01T10:00:02.000Z", "type": "response_item",
                "payload": {"type": "custom_tool_call_output", "call_id": "c1", "output": "Success"}}),
        ]
        .map(|line| line.to_string())
        .join("\n");
        let file = sandbox.write(&format!("rollouts/rollout-{i}.jsonl"), &rollout);
        let replayed = Outcome::of(sandbox.cmd().args(["replay", "--client", "codex", "--json"]).arg(&file));
        assert_eq!(replayed.code, 0, "{name}: {}", replayed.stderr);
        let report = replayed.json();
        assert_eq!(report["summary"]["preTool"]["calls"], 1, "{name}: the patch was replayed: {report}");
        assert_eq!(report["unreadable"], serde_json::json!([]), "{name}: {report}");
        let replay_denies = report["differences"]
            .as_array()
            .expect("differences")
            .iter()
            .any(|d| d["event"] == "preTool" && d["would"] == "deny");
        assert_eq!(replay_denies, live_denies, "{name}: replay and codex disagree on\n{patch}\ncodex: {}", live.stdout);
        decided.push((name.to_owned(), live_denies));
    }
    let denied: Vec<&str> = decided.iter().filter(|(_, d)| *d).map(|(n, _)| n.as_str()).collect();
    for must in ["a move into a denied path", "several files, the denied one last", "a move names both paths"] {
        assert!(denied.contains(&must), "{must} is denied: {decided:?}");
    }
    assert!(decided.iter().any(|(n, d)| n == "several files, none denied" && !d), "{decided:?}");
}
