//! Claude Code (`@anthropic-ai/claude-code`, pinned in the claude_code suite's `install`, shared
//! here), `claude -p … --output-format json --allowedTools Bash` against the scripted Messages
//! API (`ANTHROPIC_BASE_URL`), with telemetry, non-essential traffic and the auto-updater off.
//!
//! Settings: the project's `.claude/settings.json` (`timeout` in seconds), written by
//! `aimon-hooks init claude --project` in the policy rows.
//!
//! Trust: headless `-p` runs a project's hooks without asking (the workspace trust dialog is
//! interactive only), so there is no trust a script can leave out, and Claude Code runs only the
//! policy rows, where an untrusted project is aimon-hooks' own trust gate (no `aimon-hooks trust`),
//! as for every client. Its own behaviour with hooks (exit 2, JSON answers, both routes through
//! `aimon-hooks serve`) is the claude_code suite's (`tests/claude_code/`).

use std::path::PathBuf;

use serde_json::json;

use crate::runner::{Client, Events, HOOK_TIMEOUT_SECS, Invocation, Sandbox, write};

pub(crate) static CLIENT: Client = Client {
    name: "claude",
    events: Events {
        session_start: "SessionStart",
        prompt: "UserPromptSubmit",
        pre_tool: "PreToolUse",
        post_tool: "PostToolUse",
        stop: "Stop",
        session_end: "SessionEnd",
    },
    install,
    configure,
    invocation,
    deny: |reason| json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": reason}}),
    post_context: |text| json!({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": text}}),
    crash_blocks: false,
    exit2_reason_reaches_model: true,
};

fn install() -> PathBuf {
    crate::claude_install::claude_code().to_path_buf()
}

fn configure(sandbox: &Sandbox, hooks: &[(&'static str, String)], trusted: bool) {
    assert!(
        trusted || hooks.is_empty(),
        "Claude Code -p runs a project's hooks without asking: an untrusted project is aimon-hooks' own gate"
    );
    let mut events = serde_json::Map::new();
    for (event, command) in hooks {
        let mut group = json!({"hooks": [{"type": "command", "command": command, "timeout": HOOK_TIMEOUT_SECS}]});
        if matches!(*event, "PreToolUse" | "PostToolUse") {
            group["matcher"] = json!("*");
        }
        events.insert((*event).to_owned(), json!([group]));
    }
    if !hooks.is_empty() {
        let project = json!({"hooks": events});
        write(&sandbox.project().join(".claude/settings.json"), &serde_json::to_string_pretty(&project).expect("json"));
    }
}

fn invocation(sandbox: &Sandbox) -> Invocation {
    let env = [
        ("ANTHROPIC_BASE_URL", sandbox.model_url()),
        ("ANTHROPIC_API_KEY", "sk-scripted".to_owned()),
        ("DISABLE_TELEMETRY", "1".to_owned()),
        ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1".to_owned()),
        ("DISABLE_AUTOUPDATER", "1".to_owned()),
    ];
    Invocation {
        args: ["-p", "do the task", "--output-format", "json", "--allowedTools", "Bash"].map(str::to_owned).to_vec(),
        env: env.into_iter().map(|(k, v)| (k.to_owned(), v)).collect(),
    }
}
