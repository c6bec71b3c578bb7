//! `aimon-hooks import-claude` (R-CC-3, R-CLI-5): report and output pinned by snapshot; the
//! converted files pass `validate`.

use serde_json::{Value, json};

use crate::support::{Outcome, Sandbox};

fn settings() -> Value {
    json!({
        "disableAllHooks": false,
        "permissions": {"allow": ["Bash(npm test)"]},
        "hooks": {
            "PreToolUse": [
                {"matcher": "Bash", "hooks": [
                    {"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/check-bash.sh"},
                    {"type": "command", "command": "./audit.sh", "timeout": 30, "statusMessage": "auditing"},
                    {"type": "prompt", "prompt": "Is this command safe? $ARGUMENTS", "onFailure": "block"}
                ]},
                {"matcher": "Edit|Write", "hooks": [
                    {"type": "http", "url": "http://127.0.0.1:8080/hooks/pre-edit",
                     "headers": {"Authorization": "Bearer $MY_TOKEN", "X-Team": "${TEAM}"},
                     "allowedEnvVars": ["MY_TOKEN", "TEAM"]},
                    {"type": "mcp_tool", "server": "security", "tool": "scan_file",
                     "input": {"file_path": "${tool_input.file_path}", "tool": "${tool_name}", "session": "${session_id}"},
                     "timeout": 15, "if": "Edit(src/**)"}
                ]}
            ],
            "PostToolUse": [
                {"matcher": "Write", "hooks": [{"type": "command", "command": "cargo fmt", "async": true}]}
            ],
            "Stop": [
                {"hooks": [{"type": "agent", "prompt": "Verify the tests pass", "timeout": 120}]}
            ],
            "SessionStart": [
                {"matcher": "startup", "hooks": [
                    {"type": "http", "url": "http://127.0.0.1:8080/start"},
                    {"type": "command", "command": "echo started", "once": true}
                ]}
            ],
            "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "./prompt-guard.sh"}]}],
            "Notification": [{"matcher": "idle_prompt", "hooks": [{"type": "command", "command": "notify-send idle"}]}],
            "PostToolUseFailure": [{"hooks": [{"type": "command", "command": "./on-failure.sh"}]}]
        }
    })
}

