//! `aimon-hooks claude` fed Claude Code payload shapes (R-CLI-2): answers in Claude Code's contract.

use serde_json::{Value, json};

use crate::support::{Outcome, Sandbox, command, one_hook};

fn common(event: &str, cwd: &std::path::Path) -> Value {
    json!({"session_id": "abc123", "transcript_path": "/tmp/t.jsonl", "cwd": cwd, "permission_mode": "default",
           "hook_event_name": event})
}

fn pre_tool_use(sandbox: &Sandbox, command: &str) -> Value {
    let mut p = common("PreToolUse", &sandbox.project());
    p["tool_name"] = "Bash".into();
    p["tool_input"] = json!({"command": command, "description": "d", "timeout": 120000, "run_in_background": false});
    p["tool_use_id"] = "toolu_01ABC".into();
    p
}

fn post_tool_use(sandbox: &Sandbox) -> Value {
    let mut p = common("PostToolUse", &sandbox.project());
    p["tool_name"] = "Write".into();
    p["tool_input"] = json!({"file_path": "/tmp/a.rs", "content": "x"});
    p["tool_response"] = json!({"filePath": "/tmp/a.rs", "success": true});
    p["tool_use_id"] = "toolu_02".into();
    p
}

/// `claude` on the sandbox's project, trusted as it is now: these tests are about the answers,
/// `trust.rs` about the gate.
fn claude(sandbox: &Sandbox, payload: &Value) -> Outcome {
    sandbox.trust_project();
    Outcome::of(
        sandbox.cmd().arg("claude").env("CLAUDE_PROJECT_DIR", sandbox.project()).write_stdin(payload.to_string()),
    )
}

fn json_answer(answer: &str) -> Value {
    command(&format!("echo '{answer}'"))
}

#[test]
fn pre_tool_use_denied_answers_permission_decision_deny_with_exit_0() {
    let sandbox = Sandbox::new();
    sandbox.project_hooks(&one_hook("PreToolUse", "Bash", json!({"type": "deny", "reason": "no shell"})));
    let out = claude(&sandbox, &pre_tool_use(&sandbox, "ls"));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.json(),
        json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                      "permissionDecisionReason": "no shell"}})
    );
}

#[test]
fn pre_tool_use_blocked_by_exit_2_is_also_a_json_deny() {
    let sandbox = Sandbox::new();
    sandbox.project_hooks(&one_hook("PreToolUse", "*", command("echo 'stop it' >&2; exit 2")));
    let out = claude(&sandbox, &pre_tool_use(&sandbox, "ls"));
    assert_eq!(out.code, 0);
    let v = out.json();
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny");
    assert_eq!(v["hookSpecificOutput"]["permissionDecisionReason"].as_str().map(str::trim), Some("stop it"));
}

#[test]
fn pre_tool_use_with_nothing_to_say_prints_nothing() {
    let sandbox = Sandbox::new();
    sandbox.project_hooks(&one_hook("PreToolUse", "Edit", json!({"type": "deny", "reason": "no"})));
    let out = claude(&sandbox, &pre_tool_use(&sandbox, "ls"));
    assert_eq!((out.code, out.stdout.as_str()), (0, ""), "no decision: Claude Code's own permission flow goes on");
}

#[test]
fn pre_tool_use_ask_rewrite_and_context_are_passed_on_without_an_invented_allow() {
    let sandbox = Sandbox::new();
    let ask = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"sure?","updatedInput":{"command":"ls -la"}}}"#;
    sandbox.project_hooks(&one_hook("PreToolUse", "Bash", json_answer(ask)));
    let v = claude(&sandbox, &pre_tool_use(&sandbox, "ls")).json();
    assert_eq!(
        v,
        json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask",
               "permissionDecisionReason": "sure?", "updatedInput": {"command": "ls -la"}}})
    );
    let rewrite = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"command":"ls -1"},"additionalContext":"cheap"}}"#;
    sandbox.project_hooks(&one_hook("PreToolUse", "Bash", json_answer(rewrite)));
    let v = claude(&sandbox, &pre_tool_use(&sandbox, "ls")).json();
    assert_eq!(
        v,
        json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": {"command": "ls -1"},
               "additionalContext": "cheap"}}),
        "no permissionDecision: a rewrite is not an allow"
    );
}

#[test]
fn an_explicit_allow_is_passed_on_and_only_then() {
    // R-CLI-2: `permissionDecision: "allow"` only when a hook allowed explicitly.
    let sandbox = Sandbox::new();
    let allow = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}"#;
    sandbox.project_hooks(&one_hook("PreToolUse", "Bash", json_answer(allow)));
    let v = claude(&sandbox, &pre_tool_use(&sandbox, "ls")).json();
    assert_eq!(v, json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}));

    let mut request = common("PermissionRequest", &sandbox.project());
    request["tool_name"] = "Bash".into();
    request["tool_input"] = json!({"command": "ls"});
    let behavior = r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedInput":{"command":"ls -1"}}}}"#;
    sandbox.project_hooks(&one_hook("PermissionRequest", "Bash", json_answer(behavior)));
    let v = claude(&sandbox, &request).json();
    assert_eq!(v["hookSpecificOutput"]["decision"], json!({"behavior": "allow", "updatedInput": {"command": "ls -1"}}));
}

