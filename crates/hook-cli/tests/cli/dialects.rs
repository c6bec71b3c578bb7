//! The clients' dialects through the binary: Copilot's camelCase calls (`copilot --event`),
//! Codex's `apply_patch` under Edit and Write rules, and the project trust `init codex --project`
//! writes into Codex's config.

use serde_json::{Value, json};

use crate::support::{Outcome, Sandbox, one_hook};

const REASON: &str = "dialects: not this file";

/// `aimon-hooks <args…>` in the sandbox's project with `payload` on stdin, in this process.
fn call(sandbox: &Sandbox, args: &[&str], payload: &Value) -> Outcome {
    Outcome::of(sandbox.cmd().args(args).arg("--no-serve").write_stdin(payload.to_string()))
}

fn deny(matcher: &str) -> Value {
    one_hook("PreToolUse", matcher, json!({"type": "deny", "reason": REASON}))
}

#[test]
fn a_camel_case_copilot_call_is_read_by_the_event_its_handler_names_and_answered_at_the_top_level() {
    let sandbox = Sandbox::new();
    sandbox.project_hooks(&deny("Bash(git push:*)"));
    let camel = |command: &str| {
        json!({"sessionId": "s", "timestamp": 1, "cwd": sandbox.project(), "toolName": "bash",
               "toolArgs": {"command": command, "description": "d"}})
    };
    let denied = call(&sandbox, &["copilot", "--event", "preToolUse"], &camel("git push origin main"));
    assert_eq!(denied.code, 0, "{}", denied.stderr);
    let out = denied.json();
    assert_eq!(
        (out["permissionDecision"].as_str(), out["permissionDecisionReason"].as_str()),
        (Some("deny"), Some(REASON))
    );
    assert!(out.get("hookSpecificOutput").is_none(), "the camelCase form has no hookSpecificOutput: {out}");

    let allowed = call(&sandbox, &["copilot", "--event", "preToolUse"], &camel("ls"));
    assert_eq!(allowed.code, 0, "{}", allowed.stderr);
    assert!(!allowed.stdout.contains("deny"), "{}", allowed.stdout);

    // The same call in the PascalCase dialect: both forms.
    let pascal = json!({"hook_event_name": "PreToolUse", "session_id": "s", "timestamp": "2026-12-02T00:00:00Z",
                        "cwd": sandbox.project(), "tool_name": "Bash",
                        "tool_input": {"command": "git push origin main", "description": "d"}});
    let out = call(&sandbox, &["copilot"], &pascal).json();
    assert_eq!(out["permissionDecision"], "deny");
    assert_eq!(out["hookSpecificOutput"]["permissionDecision"], "deny");

    // A camelCase payload that cannot be read is refused: its event came on the command line.
    let broken = Outcome::of(
        sandbox
            .cmd()
            .args(["copilot", "--no-serve", "--event", "preToolUse"])
            .write_stdin("{\"sessionId\": \"s\", \"toolArgs\": {"),
    );
    assert_eq!(broken.code, 2, "{}", broken.stdout);
    assert!(!broken.stderr.is_empty(), "the refusal says why");
}

#[test]
fn a_codex_patch_is_an_edit_of_every_path_it_names_and_an_unreadable_patch_is_uncertain() {
    let sandbox = Sandbox::new();
    sandbox.project_hooks(&deny("Edit(.env)"));
    let patch = |body: &str| format!("*** Begin Patch\n{body}\n*** End Patch\n");
    // (patch, denied)
    let cases = [
        (patch("*** Update File: .env\n@@\n-A=1\n+A=2"), true),
        (patch("*** Add File: .env\n+A=1"), true),
        (patch("*** Update File: README.md\n@@\n-a\n+b\n*** Delete File: .env"), true),
        (patch("*** Update File: notes.txt\n*** Move to: config/.env"), true),
        (patch("*** Update File: README.md\n@@\n-a\n+b"), false),
        ("*** Update File: README.md without its frame".to_owned(), true),
    ];
    for (patch, denied) in cases {
        let payload = json!({"session_id": "s", "turn_id": "t", "transcript_path": null, "cwd": sandbox.project(),
                             "hook_event_name": "PreToolUse", "model": "m", "permission_mode": "default",
                             "tool_name": "apply_patch", "tool_input": {"command": patch}, "tool_use_id": "c"});
        let out = call(&sandbox, &["codex"], &payload);
        assert_eq!(out.code, 0, "{patch}: {}", out.stderr);
        let decision = out.stdout.contains("\"deny\"");
        assert_eq!(decision, denied, "{patch}: {}", out.stdout);
    }
}

/// Codex's config with a setting of the person's and another project's trust.
const CODEX_CONFIG: &str = "model = \"o3\" # mine\n\n[projects.\"/elsewhere\"]\ntrust_level = \"trusted\"\n";

#[test]
fn init_codex_project_trusts_the_project_once_and_remove_takes_back_only_that() {
    let sandbox = Sandbox::new();
    let config = sandbox.write("home/.codex/config.toml", CODEX_CONFIG);
    let first = Outcome::of(sandbox.cmd().args(["init", "codex", "--project"]));
    assert_eq!(first.code, 0, "{}", first.stderr);
    let text = std::fs::read_to_string(&config).expect("config");
    let doc: toml_edit::DocumentMut = text.parse().expect("toml");
    let project = sandbox.project().canonicalize().expect("project").display().to_string();
    assert_eq!(doc["projects"][project.as_str()]["trust_level"].as_str(), Some("trusted"), "{text}");
    assert_eq!(doc["projects"]["/elsewhere"]["trust_level"].as_str(), Some("trusted"));
    assert!(text.contains("model = \"o3\" # mine"), "{text}");
    assert!(doc["hooks"]["state"].as_table().is_some_and(|t| !t.is_empty()), "the hooks are trusted too: {text}");

    let second = Outcome::of(sandbox.cmd().args(["init", "codex", "--project"]));
    assert_eq!(second.code, 0, "{}", second.stderr);
    assert_eq!(std::fs::read_to_string(&config).expect("config"), text, "a second run changes nothing");

    let removed = Outcome::of(sandbox.cmd().args(["init", "codex", "--project", "--remove"]));
    assert_eq!(removed.code, 0, "{}", removed.stderr);
    let back: toml_edit::DocumentMut = std::fs::read_to_string(&config).expect("config").parse().expect("toml");
    assert_eq!(back.to_string().trim(), CODEX_CONFIG.trim(), "--remove gives the person's config back");
}

#[test]
fn init_codex_project_keeps_a_trust_level_the_person_set_and_says_so() {
    let sandbox = Sandbox::new();
    let project = sandbox.project().canonicalize().expect("project").display().to_string();
    let mine = format!("[projects.{}]\ntrust_level = \"untrusted\"\n", Value::from(project.as_str()));
    let config = sandbox.write("home/.codex/config.toml", &mine);
    for args in [&["init", "codex", "--project"][..], &["init", "codex", "--project", "--remove"]] {
        let out = Outcome::of(sandbox.cmd().args(args));
        assert_eq!(out.code, 0, "{}", out.stderr);
        let doc: toml_edit::DocumentMut = std::fs::read_to_string(&config).expect("config").parse().expect("toml");
        assert_eq!(doc["projects"][project.as_str()]["trust_level"].as_str(), Some("untrusted"), "{args:?}");
        if args.len() == 3 {
            assert!(out.stderr.contains("untrusted"), "the person is told: {}", out.stderr);
        }
    }
}
