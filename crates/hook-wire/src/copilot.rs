//! GitHub Copilot CLI's hook wire, in both of its dialects. Copilot picks the dialect by how a
//! hooks file spells the event:
//!
//! - PascalCase ("VS Code compatible", also what it sends the hooks of a project's
//!   `.claude/settings.json`): events named as Claude Code names them (`PreToolUse`), a snake_case
//!   payload with `hook_event_name`, `tool_name: "Bash"` and `tool_input`, so reading a payload is
//!   Claude Code's reading. The answer is Claude Code's, with the decision and the context also at
//!   the top level (`permissionDecision`, `permissionDecisionReason`, `additionalContext`), the
//!   form of the camelCase dialect, which Copilot reads here too.
//! - camelCase, its own (`preToolUse`, `postToolUse`, `userPromptSubmitted`, `sessionStart`,
//!   `agentStop`, `sessionEnd`, …): a camelCase payload (`sessionId`, `toolName: "bash"`,
//!   `toolArgs`, `toolResult`) that **names no event**. Its handler therefore runs
//!   `aimon-hooks copilot --event <camelCase name>`, whose call [`crate::Client::command_call`]
//!   wraps with the event (`camel_call`); `parse` unwraps it into the PascalCase reading (event,
//!   keys and tool names), and [`crate::Client::command_answer`] gives the answer at the top
//!   level only (`camel_answer`: `permissionDecision`, `permissionDecisionReason`,
//!   `modifiedArgs`, `additionalContext`, `decision`/`reason`).
//!
//! Tool names of both dialects map onto the matcher vocabulary (`bash` → `Bash`, `view` → `Read`,
//! `create` → `Write`, `edit` → `Edit`, `glob` → `Glob`, `grep` → `Grep`, `web_fetch` →
//! `WebFetch`; `powershell`, `write_bash` and `write_powershell` → `Bash` whose text a POSIX shell
//! may not read); Copilot's own name stays as `client_tool_name`.
//!
//! `init copilot` writes `.github/hooks/aimon.json` in the PascalCase dialect. Copilot also runs a
//! project's `.claude/settings.json` hooks, so a project with `init claude --project` and
//! `init copilot` runs the policy twice on each call (same verdict; the first deny wins).
//!
//! [`crate::Client::Copilot`] calls into it.

use std::path::Path;

use hook_core::{EventVerdict, HookContext, HookEventType};
use serde_json::{Map, Value, json};

use crate::answer::{Answer, Extras};
use crate::claude::{Key, PayloadKey};
use crate::error::Error;
use crate::tool_args::{self, Arg, ToolMap};

/// The environment variable naming the project of a command hook's call.
pub(crate) const PROJECT_DIR_ENV: &str = "COPILOT_PROJECT_DIR";

/// The PascalCase events `init copilot` routes (those Copilot fires in this dialect).
pub const ROUTED_EVENTS: &[&str] =
    &["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd"];

/// The camelCase events whose names are not ours, beside the Claude Code names of our events.
/// The others (`permissionRequest`, `subagentStart`, `subagentStop`, `preCompact`,
/// `notification`) are spelled as ours and resolved by hook-core. Not routed: `errorOccurred`
/// (no event of ours means it, and a hook cannot act on it).
const CAMEL_EVENTS: &[(&str, &str)] = &[
    ("sessionStart", "SessionStart"),
    ("sessionEnd", "SessionEnd"),
    ("userPromptSubmitted", "UserPromptSubmit"),
    ("preToolUse", "PreToolUse"),
    ("postToolUse", "PostToolUse"),
    ("postToolUseFailure", "PostToolUseFailure"),
    ("agentStop", "Stop"),
];