#[test]
fn a_post_tool_use_veto_answers_decision_block_and_advice_stays_additional_context() {
    // R-CLI-2b: an exit 2 or a JSON block from a declarative hook → top-level `decision: "block"`
    // + `reason`; the advice of the other hooks → `additionalContext`.
    let advice = r#"printf '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"status=%s"}}\n' "$AIMON_TOOL_RESULT_STATUS""#;
    let json_block = r#"echo '{"decision":"block","reason":"json says look again"}'"#;
    #[rustfmt::skip]
    let cases = [
        (command("echo 'lint failed' >&2; exit 2"), "lint failed"),
        (command(json_block), "json says look again"),
    ];
    let sandbox = Sandbox::new();
    for (veto, reason) in cases {
        sandbox.project_hooks(
            &json!({"hooks": {"PostToolUse": [{"matcher": "Write", "hooks": [command(advice), veto]}]}}),
        );
        let out = claude(&sandbox, &post_tool_use(&sandbox));
        assert_eq!(out.code, 0, "{}", out.stderr);
        let v = out.json();
        assert_eq!(
            v,
            json!({"decision": "block", "reason": reason,
                   "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "status=success"}})
        );
    }
}

#[test]
fn pre_compact_exit_2_answers_decision_block() {
    let sandbox = Sandbox::new();
    sandbox.project_hooks(&one_hook("PreCompact", "auto", command("echo 'mid-refactor' >&2; exit 2")));
    let mut p = common("PreCompact", &sandbox.project());
    p["trigger"] = "auto".into();
    p["custom_instructions"] = "".into();
    let out = claude(&sandbox, &p);
    assert_eq!(out.code, 0);
    let v = out.json();
    assert_eq!(v["decision"], "block");
    assert_eq!(v["reason"].as_str().map(str::trim), Some("mid-refactor"));
}

#[test]
fn session_start_context_reaches_the_model_r_evt_7() {
    let sandbox = Sandbox::new();
    let marker = sandbox.root().join("started");
    let cmd = format!(
        r#"echo "$AIMON_EVENT" > '{}'; echo '{{"hookSpecificOutput":{{"hookEventName":"SessionStart","additionalContext":"hi"}}}}'"#,
        marker.display()
    );
    sandbox.project_hooks(&one_hook("SessionStart", "startup", command(&cmd)));
    let mut p = common("SessionStart", &sandbox.project());
    p["source"] = "startup".into();
    p["model"] = "claude-x".into();
    let out = claude(&sandbox, &p);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v = out.json();
    assert_eq!(v["hookSpecificOutput"], json!({"hookEventName": "SessionStart", "additionalContext": "hi"}));
    assert_eq!(std::fs::read_to_string(&marker).expect("the hook ran").trim(), "onSessionStart");
}

#[test]
fn stop_exit_2_keeps_the_agent_working_with_the_reason_r_evt_7() {
    let sandbox = Sandbox::new();
    sandbox.project_hooks(&one_hook("Stop", "", command("echo 'keep going' >&2; exit 2")));
    let mut p = common("Stop", &sandbox.project());
    p["stop_hook_active"] = false.into();
    p["last_assistant_message"] = "done".into();
    let out = claude(&sandbox, &p);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v = out.json();
    assert_eq!((&v["decision"], v["reason"].as_str().map(str::trim)), (&json!("block"), Some("keep going")));
}

#[test]
fn events_aimon_lacks_exit_0_silently_and_run_nothing() {
    let sandbox = Sandbox::new();
    sandbox.project_hooks(&one_hook("PreToolUse", "*", json!({"type": "deny", "reason": "no"})));
    for event in ["FutureEvent", "stop_hook_active", "PostToolUseFailures"] {
        let mut p = common(event, &sandbox.project());
        p["prompt"] = "hello".into();
        let out = claude(&sandbox, &p);
        assert_eq!((out.code, out.stdout.as_str(), out.stderr.as_str()), (0, "", ""), "{event}");
    }
}

#[test]
fn the_project_is_claude_project_dir_else_the_payload_cwd() {
    let sandbox = Sandbox::new();
    sandbox.project_hooks(&one_hook("PreToolUse", "*", json!({"type": "deny", "reason": "from project"})));
    let other = sandbox.root().join("other");
    sandbox.write(
        "other/.aimon/hooks.json",
        &one_hook("PreToolUse", "*", json!({"type": "deny", "reason": "from cwd"})).to_string(),
    );
    let mut p = pre_tool_use(&sandbox, "ls");
    p["cwd"] = json!(other);
    let with_env = claude(&sandbox, &p).json();
    assert_eq!(with_env["hookSpecificOutput"]["permissionDecisionReason"], "from project");
    let without = Outcome::of(sandbox.cmd().arg("claude").write_stdin(p.to_string())).json();
    assert_eq!(without["hookSpecificOutput"]["permissionDecisionReason"], "from cwd");
}

#[test]
fn permission_request_exit_2_answers_behavior_deny() {
    let sandbox = Sandbox::new();
    sandbox.project_hooks(&one_hook("PermissionRequest", "*", command("echo 'not you' >&2; exit 2")));
    let mut p = common("PermissionRequest", &sandbox.project());
    p["tool_name"] = "Bash".into();
    p["tool_input"] = json!({"command": "rm x"});
    let v = claude(&sandbox, &p).json();
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "PermissionRequest");
    assert_eq!(v["hookSpecificOutput"]["decision"]["behavior"], "deny");
    assert_eq!(v["hookSpecificOutput"]["decision"]["message"].as_str().map(str::trim), Some("not you"));
}

#[test]
fn a_configuration_error_never_silently_opens_a_gate() {
    let sandbox = Sandbox::new();
    let file = sandbox.write("project/.aimon/hooks.json", "{\"hooks\": {\"PreToolUse\": [}");
    let where_ = format!("{}:1:", file.display());

    let out = claude(&sandbox, &pre_tool_use(&sandbox, "ls"));
    assert_eq!((out.code, out.stdout.as_str()), (2, ""), "preTool vetoes with exit 2");
    assert!(out.stderr.contains(&where_), "{}", out.stderr);

    let mut compact = common("PreCompact", &sandbox.project());
    compact["trigger"] = "manual".into();
    assert_eq!(claude(&sandbox, &compact).code, 2, "preCompact vetoes with exit 2");

    let mut request = common("PermissionRequest", &sandbox.project());
    request["tool_name"] = "Bash".into();
    request["tool_input"] = json!({"command": "ls"});
    let out = claude(&sandbox, &request);
    assert_eq!(out.code, 0, "Claude Code ignores exit 2 on PermissionRequest, so the denial is JSON");
    let v = out.json();
    assert_eq!(v["hookSpecificOutput"]["decision"]["behavior"], "deny");
    assert!(v["hookSpecificOutput"]["decision"]["message"].as_str().is_some_and(|m| m.contains(&where_)), "{v}");

    let out = claude(&sandbox, &common("Stop", &sandbox.project()));
    assert_eq!((out.code, out.stdout.as_str()), (1, ""));
    assert!(out.stderr.contains(&where_), "{}", out.stderr);
}

#[test]
fn a_payload_that_is_not_json_is_refused_with_exit_2() {
    // Its event cannot be read, and it may be one that vetoes: exit 2 blocks (DESIGN-0.3 §2).
    let out = Outcome::of(Sandbox::new().cmd().arg("claude").write_stdin("not json"));
    assert_eq!((out.code, out.stdout.as_str()), (2, ""));
    assert!(out.stderr.contains("not valid JSON"), "{}", out.stderr);
}

/// A command hook answering `additionalContext` of `n` times the letter `c`.
fn context_of(c: char, n: usize) -> Value {
    command(&format!(
        r#"printf '{{"hookSpecificOutput":{{"hookEventName":"PreToolUse","additionalContext":"%s"}}}}' "$(head -c {n} /dev/zero | tr '\0' {c})""#
    ))
}

#[test]
fn a_200_kb_additional_context_reaches_the_model_cut_to_10000_characters() {
    // R-CC-6: cut per hook answer, and again in the merged answer of `claude` and `run`.
    const MARKER: &str = "[… cut at 10000 characters]";
    let sandbox = Sandbox::new();
    let cases = [(vec![context_of('a', 200_000)], 'a'), (vec![context_of('b', 6_000), context_of('c', 6_000)], 'b')];
    for (hooks, first) in cases {
        sandbox.project_hooks(&json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": hooks}]}}));
        let out = claude(&sandbox, &pre_tool_use(&sandbox, "ls"));
        assert_eq!(out.code, 0, "{}", out.stderr);
        let claude_context = out.json()["hookSpecificOutput"]["additionalContext"].as_str().map(str::to_owned);
        let out = Outcome::of(sandbox.cmd().args(["run", "PreToolUse"]).write_stdin(crate::support::bash("ls")));
        assert_eq!(out.code, 0, "{}", out.stderr);
        let run_feedback = out.json()["feedback"].as_str().map(str::to_owned);
        for text in [claude_context, run_feedback] {
            let text = text.expect("the context is passed on");
            assert_eq!(text.chars().count(), 10_000);
            assert!(text.starts_with(first) && text.ends_with(MARKER), "{}…", &text[..40]);
        }
    }
}
