//! Issue 36 through the binary: every client's tool arguments are read (`aimon-hooks gemini`,
//! `qwen`, `copilot`, `codex`, `claude` with `--no-serve` on their own payloads, a deny rule in
//! the project's `.aimon/hooks.json`): a rule on the path or command an argument names denies and
//! an unrelated one proceeds; a tool the client's table does not know is checked by the paths its
//! arguments name; and a field of the wrong type is uncertain, so a deny reading it holds.

use std::path::Path;

use serde_json::{Value, json};

use crate::support::{Outcome, Sandbox};

const REASON: &str = "client arguments: not this";
const READ_ENV: &str = "Read(./.env)";
const READ_SECRETS: &str = "Read(./secrets/**)";
const EDIT_ENV: &str = "Edit(./.env)";
const PUSH: &str = "Bash(git push:*)";

/// One PreToolUse call of `client` (its own dialect: `copilot-camel` is Copilot's camelCase one)
/// for `tool` (the client's name) with `input`: the subcommand's arguments and the payload.
fn call_of(client: &str, cwd: &Path, tool: &str, input: &Value) -> (Vec<&'static str>, Value) {
    let mut payload = json!({"session_id": "s", "cwd": cwd, "tool_name": tool, "tool_input": input,
                             "transcript_path": null, "tool_use_id": "t1"});
    let (args, event, extra) = match client {
        "claude" => (vec!["claude"], "PreToolUse", json!({"permission_mode": "default"})),
        "codex" => (vec!["codex"], "PreToolUse", json!({"turn_id": "t", "model": "m", "permission_mode": "default"})),
        "gemini" => (vec!["gemini"], "BeforeTool", json!({"timestamp": "2026-12-03T00:00:00Z"})),
        "qwen" => (vec!["qwen"], "PreToolUse", json!({"timestamp": "2026-12-03T00:00:00Z"})),
        "copilot" => (vec!["copilot"], "PreToolUse", json!({"timestamp": "2026-12-03T00:00:00Z"})),
        "copilot-camel" => {
            let camel = json!({"sessionId": "s", "timestamp": 1, "cwd": cwd, "toolName": tool, "toolArgs": input});
            return (vec!["copilot", "--event", "preToolUse"], camel);
        }
        other => panic!("no dialect {other}"),
    };
    payload["hook_event_name"] = json!(event);
    for (key, value) in extra.as_object().expect("object") {
        payload[key] = value.clone();
    }
    (args, payload)
}

