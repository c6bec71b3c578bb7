//! Self-protection: no tool call of any client can write, create, remove, rename, truncate,
//! `chmod` or link over the files that make up the policy and its routing, and reading them stays
//! allowed.
//!
//! Every Bash row is first run for real (`bash -c`, in a scratch copy of the same project and
//! home) to show it does change a protected file; then it is put to `aimon-hooks` in each of the
//! five clients' dialects, and must be denied. The rows of the clients' own edit tools are denied
//! in their dialects too, and a set of reads is not.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::support::{Outcome, Sandbox, one_hook};

/// The files of a scratch project and home that self-protection covers, with their text.
const PROTECTED: &[(&str, &str)] = &[
    ("project/.aimon/hooks.json", ""),
    ("project/.aimon/tests/push.json", "{\"cases\": []}\n"),
    ("project/.claude/settings.json", "{\"permissions\": {}}\n"),
    ("project/.claude/skills/s/SKILL.md", "---\nname: s\ndescription: d\n---\nbody\n"),
    ("project/.codex/hooks.json", "{}\n"),
    ("project/.github/hooks/aimon.json", "{}\n"),
    ("project/.gemini/settings.json", "{}\n"),
    ("project/.qwen/settings.json", "{}\n"),
    ("home/.aimon/hooks.json", "{\"hooks\": {}}\n"),
    ("home/.aimon/trusted.json", "{}\n"),
    ("home/.aimon/decisions.jsonl", "{}\n"),
    ("home/.aimon/rewake.db", "db\n"),
    ("home/.claude/settings.json", "{\"hooks\": {}}\n"),
    ("home/.codex/hooks.json", "{}\n"),
    ("home/.codex/config.toml", "model = \"m\"\n"),
    ("home/.gemini/settings.json", "{}\n"),
    ("home/.qwen/settings.json", "{}\n"),
];

/// Protected files the scratch copy does not hold, which a row may create.
const CREATED: [&str; 2] = ["project/.claude/settings.local.json", "project/.aimon/hooks.local.json"];

/// The directories whose every entry is protected.
const PROTECTED_DIRS: &[&str] =
    &["project/.aimon", "project/.claude/skills", "home/.aimon", "home/.claude/skills", "project", "home"];

/// The project's own policy: a push is denied.
fn policy() -> Value {
    one_hook("PreToolUse", "Bash(git push:*)", json!({"type": "deny", "reason": "no pushing"}))
}

/// Writes the protected files (and a decoy the rows copy from) under `root`.
fn populate(root: &Path) {
    let policy = serde_json::to_string_pretty(&policy()).expect("json");
    for (rel, text) in PROTECTED {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        // `{}` would be what some rows write: each file holds its own name instead.
        let own = format!("{{\"file\": \"{rel}\"}}\n");
        let text = match *text {
            "" => policy.as_str(),
            "{}\n" => own.as_str(),
            text => text,
        };
        std::fs::write(&path, text).expect("write");
    }
    std::fs::create_dir_all(root.join("evil/.aimon")).expect("mkdir");
    std::fs::write(root.join("evil/.aimon/hooks.json"), "{}").expect("write");
    std::fs::write(root.join("project/README.md"), "readme\n").expect("write");
}

/// Every file, link and directory under the protected roots, with what identifies its state.
fn snapshot(root: &Path) -> BTreeMap<PathBuf, String> {
    use std::os::unix::fs::MetadataExt as _;
    let mut state = BTreeMap::new();
    let mut roots: Vec<PathBuf> = PROTECTED.iter().map(|(rel, _)| root.join(rel)).collect();
    roots.extend(PROTECTED_DIRS.iter().map(|rel| root.join(rel)));
    for start in roots {
        for path in walk(&start) {
            let path = path.as_path();
            let is_protected = PROTECTED.iter().map(|(rel, _)| *rel).chain(CREATED).any(|rel| path == root.join(rel))
                || [".aimon", ".claude/skills"].iter().any(|d| {
                    path.starts_with(root.join("project").join(d)) || path.starts_with(root.join("home").join(d))
                })
                || path.parent() == Some(root);
            if !is_protected {
                continue;
            }
            let meta = path.symlink_metadata().expect("stat");
            let content = if meta.is_file() { std::fs::read(path).unwrap_or_default() } else { Vec::new() };
            let link = std::fs::read_link(path).map(|l| l.display().to_string()).unwrap_or_default();
            state.insert(path.to_owned(), format!("{:o} {link} {:?}", meta.mode(), String::from_utf8_lossy(&content)));
        }
        if !start.exists() {
            state.insert(start.clone(), "missing".to_owned());
        }
    }
    state
}

