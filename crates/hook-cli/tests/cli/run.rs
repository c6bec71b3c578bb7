//! `aimon-hooks run` (R-CLI-1): one JSON object, keys always present, outcomes and exit codes.

use serde_json::{Value, json};

use crate::support::{Outcome, Sandbox, bash, command, one_hook};

const KEYS: [&str; 10] = [
    "event",
    "outcome",
    "decision",
    "flow",
    "reason",
    "feedback",
    "updatedInput",
    "updatedOutput",
    "systemMessage",
    "hooks",
];
const HOOK_KEYS: [&str; 6] = ["id", "source", "decision", "flow", "elapsedMs", "error"];

fn run(sandbox: &Sandbox, event: &str, payload: &str) -> Outcome {
    Outcome::of(sandbox.cmd().args(["run", event]).write_stdin(payload))
}

fn assert_shape(v: &Value) {
    let obj = v.as_object().expect("an object");
    let mut keys: Vec<&str> = obj.keys().map(String::as_str).collect();
    keys.sort_unstable();
    let mut expected = KEYS.to_vec();
    expected.sort_unstable();
    assert_eq!(keys, expected, "exactly the R-CLI-1 keys");
    for hook in v["hooks"].as_array().expect("hooks is an array") {
        let mut keys: Vec<&str> = hook.as_object().expect("object").keys().map(String::as_str).collect();
        keys.sort_unstable();
        let mut expected = HOOK_KEYS.to_vec();
        expected.sort_unstable();
        assert_eq!(keys, expected, "exactly the R-CLI-1 hook keys");
        assert!(hook["elapsedMs"].is_u64());
    }
}

#[test]
fn without_any_config_every_key_is_present_and_null_when_empty() {
    let out = run(&Sandbox::new(), "PreToolUse", &bash("ls"));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v = out.json();
    assert_shape(&v);
    assert_eq!(
        v,
        json!({"event": "preTool", "outcome": "proceed", "decision": "allow", "flow": "continue", "reason": null,
               "feedback": null, "updatedInput": null, "updatedOutput": null, "systemMessage": null, "hooks": []})
    );
    assert!(out.stdout.ends_with('\n') && out.stdout.lines().count() == 1, "one line of JSON");
}

#[test]
fn both_spellings_and_any_case_name_the_same_event_r_evt_1() {
    let sandbox = Sandbox::new();
    for name in ["preTool", "PreToolUse", "PRETOOL", "pretooluse"] {
        assert_eq!(run(&sandbox, name, &bash("ls")).json()["event"], "preTool", "{name}");
    }
    for (name, aimon) in [("Stop", "onStop"), ("SessionStart", "onSessionStart"), ("onStart", "onStart")] {
        assert_eq!(run(&sandbox, name, "{}").json()["event"], aimon, "{name}");
    }
}

#[test]
fn a_deny_handler_gives_denied_and_exit_2() {
    let sandbox = Sandbox::new();
    sandbox.project_hooks(&one_hook("PreToolUse", "Bash", json!({"type": "deny", "reason": "no shell today"})));
    let out = run(&sandbox, "preTool", &bash("ls"));
    assert_eq!(out.code, 2);
    let v = out.json();
    assert_shape(&v);
    assert_eq!((&v["outcome"], &v["decision"], &v["flow"]), (&json!("denied"), &json!("deny"), &json!("continue")));
    assert_eq!(v["reason"], "no shell today");
    assert_eq!(v["feedback"], Value::Null, "a deny reason is never repeated as feedback (R-RES-5)");
    let hook = &v["hooks"][0];
    assert!(hook["id"].as_str().expect("id").starts_with("deny@project#"), "{hook}");
    assert_eq!(
        (&hook["source"], &hook["decision"], &hook["error"]),
        (&json!("project#0"), &json!("deny"), &Value::Null)
    );
}

