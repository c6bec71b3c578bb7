//! `aimon-hooks init` (R-CLI-10): idempotent merge, backup, removal, http routes; the exec-time
//! guard on by default (`--no-guard`), launchers for the clients without a shell prefix.

use serde_json::{Value, json};

use crate::support::{Outcome, Sandbox};

fn existing() -> Value {
    json!({
        "model": "opus",
        "env": {"FOO": "1"},
        "hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh"}]}],
            "Stop": [{"hooks": [{"type": "command", "command": "./ralph.sh"}]}]
        }
    })
}

fn read(path: &std::path::Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("the file exists")).expect("json")
}

#[test]
fn init_claude_twice_gives_an_identical_file_and_leaves_everything_else_alone() {
    let sandbox = Sandbox::new();
    let file = sandbox.write("home/.claude/settings.json", &serde_json::to_string_pretty(&existing()).expect("json"));
    let first = Outcome::of(sandbox.cmd().args(["init", "claude"]));
    assert_eq!(first.code, 0, "{}", first.stderr);
    let once = std::fs::read_to_string(&file).expect("written");
    let second = Outcome::of(sandbox.cmd().args(["init", "claude", "--user"]));
    assert_eq!(second.code, 0, "{}", second.stderr);
    assert_eq!(std::fs::read_to_string(&file).expect("written"), once, "the second run changes nothing");

    let v = read(&file);
    // The exec-time guard is on wherever the kernel allows it, and the layers line says which.
    let guarded = first.stderr.contains("layers: parse-time rules on; exec-time guard on (CLAUDE_CODE_SHELL_PREFIX)");
    assert!(guarded || first.stderr.contains("exec-time guard off (unavailable here"), "{}", first.stderr);
    let mut env = existing()["env"].clone();
    if guarded {
        let prefix = format!("{} --guard", env!("CARGO_BIN_EXE_aimon-hooks"));
        env["CLAUDE_CODE_SHELL_PREFIX"] = json!(prefix);
    }
    assert_eq!((&v["model"], &v["env"]), (&existing()["model"], &env));
    assert_eq!(v["hooks"]["PreToolUse"][0], existing()["hooks"]["PreToolUse"][0]);
    assert_eq!(v["hooks"]["Stop"][0], existing()["hooks"]["Stop"][0]);
    let ours = &v["hooks"]["Stop"][1]["hooks"][0];
    let command = format!("{} claude", env!("CARGO_BIN_EXE_aimon-hooks"));
    assert_eq!(ours, &json!({"type": "command", "command": command}), "shell form: Copilot CLI reads this file too");
    assert_eq!(v["hooks"].as_object().map(serde_json::Map::len), Some(31));
    assert!(v["hooks"].get("WorktreeCreate").is_none(), "routed only when named");
    assert_eq!(read(&sandbox.root().join("home/.claude/settings.json.aimon-backup")), existing());

    let removed = Outcome::of(sandbox.cmd().args(["init", "claude", "--remove"]));
    assert_eq!(removed.code, 0, "{}", removed.stderr);
    assert_eq!(read(&file), existing(), "--remove restores the file");
}

#[test]
fn init_claude_project_http_writes_the_local_file_with_the_token_and_project_header() {
    let sandbox = Sandbox::new();
    std::fs::create_dir_all(sandbox.project()).expect("project dir");
    let args = ["init", "claude", "--project", "--http", "--event", "WorktreeCreate"];
    let refused = Outcome::of(sandbox.cmd().args(args));
    assert_eq!(refused.code, 1, "http routes fail open, so they need --fail-open: {}", refused.stderr);
    assert!(refused.stderr.contains("--fail-open"), "{}", refused.stderr);
    assert!(!sandbox.project().join(".claude").exists(), "nothing was written");
    let out = Outcome::of(sandbox.cmd().args(args).arg("--fail-open"));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!sandbox.project().join(".claude/settings.json").exists(), "a secret never goes into the committed file");
    let v = read(&sandbox.project().join(".claude/settings.local.json"));
    let token_file = sandbox.home().join(".aimon/serve.token");
    let token = std::fs::read_to_string(&token_file).expect("token created");
    assert_eq!(token.trim().len(), 64);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(&token_file).expect("token").permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let handler = &v["hooks"]["WorktreeCreate"][0]["hooks"][0];
    assert_eq!(handler["url"], "http://127.0.0.1:7787/v1/claude");
    assert_eq!(handler["headers"]["Authorization"], format!("Bearer {}", token.trim()));
    assert_eq!(handler["headers"]["X-Claude-Project-Dir"], "$CLAUDE_PROJECT_DIR");
    assert_eq!(handler["allowedEnvVars"], json!(["CLAUDE_PROJECT_DIR"]));
}