/// `start` and everything below it, links not followed.
fn walk(start: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![start.to_owned()];
    while let Some(path) = todo.pop() {
        let Ok(meta) = path.symlink_metadata() else { continue };
        if meta.is_dir()
            && let Ok(entries) = std::fs::read_dir(&path)
        {
            todo.extend(entries.filter_map(Result::ok).map(|e| e.path()));
        }
        out.push(path);
    }
    out
}

/// Runs `command` with bash in a fresh scratch copy and says whether a protected file changed.
fn changes_a_protected_file(command: &str) -> bool {
    let scratch = tempfile::tempdir().expect("scratch");
    populate(scratch.path());
    let before = snapshot(scratch.path());
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(command)
        .current_dir(scratch.path().join("project"))
        .env("HOME", scratch.path().join("home"))
        .output()
        .expect("bash runs");
    let after = snapshot(scratch.path());
    assert!(
        before != after || !out.status.success(),
        "{command}: ran without changing a protected file ({})",
        String::from_utf8_lossy(&out.stderr)
    );
    before != after
}

/// The Bash rows: each writes, creates, removes, renames, truncates, `chmod`s or links over a
/// protected file.
const BASH_ROWS: &[&str] = &[
    "echo {} > .aimon/hooks.json",
    "rm .aimon/hooks.json",
    "sed -i s/deny/x/ .aimon/hooks.json",
    "echo {} > ~/.claude/settings.json",
    "rm -rf .aimon",
    "mv .aimon ../gone",
    "mv ../project ../moved",
    "mv .aimon/hooks.json .aimon/hooks.old",
    "cp /dev/null .aimon/hooks.json",
    "cp ../evil/.aimon/hooks.json .aimon/",
    "cp -r ../evil/.aimon .",
    "ln -sf /dev/null .aimon/hooks.json",
    "chmod 000 .aimon/hooks.json",
    "truncate -s0 .aimon/hooks.json",
    "echo x | tee .aimon/hooks.json",
    "dd if=/dev/null of=.aimon/hooks.json status=none",
    "python3 -c \"open('.aimon/hooks.json','w')\"",
    "cd .aimon && rm hooks.json",
    "cd .aimon; cd ..; : > .aimon/hooks.json",
    "find . -name hooks.json -delete",
    "echo .aimon/hooks.json | xargs rm",
    "perl -pi -e s/deny/x/ .aimon/hooks.json",
    "F=.aimon/hooks.json; : > $F",
    "rm .aimon/*",
    "rm .a*/hooks.json",
    "cat /dev/null > ./.aimon/../.aimon/hooks.json",
    "echo {} > \"$PWD/.aimon/hooks.json\"",
    "sh -c 'echo {} > .aimon/hooks.json'",
    "bash -c \"rm .aimon/hooks.json\"",
    "eval 'rm .aimon/hooks.json'",
    "awk 'BEGIN { print \"{}\" > \".aimon/hooks.json\" }'",
    "install -m 644 /dev/null .aimon/hooks.json",
    "shred -u .aimon/hooks.json",
    "unlink .aimon/hooks.json",
    "exec 3>.aimon/hooks.json",
    "cp -f ~/.aimon/hooks.json .aimon/hooks.json",
    "tar -C ../evil -cf ../evil.tar .aimon && tar -xf ../evil.tar",
    "mkdir -p .aimon/tests && echo '{}' > .aimon/tests/new.json",
    "rm .aimon/tests/push.json",
    "echo '{\"disableAllHooks\": true}' > .claude/settings.local.json",
    "echo {} > .claude/settings.json",
    "rm -r .claude",
    "echo x > .claude/skills/s/SKILL.md",
    "mkdir -p .claude/skills/t && echo x > .claude/skills/t/SKILL.md",
    "echo {} > .codex/hooks.json",
    "rm .github/hooks/aimon.json",
    "echo {} > .gemini/settings.json",
    "echo {} > .qwen/settings.json",
    "echo {} > ~/.aimon/hooks.json",
    "rm ~/.aimon/trusted.json",
    ": > ~/.aimon/decisions.jsonl",
    "rm -f ~/.aimon/rewake.db",
    "rm -rf ~/.aimon",
    "printf '{}' > \"$HOME/.claude/settings.json\"",
    "echo x >> ~/.codex/config.toml",
    "rm ~/.codex/hooks.json",
    "echo {} > ~/.gemini/settings.json",
    "rm ~/.qwen/settings.json",
    "mkdir -p ~/.claude/skills/u && echo x > ~/.claude/skills/u/SKILL.md",
];