#[test]
fn a_claude_settings_file_converts_with_every_change_reported() {
    let sandbox = Sandbox::new();
    sandbox.write("claude/settings.json", &serde_json::to_string_pretty(&settings()).expect("json"));
    let out = Outcome::of(sandbox.cmd().current_dir(sandbox.root()).args([
        "import-claude",
        "claude/settings.json",
        "--output",
        "-",
    ]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    insta::with_settings!({snapshot_path => "../snapshots", prepend_module_to_snapshot => false}, {
        insta::assert_snapshot!("import_claude_report", out.stderr);
        insta::assert_snapshot!("import_claude_output", out.stdout);
    });
    let converted = out.json();
    assert_eq!(converted["hooks"]["PreToolUse"][0]["hooks"][0]["timeout"], 600, "Claude Code's default, written out");
    assert_eq!(converted["hooks"]["PreToolUse"][1]["hooks"][1]["type"], "mcp");
    assert_eq!(
        converted["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"], "./prompt-guard.sh",
        "a new event converts"
    );
    assert_eq!(converted["hooks"]["Stop"][0]["hooks"][0]["type"], "agent", "an agent hook is kept");
}

#[test]
fn prompt_agent_and_on_failure_hooks_survive_the_import() {
    let sandbox = Sandbox::new();
    let settings = json!({"hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "prompt", "prompt": "Safe? $ARGUMENTS", "model": "claude-haiku", "continueOnBlock": true, "onFailure": "block"},
            {"type": "command", "command": "./gate.sh", "onFailure": "block", "timeout": 5}
        ]}],
        "Stop": [{"hooks": [{"type": "agent", "prompt": "Do the tests pass? $ARGUMENTS", "timeout": 120, "onFailure": "allow"}]}]
    }});
    sandbox.write("claude/settings.json", &settings.to_string());
    let out = Outcome::of(sandbox.cmd().current_dir(sandbox.root()).args([
        "import-claude",
        "claude/settings.json",
        "--output",
        "-",
    ]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let want = json!({"hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "prompt", "prompt": "Safe? $ARGUMENTS", "model": "claude-haiku", "continueOnBlock": true, "failClosed": true},
            {"type": "command", "command": "./gate.sh", "timeout": 5, "failClosed": true}
        ]}],
        "Stop": [{"hooks": [{"type": "agent", "prompt": "Do the tests pass? $ARGUMENTS", "timeout": 120}]}]
    }});
    assert_eq!(out.json(), want, "{}", out.stderr);
    let changed = out.stderr.lines().filter(|l| l.contains(r#""onFailure": "block" written as "failClosed": true"#));
    assert_eq!(changed.count(), 2, "{}", out.stderr);
    assert!(!out.stderr.contains("dropped"), "{}", out.stderr);
}

#[test]
fn the_default_import_keeps_the_tiers_and_the_result_validates() {
    let sandbox = Sandbox::new();
    sandbox.write("project/.claude/settings.json", &settings().to_string());
    let local = json!({"hooks": {"PreToolUse": [{"matcher": "Bash(git push:*)", "hooks": [{"type": "command", "command": "exit 2"}]}]}});
    sandbox.write("project/.claude/settings.local.json", &local.to_string());
    let out = Outcome::of(sandbox.cmd().arg("import-claude"));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(sandbox.project().join(".aimon/hooks.json").exists());
    assert!(sandbox.project().join(".aimon/hooks.local.json").exists());

    let validate = Outcome::of(sandbox.cmd().arg("validate"));
    assert_eq!(validate.code, 0, "{}\n{}", validate.stdout, validate.stderr);
    assert!(validate.stdout.contains("0 error(s)"), "{}", validate.stdout);

    let list = Outcome::of(sandbox.cmd().args(["list", "--json"])).json();
    let tiers: Vec<&str> = list.as_array().expect("array").iter().filter_map(|h| h["tier"].as_str()).collect();
    assert_eq!(tiers.iter().filter(|t| **t == "LOCAL").count(), 1, "{list}");
    assert_eq!(tiers.len(), 12, "{list}");

    let again = Outcome::of(sandbox.cmd().arg("import-claude"));
    assert_eq!(again.code, 1, "an existing file is not overwritten");
    assert!(again.stderr.contains("--force"), "{}", again.stderr);
    assert_eq!(Outcome::of(sandbox.cmd().args(["import-claude", "--force"])).code, 0);
}

#[test]
fn import_without_any_settings_is_an_error_sentence() {
    let out = Outcome::of(Sandbox::new().cmd().arg("import-claude"));
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("no Claude Code settings found"), "{}", out.stderr);
}

#[test]
fn aimon_hooks_own_routes_are_not_imported_as_hooks_of_their_own() {
    let sandbox = Sandbox::new();
    let init = Outcome::of(sandbox.cmd().args(["init", "claude", "--project", "--no-guard"]));
    assert_eq!(init.code, 0, "{}", init.stderr);
    let older = json!({"type": "command", "command": "/usr/local/bin/aimon-hooks claude"});
    let mut routed: Value = serde_json::from_str(
        &std::fs::read_to_string(sandbox.project().join(".claude/settings.json")).expect("settings"),
    )
    .expect("json");
    routed["hooks"]["Stop"][0]["hooks"].as_array_mut().expect("our Stop route").push(older);
    routed["hooks"]["Stop"]
        .as_array_mut()
        .expect("Stop")
        .push(json!({"hooks": [{"type": "command", "command": "./stop.sh"}]}));
    sandbox.write("project/.claude/settings.json", &routed.to_string());

    let file = sandbox.project().join(".claude/settings.json");
    let out = Outcome::of(sandbox.cmd().arg("import-claude").arg(&file).args(["-o", "-"]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let hooks = out.json();
    assert_eq!(
        hooks["hooks"].as_object().map(|h| h.keys().map(String::as_str).collect::<Vec<_>>()),
        Some(vec!["Stop"]),
        "{hooks}"
    );
    assert_eq!(
        hooks["hooks"]["Stop"][0]["hooks"],
        json!([{"type": "command", "command": "./stop.sh", "timeout": 600}]),
        "{hooks}"
    );
    assert!(out.stderr.contains("aimon-hooks' own route"), "{}", out.stderr);
}
