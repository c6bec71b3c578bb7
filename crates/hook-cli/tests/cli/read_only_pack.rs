//! The pack `aimon/read-only` through `aimon-hooks claude` (issue 40): a call shown to only read
//! is answered with Claude Code's `permissionDecision: "allow"`; anything else is left to Claude
//! Code's own prompt (no decision); a deny of another rule wins over the allow.

use serde_json::{Value, json};

use crate::support::{Outcome, Sandbox};

/// The person's own file turns the packs on.
fn with_packs(packs: &[&str]) -> Sandbox {
    let sandbox = Sandbox::new();
    sandbox.write("home/.aimon/hooks.json", &json!({"packs": packs}).to_string());
    sandbox
}

fn claude(sandbox: &Sandbox, payload: &str) -> Outcome {
    let out = Outcome::of(
        sandbox.cmd().arg("claude").env("CLAUDE_PROJECT_DIR", sandbox.project()).write_stdin(payload.to_owned()),
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    out
}

/// A PreToolUse payload for `Bash` running `command` in the project.
fn bash_in(sandbox: &Sandbox, command: &str) -> String {
    tool_in(sandbox, "Bash", json!({"command": command, "description": "test"}))
}

fn tool_in(sandbox: &Sandbox, tool: &str, input: Value) -> String {
    json!({"session_id": "s", "transcript_path": "/tmp/t.jsonl", "cwd": sandbox.project(),
        "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": input,
        "tool_use_id": "toolu_1"})
    .to_string()
}

/// The `permissionDecision` of the answer, `None` when it gives none.
fn decision(out: &Outcome) -> Option<String> {
    if out.stdout.trim().is_empty() {
        return None;
    }
    let answer: Value = out.json();
    answer["hookSpecificOutput"]["permissionDecision"].as_str().map(str::to_owned)
}

#[test]
fn a_command_shown_read_only_is_allowed_and_anything_else_is_left_to_the_client() {
    let sandbox = with_packs(&["aimon/read-only"]);
    let cases: &[(&str, Option<&str>)] = &[
        ("git log --oneline -3", Some("allow")),
        ("ls", Some("allow")),
        ("cat README.md | grep -n x | head", Some("allow")),
        ("git commit -m x", None),
        ("rm -r x", None),
        ("git log > log.txt", None),
        ("sed -i s/a/b/ f", None),
        ("curl https://example.com", None),
        ("make", None),
    ];
    for (command, want) in cases {
        let got = decision(&claude(&sandbox, &bash_in(&sandbox, command)));
        assert_eq!(got.as_deref(), *want, "{command}");
    }
}

#[test]
fn the_read_tools_are_allowed_and_the_edit_tools_are_not() {
    let sandbox = with_packs(&["aimon/read-only"]);
    for (tool, input, want) in [
        ("Read", json!({"file_path": "README.md"}), Some("allow")),
        ("Grep", json!({"pattern": "x"}), Some("allow")),
        ("Glob", json!({"pattern": "**/*.rs"}), Some("allow")),
        ("Write", json!({"file_path": "a.txt", "content": "x"}), None),
    ] {
        assert_eq!(decision(&claude(&sandbox, &tool_in(&sandbox, tool, input))).as_deref(), want, "{tool}");
    }
}

#[test]
fn a_deny_of_another_pack_wins_over_the_allow() {
    let sandbox = with_packs(&["aimon/read-only", "aimon/secrets"]);
    for denied in [bash_in(&sandbox, "cat .env"), tool_in(&sandbox, "Read", json!({"file_path": ".env"}))] {
        let out = claude(&sandbox, &denied);
        assert_eq!(decision(&out).as_deref(), Some("deny"), "{denied}: {}", out.stdout);
    }
    assert_eq!(decision(&claude(&sandbox, &bash_in(&sandbox, "cat README.md"))).as_deref(), Some("allow"));
}

#[test]
fn without_the_pack_nothing_is_allowed_on_its_behalf() {
    let sandbox = with_packs(&["aimon/destructive"]);
    assert_eq!(decision(&claude(&sandbox, &bash_in(&sandbox, "git log --oneline -3"))), None);
}

#[test]
fn init_protect_offers_the_pack_and_leaves_it_off() {
    let sandbox = Sandbox::new();
    let out = Outcome::of(sandbox.cmd().args(["init", "claude", "--protect", "--no-guard"]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains("add \"aimon/read-only\" to \"packs\""), "{}", out.stderr);
    let own: Value =
        serde_json::from_str(&std::fs::read_to_string(sandbox.home().join(".aimon/hooks.json")).expect("written"))
            .expect("json");
    assert!(!own["packs"].as_array().expect("packs").iter().any(|p| p == "aimon/read-only"), "{own}");
}