/// Copilot's tools (camelCase payloads, and any that reach a PascalCase one) beside the matcher
/// vocabulary's, with the arguments the matchers read under another key. `powershell` runs its
/// `command` in PowerShell, and `write_bash`/`write_powershell` type their `input` into a running
/// shell session (a shell, or whatever program it is running, reads it): each is a Bash call whose
/// text a POSIX shell may not read, which every rule on the command matches uncertainly (a deny
/// holds, an allow does not). `view`, `create` and `edit` name their file `path`, as the matchers
/// read it.
/// Any other tool (`read_bash`, `stop_bash`, `task`, …) keeps its name.
const TOOLS: &[ToolMap] = &[
    ToolMap { id: "bash", ours: "Bash", args: &[] },
    ToolMap { id: "powershell", ours: "Bash", args: &[("command", Arg::Text("powershell"))] },
    ToolMap { id: "write_bash", ours: "Bash", args: &[("input", Arg::Text("input"))] },
    ToolMap { id: "write_powershell", ours: "Bash", args: &[("input", Arg::Text("input"))] },
    ToolMap { id: "view", ours: "Read", args: &[] },
    ToolMap { id: "create", ours: "Write", args: &[] },
    ToolMap { id: "edit", ours: "Edit", args: &[] },
    ToolMap { id: "glob", ours: "Glob", args: &[] },
    ToolMap { id: "grep", ours: "Grep", args: &[] },
    ToolMap { id: "web_fetch", ours: "WebFetch", args: &[] },
];

/// The key under which [`camel_call`] wraps a camelCase payload.
const CAMEL_PAYLOAD: &str = "copilot_payload";

/// The camelCase payload keys whose snake_case spelling is not Claude Code's key.
const CAMEL_KEYS: &[(&str, &str)] =
    &[("tool_args", PayloadKey::TOOL_INPUT), ("tool_result", PayloadKey::TOOL_RESPONSE)];

/// The Claude Code name of a camelCase event (one spelled as ours is resolved by hook-core).
fn pascal_event(camel: &str) -> Option<&'static str> {
    if let Some((_, pascal)) = CAMEL_EVENTS.iter().find(|(c, _)| *c == camel) {
        return Some(pascal);
    }
    let ours = camel.starts_with(|c: char| c.is_ascii_lowercase());
    ours.then(|| HookEventType::resolve(camel).ok()).flatten().map(HookEventType::payload_name)
}

/// The bytes of a camelCase call of `event` (its payload names none), wrapped so that the event
/// travels with them (to `serve` too) and is found even when the payload cannot be read:
/// `{"hook_event_name": "<event>", "copilot_payload": <the bytes, verbatim>}`.
pub(crate) fn camel_call(event: &str, bytes: &[u8]) -> Vec<u8> {
    let mut out =
        format!("{{\"{}\":{},\"{CAMEL_PAYLOAD}\":", PayloadKey::HOOK_EVENT_NAME, Value::from(event)).into_bytes();
    out.extend_from_slice(bytes);
    out.push(b'}');
    out
}

/// Reads a payload of either dialect as the PascalCase one: a camelCase call (wrapped by
/// [`camel_call`]) gets Claude Code's event name and snake_case keys; tool names map onto the
/// matcher vocabulary.
pub(crate) fn parse(bytes: &[u8], source: &str) -> Result<Map<String, Value>, Error> {
    let mut payload = crate::read::parse_payload(bytes, source)?;
    if let Some(wrapped) = payload.remove(CAMEL_PAYLOAD) {
        let Value::Object(inner) = wrapped else {
            return Err(Error::Payload(format!("{source}: the Copilot payload is not a JSON object")));
        };
        let named = payload.get(PayloadKey::HOOK_EVENT_NAME).and_then(Value::as_str).unwrap_or_default();
        // An event we lack keeps its name: nothing to do.
        let event = pascal_event(named).map_or_else(|| named.to_owned(), str::to_owned);
        payload = inner.into_iter().map(|(key, value)| (snake_key(&key), value)).collect();
        payload.insert(PayloadKey::HOOK_EVENT_NAME.into(), event.into());
        // `toolArgs` may come as the text of a JSON object.
        if let Some(Value::String(text)) = payload.get(PayloadKey::TOOL_INPUT) {
            let args = crate::read::parse_payload(text.as_bytes(), source)
                .map_err(|e| Error::Payload(format!("{source}: Copilot's toolArgs cannot be read: {e}")))?;
            payload.insert(PayloadKey::TOOL_INPUT.into(), Value::Object(args));
        }
    }
    if let Some(runtime) = payload.get(PayloadKey::TOOL_NAME).and_then(Value::as_str).map(str::to_owned) {
        if let Some(tool) = tool_args::find(TOOLS, &runtime) {
            tool_args::map(tool, &mut payload);
        }
        payload.insert(crate::gemini::CLIENT_TOOL_NAME.into(), runtime.into());
    }
    Ok(payload)
}

