//! `validate` (R-CLI-3), `list` (R-CLI-4), `explain` (R-CLI-9) and `schema` (R-CLI-6).

use serde_json::{Value, json};

use crate::support::{Outcome, Sandbox, bash, command};

fn three_hooks() -> Value {
    json!({"hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "deny", "reason": "no shell"}]},
            {"matcher": "Edit", "hooks": [command("echo edit")]}
        ],
        "Stop": [{"hooks": [command("echo bye")]}]
    }})
}

#[test]
fn validate_reports_warnings_with_file_line_col_and_exits_0() {
    let sandbox = Sandbox::new();
    let file = sandbox.write(
        "project/.aimon/hooks.json",
        "{\n  \"hooks\": {\n    \"PostToolUse\": [\n      {\"hooks\": [{\"type\": \"deny\", \"reason\": \"x\"}]}\n    ]\n  }\n}\n",
    );
    let out = Outcome::of(sandbox.cmd().arg("validate"));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let line =
        out.stdout.lines().find(|l| l.contains("'deny' is not valid on")).unwrap_or_else(|| panic!("{}", out.stdout));
    assert!(line.starts_with(&format!("{}:4:", file.display())), "{line}");
    assert!(line.contains(": warning: hooks: "), "{line}");
    assert!(out.stderr.lines().any(|l| l.starts_with("WARN hooks: 'deny' is not valid on")), "{}", out.stderr);
    assert!(out.stdout.contains("1 file(s) checked: 0 handler(s), 1 warning(s), 0 error(s)"), "{}", out.stdout);
}

#[test]
fn validate_of_files_reports_every_error_and_exits_1() {
    let sandbox = Sandbox::new();
    let good = sandbox.write("good.json", &three_hooks().to_string());
    let bad = sandbox.write(
        "bad.json",
        "{\n  \"hooks\": {\n    \"PreToolUse\": [{\"hooks\": [{\"type\": \"agent\", \"prompt\": \"p\", \"onFailure\": \"later\"}]}]\n  }\n}\n",
    );
    let broken = sandbox.write("broken.json", "{\"hooks\": ");
    let out = Outcome::of(sandbox.cmd().arg("validate").args([&good, &bad, &broken]));
    assert_eq!(out.code, 1);
    assert!(
        out.stdout.lines().any(|l| l.starts_with(&format!("{}:3:", bad.display())) && l.contains("onFailure")),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.lines().any(|l| l.starts_with(&format!("{}:1:", broken.display())) && l.contains(": error: ")),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("3 file(s) checked: 3 handler(s), 0 warning(s), 2 error(s)"), "{}", out.stdout);
    assert!(out.stderr.lines().filter(|l| l.starts_with("error: ")).count() == 2, "{}", out.stderr);
}

#[test]
fn validate_reports_every_hard_error_of_a_file_not_only_the_first() {
    let sandbox = Sandbox::new();
    sandbox.write(
        "project/.aimon/hooks.json",
        concat!(
            "{\n",
            "  \"hooks\": {\n",
            "    \"PreToolUse\": [\n",
            "      {\"matcher\": \"Bash\", \"hooks\": [\n",
            "        {\"type\": \"prompt\", \"prompt\": \"p\", \"onFailure\": 1},\n",
            "        {\"type\": \"deny\", \"reason\": \"no\", \"timeout\": -1},\n",
            "        {\"type\": \"deny\", \"reason\": \"fine\", \"colour\": \"red\"}\n",
            "      ]},\n",
            "      {\"matcher\": false}\n",
            "    ],\n",
            "    \"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"x\", \"asyncRewake\": {\"trigger\": {\"delay\": \"0s\"}, \"reason\": \"\"}}]}]\n",
            "  }\n",
            "}\n"
        ),
    );
    let out = Outcome::of(sandbox.cmd().arg("validate"));
    assert_eq!(out.code, 1, "{}", out.stderr);
    let stdout = out.stdout.replace(&sandbox.root().display().to_string(), "<sandbox>");
    insta::with_settings!({snapshot_path => "../snapshots", prepend_module_to_snapshot => false}, {
        insta::assert_snapshot!("validate_every_hard_error", stdout);
    });
    assert_eq!(out.stderr.lines().filter(|l| l.starts_with("error: ")).count(), 5, "{}", out.stderr);
}

