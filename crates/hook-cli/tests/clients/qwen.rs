//! Qwen Code (`@qwen-code/qwen-code`, pinned), `qwen --auth-type openai --yolo -o json …`
//! against the scripted Chat Completions API (`OPENAI_BASE_URL`).
//!
//! Settings: the user's `~/.qwen/settings.json` turns telemetry and updates off and folder trust
//! ON (`security.folderTrust.enabled`), so that the project's hooks, in its `.qwen/settings.json`
//! (Claude Code's shape, `timeout` in seconds), run only in a trusted folder.
//!
//! Trust: `~/.qwen/trustedFolders.json` maps the project's path to `"TRUST_FOLDER"` (Qwen Code is
//! a Gemini CLI fork; `QWEN_CODE_TRUSTED_FOLDERS_PATH` moves the file).

use std::path::PathBuf;
use std::sync::OnceLock;

use serde_json::json;

use crate::npm::NpmPackage;
use crate::runner::{Client, Events, HOOK_TIMEOUT_SECS, Invocation, Sandbox, write};

const QWEN: NpmPackage =
    NpmPackage { slug: "qwen-code", package: "@qwen-code/qwen-code", version: "0.24.4", bin: "qwen", size: "~144 MB" };

pub(crate) static CLIENT: Client = Client {
    name: "qwen",
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
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| QWEN.install(|_| ())).clone()
}

fn configure(sandbox: &Sandbox, hooks: &[(&'static str, String)], trusted: bool) {
    let home = sandbox.home().join(".qwen");
    let user = json!({
        "security": {"auth": {"selectedType": "openai"}, "folderTrust": {"enabled": true}},
        "general": {"enableAutoUpdate": false, "disableAutoUpdate": true, "disableUpdateNag": true},
        "privacy": {"usageStatisticsEnabled": false},
        "telemetry": {"enabled": false},
    });
    write(&home.join("settings.json"), &serde_json::to_string_pretty(&user).expect("json"));
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
        write(&sandbox.project().join(".qwen/settings.json"), &serde_json::to_string_pretty(&project).expect("json"));
    }
    if trusted {
        let folders = json!({sandbox.project().display().to_string(): "TRUST_FOLDER"});
        write(&home.join("trustedFolders.json"), &serde_json::to_string_pretty(&folders).expect("json"));
    }
}

fn invocation(sandbox: &Sandbox) -> Invocation {
    Invocation {
        args: ["--auth-type", "openai", "--yolo", "-o", "json", "do the task"].map(str::to_owned).to_vec(),
        env: vec![
            ("OPENAI_API_KEY".into(), "scripted".into()),
            ("OPENAI_BASE_URL".into(), format!("{}/v1", sandbox.model_url())),
            ("OPENAI_MODEL".into(), "scripted".into()),
        ],
    }
}

crate::rows::client_rows!(CLIENT);