#[test]
fn a_non_matching_payload_runs_no_hook() {
    let sandbox = Sandbox::new();
    sandbox.project_hooks(&one_hook("PreToolUse", "Edit", json!({"type": "deny", "reason": "no"})));
    let out = run(&sandbox, "preTool", &bash("ls"));
    assert_eq!((out.code, out.json()["hooks"].clone()), (0, json!([])));
}

#[test]
fn a_shell_exit_2_blocks_pre_tool_with_its_stderr_as_reason() {
    let sandbox = Sandbox::new();
    sandbox.project_hooks(&one_hook("PreToolUse", "*", command("echo 'not in prod' >&2; exit 2")));
    let out = run(&sandbox, "preTool", &bash("deploy"));
    assert_eq!(out.code, 2);
    let v = out.json();
    assert_eq!((&v["outcome"], &v["flow"]), (&json!("blocked"), &json!("block")));
    assert_eq!(v["reason"].as_str().map(str::trim), Some("not in prod"));
}

#[test]
fn a_shell_exit_2_on_permission_request_is_denied() {
    let sandbox = Sandbox::new();
    sandbox.project_hooks(&one_hook("PermissionRequest", "*", command("echo nope >&2; exit 2")));
    let payload = json!({"hook_event_name": "PermissionRequest", "tool_name": "Bash", "tool_input": {"command": "ls"}});
    let out = run(&sandbox, "PermissionRequest", &payload.to_string());
    assert_eq!((out.code, out.json()["outcome"].clone()), (2, json!("denied")));
}

#[test]
fn a_json_ask_gives_ask_with_its_reason_and_exit_0_r_chain_2() {
    let sandbox = Sandbox::new();
    let answer = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"sure?"}}"#;
    sandbox.project_hooks(&one_hook("PreToolUse", "Bash", command(&format!("echo '{answer}'"))));
    let out = run(&sandbox, "preTool", &bash("git push"));
    assert_eq!(out.code, 0);
    let v = out.json();
    assert_eq!((&v["outcome"], &v["decision"], &v["reason"]), (&json!("ask"), &json!("ask"), &json!("sure?")));
}