#[test]
fn validate_warns_about_an_mcp_handler_whose_server_no_mcp_json_declares() {
    let sandbox = Sandbox::new();
    sandbox.write("home/.aimon/mcp.json", r#"{"mcpServers": {"audit": {"command": "audit-server"}}}"#);
    sandbox.write(
        "project/.aimon/mcp.json",
        r#"{"mcpServers": {"policy": {"type": "http", "url": "http://127.0.0.1:9/mcp"}}}"#,
    );
    let file = sandbox.write(
        "project/.aimon/hooks.json",
        concat!(
            "{\"hooks\": {\"PreToolUse\": [{\"hooks\": [\n",
            "  {\"type\": \"mcp\", \"server\": \"policy\", \"tool\": \"check\"},\n",
            "  {\"type\": \"mcp\", \"server\": \"audit\", \"tool\": \"log\"},\n",
            "  {\"type\": \"mcp_tool\", \"server\": \"polcy\", \"tool\": \"check\"}\n",
            "]}]}}\n"
        ),
    );
    let out = Outcome::of(sandbox.cmd().arg("validate"));
    assert_eq!(out.code, 0, "a WARN, not an error: {}", out.stderr);
    let warnings: Vec<&str> = out.stdout.lines().filter(|l| l.contains("not declared")).collect();
    assert_eq!(
        warnings,
        [format!("{}:4:34: warning: hooks: mcp server 'polcy' is not declared in any mcp.json", file.display())],
        "{}",
        out.stdout
    );
    assert!(out.stderr.contains("WARN hooks: mcp server 'polcy' is not declared in any mcp.json"), "{}", out.stderr);
    assert!(out.stdout.contains("1 file(s) checked: 3 handler(s), 1 warning(s), 0 error(s)"), "{}", out.stdout);
}

#[test]
fn validate_with_no_files_present_checks_nothing_and_passes() {
    let out = Outcome::of(Sandbox::new().cmd().arg("validate"));
    assert_eq!(out.code, 0);
    assert!(out.stdout.contains("0 file(s) checked"), "{}", out.stdout);
}

#[test]
fn list_prints_a_table_and_json_with_tier_event_matcher_handler_id() {
    let sandbox = Sandbox::new();
    sandbox.project_hooks(&three_hooks());
    let table = Outcome::of(sandbox.cmd().arg("list"));
    assert_eq!(table.code, 0);
    let mut lines = table.stdout.lines();
    let header: Vec<&str> = lines.next().expect("header").split_whitespace().collect();
    assert_eq!(header, ["TIER", "EVENT", "MATCHER", "HANDLER", "ID", "TRUSTED"]);
    let rows: Vec<&str> = lines.collect();
    assert_eq!(rows.len(), 3);
    let deny = rows.iter().find(|r| r.contains("deny \"no shell\"")).unwrap_or_else(|| panic!("{}", table.stdout));
    let cells: Vec<&str> = deny.split_whitespace().collect();
    assert_eq!(cells[..3], ["PROJECT", "preTool", "Bash"], "{deny}");
    assert!(cells[cells.len() - 2].starts_with("deny@project#0#"), "{deny}");
    assert_eq!(cells.last(), Some(&"no"), "a fresh project is not trusted: {deny}");
    assert!(rows.iter().any(|r| r.contains("onStop") && r.contains("echo bye")), "{}", table.stdout);

    let v = Outcome::of(sandbox.cmd().args(["list", "--json"])).json();
    let first = v.as_array().and_then(|rows| rows.iter().find(|r| r["matcher"] == "Bash")).expect("the deny row");
    assert_eq!(
        (&first["tier"], &first["event"], &first["matcher"]),
        (&json!("PROJECT"), &json!("preTool"), &json!("Bash"))
    );
    assert!(first["id"].as_str().is_some_and(|id| id.starts_with("deny@project#0#")), "{first}");
    assert_eq!(first["source"], "project#0");
    assert_eq!(v.as_array().map(Vec::len), Some(3));
}

#[test]
fn list_without_hooks_says_where_it_looked() {
    let out = Outcome::of(Sandbox::new().cmd().arg("list"));
    assert_eq!(out.code, 0);
    assert!(
        out.stdout.starts_with("no hooks configured (looked at ") && out.stdout.contains("hooks.local.json"),
        "{}",
        out.stdout
    );
    assert_eq!(Outcome::of(Sandbox::new().cmd().args(["list", "--json"])).json(), json!([]));
}

#[test]
fn explain_says_which_hooks_run_and_why_the_others_do_not() {
    let sandbox = Sandbox::new();
    sandbox.project_hooks(&three_hooks());
    let out = Outcome::of(sandbox.cmd().args(["explain", "PreToolUse"]).write_stdin(bash("ls")));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.starts_with("preTool (tool 'Bash'): 1 of 3 configured hook(s) would run"), "{}", out.stdout);
    assert!(out.stdout.contains("matcher 'Edit' does not match tool 'Bash'"), "{}", out.stdout);
    assert!(out.stdout.contains("declared on event 'onStop', not 'preTool'"), "{}", out.stdout);

    let v = Outcome::of(sandbox.cmd().args(["explain", "preTool", "--json"]).write_stdin(bash("ls"))).json();
    assert_eq!((&v["event"], &v["subject"]), (&json!("preTool"), &json!("tool 'Bash'")));
    let hooks = v["hooks"].as_array().expect("hooks");
    let running: Vec<&Value> = hooks.iter().filter(|h| h["runs"] == true).collect();
    assert_eq!(running.len(), 1, "{v}");
    assert_eq!((&running[0]["matcher"], &running[0]["why"]), (&json!("Bash"), &Value::Null));
    assert!(hooks.iter().filter(|h| h["runs"] == false).all(|h| h["why"].is_string()), "{v}");
}