/// Reads that stay allowed.
const BASH_READS: &[&str] = &[
    "cat .aimon/hooks.json",
    "head -5 .aimon/hooks.json",
    "wc -l ~/.aimon/hooks.json",
    "cat ~/.claude/settings.json",
    "ls -la .aimon ~/.aimon",
    "grep -r deny .aimon",
    "cp .aimon/hooks.json /tmp/copy-of-the-policy.json",
];

/// One PreToolUse call of `client` for `tool` (the client's own tool name) with `input`: the
/// subcommand's arguments and the payload.
fn call_of(client: &str, cwd: &Path, tool: &str, input: &Value) -> (Vec<&'static str>, Value) {
    let base = json!({"session_id": "s", "cwd": cwd, "tool_name": tool, "tool_input": input,
                      "transcript_path": null, "tool_use_id": "t1"});
    let with = |event: &str, extra: Value| {
        let mut payload = base.clone();
        payload["hook_event_name"] = json!(event);
        for (k, v) in extra.as_object().expect("object") {
            payload[k] = v.clone();
        }
        payload
    };
    match client {
        "claude" => (vec!["claude"], with("PreToolUse", json!({"permission_mode": "default"}))),
        "codex" => {
            (vec!["codex"], with("PreToolUse", json!({"turn_id": "t", "model": "m", "permission_mode": "default"})))
        }
        "gemini" => (vec!["gemini"], with("BeforeTool", json!({"timestamp": "2026-12-03T00:00:00Z"}))),
        "qwen" => (vec!["qwen"], with("PreToolUse", json!({"timestamp": "2026-12-03T00:00:00Z"}))),
        "copilot" => (vec!["copilot"], with("PreToolUse", json!({"timestamp": "2026-12-03T00:00:00Z"}))),
        "copilot-camel" => (
            vec!["copilot", "--event", "preToolUse"],
            json!({"sessionId": "s", "timestamp": 1, "cwd": cwd, "toolName": tool, "toolArgs": input}),
        ),
        other => panic!("no dialect {other}"),
    }
}

/// The shell tool's name in each dialect.
fn shell_tool(client: &str) -> &'static str {
    match client {
        "gemini" | "qwen" => "run_shell_command",
        "copilot-camel" => "bash",
        _ => "Bash",
    }
}

const DIALECTS: &[&str] = &["claude", "codex", "gemini", "qwen", "copilot", "copilot-camel"];

/// Whether `aimon-hooks` denied the call (a `deny` decision in the answer, or exit 2).
fn decide(sandbox: &Sandbox, client: &str, tool: &str, input: &Value) -> (bool, String) {
    let (args, payload) = call_of(client, &sandbox.project(), tool, input);
    let out = Outcome::of(sandbox.cmd().args(&args).arg("--no-serve").write_stdin(payload.to_string()));
    let denied = out.code == 2 || out.stdout.contains("\"deny\"");
    (denied, format!("exit {}: {}{}", out.code, out.stdout, out.stderr))
}

fn sandbox() -> Sandbox {
    let sandbox = Sandbox::new();
    populate(sandbox.root());
    sandbox
}

#[test]
fn every_bash_row_changes_a_protected_file_when_run_and_is_denied_in_every_dialect() {
    assert!(BASH_ROWS.len() >= 55, "{}", BASH_ROWS.len());
    let sandbox = sandbox();
    let mut failures = Vec::new();
    for command in BASH_ROWS {
        assert!(changes_a_protected_file(command), "{command}: not an attack");
        for client in DIALECTS {
            let (denied, out) = decide(&sandbox, client, shell_tool(client), &json!({"command": command}));
            if !denied {
                failures.push(format!("{client}: {command}: {out}"));
            }
        }
    }
    assert!(failures.is_empty(), "not denied:\n{}", failures.join("\n"));
    assert_eq!(snapshot(sandbox.root()).len(), snapshot(sandbox.root()).len());
}