#[test]
fn a_deprecated_top_level_block_on_pre_tool_counts_as_a_deny() {
    let sandbox = Sandbox::new();
    sandbox.project_hooks(&one_hook("PreToolUse", "*", command(r#"echo '{"decision":"block","reason":"old style"}'"#)));
    let out = run(&sandbox, "preTool", &bash("ls"));
    assert_eq!(out.code, 2);
    assert_eq!((out.json()["outcome"].clone(), out.json()["reason"].clone()), (json!("denied"), json!("old style")));
}

#[test]
fn updated_input_additional_context_and_system_message_are_reported() {
    let sandbox = Sandbox::new();
    let answer = r#"{"systemMessage":"rewrote it","hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"command":"ls -la"},"additionalContext":"listing is cheap"}}"#;
    sandbox.project_hooks(&one_hook("PreToolUse", "Bash", command(&format!("echo '{answer}'"))));
    let out = run(&sandbox, "preTool", &bash("ls"));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v = out.json();
    assert_eq!(v["outcome"], "proceed");
    assert_eq!(v["updatedInput"], json!({"command": "ls -la"}));
    assert_eq!(v["feedback"], "listing is cheap");
    assert_eq!(v["systemMessage"], "rewrote it");
}

#[test]
fn post_tool_is_advisory_but_an_exit_2_reaches_the_model_as_feedback() {
    let sandbox = Sandbox::new();
    sandbox.project_hooks(&one_hook("PostToolUse", "*", command("echo 'lint failed' >&2; exit 2")));
    let payload = json!({"hook_event_name": "PostToolUse", "tool_name": "Write", "tool_input": {"file_path": "a.rs"},
                         "tool_response": {"success": true}});
    let out = run(&sandbox, "PostToolUse", &payload.to_string());
    assert_eq!(out.code, 0, "post-tool never blocks");
    let v = out.json();
    assert_eq!((&v["outcome"], &v["reason"]), (&json!("proceed"), &Value::Null));
    assert_eq!(v["feedback"].as_str().map(str::trim), Some("lint failed"));
}

#[test]
fn a_block_on_an_advisory_event_proceeds_with_a_warn_line_r_evt_5() {
    let sandbox = Sandbox::new();
    sandbox.project_hooks(&one_hook("PostCompact", "", command("echo 'too late' >&2; exit 2")));
    let out = run(&sandbox, "PostCompact", r#"{"trigger":"auto","compact_summary":"s"}"#);
    assert_eq!(out.code, 0);
    let v = out.json();
    assert_eq!((&v["outcome"], &v["feedback"]), (&json!("proceed"), &Value::Null), "postCompact drops feedback");
    assert!(out.stderr.lines().any(|l| l.starts_with("WARN ") && l.contains("no decision channel")), "{}", out.stderr);
}

#[test]
fn a_stop_continuation_is_reported_blocked_with_exit_2_r_evt_7() {
    let sandbox = Sandbox::new();
    sandbox.project_hooks(&one_hook("Stop", "", command("echo 'keep going' >&2; exit 2")));
    let out = run(&sandbox, "Stop", r#"{"hook_event_name":"Stop","stop_hook_active":false}"#);
    assert_eq!(out.code, 2);
    let v = out.json();
    assert_eq!((&v["outcome"], v["reason"].as_str().map(str::trim)), (&json!("blocked"), Some("keep going")));
}

#[test]
fn a_defer_reports_decision_defer_with_outcome_ask_r_cc_2() {
    let sandbox = Sandbox::new();
    let answer = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"defer"}}"#;
    sandbox.project_hooks(&one_hook("PreToolUse", "*", command(&format!("echo '{answer}'"))));
    let out = run(&sandbox, "PreToolUse", r#"{"tool_name":"Bash","tool_input":{"command":"ls"}}"#);
    assert_eq!(out.code, 0);
    let v = out.json();
    assert_eq!((&v["outcome"], &v["decision"]), (&json!("ask"), &json!("defer")));
}

#[test]
fn pre_compact_exit_2_blocks_on_the_matching_trigger_only_r_pred_4b() {
    let sandbox = Sandbox::new();
    sandbox.project_hooks(&one_hook("PreCompact", "auto", command("echo 'not now' >&2; exit 2")));
    let auto = run(&sandbox, "PreCompact", r#"{"trigger":"auto","custom_instructions":""}"#);
    assert_eq!((auto.code, auto.json()["outcome"].clone()), (2, json!("blocked")));
    let manual = run(&sandbox, "PreCompact", r#"{"trigger":"manual","custom_instructions":"x"}"#);
    assert_eq!((manual.code, manual.json()["hooks"].clone()), (0, json!([])));
}

#[test]
fn a_failing_hook_proceeds_with_a_warn_and_its_error_named() {
    let sandbox = Sandbox::new();
    sandbox.project_hooks(&one_hook(
        "PreToolUse",
        "*",
        json!({"type": "command", "command": "sleep 5", "timeoutMs": 200}),
    ));
    let out = run(&sandbox, "preTool", &bash("ls"));
    assert_eq!(out.code, 0, "fail-open by default");
    let v = out.json();
    assert_eq!(v["outcome"], "proceed");
    assert!(v["hooks"][0]["error"].is_string(), "the timed-out hook is listed with its cause: {v}");
    assert!(out.stderr.lines().any(|l| l.starts_with("WARN ")), "{}", out.stderr);
}

#[test]
fn fail_closed_turns_a_failing_hook_into_a_block_r_cfg_4c() {
    let sandbox = Sandbox::new();
    sandbox.project_hooks(&one_hook(
        "PreToolUse",
        "*",
        json!({"type": "command", "command": "sleep 5", "timeoutMs": 200}),
    ));
    let out = Outcome::of(sandbox.cmd().args(["run", "preTool", "--fail-closed"]).write_stdin(bash("ls")));
    assert_eq!(out.code, 2, "{}", out.stdout);
    assert_eq!(out.json()["outcome"], "blocked");
}

fn two_denials(sandbox: &Sandbox) {
    sandbox.project_hooks(&json!({"hooks": {"PreToolUse": [
        {"matcher": "*", "hooks": [{"type": "deny", "reason": "first"}, {"type": "deny", "reason": "second"}]}
    ]}}));
}

#[test]
fn every_matching_hook_runs_by_default_and_stop_on_blocked_stops_at_the_first() {
    let sandbox = Sandbox::new();
    two_denials(&sandbox);
    let all = run(&sandbox, "preTool", &bash("ls")).json();
    assert_eq!(all["hooks"].as_array().map(Vec::len), Some(2));
    assert_eq!(all["reason"], "first\nsecond");
    let out = Outcome::of(sandbox.cmd().args(["run", "preTool", "--stop-on-blocked"]).write_stdin(bash("ls")));
    assert_eq!(out.code, 2);
    assert_eq!(out.json()["hooks"].as_array().map(Vec::len), Some(1));
    assert_eq!(out.json()["reason"], "first");
}

#[test]
fn sequential_hooks_see_the_updated_input_and_parallel_ones_do_not_r_exec_2_3() {
    let sandbox = Sandbox::new();
    let rewrite =
        r#"echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"command":"rewritten"}}}'"#;
    let report = r#"read -r line; case "$line" in *rewritten*) seen=rewritten;; *) seen=original;; esac; printf '{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"saw %s"}}\n' "$seen""#;
    sandbox.project_hooks(
        &json!({"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [command(rewrite), command(report)]}]}}),
    );
    let sequential = run(&sandbox, "preTool", &bash("ls")).json();
    assert_eq!(sequential["feedback"], "saw rewritten");
    let out = Outcome::of(sandbox.cmd().args(["run", "preTool", "--parallel"]).write_stdin(bash("ls")));
    assert_eq!(out.code, 0);
    let parallel = out.json();
    assert_eq!(parallel["feedback"], "saw original");
    assert_eq!(parallel["hooks"].as_array().map(Vec::len), Some(2), "every result is returned");
    assert_eq!(parallel["updatedInput"], json!({"command": "rewritten"}));
}

#[test]
fn tiers_dispatch_user_then_project_then_local_r_cfg_2() {
    let sandbox = Sandbox::new();
    let feedback = |text: &str| {
        command(&format!(
            r#"echo '{{"hookSpecificOutput":{{"hookEventName":"PreToolUse","additionalContext":"{text}"}}}}'"#
        ))
    };
    let write = |rel: &str, text: &str| {
        sandbox.write(rel, &one_hook("PreToolUse", "*", feedback(text)).to_string());
    };
    write("project/.aimon/hooks.local.json", "local");
    write("home/.aimon/hooks.json", "user");
    write("project/.aimon/hooks.json", "project");
    let v = run(&sandbox, "preTool", &bash("ls")).json();
    let sources: Vec<&str> =
        v["hooks"].as_array().expect("hooks").iter().filter_map(|h| h["source"].as_str()).collect();
    assert_eq!(sources, ["user#0", "project#0", "local#0"]);
    assert_eq!(v["feedback"], "user\nproject\nlocal");
}

#[test]
fn project_and_home_options_point_at_other_tiers() {
    let sandbox = Sandbox::new();
    sandbox.write(
        "elsewhere/.aimon/hooks.json",
        &one_hook("PreToolUse", "*", json!({"type":"deny","reason":"p"})).to_string(),
    );
    sandbox.write(
        "otherhome/.aimon/hooks.json",
        &one_hook("PreToolUse", "*", json!({"type":"deny","reason":"h"})).to_string(),
    );
    let payload = sandbox.write("payload.json", &bash("ls"));
    let out = Outcome::of(
        sandbox
            .cmd()
            .args(["run", "preTool", "--project", "../elsewhere", "--home"])
            .arg(sandbox.root().join("otherhome"))
            .arg("--payload")
            .arg(&payload),
    );
    assert_eq!(out.code, 2);
    assert_eq!(out.json()["reason"], "h\np");
}

#[test]
fn load_warnings_go_to_stderr_as_warn_hooks_lines_with_file_line_col() {
    let sandbox = Sandbox::new();
    let file = sandbox.write(
        "project/.aimon/hooks.json",
        "{\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\"matcher\": \"*\", \"colour\": \"red\", \"hooks\": [{\"type\": \"deny\", \"reason\": \"x\"}]}\n    ],\n    \"stop_hook_active\": []\n  }\n}\n",
    );
    let out = run(&sandbox, "preTool", &bash("ls"));
    assert_eq!(out.code, 2, "the file still loads");
    let warn = |needle: &str| {
        out.stderr
            .lines()
            .find(|l| l.starts_with("WARN hooks: ") && l.contains(needle))
            .unwrap_or_else(|| panic!("no WARN line with {needle:?} in:\n{}", out.stderr))
            .to_owned()
    };
    let unknown = warn("unknown field 'colour' in PROJECT");
    assert!(unknown.contains(&format!("{}:4:", file.display())), "{unknown}");
    warn("'stop_hook_active' event is not supported by AIMON in this phase");
    assert!(out.stdout.lines().count() == 1, "warnings never reach stdout");
}

#[test]
fn a_broken_matcher_is_reported_whatever_the_call() {
    // The Bash rule cannot be parsed; a Read call never tests it, and the WARN still says so.
    let sandbox = Sandbox::new();
    sandbox.project_hooks(&one_hook("PreToolUse", "Bash(command=[unclosed", json!({"type": "deny", "reason": "x"})));
    let read = json!({"hook_event_name": "PreToolUse", "tool_name": "Read", "tool_input": {"file_path": "/tmp/a"}});
    for (event, payload) in [("PreToolUse", read.to_string()), ("onStop", "{}".to_owned())] {
        let out = run(&sandbox, event, &payload);
        assert_eq!(out.code, 0, "{event}: {}", out.stderr);
        assert!(
            out.stderr
                .lines()
                .any(|l| l.starts_with("WARN hooks: matcher 'Bash(command=[unclosed' could not be parsed")),
            "{event}: {}",
            out.stderr
        );
    }
}

#[test]
fn a_configuration_error_exits_1_with_file_line_col() {
    let sandbox = Sandbox::new();
    let file = sandbox.write("project/.aimon/hooks.json", "{\n  \"hooks\": {\n    \"PreToolUse\": [ {\"hooks\": [ {\"type\": \"prompt\", \"prompt\": \"ok?\", \"onFailure\": \"retry\"} ]} ]\n  }\n}\n");
    let out = run(&sandbox, "preTool", &bash("ls"));
    assert_eq!(out.code, 1);
    assert!(out.stdout.is_empty());
    let line = out.stderr.lines().find(|l| l.contains("onFailure")).unwrap_or_else(|| panic!("{}", out.stderr));
    assert!(line.contains(&format!("{}:3:", file.display())), "{line}");

    sandbox.write("project/.aimon/hooks.json", "{\"hooks\": {\"PreToolUse\": [}");
    let out = run(&sandbox, "preTool", &bash("ls"));
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("hooks.json:1:"), "{}", out.stderr);
}

#[test]
fn the_payload_reaches_a_command_hook_on_stdin_and_in_aimon_variables_r_cc_1() {
    let sandbox = Sandbox::new();
    let seen = sandbox.root().join("seen.txt");
    let cmd = format!("cat > '{}.json'; echo \"$AIMON_TOOL_NAME $AIMON_EVENT\" > '{}'", seen.display(), seen.display());
    sandbox.project_hooks(&one_hook("PreToolUse", "Bash", command(&cmd)));
    let out = run(&sandbox, "PreToolUse", &bash("echo hi"));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(std::fs::read_to_string(&seen).expect("hook ran").trim(), "Bash preTool");
    let stdin: Value =
        serde_json::from_str(&std::fs::read_to_string(seen.with_extension("txt.json")).expect("stdin")).expect("json");
    assert_eq!(stdin["hook_event_name"], "PreToolUse");
    assert_eq!(stdin["tool_input"]["command"], "echo hi");
    assert_eq!(stdin["session_id"], "s-1");
}

const SKILL: &str = "---\nname: my-skill\ndescription: demo\nhooks:\n  preTool:\n    - matcher: \"Bash\"\n      action: { type: deny, reason: \"no Bash in this skill\" }\n  postTool:\n    - matcher: \"*\"\n      action: { type: shell, command: \"echo skill-post >&2\", timeoutMs: 5000 }\n---\n# My skill\n";

#[test]
fn a_skill_activates_its_frontmatter_hooks_after_the_tiers_r_skill_3() {
    let sandbox = Sandbox::new();
    let skill = sandbox.write("skills/my-skill/SKILL.md", SKILL);
    sandbox.project_hooks(&one_hook("PreToolUse", "*", command("exit 0")));
    let without = run(&sandbox, "preTool", &bash("ls"));
    assert_eq!((without.code, without.json()["hooks"].as_array().map(Vec::len)), (0, Some(1)));
    let out = Outcome::of(sandbox.cmd().args(["run", "preTool", "--skill"]).arg(&skill).write_stdin(bash("ls")));
    assert_eq!(out.code, 2, "{}", out.stderr);
    let v = out.json();
    assert_eq!(v["reason"], "no Bash in this skill");
    let ids: Vec<&str> = v["hooks"].as_array().expect("hooks").iter().filter_map(|h| h["id"].as_str()).collect();
    assert!(ids[0].starts_with("command@project#0#") && ids[1].starts_with("deny@my-skill#"), "{ids:?}");
    assert_eq!(v["hooks"][1]["source"], "my-skill");
}

#[test]
fn a_broken_skill_frontmatter_is_an_error_with_file_line_col() {
    let sandbox = Sandbox::new();
    let skill = sandbox.write(
        "skills/bad/SKILL.md",
        "---\nname: bad\nhooks:\n  PreToolUse:\n    - action: { type: deny, reason: x }\n---\n",
    );
    let out = Outcome::of(sandbox.cmd().args(["run", "preTool", "--skill"]).arg(&skill).write_stdin(bash("ls")));
    assert_eq!((out.code, out.stdout.as_str()), (1, ""));
    assert!(out.stderr.contains(&format!("{}:4:", skill.display())), "{}", out.stderr);
}

#[test]
fn exit_2_with_a_json_decision_reports_the_json_decision_and_keeps_the_veto() {
    // R-CC-7: (stdout JSON, outcome, decision, reason), each with stderr "from stderr" and exit 2.
    #[rustfmt::skip]
    let cases = [
        (r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"from json"}}"#, "denied", "deny", "from json"),
        (r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}"#, "blocked", "allow", "from stderr"),
    ];
    let sandbox = Sandbox::new();
    for (stdout, outcome, decision, reason) in cases {
        sandbox.project_hooks(&one_hook(
            "PreToolUse",
            "Bash",
            command(&format!("echo '{stdout}'; echo 'from stderr' >&2; exit 2")),
        ));
        let out = run(&sandbox, "PreToolUse", &bash("ls"));
        assert_eq!(out.code, 2, "{}", out.stderr);
        let v = out.json();
        assert_eq!(
            (&v["outcome"], &v["decision"], &v["reason"]),
            (&json!(outcome), &json!(decision), &json!(reason)),
            "{stdout}"
        );
    }
}
