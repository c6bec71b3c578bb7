//! Google Gemini CLI's hook wire (`@google/gemini-cli` 0.61): its event names, its runtime tool
//! ids, its answer (a top-level `decision`/`reason`; the Claude Code form is ignored by Gemini)
//! and its settings (`.gemini/settings.json`, `timeout` in milliseconds).
//!
//! A Gemini payload has Claude Code's snake_case base (`session_id`, `transcript_path`, `cwd`,
//! `hook_event_name`, `tool_name`, `tool_input`, `tool_response`, `prompt`, `stop_hook_active`),
//! so it is read by renaming its event and tool onto Claude Code's and our matcher vocabulary
//! and handing it to [`crate::claude`]; the answer is Claude Code's, rewritten into Gemini's
//! keys. Its tools are renamed by its table (`TOOLS`), whose runtime ids Qwen Code (a Gemini CLI
//! fork) shares with its own table.

use std::path::Path;

use hook_core::{EventVerdict, HookContext, HookEventType};
use serde_json::{Map, Value};

use crate::answer::{Answer, Extras};
use crate::claude::{self, Key, PayloadKey, Word};
use crate::error::Error;
use crate::tool_args::{self, Arg, ToolMap};

/// The environment variable naming the project of a command hook's call.
pub(crate) const PROJECT_DIR_ENV: &str = "GEMINI_PROJECT_DIR";

/// The payload key under which the hook receives the client's own tool name.
pub(crate) const CLIENT_TOOL_NAME: &str = "client_tool_name";

/// Gemini's event names beside the Claude Code names of our events. Not routed (no event of ours
/// means them, and a hook cannot act on them through our channels): `BeforeModel`,
/// `AfterModel`, `BeforeToolSelection`.
const EVENTS: &[(&str, &str)] = &[
    ("SessionStart", "SessionStart"),
    ("SessionEnd", "SessionEnd"),
    ("BeforeAgent", "UserPromptSubmit"),
    ("AfterAgent", "Stop"),
    ("BeforeTool", "PreToolUse"),
    ("AfterTool", "PostToolUse"),
    ("PreCompress", "PreCompact"),
    ("Notification", "Notification"),
];

/// The settings file `init gemini` edits (under the home directory or the project).
pub(crate) const SETTINGS_FILE: &str = ".gemini/settings.json";

/// Gemini's names of the events `ours` (Claude Code names) that Gemini fires.
pub(crate) fn init_events(ours: &[&str]) -> Vec<&'static str> {
    EVENTS.iter().filter(|(_, c)| ours.contains(c)).map(|(g, _)| *g).collect()
}

/// Gemini CLI's tools beside the matcher vocabulary's, with the arguments the matchers read under
/// another key: `run_shell_command`'s `directory` (`dir_path` in later versions) is the Bash
/// call's directory; `read_file`'s `absolute_path` (its earlier name of `file_path`) the file;
/// `read_many_files` reads each of its `paths` and `include` globs; the searches' `dir_path` is
/// where they start and `grep_search`'s `include` the files they read. Any other tool
/// (`list_directory`, `save_memory`, …) keeps its name.
const TOOLS: &[ToolMap] = &[
    ToolMap { id: "run_shell_command", ours: "Bash", args: &[("directory", Arg::Dir), ("dir_path", Arg::Dir)] },
    ToolMap { id: "read_file", ours: "Read", args: &[("absolute_path", Arg::Path)] },
    ToolMap { id: "read_many_files", ours: "Read", args: &[("paths", Arg::Selected), ("include", Arg::Selected)] },
    ToolMap { id: "write_file", ours: "Write", args: &[] },
    ToolMap { id: "replace", ours: "Edit", args: &[] },
    ToolMap { id: "edit", ours: "Edit", args: &[] },
    ToolMap { id: "glob", ours: "Glob", args: &[("dir_path", Arg::SearchRoot)] },
    ToolMap { id: "grep_search", ours: "Grep", args: &[("dir_path", Arg::SearchRoot), ("include", Arg::SearchGlob)] },
    ToolMap {
        id: "search_file_content",
        ours: "Grep",
        args: &[("dir_path", Arg::SearchRoot), ("include", Arg::SearchGlob)],
    },
    ToolMap { id: "grep", ours: "Grep", args: &[("dir_path", Arg::SearchRoot), ("include", Arg::SearchGlob)] },
    ToolMap { id: "web_fetch", ours: "WebFetch", args: &[] },
    ToolMap { id: "google_web_search", ours: "WebSearch", args: &[] },
    ToolMap { id: "web_search", ours: "WebSearch", args: &[] },
];