#[test]
fn each_clients_own_edit_tools_are_denied_on_every_protected_file() {
    let sandbox = sandbox();
    let (p, h) = (sandbox.project(), sandbox.home());
    let binary = std::fs::canonicalize(assert_cmd::cargo::cargo_bin!("aimon-hooks")).expect("binary");
    let files = [
        p.join(".aimon/hooks.json"),
        p.join(".aimon/hooks.local.json"),
        p.join(".aimon/mcp.json"),
        p.join(".aimon/tests/push.json"),
        p.join(".claude/settings.local.json"),
        p.join(".claude/skills/s/SKILL.md"),
        h.join(".claude/settings.json"),
        h.join(".aimon/trusted.json"),
        h.join(".aimon/serve.token"),
        binary,
    ];
    // (dialect, tool, input for a path)
    type Input = fn(&Path) -> Value;
    let tools: &[(&str, &str, Input)] = &[
        ("claude", "Write", |f| json!({"file_path": f, "content": "{}"})),
        ("claude", "Edit", |f| json!({"file_path": f, "old_string": "deny", "new_string": "x"})),
        ("claude", "MultiEdit", |f| json!({"file_path": f, "edits": [{"old_string": "a", "new_string": "b"}]})),
        (
            "codex",
            "apply_patch",
            |f| json!({"command": format!("*** Begin Patch\n*** Delete File: {}\n*** End Patch\n", f.display())}),
        ),
        (
            "codex",
            "apply_patch",
            |f| json!({"command": format!("*** Begin Patch\n*** Add File: {}\n+{{}}\n*** End Patch\n", f.display())}),
        ),
        ("gemini", "write_file", |f| json!({"file_path": f, "content": "{}"})),
        ("gemini", "replace", |f| json!({"file_path": f, "old_string": "deny", "new_string": "x"})),
        ("qwen", "write_file", |f| json!({"file_path": f, "content": "{}"})),
        ("qwen", "edit", |f| json!({"file_path": f, "old_string": "deny", "new_string": "x"})),
        ("copilot", "Write", |f| json!({"file_path": f, "content": "{}"})),
        ("copilot-camel", "create", |f| json!({"path": f, "file_text": "{}"})),
        ("copilot-camel", "edit", |f| json!({"path": f, "old_str": "deny", "new_str": "x"})),
        // An MCP tool is not modelled: a path its arguments name is enough.
        ("claude", "mcp__fs__write_file", |f| json!({"path": f, "content": "{}"})),
        ("gemini", "mcp__fs__move_file", |f| json!({"source": "/tmp/x", "destination": f})),
    ];
    let mut failures = Vec::new();
    let mut rows = 0;
    for file in &files {
        for (client, tool, input) in tools {
            rows += 1;
            let (denied, out) = decide(&sandbox, client, tool, &input(file));
            if !denied {
                failures.push(format!("{client} {tool} {}: {out}", file.display()));
            }
        }
    }
    assert!(rows >= 140, "{rows}");
    assert!(failures.is_empty(), "not denied:\n{}", failures.join("\n"));
}

#[test]
fn reading_the_policy_stays_allowed_in_every_dialect_and_the_token_does_not() {
    let sandbox = sandbox();
    let hooks = sandbox.project().join(".aimon/hooks.json");
    for client in DIALECTS {
        for command in BASH_READS {
            let (denied, out) = decide(&sandbox, client, shell_tool(client), &json!({"command": command}));
            assert!(!denied, "{client}: {command}: {out}");
        }
        let (tool, input) = match *client {
            "gemini" | "qwen" => ("read_file", json!({"file_path": hooks})),
            "copilot-camel" => ("view", json!({"path": hooks})),
            _ => ("Read", json!({"file_path": hooks})),
        };
        let (denied, out) = decide(&sandbox, client, tool, &input);
        assert!(!denied, "{client}: {tool} of the policy: {out}");
        let (denied, out) =
            decide(&sandbox, client, shell_tool(client), &json!({"command": "cat ~/.aimon/serve.token"}));
        assert!(denied, "{client}: the token was readable: {out}");
    }
    // Running the protected binary is not changing it (the guard runs every exec through this).
    let binary = std::fs::canonicalize(assert_cmd::cargo::cargo_bin!("aimon-hooks")).expect("binary");
    let run = json!({"command": format!("{} --version", binary.display())});
    let (denied, out) = decide(&sandbox, "claude", "Bash", &run);
    assert!(!denied, "running aimon-hooks by its path: {out}");
    // The reason tells the person what to do.
    let (_, out) = decide(&sandbox, "claude", "Bash", &json!({"command": "rm .aimon/hooks.json"}));
    assert!(out.contains("change it yourself, outside the agent"), "{out}");
}

#[test]
fn a_project_cannot_turn_self_protection_off_and_the_persons_own_file_can() {
    let sandbox = sandbox();
    let mut project = policy();
    project["selfProtection"] = json!(false);
    sandbox.project_hooks(&project);
    let rm = json!({"command": "rm .aimon/hooks.json"});
    let (denied, out) = decide(&sandbox, "claude", "Bash", &rm);
    assert!(denied, "a project turned self-protection off: {out}");
    assert!(out.contains("read only from your own"), "the project's key is reported: {out}");
    sandbox.write("home/.aimon/hooks.json", "{\"selfProtection\": false}");
    let (denied, out) = decide(&sandbox, "claude", "Bash", &rm);
    assert!(!denied, "the person's own file turns it off: {out}");
    let (denied, out) = decide(&sandbox, "claude", "Bash", &json!({"command": "git push"}));
    assert!(denied, "the project's own rules still hold: {out}");
}