#[test]
fn explain_lists_handlers_skipped_at_load_time() {
    let sandbox = Sandbox::new();
    sandbox.project_hooks(&json!({"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command"}]}]}}));
    let out = Outcome::of(sandbox.cmd().args(["explain", "preTool"]).write_stdin(bash("ls")));
    assert_eq!(out.code, 0);
    assert!(out.stdout.contains("0 of 0 configured hook(s) would run"), "{}", out.stdout);
    assert!(out.stdout.contains("invalid handler in PROJECT on event 'PreToolUse'"), "{}", out.stdout);
}

#[test]
fn schema_is_a_json_schema_whose_events_and_handler_types_come_from_the_table() {
    let out = Outcome::of(Sandbox::new().cmd().arg("schema"));
    assert_eq!(out.code, 0);
    let schema = out.json();
    assert!(schema["$schema"].as_str().is_some_and(|s| s.contains("json-schema.org")), "{schema}");
    let text = out.stdout.as_str();
    for name in
        ["preTool", "PreToolUse", "onConfigReload", "PostCompact", "asyncRewake", "timeoutMs", "failClosed", "\"if\""]
    {
        assert!(text.contains(name), "schema mentions {name}");
    }
    for kind in ["command", "http", "mcp", "deny"] {
        assert!(text.contains(&format!("\"const\": \"{kind}\"")), "handler type {kind}");
    }
}

#[test]
fn list_includes_skill_hooks_in_the_skill_tier() {
    let sandbox = Sandbox::new();
    let skill = sandbox.write(
        "skills/lint/SKILL.md",
        "---\nname: lint\nhooks:\n  postTool:\n    - matcher: \"Edit\"\n      action: { type: shell, command: \"cargo clippy\" }\n---\n",
    );
    let v = Outcome::of(sandbox.cmd().args(["list", "--json", "--skill"]).arg(&skill)).json();
    assert_eq!((&v[0]["tier"], &v[0]["event"], &v[0]["source"]), (&json!("SKILL"), &json!("postTool"), &json!("lint")));
}