/// `(client, rule, the client's tool, its input, denied)`.
type Row = (&'static str, &'static str, &'static str, Value, bool);

/// The project every row runs in: `.env`, `secrets/key`, `sub/`, `src/`, `docs/`, `README.md`.
fn sandbox() -> Sandbox {
    let sandbox = Sandbox::new();
    for (file, text) in [
        ("project/.env", "K=v\n"),
        ("project/secrets/key", "k\n"),
        ("project/sub/a.txt", "a\n"),
        ("project/src/lib.rs", "\n"),
        ("project/docs/x.md", "x\n"),
        ("project/README.md", "r\n"),
    ] {
        sandbox.write(file, text);
    }
    sandbox
}

/// Runs every row (each with its one deny rule; `$P` in its input's strings is the project's
/// path) and lists those decided otherwise.
fn run(rows: Vec<Row>) {
    let sandbox = sandbox();
    let project = sandbox.project();
    let failed: Vec<String> = rows
        .into_iter()
        .filter_map(|(client, rule, tool, input, want)| {
            let text = input.to_string().replace("$P", &project.display().to_string());
            let input: Value = serde_json::from_str(&text).expect("json");
            sandbox.project_hooks(&json!({"hooks": {"PreToolUse": [
                {"matcher": rule, "hooks": [{"type": "deny", "reason": REASON}]}]}}));
            let (args, payload) = call_of(client, &project, tool, &input);
            let out = Outcome::of(sandbox.cmd().args(&args).arg("--no-serve").write_stdin(payload.to_string()));
            let denied = out.code == 2 || out.stdout.contains("\"deny\"");
            let sound = out.code == 0 || out.code == 2;
            (denied != want || !sound).then(|| {
                format!(
                    "{client} {tool} {input} under {rule}: want denied={want}, exit {}: {}{}",
                    out.code, out.stdout, out.stderr
                )
            })
        })
        .collect();
    assert!(failed.is_empty(), "{} rows failed:\n{}", failed.len(), failed.join("\n"));
}

#[test]
fn each_newly_read_client_argument_carries_a_deny_and_an_unrelated_path_proceeds() {
    let env = |p: &str| format!("{p}/.env");
    #[rustfmt::skip]
    let rows: Vec<Row> = vec![
        // Gemini CLI: read_many_files' paths and include, run_shell_command's directory, the
        // searches' include and dir_path, read_file's absolute_path.
        ("gemini", READ_ENV, "read_many_files", json!({"paths": [".env"]}), true),
        ("gemini", READ_ENV, "read_many_files", json!({"paths": ["docs"], "include": ["**/.env"]}), true),
        ("gemini", READ_ENV, "read_many_files", json!({"paths": ["."]}), true),
        ("gemini", READ_ENV, "read_many_files", json!({"paths": ["README.md", "src/**/*.rs"], "include": ["*.md"]}), false),
        ("gemini", READ_ENV, "run_shell_command", json!({"command": "cat ../.env", "directory": "sub"}), true),
        ("gemini", READ_ENV, "run_shell_command", json!({"command": "cat ../.env", "dir_path": "sub"}), true),
        ("gemini", READ_ENV, "run_shell_command", json!({"command": "cat a.txt", "directory": "sub"}), false),
        ("gemini", READ_ENV, "search_file_content", json!({"pattern": "K", "include": ".env"}), true),
        ("gemini", READ_ENV, "grep_search", json!({"pattern": "K", "include": "*.md"}), false),
        ("gemini", READ_SECRETS, "glob", json!({"pattern": "*", "dir_path": "secrets"}), true),
        ("gemini", READ_SECRETS, "glob", json!({"pattern": "*", "dir_path": "src"}), false),
        ("gemini", READ_ENV, "read_file", json!({"absolute_path": env("$P")}), true),
        ("gemini", READ_ENV, "read_file", json!({"absolute_path": "$P/README.md"}), false),
        // Qwen Code: the same tools, its own spellings.
        ("qwen", READ_ENV, "read_file", json!({"absolute_path": env("$P")}), true),
        ("qwen", READ_ENV, "read_file", json!({"absolute_path": "$P/README.md"}), false),
        ("qwen", READ_ENV, "read_many_files", json!({"paths": ["src"], "include": [".env"]}), true),
        ("qwen", READ_ENV, "read_many_files", json!({"paths": ["README.md"]}), false),
        ("qwen", READ_ENV, "run_shell_command", json!({"command": "cat ../.env", "directory": "$P/sub"}), true),
        ("qwen", READ_ENV, "run_shell_command", json!({"command": "cat a.txt", "directory": "$P/sub"}), false),
        ("qwen", READ_ENV, "grep_search", json!({"pattern": "K", "include": ".env"}), true),
        ("qwen", READ_ENV, "grep_search", json!({"pattern": "K", "glob": "*.rs", "path": "src"}), false),
        // Copilot CLI, both dialects: powershell, write_bash and write_powershell are Bash that a
        // POSIX shell may not read: every Bash deny holds on them, whatever the text.
        ("copilot", PUSH, "powershell", json!({"command": "git push origin main"}), true),
        ("copilot-camel", PUSH, "powershell", json!({"command": "Get-ChildItem"}), true),
        ("copilot", PUSH, "write_bash", json!({"sessionId": "1", "input": "git push\n"}), true),
        ("copilot-camel", PUSH, "write_bash", json!({"sessionId": "1", "input": "y\n"}), true),
        ("copilot", PUSH, "write_powershell", json!({"sessionId": "1", "input": "git push"}), true),
        ("copilot", READ_ENV, "powershell", json!({"command": "Get-Content .env"}), true),
        ("copilot-camel", READ_ENV, "write_bash", json!({"sessionId": "1", "input": "cat .env\n"}), true),
        ("copilot", READ_ENV, "powershell", json!({"command": "Get-Content README.md"}), false),
        ("copilot-camel", READ_ENV, "write_bash", json!({"sessionId": "1", "input": "ls\n"}), false),
        ("copilot", PUSH, "bash", json!({"command": "ls"}), false),
        // A tool no table knows, carrying a path: Gemini's list_directory and another of its
        // tools, MCP tools of Qwen, Copilot, Codex and Claude Code, Claude Code's LS.
        ("gemini", READ_SECRETS, "list_directory", json!({"dir_path": "$P/secrets"}), true),
        ("gemini", READ_SECRETS, "list_directory", json!({"dir_path": "$P/src"}), false),
        ("gemini", READ_ENV, "read_text", json!({"path": ".env"}), true),
        ("qwen", EDIT_ENV, "mcp__fs__write_file", json!({"path": "$P/.env", "content": "K=w"}), true),
        ("qwen", EDIT_ENV, "mcp__fs__write_file", json!({"path": "$P/README.md", "content": "r"}), false),
        ("copilot", READ_ENV, "fs-read_text_file", json!({"path": ".env"}), true),
        ("copilot-camel", READ_ENV, "fs-read_text_file", json!({"path": "README.md"}), false),
        ("codex", READ_ENV, "mcp__fs__read_text_file", json!({"path": env("$P")}), true),
        ("codex", READ_ENV, "mcp__fs__read_text_file", json!({"path": "$P/README.md"}), false),
        ("claude", READ_ENV, "mcp__fs__read_multiple_files", json!({"paths": ["README.md", ".env"]}), true),
        ("claude", READ_ENV, "mcp__fs__read_multiple_files", json!({"paths": ["README.md"]}), false),
        ("claude", EDIT_ENV, "mcp__fs__edit_file", json!({"options": {"target": "file://$P/.env"}}), true),
        ("claude", READ_SECRETS, "LS", json!({"path": "$P/secrets"}), true),
        ("claude", READ_SECRETS, "LS", json!({"path": "$P/src"}), false),
    ];
    run(rows);
}

#[test]
fn a_field_of_the_wrong_type_is_uncertain_and_a_deny_reading_it_holds_in_every_client() {
    let wrong = [json!(123), json!(["git push", ".env"]), json!({"value": ".env"}), Value::Null];
    // (client, its shell tool, a file tool reading `file_path`, a search tool reading `path`, a
    // tool reading `paths`)
    let tools = [
        ("claude", "Bash", "Read", "Grep", "mcp__fs__read_multiple_files"),
        ("codex", "Bash", "Read", "Grep", "mcp__fs__read_multiple_files"),
        ("gemini", "run_shell_command", "read_file", "grep_search", "read_many_files"),
        ("qwen", "run_shell_command", "read_file", "grep_search", "read_many_files"),
        ("copilot", "bash", "view", "grep", "fs-read_multiple_files"),
        ("copilot-camel", "bash", "view", "grep", "fs-read_multiple_files"),
    ];
    let mut rows: Vec<Row> = Vec::new();
    for (client, shell, file, search, many) in tools {
        for value in &wrong {
            rows.extend([
                (client, PUSH, shell, json!({"command": value}), true),
                (client, READ_ENV, shell, json!({"command": value}), true),
                (client, READ_ENV, file, json!({"file_path": value}), true),
                (client, READ_ENV, search, json!({"pattern": "K", "path": value}), true),
                (client, READ_ENV, many, json!({"paths": value}), true),
            ]);
        }
        // A tool input that is not an object at all (`null` is read as no input, as a missing one).
        for input in [json!("git push origin main"), json!(123), json!(["git", "push"])] {
            rows.push((client, PUSH, shell, input, true));
        }
        // The right types: the unrelated call proceeds.
        rows.extend([
            (client, PUSH, shell, json!({"command": "ls"}), false),
            (client, READ_ENV, file, json!({"file_path": "README.md"}), false),
            (client, READ_ENV, search, json!({"pattern": "K", "path": "src"}), false),
            (client, READ_ENV, many, json!({"paths": ["README.md"]}), false),
        ]);
    }
    run(rows);
}
