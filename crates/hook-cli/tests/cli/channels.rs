//! `claude` answers every event through its Claude Code channel (R-CLI-2b, R-EVT-6/7) and the
//! payload a hook reads is the payload Claude Code sent (R-CC-1, round trip).

use std::path::Path;

use serde_json::{Value, json};

use crate::support::{Outcome, Sandbox, command, one_hook};

fn payload(event: &str, cwd: &Path, extra: Value) -> Value {
    let mut p = json!({"session_id": "abc123", "transcript_path": "/tmp/t.jsonl", "cwd": cwd,
                       "permission_mode": "default", "hook_event_name": event});
    if let (Some(p), Value::Object(extra)) = (p.as_object_mut(), extra) {
        p.extend(extra);
    }
    p
}

fn claude(sandbox: &Sandbox, payload: &Value) -> Outcome {
    sandbox.trust_project();
    Outcome::of(
        sandbox.cmd().arg("claude").env("CLAUDE_PROJECT_DIR", sandbox.project()).write_stdin(payload.to_string()),
    )
}

/// (event, hook command, payload extra) → (exit code, stdout JSON or line, stderr contains)
#[test]
fn each_event_answers_through_its_own_channel() {
    #[rustfmt::skip]
    let cases: &[(&str, &str, Value, i32, Value, &str)] = &[
        ("Stop", r#"echo '{"decision":"block","reason":"run the tests"}'"#, json!({"stop_hook_active": false}),
            0, json!({"decision": "block", "reason": "run the tests"}), ""),
        ("SubagentStop", "echo 'not yet' >&2; exit 2", json!({"stop_hook_active": false, "agent_type": "x", "agent_id": "a"}),
            0, json!({"decision": "block", "reason": "not yet"}), ""),
        ("Stop", r#"echo '{"continue":false,"stopReason":"budget spent"}'"#, json!({"stop_hook_active": true}),
            0, json!({"continue": false, "stopReason": "budget spent"}), ""),
        ("UserPromptSubmit", "echo 'no secrets' >&2; exit 2", json!({"prompt": "hi"}),
            0, json!({"decision": "block", "reason": "no secrets"}), ""),
        ("UserPromptSubmit", "echo 'the build is red'", json!({"prompt": "hi"}),
            0, json!({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "the build is red"}}), ""),
        ("PostToolUseFailure", r#"echo '{"hookSpecificOutput":{"hookEventName":"PostToolUseFailure","additionalContext":"retry with sudo"}}'"#,
            json!({"tool_name": "Bash", "tool_input": {"command": "x"}, "error": "denied"}),
            0, json!({"hookSpecificOutput": {"hookEventName": "PostToolUseFailure", "additionalContext": "retry with sudo"}}), ""),
        ("TeammateIdle", "echo 'pick the next task' >&2; exit 2", json!({"teammate_name": "t", "team_name": "n"}),
            2, Value::Null, "pick the next task"),
        ("TaskCreated", "echo 'no subject' >&2; exit 2", json!({"task_id": "1", "task_subject": ""}),
            2, Value::Null, "no subject"),
        ("WorktreeCreate", "echo making; echo /tmp/wt/feature", json!({"name": "feature"}),
            0, json!("/tmp/wt/feature"), ""),
        ("Elicitation", r#"echo '{"hookSpecificOutput":{"hookEventName":"Elicitation","action":"accept","content":{"a":1}}}'"#,
            json!({"mcp_server_name": "m", "message": "?"}),
            0, json!({"hookSpecificOutput": {"hookEventName": "Elicitation", "action": "accept", "content": {"a": 1}}}), ""),
        ("PreToolUse", r#"echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"defer","permissionDecisionReason":"later"}}'"#,
            json!({"tool_name": "Bash", "tool_input": {"command": "ls"}}),
            0, json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "defer", "permissionDecisionReason": "later"}}), ""),
        ("PreSkillShellCommand", "echo 'not in CI' >&2; exit 2", json!({"tool_name": "Bash", "tool_input": {"command": "make"}}),
            0, json!({"hookSpecificOutput": {"hookEventName": "PreSkillShellCommand", "permissionDecision": "deny", "permissionDecisionReason": "not in CI"}}), ""),
        ("Notification", "echo 'ignored' >&2; exit 2", json!({"message": "m", "notification_type": "idle_prompt"}),
            0, Value::Null, ""),
    ];
    for (event, cmd, extra, code, want, stderr) in cases {
        let sandbox = Sandbox::new();
        sandbox.project_hooks(&one_hook(event, "", command(cmd)));
        let out = claude(&sandbox, &payload(event, &sandbox.project(), extra.clone()));
        assert_eq!(out.code, *code, "{event} {cmd}: {}", out.stderr);
        let got = match out.stdout.trim() {
            "" => Value::Null,
            text => serde_json::from_str(text)
                .unwrap_or_else(|_| Value::String(text.lines().last().unwrap_or("").to_owned())),
        };
        assert_eq!(&got, want, "{event} {cmd}");
        assert!(out.stderr.contains(stderr), "{event}: {}", out.stderr);
    }
}