/// Gemini's `mcp_context` object of an MCP tool call, and its keys.
const MCP_CONTEXT: &str = "mcp_context";
const MCP_SERVER: &str = "server_name";
const MCP_TOOL: &str = "tool_name";

/// Gemini's answer keys.
const DECISION: &str = "decision";
const REASON: &str = "reason";
const TOOL_INPUT: &str = "tool_input";

/// The matcher vocabulary's name of an MCP call (`mcp__server__tool`, from Gemini's
/// `mcp_context`).
fn mcp_tool(mcp: Option<&Value>) -> Option<String> {
    let server = mcp?.get(MCP_SERVER)?.as_str()?;
    let tool = mcp?.get(MCP_TOOL)?.as_str()?;
    Some(format!("mcp__{server}__{tool}"))
}

/// Maps the payload's tool onto the matcher vocabulary with `tools` (Gemini's, or Qwen Code's),
/// an MCP call onto `mcp__server__tool`, keeping the client's own name as [`CLIENT_TOOL_NAME`].
pub(crate) fn rename_tool(payload: &mut Map<String, Value>, tools: &'static [ToolMap]) {
    let Some(runtime) = payload.get(PayloadKey::TOOL_NAME).and_then(Value::as_str).map(str::to_owned) else {
        return;
    };
    if let Some(tool) = tool_args::find(tools, &runtime) {
        tool_args::map(tool, payload);
    } else if let Some(ours) = mcp_tool(payload.get(MCP_CONTEXT)) {
        payload.insert(PayloadKey::TOOL_NAME.into(), ours.into());
    }
    payload.insert(CLIENT_TOOL_NAME.into(), runtime.into());
}

/// The Claude Code name of a Gemini event, or of one of ours.
fn claude_event(gemini: &str) -> Option<&'static str> {
    EVENTS.iter().find(|(g, _)| *g == gemini).map(|(_, c)| *c)
}

/// Gemini's name of our `event`.
fn gemini_event(event: HookEventType) -> &'static str {
    let name = event.payload_name();
    EVENTS.iter().find(|(_, c)| *c == name).map_or(name, |(g, _)| *g)
}

/// Reads a payload and renames its event and tool onto Claude Code's and ours. An event Gemini
/// has and we do not keeps its name (nothing to do).
pub(crate) fn parse(bytes: &[u8], source: &str) -> Result<Map<String, Value>, Error> {
    let mut payload = crate::read::parse_payload(bytes, source)?;
    if let Some(ours) = payload.get(PayloadKey::HOOK_EVENT_NAME).and_then(Value::as_str).and_then(claude_event) {
        payload.insert(PayloadKey::HOOK_EVENT_NAME.into(), ours.into());
    }
    rename_tool(&mut payload, TOOLS);
    Ok(payload)
}

/// The event named in bytes that could not be read.
pub(crate) fn sniff(bytes: &[u8]) -> Option<HookEventType> {
    let name = claude::sniff_name(bytes)?;
    HookEventType::resolve(claude_event(&name)?).ok()
}

/// The context of a call (Claude Code's reading of the renamed payload).
pub(crate) fn context(event: HookEventType, payload: Map<String, Value>, project: &Path) -> Result<HookContext, Error> {
    claude::context(event, payload, project)
}

/// The answer to a call of `event`, in Gemini's keys.
pub(crate) fn answer(event: HookEventType, outcome: Result<&EventVerdict, &str>, extras: &Extras) -> (Answer, bool) {
    let (answer, carried) = claude::answer(event, outcome, extras);
    (to_gemini(event, answer), carried)
}

/// The refusal of a payload (or event) that could not be read: exit 2 with the reason on stderr
/// where the event can veto (Gemini blocks on exit 2).
pub(crate) fn unreadable(event: Option<HookEventType>, error: &str) -> Answer {
    let answer = claude::unreadable(event, error);
    match event {
        Some(event) => to_gemini(event, answer),
        None => answer,
    }
}

