//! `run` on each of the seed's six hooks.json examples (tests/fixtures/seed*.json; see the README
//! there for the one edit). Unreachable http/mcp peers fail soft (R-ACT-HTTP-3, R-ACT-MCP-3).

use serde_json::{Value, json};

use crate::support::{Outcome, Sandbox, bash};

fn fixture(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn with_project_file(name: &str) -> Sandbox {
    let sandbox = Sandbox::new();
    sandbox.write("project/.aimon/hooks.json", &fixture(name));
    sandbox
}

fn run(sandbox: &Sandbox, event: &str, payload: &str) -> Outcome {
    Outcome::of(sandbox.cmd().args(["run", event]).write_stdin(payload))
}

fn tool_payload(event: &str, tool: &str, input: Value) -> String {
    json!({"hook_event_name": event, "tool_name": tool, "tool_input": input, "tool_response": {"success": true}})
        .to_string()
}

#[test]
fn seed_1_an_unreachable_audit_server_fails_soft_and_the_call_proceeds() {
    let sandbox = with_project_file("seed1-audit-http.json");
    let out = run(&sandbox, "PreToolUse", &bash("ls"));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v = out.json();
    assert_eq!(v["outcome"], "proceed");
    assert!(v["hooks"][0]["id"].as_str().is_some_and(|id| id.starts_with("http@project#")), "{v}");
    assert!(v["hooks"][0]["error"].is_string(), "the transport failure is named: {v}");
    let warns: Vec<&str> = out.stderr.lines().filter(|l| l.starts_with("WARN")).collect();
    assert!(!warns.is_empty() && warns.iter().all(|l| l.starts_with("WARN hooks: ")), "{}", out.stderr);
}

#[test]
fn seed_2_rm_rf_on_root_is_denied_even_inside_a_compound_command() {
    let sandbox = with_project_file("seed2-deny-rm-rf.json");
    for command in ["rm -rf /", "cd build && rm -rf /"] {
        let out = run(&sandbox, "PreToolUse", &bash(command));
        assert_eq!(out.code, 2, "{command}");
        // `rm -rf /` also removes the policy itself: self-protection's reason follows the seed's.
        let reason = out.json()["reason"].as_str().unwrap_or_default().to_owned();
        assert_eq!(reason.lines().next(), Some("위험한 rm -rf 명령은 차단됩니다."), "{command}");
    }
    let out = run(&sandbox, "PreToolUse", &bash("rm -rf build"));
    assert_eq!((out.code, out.json()["hooks"].clone()), (0, json!([])));
}

#[test]
fn seed_3_the_post_tool_metrics_hook_runs_and_never_blocks() {
    let sandbox = with_project_file("seed3-post-tool-metrics.json");
    let out = run(&sandbox, "PostToolUse", &tool_payload("PostToolUse", "Read", json!({"file_path": "/etc/hosts"})));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v = out.json();
    assert_eq!(v["outcome"], "proceed");
    assert_eq!(v["hooks"].as_array().map(Vec::len), Some(1));
}

#[test]
fn seed_4_an_undeclared_mcp_policy_server_fails_soft_for_edits_only() {
    let sandbox = with_project_file("seed4-mcp-policy.json");
    let edit = run(&sandbox, "PreToolUse", &tool_payload("PreToolUse", "Edit", json!({"file_path": "a.rs"})));
    assert_eq!(edit.code, 0, "{}", edit.stderr);
    assert!(edit.json()["hooks"][0]["error"].is_string(), "{}", edit.stdout);
    let read = run(&sandbox, "PreToolUse", &tool_payload("PreToolUse", "Read", json!({"file_path": "a.rs"})));
    assert_eq!(read.json()["hooks"], json!([]));
}

#[test]
fn seed_5_three_tiers_combine_in_user_project_local_order() {
    let sandbox = Sandbox::new();
    sandbox.write("home/.aimon/hooks.json", &fixture("seed5-user.json"));
    sandbox.write("project/.aimon/hooks.json", &fixture("seed5-project.json"));
    sandbox.write("project/.aimon/hooks.local.json", &fixture("seed5-local.json"));
    let out = run(&sandbox, "PreToolUse", &bash("git push origin main --force"));
    assert_eq!(out.code, 2);
    let v = out.json();
    assert_eq!(v["reason"], "force push 금지");
    let sources: Vec<&str> =
        v["hooks"].as_array().expect("hooks").iter().filter_map(|h| h["source"].as_str()).collect();
    assert_eq!(sources, ["project#0", "local#0"]);
    let post = run(&sandbox, "PostToolUse", &tool_payload("PostToolUse", "Bash", json!({"command": "ls"})));
    assert_eq!(post.json()["hooks"][0]["source"], "user#0");
}

#[test]
fn seed_6_an_approval_gateway_that_is_not_there_fails_soft() {
    let sandbox = with_project_file("seed6-async-rewake.json");
    let out = run(&sandbox, "PreToolUse", &bash("kubectl apply -f deploy-prod.yaml"));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v = out.json();
    assert_eq!(v["outcome"], "proceed");
    assert!(v["hooks"][0]["id"].as_str().is_some_and(|id| id.starts_with("mcp@project#")), "{v}");
    assert!(out.stderr.lines().any(|l| l.starts_with("WARN ")), "{}", out.stderr);
}