/// A camelCase key in snake_case (`sessionId` → `session_id`), or Claude Code's key for it.
fn snake_key(key: &str) -> String {
    let mut out = String::new();
    for c in key.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
        }
        out.push(c.to_ascii_lowercase());
    }
    CAMEL_KEYS.iter().find(|(k, _)| *k == out).map_or(out, |(_, claude)| (*claude).to_owned())
}

/// The event named in bytes that could not be read (a camelCase call's wrapper names it too).
pub(crate) fn sniff(bytes: &[u8]) -> Option<HookEventType> {
    let name = crate::claude::sniff_name(bytes)?;
    HookEventType::resolve(pascal_event(&name).unwrap_or(&name)).ok()
}

/// The answer of a PascalCase call (`answer`) in the camelCase dialect's form: the decision,
/// its reason, the rewritten arguments (`modifiedArgs`) and the context at the top level, and
/// no `hookSpecificOutput`. Exit code and stderr are kept.
pub(crate) fn camel_answer(mut answer: Answer) -> Answer {
    let Ok(Value::Object(mut out)) = serde_json::from_str::<Value>(&answer.stdout) else { return answer };
    let Some(Value::Object(specific)) = out.remove(Key::HOOK_SPECIFIC_OUTPUT) else { return answer };
    for (key, value) in specific {
        let key = match key.as_str() {
            Key::UPDATED_INPUT => MODIFIED_ARGS,
            Key::HOOK_EVENT_NAME => continue,
            _ => &key,
        };
        out.entry(key.to_owned()).or_insert(value);
    }
    answer.stdout = format!("{}\n", Value::Object(out));
    answer
}

/// The camelCase answer's key of a rewritten call's arguments.
const MODIFIED_ARGS: &str = "modifiedArgs";

/// The event `payload` names.
pub(crate) fn event(payload: &Map<String, Value>) -> Result<Option<HookEventType>, Answer> {
    crate::claude::event(payload).map_err(lifted)
}

/// The working directory the payload names.
pub(crate) fn cwd(payload: &Map<String, Value>) -> Option<&Path> {
    crate::claude::cwd(payload)
}

/// The context of a call.
pub(crate) fn context(event: HookEventType, payload: Map<String, Value>, project: &Path) -> Result<HookContext, Error> {
    crate::claude::context(event, payload, project)
}

/// Claude Code's answer, with the decision and context also at the top level.
pub(crate) fn answer(event: HookEventType, outcome: Result<&EventVerdict, &str>, extras: &Extras) -> (Answer, bool) {
    let (answer, carried) = crate::claude::answer(event, outcome, extras);
    (lifted(answer), carried)
}

/// The refusal of a payload that could not be read (Claude Code's: exit 2 where it may veto).
pub(crate) fn unreadable(event: Option<HookEventType>, error: &str) -> Answer {
    lifted(crate::claude::unreadable(event, error))
}

/// `answer` with `hookSpecificOutput`'s decision, reason and context copied to the top level.
fn lifted(mut answer: Answer) -> Answer {
    let Ok(Value::Object(mut out)) = serde_json::from_str::<Value>(&answer.stdout) else { return answer };
    let specific = out.get("hookSpecificOutput").cloned().unwrap_or(Value::Null);
    for key in ["permissionDecision", "permissionDecisionReason", "additionalContext"] {
        if let Some(value) = specific.get(key) {
            out.entry(key.to_owned()).or_insert_with(|| value.clone());
        }
    }
    answer.stdout = format!("{}\n", Value::Object(out));
    answer
}