/// Claude Code's answer rewritten for Gemini: a permission decision becomes the top-level
/// `decision` (`ask` is a deny: Gemini has no one to ask, a person must approve), an updated
/// input becomes `hookSpecificOutput.tool_input`, the event's name becomes Gemini's. Exit codes
/// and stderr stay (Gemini reads exit 2 + stderr as a block). Gemini has no http hooks.
fn to_gemini(event: HookEventType, mut answer: Answer) -> Answer {
    answer.http = None;
    if answer.stdout.is_empty() {
        return answer;
    }
    let Ok(Value::Object(mut out)) = serde_json::from_str::<Value>(&answer.stdout) else {
        return answer;
    };
    if let Some(Value::Object(specific)) = out.get_mut(Key::HOOK_SPECIFIC_OUTPUT) {
        specific.insert(Key::HOOK_EVENT_NAME.into(), gemini_event(event).into());
        let reason = specific.remove(Key::PERMISSION_DECISION_REASON);
        match specific.remove(Key::PERMISSION_DECISION).as_ref().and_then(Value::as_str) {
            Some(Word::DENY) => {
                out_decision(&mut out, Word::DENY, reason);
            }
            Some(Word::ASK | Word::DEFER) => {
                let why = reason.as_ref().and_then(Value::as_str).unwrap_or("a hook asks");
                let text = format!("{why} (a person must approve this call; Gemini CLI cannot ask, so it is denied)");
                out_decision(&mut out, Word::DENY, Some(text.into()));
            }
            Some(Word::ALLOW) => out_decision(&mut out, Word::ALLOW, reason),
            _ => {}
        }
        if let Some(Value::Object(specific)) = out.get_mut(Key::HOOK_SPECIFIC_OUTPUT) {
            if let Some(input) = specific.remove(Key::UPDATED_INPUT) {
                specific.insert(TOOL_INPUT.into(), input);
            }
            if specific.len() == 1 {
                out.remove(Key::HOOK_SPECIFIC_OUTPUT);
            }
        }
    }
    answer.stdout = format!("{}\n", Value::Object(out));
    answer
}

