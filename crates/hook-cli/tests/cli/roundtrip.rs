//! One handler vocabulary: every handler the loader accepts reads the same through the JSON
//! Schema `schema` prints, the Claude Code importer and SKILL.md frontmatter (R-CLI-6, R-CC-3,
//! R-SKILL-1).

use serde_json::{Value, json};

use crate::support::{Outcome, Sandbox};

/// The `handler` summary `list --json` gives for the only hook in reach.
fn listed(sandbox: &Sandbox, extra: &[&str]) -> String {
    let out = Outcome::of(sandbox.cmd().args(["list", "--json"]).args(extra));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let rows = out.json();
    assert_eq!(rows.as_array().map(Vec::len), Some(1), "{rows}");
    rows[0]["handler"].as_str().expect("a handler summary").to_owned()
}

fn document(event: &str, handler: &Value) -> Value {
    json!({"hooks": {event: [{"matcher": "Bash", "hooks": [handler]}]}})
}

/// The handler as a frontmatter action: `shell` for `command`, milliseconds only.
fn frontmatter_action(handler: &Value) -> Value {
    let mut action = handler.as_object().expect("a handler object").clone();
    if action["type"] == "command" {
        action.insert("type".into(), "shell".into());
    }
    if let Some(secs) = action.remove("timeout") {
        action.insert("timeoutMs".into(), (secs.as_f64().expect("seconds") * 1000.0).round().into());
    }
    Value::Object(action)
}

#[test]
fn every_handler_kind_and_field_reads_the_same_through_the_schema_the_importer_and_frontmatter() {
    let schema = Outcome::of(Sandbox::new().cmd().arg("schema")).json();
    let validator = jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("the schema compiles: {e}"));
    // (hooks.json handler, Claude Code can say it, frontmatter can say it)
    #[rustfmt::skip]
    let rows: &[(Value, bool, bool)] = &[
        (json!({"type": "command", "command": "echo hi", "timeout": 5}), true, true),
        (json!({"type": "command", "command": "./check.sh", "timeoutMs": 1500, "failClosed": true}), false, true),
        (json!({"type": "command", "command": "./push.sh", "timeout": 30, "if": "Bash(git push:*)"}), true, false),
        (json!({"type": "command", "command": "./later.sh", "asyncRewake": {"trigger": {"delay": "5m"}, "reason": "look again", "maxAttempts": 2}}), false, false),
        (json!({"type": "http", "url": "http://127.0.0.1:9/h", "headers": {"X-A": "${env.A}"}, "allowedEnvVars": ["A"], "timeout": 10}), true, true),
        (json!({"type": "http", "url": "http://127.0.0.1:9/h", "method": "put", "body": {"tool": "${tool_input.command}"}}), false, true),
        (json!({"type": "http", "url": "http://127.0.0.1:9/h", "body": "cmd=${tool_input.command}", "failClosed": true}), false, true),
        (json!({"type": "mcp", "server": "s", "tool": "t", "args": {"path": "${tool_input.file_path}"}, "timeout": 20}), true, true),
        (json!({"type": "mcp_tool", "server": "s", "tool": "t", "input": {"n": 1}, "timeout": 2.5}), true, false),
        (json!({"type": "deny", "reason": "not here"}), false, true),
    ];
    for (handler, claude, frontmatter) in rows {
        let doc = document("preTool", handler);
        let errors: Vec<String> = validator.iter_errors(&doc).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{handler}: {errors:?}");

        let direct = Sandbox::new();
        direct.project_hooks(&doc);
        let expected = listed(&direct, &[]);

        if *claude {
            let sandbox = Sandbox::new();
            sandbox.write("project/.claude/settings.json", &document("PreToolUse", handler).to_string());
            let out = Outcome::of(sandbox.cmd().arg("import-claude"));
            assert_eq!(out.code, 0, "{handler}: {}", out.stderr);
            let written = std::fs::read_to_string(sandbox.project().join(".aimon/hooks.json")).expect("imported");
            let imported: Value = serde_json::from_str(&written).expect("JSON");
            let errors: Vec<String> = validator.iter_errors(&imported).map(|e| e.to_string()).collect();
            assert!(errors.is_empty(), "{imported}: {errors:?}");
            assert_eq!(listed(&sandbox, &[]), expected, "{handler} through the importer: {imported}");
        }

        if *frontmatter {
            let sandbox = Sandbox::new();
            let action = frontmatter_action(handler);
            let skill = sandbox.write(
                "skills/rt/SKILL.md",
                &format!("---\nname: rt\nhooks:\n  preTool:\n    - matcher: \"Bash\"\n      action: {action}\n---\n"),
            );
            let skill = skill.to_string_lossy().into_owned();
            assert_eq!(listed(&sandbox, &["--skill", &skill]), expected, "{handler} in frontmatter: {action}");
        }
    }
}