/// The `command` handler that runs `binary copilot`, in Copilot's flat handler shape.
pub fn command_route(binary: &str) -> Value {
    let quoted = if binary.contains([' ', '\'', '"']) {
        format!("'{}'", binary.replace('\'', "'\\''"))
    } else {
        binary.to_owned()
    };
    json!({"type": "command", "bash": format!("{quoted} copilot"), "timeoutSec": 600})
}

/// Routes `ROUTED_EVENTS` to `route` (or, with `remove`, only removes it) in a Copilot hooks
/// file: our earlier handlers are replaced, everything else is kept.
pub fn edit_routes(file: &mut Value, route: &Value, remove: bool) -> Result<(), Error> {
    let Some(root) = file.as_object_mut() else {
        return Err(Error::Settings("the hooks file is not a JSON object".to_owned()));
    };
    root.entry("version").or_insert(json!(1));
    let Some(hooks) = root.entry("hooks").or_insert_with(|| json!({})).as_object_mut() else {
        return Err(Error::Settings("\"hooks\" in the hooks file is not an object".to_owned()));
    };
    for handlers in hooks.values_mut().filter_map(Value::as_array_mut) {
        handlers.retain(|h| h.get("bash") != route.get("bash"));
    }
    if !remove {
        for event in ROUTED_EVENTS {
            let handlers = hooks.entry((*event).to_owned()).or_insert_with(|| json!([]));
            let Some(handlers) = handlers.as_array_mut() else {
                return Err(Error::Settings(format!("\"hooks.{event}\" is not an array")));
            };
            handlers.push(route.clone());
        }
    }
    hooks.retain(|_, h| h.as_array().is_none_or(|h| !h.is_empty()));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> Vec<u8> {
        let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/copilot").join(name);
        std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    #[test]
    fn every_captured_pascal_case_payload_names_its_event_and_maps_bash() {
        for (file, want) in [
            ("PreToolUse.json", HookEventType::PRE_TOOL),
            ("PostToolUse.json", HookEventType::POST_TOOL),
            ("SessionStart.json", HookEventType::ON_SESSION_START),
            ("UserPromptSubmit.json", HookEventType::USER_PROMPT_SUBMIT),
            ("Stop.json", HookEventType::ON_STOP),
        ] {
            let payload = crate::parse_payload(fixture(file), file).expect(file);
            assert_eq!(event(&payload), Ok(Some(want)), "{file}");
            let ctx = context(want, payload, Path::new("/p")).expect(file);
            if want.spec().matcher == hook_core::MatchSubject::Tool {
                assert_eq!(ctx.tool.as_ref().map(|t| t.name.as_str()), Some("Bash"), "{file}");
            }
        }
    }

    #[test]
    fn every_captured_camel_case_payload_is_read_as_the_event_its_handler_names() {
        // (camelCase event = fixture, our event, tool name for the matchers, Copilot's own name)
        let cases = [
            ("preToolUse", HookEventType::PRE_TOOL, Some(("Bash", "bash"))),
            ("postToolUse", HookEventType::POST_TOOL, Some(("Bash", "bash"))),
            ("sessionStart", HookEventType::ON_SESSION_START, None),
            ("userPromptSubmitted", HookEventType::USER_PROMPT_SUBMIT, None),
            ("agentStop", HookEventType::ON_STOP, None),
            ("sessionEnd", HookEventType::ON_SESSION_END, None),
        ];
        for (name, want, tool) in cases {
            let file = format!("{name}.json");
            let payload = parse(&camel_call(name, &fixture(&file)), &file).unwrap_or_else(|e| panic!("{file}: {e}"));
            assert_eq!(event(&payload), Ok(Some(want)), "{file}");
            assert!(payload.get("session_id").and_then(Value::as_str).is_some(), "{file}: sessionId → session_id");
            assert_eq!(cwd(&payload), Some(Path::new("/tmp/.tmpEAQl33/project")), "{file}");
            let ctx = context(want, payload, Path::new("/p")).unwrap_or_else(|e| panic!("{file}: {e}"));
            if let Some((ours, theirs)) = tool {
                let tool = ctx.tool.as_ref().unwrap_or_else(|| panic!("{file}: no tool"));
                assert_eq!(tool.name, ours, "{file}");
                assert!(tool.input["command"].as_str().is_some_and(|c| c.contains("printf 'tool-%s")), "{file}");
                assert_eq!(ctx.fields.get(crate::gemini::CLIENT_TOOL_NAME), Some(&json!(theirs)), "{file}");
            }
        }
    }

    #[test]
    fn tool_arguments_given_as_text_are_read_and_copilots_tool_names_map_onto_the_matchers() {
        for (runtime, ours) in [("view", "Read"), ("create", "Write"), ("edit", "Edit"), ("read_bash", "read_bash")] {
            let bytes = json!({"sessionId": "s", "timestamp": 1, "cwd": "/w", "toolName": runtime,
                               "toolArgs": "{\"path\": \"/w/.env\"}"})
            .to_string();
            let payload = parse(&camel_call("preToolUse", bytes.as_bytes()), "t").expect("reads");
            let ctx = context(HookEventType::PRE_TOOL, payload, Path::new("/w")).expect("context");
            let tool = ctx.tool.as_ref().expect("a tool call");
            assert_eq!((tool.name.as_str(), tool.input["path"].as_str()), (ours, Some("/w/.env")), "{runtime}");
        }
    }

    #[test]
    fn copilots_shell_tools_are_bash_whose_text_a_posix_shell_may_not_read() {
        // (tool, its arguments, what the matchers read beside them)
        let cases = [
            ("bash", json!({"command": "git push"}), json!({})),
            ("powershell", json!({"command": "git push"}), json!({"shell": "powershell"})),
            (
                "write_bash",
                json!({"sessionId": "1", "input": "git push\n"}),
                json!({"command": "git push\n", "shell": "input"}),
            ),
            ("write_powershell", json!({"sessionId": "1", "input": "y"}), json!({"command": "y", "shell": "input"})),
        ];
        for (tool, args, added) in cases {
            for camel in [true, false] {
                let payload = if camel {
                    let bytes = json!({"sessionId": "s", "cwd": "/w", "toolName": tool, "toolArgs": args}).to_string();
                    parse(&camel_call("preToolUse", bytes.as_bytes()), "t")
                } else {
                    let bytes =
                        json!({"hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": args}).to_string();
                    parse(bytes.as_bytes(), "t")
                };
                let payload = payload.expect("reads");
                let mut want = args.as_object().cloned().unwrap_or_default();
                want.extend(added.as_object().cloned().unwrap_or_default());
                assert_eq!(
                    (&payload["tool_name"], &payload["tool_input"]),
                    (&json!("Bash"), &Value::Object(want)),
                    "{tool}"
                );
                assert_eq!(payload[crate::gemini::CLIENT_TOOL_NAME], tool);
            }
        }
    }

    #[test]
    fn a_camel_case_call_that_cannot_be_read_is_refused_where_its_event_can_veto() {
        for broken in [&b"{\"sessionId\": \"s\", \"toolArgs\": {"[..], b"", b"[1, 2]", b"\"text\""] {
            let bytes = camel_call("preToolUse", broken);
            assert_eq!(sniff(&bytes), Some(HookEventType::PRE_TOOL), "{}", String::from_utf8_lossy(broken));
            let read = parse(&bytes, "t");
            assert!(read.is_err(), "{}: {read:?}", String::from_utf8_lossy(broken));
            assert_eq!(unreadable(sniff(&bytes), "bad").exit, 2);
        }
        let text_args = json!({"sessionId": "s", "cwd": "/w", "toolName": "bash", "toolArgs": "{not json"}).to_string();
        assert!(parse(&camel_call("preToolUse", text_args.as_bytes()), "t").is_err(), "unreadable toolArgs");
        // An event we lack is read and then left alone.
        let other = parse(&camel_call("errorOccurred", br#"{"sessionId": "s"}"#), "t").expect("reads");
        assert_eq!(sniff(&camel_call("errorOccurred", b"{")), None);
        // A camelCase event spelled as ours is resolved by hook-core.
        assert_eq!(sniff(&camel_call("preCompact", b"{")), Some(HookEventType::PRE_COMPACT));
        let compact =
            parse(&camel_call("preCompact", br#"{"sessionId": "s", "trigger": "auto"}"#), "t").expect("reads");
        assert_eq!(event(&compact), Ok(Some(HookEventType::PRE_COMPACT)));
        assert!(event(&other).is_ok());
    }

    #[test]
    fn a_camel_case_answer_is_given_at_the_top_level_only() {
        let claude = |specific: Value, top: Value| {
            let mut out = top;
            out["hookSpecificOutput"] = specific;
            Answer { stdout: format!("{out}\n"), ..Answer::default() }
        };
        let cases = [
            (
                claude(
                    json!({"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no"}),
                    json!({}),
                ),
                json!({"permissionDecision": "deny", "permissionDecisionReason": "no"}),
            ),
            (
                claude(
                    json!({"hookEventName": "PreToolUse", "permissionDecision": "allow", "updatedInput": {"command": "ls"}}),
                    json!({}),
                ),
                json!({"permissionDecision": "allow", "modifiedArgs": {"command": "ls"}}),
            ),
            (
                claude(
                    json!({"hookEventName": "PostToolUse", "additionalContext": "checked"}),
                    json!({"systemMessage": "m"}),
                ),
                json!({"additionalContext": "checked", "systemMessage": "m"}),
            ),
        ];
        for (answer, want) in cases {
            let camel = camel_answer(answer.clone());
            assert_eq!(serde_json::from_str::<Value>(&camel.stdout).expect("json"), want, "{}", answer.stdout);
            assert!(camel.stdout.ends_with('\n'));
        }
        // A Stop's block is already top-level; a refusal keeps its exit code and stderr.
        let stop = Answer { stdout: "{\"decision\":\"block\",\"reason\":\"again\"}\n".into(), ..Answer::default() };
        assert_eq!(camel_answer(stop.clone()), stop);
        let refusal = unreadable(Some(HookEventType::PRE_TOOL), "bad");
        assert_eq!(camel_answer(refusal.clone()), refusal);
    }

    #[test]
    fn a_deny_is_given_in_both_forms_and_an_unreadable_call_is_refused() {
        let claude = Answer {
            stdout: json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                                  "permissionDecisionReason": "no"}})
            .to_string(),
            ..Answer::default()
        };
        let out: Value = serde_json::from_str(&lifted(claude).stdout).expect("json");
        assert_eq!(
            (out["permissionDecision"].as_str(), out["permissionDecisionReason"].as_str()),
            (Some("deny"), Some("no"))
        );
        assert_eq!(out["hookSpecificOutput"]["permissionDecision"], "deny");
        assert_eq!(unreadable(Some(HookEventType::PRE_TOOL), "bad").exit, 2);
    }

    #[test]
    fn routing_twice_changes_nothing_and_removing_keeps_other_hooks() {
        let route = command_route("/bin/aimon-hooks");
        let mine = json!({"type": "command", "bash": "./mine.sh"});
        let mut file = json!({"version": 1, "hooks": {"PreToolUse": [mine.clone()]}});
        edit_routes(&mut file, &route, false).expect("object");
        let once = file.clone();
        edit_routes(&mut file, &route, false).expect("object");
        assert_eq!(file, once);
        assert_eq!(file["hooks"]["PreToolUse"], json!([mine.clone(), route.clone()]));
        edit_routes(&mut file, &route, true).expect("object");
        assert_eq!(file, json!({"version": 1, "hooks": {"PreToolUse": [mine]}}));
    }
}