fn out_decision(out: &mut Map<String, Value>, word: &str, reason: Option<Value>) {
    out.insert(DECISION.into(), word.into());
    if let Some(reason) = reason {
        out.insert(REASON.into(), reason);
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use hook_core::{ExecutionReport, Verdict};
    use serde_json::json;

    use super::*;

    fn fixture(name: &str) -> Vec<u8> {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/gemini").join(name);
        std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    #[test]
    fn each_captured_payload_names_its_event_and_builds_a_context() {
        let cases = [
            ("SessionStart.json", HookEventType::ON_SESSION_START),
            ("SessionEnd.json", HookEventType::ON_SESSION_END),
            ("BeforeAgent.json", HookEventType::USER_PROMPT_SUBMIT),
            ("AfterAgent.json", HookEventType::ON_STOP),
            ("BeforeTool.json", HookEventType::PRE_TOOL),
            ("AfterTool.json", HookEventType::POST_TOOL),
            ("BeforeTool.lone-surrogate.json", HookEventType::PRE_TOOL),
        ];
        for (file, want) in cases {
            let payload = parse(&fixture(file), file).unwrap_or_else(|e| panic!("{file}: {e}"));
            let event = claude::event(&payload).unwrap_or_else(|_| panic!("{file}: refused"));
            assert_eq!(event, Some(want), "{file}");
            let ctx = context(want, payload, Path::new("/p")).unwrap_or_else(|e| panic!("{file}: {e}"));
            assert_eq!(ctx.event, want);
        }
    }

    #[test]
    fn a_shell_call_is_bash_to_the_matchers_and_keeps_its_own_name_for_the_hook() {
        let payload = parse(&fixture("BeforeTool.json"), "f").expect("reads");
        let ctx = context(HookEventType::PRE_TOOL, payload, Path::new("/p")).expect("context");
        assert_eq!(ctx.tool_name(), Some("Bash"));
        assert_eq!(ctx.fields.get(CLIENT_TOOL_NAME), Some(&json!("run_shell_command")));
        let command = ctx.tool.as_ref().and_then(|t| t.input.get("command")).and_then(Value::as_str);
        assert!(command.is_some_and(|c| c.contains("printf 'tool-%s")));
    }

    #[test]
    fn tools_map_onto_the_matcher_vocabulary_and_unknown_ones_keep_their_name() {
        let mcp = json!({"server_name": "github", "tool_name": "create_issue"});
        let cases = [
            ("run_shell_command", None, "Bash"),
            ("replace", None, "Edit"),
            ("write_file", None, "Write"),
            ("read_many_files", None, "Read"),
            ("search_file_content", None, "Grep"),
            ("mcp_github_create_issue", Some(&mcp), "mcp__github__create_issue"),
            ("list_directory", None, "list_directory"),
        ];
        for (runtime, context, want) in cases {
            let mut payload = Map::new();
            payload.insert("tool_name".into(), runtime.into());
            payload.insert("tool_input".into(), json!({}));
            if let Some(context) = context {
                payload.insert(MCP_CONTEXT.into(), context.clone());
            }
            rename_tool(&mut payload, TOOLS);
            assert_eq!(payload["tool_name"], want, "{runtime}");
            assert_eq!(payload[CLIENT_TOOL_NAME], runtime, "{runtime}");
        }
    }

    #[test]
    fn each_argument_gemini_names_otherwise_is_added_under_the_key_the_matchers_read() {
        // (tool, its input, what the matchers read beside it)
        let cases = [
            ("run_shell_command", json!({"command": "cat .env", "directory": "sub"}), json!({"cwd": "sub"})),
            ("run_shell_command", json!({"command": "cat .env", "dir_path": "/p/sub"}), json!({"cwd": "/p/sub"})),
            ("read_file", json!({"absolute_path": "/p/.env"}), json!({"file_path": "/p/.env"})),
            (
                "read_many_files",
                json!({"paths": ["a.md", "src"], "include": ["**/.env"]}),
                json!({"file_globs": ["a.md", "src", "**/.env"]}),
            ),
            ("read_many_files", json!({"paths": 7}), json!({"file_globs": null})),
            (
                "search_file_content",
                json!({"pattern": "K", "include": "*.env", "dir_path": "cfg"}),
                json!({"glob": "*.env", "path": "cfg"}),
            ),
            ("grep_search", json!({"pattern": "K", "include": "*.env"}), json!({"glob": "*.env"})),
            ("glob", json!({"pattern": "*.env", "dir_path": "cfg"}), json!({"path": "cfg"})),
        ];
        for (tool, input, added) in cases {
            let bytes = json!({"hook_event_name": "BeforeTool", "tool_name": tool, "tool_input": input}).to_string();
            let payload = parse(bytes.as_bytes(), "t").expect("reads");
            let mut want = input.as_object().cloned().unwrap_or_default();
            want.extend(added.as_object().cloned().unwrap_or_default());
            assert_eq!(payload["tool_input"], Value::Object(want), "{tool}");
        }
    }

    #[test]
    fn the_event_of_a_broken_payload_is_found_under_its_gemini_name() {
        assert_eq!(sniff(br#"{"hook_event_name":"BeforeTool","tool_input":{"#), Some(HookEventType::PRE_TOOL));
        assert_eq!(sniff(br#"{"hook_event_name":"BeforeModel""#), None);
    }

    #[test]
    fn the_lone_surrogate_payload_is_read_and_its_refusal_blocks() {
        let payload = parse(&fixture("BeforeTool.lone-surrogate.json"), "f").expect("read leniently");
        assert_eq!(payload.get(PayloadKey::TOOL_NAME), Some(&json!("Bash")));
        let refusal = unreadable(Some(HookEventType::PRE_TOOL), "cannot read");
        assert_eq!(refusal.exit, 2);
        assert!(refusal.stderr.contains("cannot read"));
        assert_eq!(unreadable(None, "x").exit, 2, "a call whose event is unknown may veto: refused");
    }

    /// A pre-tool verdict with `outcome`, `reason` and an explicit allow or not.
    fn verdict(outcome: Verdict, reason: Option<&str>, allow: bool) -> EventVerdict {
        let mut verdict = EventVerdict::from_report(HookEventType::PRE_TOOL, ExecutionReport::default());
        verdict.outcome = outcome;
        verdict.reason = reason.map(str::to_owned);
        verdict.report.merged.explicit_allow = allow;
        verdict
    }

    #[test]
    fn each_verdict_answers_in_geminis_top_level_decision() {
        let cases = [
            (
                verdict(Verdict::Denied, Some("pushes go through review"), false),
                json!({"decision": "deny", "reason": "pushes go through review"}),
            ),
            (
                verdict(Verdict::Ask, Some("check it"), false),
                json!({"decision": "deny", "reason": "check it (a person must approve this call; Gemini CLI cannot ask, so it is denied)"}),
            ),
            (verdict(Verdict::Proceed, None, true), json!({"decision": "allow"})),
        ];
        for (verdict, want) in cases {
            let (answer, _) = answer(HookEventType::PRE_TOOL, Ok(&verdict), &Extras::default());
            let got: Value = serde_json::from_str(&answer.stdout).expect("json");
            assert_eq!(got, want);
            assert_eq!(answer.http, None, "Gemini has no http hooks");
        }
        let (silent, _) =
            answer(HookEventType::PRE_TOOL, Ok(&verdict(Verdict::Proceed, None, false)), &Extras::default());
        assert!(silent.is_silent(), "an unmatched call says nothing: {silent:?}");
    }
}
