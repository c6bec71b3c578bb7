//! Google Gemini CLI (`@google/gemini-cli`, pinned), `gemini -p … --yolo -o json` against the
//! scripted Gemini API (`GOOGLE_GEMINI_BASE_URL`, http allowed for 127.0.0.1).
//!
//! Settings: the user's `~/.gemini/settings.json` picks API-key auth, turns telemetry and updates
//! off and turns folder trust ON (`security.folderTrust.enabled`), so that the project's hooks,
//! in its `.gemini/settings.json` (`timeout` in milliseconds), run only in a trusted folder.
//!
//! Trust: `~/.gemini/trustedFolders.json` maps the project's path to `"TRUST_FOLDER"` (the file
//! `/permissions` writes; `GEMINI_CLI_TRUSTED_FOLDERS_PATH` moves it, and
//! `GEMINI_CLI_TRUST_WORKSPACE=true` trusts the workspace for one run). Gemini also fingerprints
//! project hooks into `~/.gemini/trusted_hooks.json`, but a new or changed hook only gets a
//! warning (and is trusted from then on); it still runs.

use std::path::PathBuf;
use std::sync::OnceLock;

use serde_json::json;

use crate::npm::NpmPackage;
use crate::runner::{Client, Events, HOOK_TIMEOUT_SECS, Invocation, Sandbox, write};

const GEMINI: NpmPackage =
    NpmPackage { slug: "gemini-cli", package: "@google/gemini-cli", version: "0.61.0", bin: "gemini", size: "~100 MB" };

pub(crate) static CLIENT: Client = Client {
    name: "gemini",
    events: Events {
        session_start: "SessionStart",
        prompt: "BeforeAgent",
        pre_tool: "BeforeTool",
        post_tool: "AfterTool",
        stop: "AfterAgent",
        session_end: "SessionEnd",
    },
    install,
    configure,
    invocation,
    deny: |reason| json!({"decision": "deny", "reason": reason}),
    post_context: |text| json!({"hookSpecificOutput": {"hookEventName": "AfterTool", "additionalContext": text}}),
    crash_blocks: false,
    exit2_reason_reaches_model: true,
};

fn install() -> PathBuf {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| GEMINI.install(|_| ())).clone()
}

fn configure(sandbox: &Sandbox, hooks: &[(&'static str, String)], trusted: bool) {
    let home = sandbox.home().join(".gemini");
    let user = json!({
        "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": true}},
        "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
        "privacy": {"usageStatisticsEnabled": false},
        "telemetry": {"enabled": false},
        "model": {"name": "gemini-2.5-flash"},
    });
    write(&home.join("settings.json"), &serde_json::to_string_pretty(&user).expect("json"));
    let mut events = serde_json::Map::new();
    for (event, command) in hooks {
        let mut group = json!({"hooks": [{"name": format!("record-{event}"), "type": "command", "command": command, "timeout": HOOK_TIMEOUT_SECS * 1000}]});
        if matches!(*event, "BeforeTool" | "AfterTool") {
            group["matcher"] = json!("*");
        }
        events.insert((*event).to_owned(), json!([group]));
    }
    if !hooks.is_empty() {
        let project = json!({"hooks": events});
        write(&sandbox.project().join(".gemini/settings.json"), &serde_json::to_string_pretty(&project).expect("json"));
    }
    if trusted {
        let folders = json!({sandbox.project().display().to_string(): "TRUST_FOLDER"});
        write(&home.join("trustedFolders.json"), &serde_json::to_string_pretty(&folders).expect("json"));
    }
}

fn invocation(sandbox: &Sandbox) -> Invocation {
    Invocation {
        args: ["-p", "do the task", "--yolo", "-o", "json"].map(str::to_owned).to_vec(),
        env: vec![
            ("GEMINI_API_KEY".into(), "scripted".into()),
            ("GOOGLE_GEMINI_BASE_URL".into(), sandbox.model_url()),
            ("GEMINI_CLI_NO_RELAUNCH".into(), "1".into()),
        ],
    }
}

crate::rows::client_rows!(CLIENT);
