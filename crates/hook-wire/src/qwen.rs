//! Qwen Code's hook wire (`@qwen-code/qwen-code` 0.24): Claude Code's wire with Qwen's runtime
//! tool ids (`run_shell_command`, …, shared with Gemini CLI, of which Qwen Code is a fork) in
//! `tool_name`, and its settings in `.qwen/settings.json` (Claude Code's shape, `timeout` in
//! seconds). Qwen reads Claude Code's answer unchanged (`hookSpecificOutput.permissionDecision`,
//! exit 2 + stderr, an `http` hook's body), so only the payload is renamed before
//! [`crate::claude`] reads it; a headless Qwen turns `ask` into a deny itself.

use std::path::Path;

use serde_json::{Map, Value};

use crate::error::Error;
use crate::tool_args::{Arg, ToolMap};

/// The environment variable naming the project of a command hook's call.
pub(crate) const PROJECT_DIR_ENV: &str = "QWEN_PROJECT_DIR";

/// The settings file `init qwen` edits (under the home directory or the project).
pub(crate) const SETTINGS_FILE: &str = ".qwen/settings.json";

/// The Claude Code event names Qwen Code 0.24 fires (its own `PostToolBatch`, `SessionDelete`,
/// `MessageDisplay`, `Todo*` and `InstructionsLoaded` are not routed by `init qwen`).
const EVENTS: &[&str] = &[
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "UserPromptSubmit",
    "SessionStart",
    "SessionEnd",
    "Stop",
    "StopFailure",
    "SubagentStart",
    "SubagentStop",
    "PreCompact",
    "PostCompact",
    "Notification",
    "PermissionRequest",
    "PermissionDenied",
];

/// The events of `ours` (Claude Code names) that Qwen Code fires.
pub(crate) fn init_events(ours: &[&'static str]) -> Vec<&'static str> {
    ours.iter().copied().filter(|e| EVENTS.contains(e)).collect()
}

/// Qwen Code's tools beside the matcher vocabulary's, with the arguments the matchers read under
/// another key: `run_shell_command`'s `directory` is the Bash call's directory, `read_file`'s
/// `absolute_path` the file, `read_many_files` reads each of its `paths` and `include` globs
/// (an earlier `grep_search`'s `include` the files it searches; its `glob` and `path` are spelled
/// as the matchers spell them). Any other tool
/// (`list_directory`, `save_memory`, `todo_write`, …) keeps its name.
const TOOLS: &[ToolMap] = &[
    ToolMap { id: "run_shell_command", ours: "Bash", args: &[("directory", Arg::Dir)] },
    ToolMap { id: "read_file", ours: "Read", args: &[("absolute_path", Arg::Path)] },
    ToolMap { id: "read_many_files", ours: "Read", args: &[("paths", Arg::Selected), ("include", Arg::Selected)] },
    ToolMap { id: "write_file", ours: "Write", args: &[] },
    ToolMap { id: "edit", ours: "Edit", args: &[] },
    ToolMap { id: "replace", ours: "Edit", args: &[] },
    ToolMap { id: "glob", ours: "Glob", args: &[] },
    ToolMap { id: "grep_search", ours: "Grep", args: &[("include", Arg::SearchGlob)] },
    ToolMap { id: "search_file_content", ours: "Grep", args: &[("include", Arg::SearchGlob)] },
    ToolMap { id: "grep", ours: "Grep", args: &[("include", Arg::SearchGlob)] },
    ToolMap { id: "web_fetch", ours: "WebFetch", args: &[] },
    ToolMap { id: "google_web_search", ours: "WebSearch", args: &[] },
    ToolMap { id: "web_search", ours: "WebSearch", args: &[] },
];

/// Reads a payload and renames its tool onto the matcher vocabulary (keeping Qwen's own name as
/// `client_tool_name`).
pub(crate) fn parse(bytes: &[u8], source: &str) -> Result<Map<String, Value>, Error> {
    let mut payload = crate::read::parse_payload(bytes, source)?;
    crate::gemini::rename_tool(&mut payload, TOOLS);
    Ok(payload)
}

/// The working directory the payload names.
pub(crate) fn cwd(payload: &Map<String, Value>) -> Option<&Path> {
    crate::claude::cwd(payload)
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use hook_core::HookEventType;
    use serde_json::json;

    use super::*;
    use crate::gemini::CLIENT_TOOL_NAME;

    fn fixture(name: &str) -> Vec<u8> {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/qwen").join(name);
        std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    #[test]
    fn each_captured_payload_names_its_event_and_builds_a_context() {
        let cases = [
            ("SessionStart.json", HookEventType::ON_SESSION_START),
            ("UserPromptSubmit.json", HookEventType::USER_PROMPT_SUBMIT),
            ("Stop.json", HookEventType::ON_STOP),
            ("PreToolUse.json", HookEventType::PRE_TOOL),
            ("PostToolUse.json", HookEventType::POST_TOOL),
            ("PreToolUse.lone-surrogate.json", HookEventType::PRE_TOOL),
        ];
        for (file, want) in cases {
            let payload = parse(&fixture(file), file).unwrap_or_else(|e| panic!("{file}: {e}"));
            assert!(cwd(&payload).is_some(), "{file} names its cwd");
            let event = crate::claude::event(&payload).unwrap_or_else(|_| panic!("{file}: refused"));
            assert_eq!(event, Some(want), "{file}");
            let ctx = crate::claude::context(want, payload, Path::new("/p")).unwrap_or_else(|e| panic!("{file}: {e}"));
            assert_eq!(ctx.event, want);
        }
    }

    #[test]
    fn a_shell_call_is_bash_to_the_matchers_and_keeps_its_own_name_for_the_hook() {
        let payload = parse(&fixture("PreToolUse.json"), "f").expect("reads");
        let ctx = crate::claude::context(HookEventType::PRE_TOOL, payload, Path::new("/p")).expect("context");
        assert_eq!(ctx.tool_name(), Some("Bash"));
        assert_eq!(ctx.fields.get(CLIENT_TOOL_NAME), Some(&json!("run_shell_command")));
    }

    #[test]
    fn each_argument_qwen_names_otherwise_is_added_under_the_key_the_matchers_read() {
        // (tool, its input, the tool to the matchers, what they read beside the input)
        let cases = [
            (
                "run_shell_command",
                json!({"command": "cat .env", "directory": "/p/sub"}),
                "Bash",
                json!({"cwd": "/p/sub"}),
            ),
            ("read_file", json!({"absolute_path": "/p/.env"}), "Read", json!({"file_path": "/p/.env"})),
            (
                "read_many_files",
                json!({"paths": ["docs"], "include": ["*.env"]}),
                "Read",
                json!({"file_globs": ["docs", "*.env"]}),
            ),
            ("read_many_files", json!({"paths": ["docs", null]}), "Read", json!({"file_globs": null})),
            ("grep_search", json!({"pattern": "K", "include": "*.env"}), "Grep", json!({"glob": "*.env"})),
            ("grep_search", json!({"pattern": "K", "glob": "*.env", "path": "cfg"}), "Grep", json!({})),
        ];
        for (tool, input, ours, added) in cases {
            let bytes = json!({"hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": input}).to_string();
            let payload = parse(bytes.as_bytes(), "t").expect("reads");
            let mut want = input.as_object().cloned().unwrap_or_default();
            want.extend(added.as_object().cloned().unwrap_or_default());
            assert_eq!((&payload["tool_name"], &payload["tool_input"]), (&json!(ours), &Value::Object(want)), "{tool}");
        }
    }
}