#[test]
fn init_claude_no_guard_leaves_the_exec_guard_off_and_takes_out_the_prefix_it_wrote() {
    let sandbox = Sandbox::new();
    let file = sandbox.write("home/.claude/settings.json", &serde_json::to_string_pretty(&existing()).expect("json"));
    let on = Outcome::of(sandbox.cmd().args(["init", "claude", "--guard"]));
    if on.code != 0 {
        // A kernel that refuses the guard: asked for by name, it is an error and nothing changes.
        assert!(on.stderr.contains("cannot set up the exec guard"), "{}", on.stderr);
        assert_eq!(read(&file), existing());
        return;
    }
    assert!(read(&file)["env"]["CLAUDE_CODE_SHELL_PREFIX"].is_string(), "--guard is the default, still accepted");
    let off = Outcome::of(sandbox.cmd().args(["init", "claude", "--no-guard"]));
    assert_eq!(off.code, 0, "{}", off.stderr);
    assert!(off.stderr.contains("layers: parse-time rules on; exec-time guard off\n"), "{}", off.stderr);
    assert_eq!(read(&file)["env"], existing()["env"], "the prefix is taken out");
    let both = Outcome::of(sandbox.cmd().args(["init", "claude", "--guard", "--no-guard"]));
    assert_eq!(both.code, 1, "{}", both.stderr);
    let validate = Outcome::of(sandbox.cmd().arg("validate"));
    assert!(
        validate.stderr.contains("layers: parse-time rules on; exec-time guard off (Claude Code)"),
        "{}",
        validate.stderr
    );
}

#[test]
fn init_for_a_client_without_a_shell_prefix_prints_its_guarded_start_and_writes_it_as_a_launcher() {
    let sandbox = Sandbox::new();
    std::fs::create_dir_all(sandbox.project()).expect("project dir");
    let binary = env!("CARGO_BIN_EXE_aimon-hooks");
    for client in ["gemini", "qwen", "codex", "copilot"] {
        let out = Outcome::of(sandbox.cmd().args(["init", client, "--project"]));
        assert_eq!(out.code, 0, "{client}: {}", out.stderr);
        let start = format!("{binary} guard -- {client}");
        let said = out.stderr.contains(&format!(
            "layers: parse-time rules on; exec-time guard off until {client} starts under it: {start}"
        ));
        assert!(said || out.stderr.contains("unavailable here"), "{client}: {}", out.stderr);

        let launcher = sandbox.root().join(format!("bin/{client}-guarded"));
        let out = Outcome::of(sandbox.cmd().args(["init", client, "--project", "--launcher"]).arg(&launcher));
        assert_eq!(out.code, 0, "{client}: {}", out.stderr);
        let text = std::fs::read_to_string(&launcher).expect("the launcher is written");
        assert!(text.starts_with("#!/bin/sh\n") && text.ends_with(&format!("exec {start} \"$@\"\n")), "{text}");
        use std::os::unix::fs::PermissionsExt as _;
        assert_eq!(std::fs::metadata(&launcher).expect("launcher").permissions().mode() & 0o777, 0o755);
        let said = out.stderr.contains(&format!("exec-time guard on when {client} starts from {}", launcher.display()));
        assert!(said || out.stderr.contains("unavailable here"), "{client}: {}", out.stderr);

        let out =
            Outcome::of(sandbox.cmd().args(["init", client, "--project", "--remove", "--launcher"]).arg(&launcher));
        assert_eq!(out.code, 0, "{client}: {}", out.stderr);
        assert!(!launcher.exists(), "{client}: --remove takes the launcher it wrote away");
        assert!(out.stderr.contains("layers: parse-time rules off; exec-time guard off"), "{client}: {}", out.stderr);
    }
}