#[test]
fn a_configuration_error_refuses_only_on_events_that_can_refuse() {
    // R-EVT-8: (event, exit code).
    let cases = [("UserPromptSubmit", 2), ("ConfigChange", 2), ("Stop", 1), ("TeammateIdle", 1), ("Notification", 1)];
    for (event, code) in cases {
        let sandbox = Sandbox::new();
        sandbox.write("project/.aimon/hooks.json", "{ not json");
        let out =
            claude(&sandbox, &payload(event, &sandbox.project(), json!({"prompt": "x", "source": "user_settings"})));
        assert_eq!(out.code, code, "{event}: {}", out.stderr);
        assert_eq!(out.stdout, "", "{event}");
    }
}

#[test]
fn a_payload_survives_context_and_the_hooks_stdin_unchanged() {
    // payload → context → the stdin JSON hook-actions writes → context again.
    let cases = [
        (
            "PreToolUse",
            json!({"tool_name": "Bash", "tool_input": {"command": "ls -l"}, "tool_use_id": "toolu_1", "prompt_id": "p"}),
        ),
        (
            "PostToolUse",
            json!({"tool_name": "Write", "tool_input": {"file_path": "/a"}, "tool_response": {"ok": true}, "tool_use_id": "t", "duration_ms": 5}),
        ),
        ("UserPromptSubmit", json!({"prompt": "hello", "source": "user"})),
        ("Stop", json!({"stop_hook_active": true, "last_assistant_message": "done", "background_tasks": []})),
        (
            "SubagentStop",
            json!({"stop_hook_active": false, "agent_id": "a1", "agent_type": "Explore", "agent_transcript_path": "/t"}),
        ),
        // FileChanged has its own `event` field: the hook reads the client's value, not AIMON's.
        ("FileChanged", json!({"file_path": "/w/.envrc", "event": "unlink"})),
        ("Elicitation", json!({"mcp_server_name": "m", "message": "?", "requested_schema": {"type": "object"}})),
        (
            "PermissionRequest",
            json!({"tool_name": "Bash", "tool_input": {"command": "rm -rf x"}, "permission_suggestions": [{"type": "addRules"}]}),
        ),
        (
            "PostToolUseFailure",
            json!({"tool_name": "Bash", "tool_input": {"command": "false"}, "tool_use_id": "t2", "error": "exit 1", "is_interrupt": false}),
        ),
        ("PreCompact", json!({"trigger": "manual", "custom_instructions": "keep the plan"})),
        ("PostCompact", json!({"trigger": "auto", "compact_summary": "s"})),
        ("SessionStart", json!({"source": "resume", "model": "claude-x", "agent_type": "main"})),
        ("SessionEnd", json!({"reason": "logout"})),
        ("Notification", json!({"message": "waiting", "title": "Claude", "notification_type": "idle_prompt"})),
        ("SubagentStart", json!({"agent_id": "a2", "agent_type": "Plan"})),
        (
            "InstructionsLoaded",
            json!({"file_path": "/w/CLAUDE.md", "memory_type": "Project", "load_reason": "session_start"}),
        ),
        ("CwdChanged", json!({"old_cwd": "/a", "new_cwd": "/b"})),
    ];
    for (event, extra) in cases {
        let sandbox = Sandbox::new();
        let file = sandbox.root().join("stdin.json");
        sandbox.project_hooks(&one_hook(event, "", command(&format!("cat > '{}'", file.display()))));
        let original = payload(event, &sandbox.project(), extra);
        let out = claude(&sandbox, &original);
        assert_eq!(out.code, 0, "{event}: {}", out.stderr);
        let written = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{event}: the hook ran: {e}"));
        let resolved = hook_core::HookEventType::resolve(event).expect("known event");
        let context = |text: &str| {
            let map = hook_wire::parse_payload(text, "payload").expect("an object");
            hook_wire::Client::Claude.context(resolved, map, &sandbox.project()).expect("a valid payload")
        };
        let before = context(&original.to_string());
        let mut after = context(&written);
        // AIMON's own additions to the stdin JSON (R-CC-4), not Claude Code keys; a key the
        // payload has itself is the payload's.
        for key in ["event", "skill_name", "project_dir"].into_iter().filter(|k| !before.fields.contains_key(*k)) {
            assert!(after.fields.remove(key).is_some(), "{event}: '{key}' is written");
        }
        if let Some(tool) = after.tool.as_mut() {
            tool.result_status = before.tool.as_ref().and_then(|t| t.result_status.clone());
        }
        assert_eq!(after, before, "{event}");
    }
}
