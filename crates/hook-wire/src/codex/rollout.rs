//! Codex rollouts: `~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`, one JSON object per
//! line, each `{"timestamp", "type", "payload"}`:
//! - `session_meta`: `payload.id` (the session) and `payload.cwd`;
//! - `response_item` with `payload.type` `function_call` (`name`, `arguments` as a JSON text,
//!   `call_id`) or `custom_tool_call` (`name`, `input`, `call_id`), answered by a
//!   `function_call_output` / `custom_tool_call_output` (`call_id`, `output`);
//! - `event_msg` with `payload.type` `user_message` (`message`: a prompt) or `task_complete`
//!   (`last_agent_message`: the turn ended, where Stop hooks run).
//!
//! Each call becomes the payload Codex sends its hooks: the shell tools (`shell`,
//! `exec_command`, `local_shell`) are `Bash` with `{"command": …}`; `apply_patch` stays
//! `apply_patch` with `{"command": <the patch>}`, read by [`crate::Client::Codex`]'s context as any
//! live call is (the `patch` module); MCP tools keep their `mcp__server__tool` names.

use std::collections::HashMap;
use std::path::PathBuf;

use hook_core::HookEventType;
use serde_json::{Map, Value, json};

use crate::claude::PayloadKey;
use crate::session::{Happened, PROMPT, Session, call, fields};

/// The working directory a rollout was recorded in (its `session_meta`), when it names one.
pub fn rollout_cwd(text: &str) -> Option<PathBuf> {
    text.lines().find_map(|l| {
        let v: Value = serde_json::from_str(l).ok()?;
        (v.get("type")? == "session_meta").then(|| v["payload"]["cwd"].as_str().map(PathBuf::from))?
    })
}

/// The calls of one rollout (`path`: the file, as the payloads name it; `text`: its lines).
pub(crate) fn read(path: &str, text: &str) -> Session {
    let mut out = Session::default();
    let (mut session, mut cwd): (Option<Value>, Option<Value>) = (None, None);
    // call_id → (index of its PreToolUse in the calls, tool, input)
    let mut pending: HashMap<String, (usize, String, Value)> = HashMap::new();
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        let value: Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => {
                out.bad(n, e.to_string());
                continue;
            }
        };
        let payload = value.get("payload").cloned().unwrap_or(Value::Null);
        let kind = payload.get("type").and_then(Value::as_str).unwrap_or_default().to_owned();
        let make = |event: HookEventType, mut fields: Map<String, Value>| {
            if let Some(s) = &session {
                fields.insert(PayloadKey::SESSION_ID.into(), s.clone());
            }
            if let Some(c) = &cwd {
                fields.insert(PayloadKey::CWD.into(), c.clone());
            }
            fields.insert(PayloadKey::TRANSCRIPT_PATH.into(), path.into());
            call(n, value.get("timestamp"), event, fields)
        };
        match (value.get("type").and_then(Value::as_str), kind.as_str()) {
            (Some("session_meta"), _) => {
                session = payload.get("id").filter(|v| v.is_string()).cloned();
                cwd = payload.get("cwd").filter(|v| v.is_string()).cloned();
            }
            (Some("response_item"), "function_call" | "custom_tool_call" | "local_shell_call") => {
                let name = payload.get("name").and_then(Value::as_str).unwrap_or("local_shell");
                let arguments = match payload.get("arguments") {
                    Some(Value::String(text)) => serde_json::from_str(text).unwrap_or_else(|_| json!({"input": text})),
                    Some(other) => other.clone(),
                    None => payload.get("input").or_else(|| payload.get("action")).cloned().unwrap_or(Value::Null),
                };
                let Some(id) = payload.get("call_id").and_then(Value::as_str) else {
                    out.bad(n, "a tool call without call_id");
                    continue;
                };
                let (tool, input) = tool_of(name, arguments);
                let mut pre = make(
                    HookEventType::PRE_TOOL,
                    fields([
                        (PayloadKey::TOOL_NAME, tool.clone().into()),
                        (PayloadKey::TOOL_INPUT, input.clone()),
                        (PayloadKey::TOOL_USE_ID, id.into()),
                    ]),
                );
                pre.happened = Happened::Unknown;
                pending.insert(id.to_owned(), (out.calls.len(), tool, input));
                out.calls.push(pre);
            }
            (Some("response_item"), "function_call_output" | "custom_tool_call_output") => {
                let Some((index, tool, input)) =
                    payload.get("call_id").and_then(Value::as_str).and_then(|id| pending.remove(id))
                else {
                    continue;
                };
                let output = match payload.get("output") {
                    Some(Value::String(s)) => s.clone(),
                    Some(other) => {
                        other.get("content").and_then(Value::as_str).map_or_else(|| other.to_string(), str::to_owned)
                    }
                    None => String::new(),
                };
                let lower = output.to_ascii_lowercase();
                if lower.contains("blocked by") && lower.contains("hook") {
                    out.calls[index].happened = Happened::Denied(output);
                    continue;
                }
                out.calls[index].happened = Happened::Ran;
                let id = out.calls[index].payload.get(PayloadKey::TOOL_USE_ID).cloned().unwrap_or_default();
                out.calls.push(make(
                    HookEventType::POST_TOOL,
                    fields([
                        (PayloadKey::TOOL_NAME, tool.into()),
                        (PayloadKey::TOOL_INPUT, input),
                        (PayloadKey::TOOL_USE_ID, id),
                        (PayloadKey::TOOL_RESPONSE, output.into()),
                    ]),
                ));
            }
            (Some("event_msg"), "user_message") => {
                let prompt = payload.get("message").and_then(Value::as_str).unwrap_or_default().to_owned();
                out.calls.push(make(HookEventType::USER_PROMPT_SUBMIT, fields([(PROMPT, prompt.into())])));
            }
            (Some("event_msg"), "task_complete") => {
                let last = payload.get("last_agent_message").cloned().unwrap_or(Value::Null);
                out.calls.push(make(
                    HookEventType::ON_STOP,
                    fields([("stop_hook_active", false.into()), ("last_assistant_message", last)]),
                ));
            }
            _ => {}
        }
    }
    out
}

/// The tool name and input Codex's hooks are sent for a call of `name` with `arguments`.
fn tool_of(name: &str, arguments: Value) -> (String, Value) {
    match name {
        "shell" | "exec_command" | "local_shell" | "container.exec" => {
            let command = match arguments.get("cmd").or_else(|| arguments.get("command")) {
                Some(Value::String(s)) => s.clone(),
                // `["bash", "-lc", "…"]`: the script; any other argv, joined.
                Some(Value::Array(argv)) => {
                    let words: Vec<&str> = argv.iter().filter_map(Value::as_str).collect();
                    match words.as_slice() {
                        [shell, flag, script]
                            if shell.ends_with("sh") && flag.starts_with('-') && flag.contains('c') =>
                        {
                            (*script).to_owned()
                        }
                        _ => words.join(" "),
                    }
                }
                _ => String::new(),
            };
            ("Bash".to_owned(), json!({"command": command}))
        }
        // The patch text: a custom tool's `input`, or a function call's `input` argument.
        super::patch::APPLY_PATCH => {
            let patch = arguments.get("input").and_then(Value::as_str).or_else(|| arguments.as_str());
            (name.to_owned(), json!({"command": patch.unwrap_or_default()}))
        }
        other => (other.to_owned(), arguments),
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    /// Written from the rollout format above.
    const ROLLOUT: &str = r#"{"timestamp":"2026-12-01T10:00:00.000Z","type":"session_meta","payload":{"id":"019a-codex","cwd":"/p","cli_version":"0.171.0"}}
{"timestamp":"2026-12-01T10:00:01.000Z","type":"event_msg","payload":{"type":"user_message","message":"push it"}}
{"timestamp":"2026-12-01T10:00:02.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"git push --force\"]}","call_id":"c1"}}
{"timestamp":"2026-12-01T10:00:03.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"{\"output\":\"ok\"}"}}
{"timestamp":"2026-12-01T10:00:04.000Z","type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","input":"*** Begin Patch\n*** Update File: Cargo.lock\n*** Update File: .env\n*** End Patch","call_id":"c2"}}
{"timestamp":"2026-12-01T10:00:05.000Z","type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"c2","output":"Command blocked by PreToolUse hook: no"}}
{broken
{"timestamp":"2026-12-01T10:00:06.000Z","type":"event_msg","payload":{"type":"task_complete","last_agent_message":"done"}}"#;

    #[test]
    fn a_rollout_gives_its_prompt_shell_and_patch_calls_and_stop() {
        let session = read("/r.jsonl", ROLLOUT);
        let calls = &session.calls;
        let events: Vec<HookEventType> = calls.iter().map(|c| c.event).collect();
        assert_eq!(
            events,
            [
                HookEventType::USER_PROMPT_SUBMIT,
                HookEventType::PRE_TOOL,
                HookEventType::POST_TOOL,
                HookEventType::PRE_TOOL,
                HookEventType::ON_STOP
            ]
        );
        assert_eq!(calls[1].payload["tool_name"], "Bash");
        assert_eq!(calls[1].payload["tool_input"]["command"], "git push --force");
        assert_eq!(calls[1].payload["session_id"], "019a-codex");
        assert_eq!(calls[1].happened, Happened::Ran);
        assert!(matches!(calls[3].happened, Happened::Denied(_)));
        assert_eq!(session.unreadable.iter().map(|(line, _)| *line).collect::<Vec<_>>(), [7]);
        assert_eq!(rollout_cwd(ROLLOUT), Some(PathBuf::from("/p")));
    }

    #[test]
    fn a_recorded_patch_is_read_as_a_live_apply_patch_call_is() {
        let session = read("/r.jsonl", ROLLOUT);
        let patch = &session.calls[3];
        assert_eq!(patch.payload["tool_name"], "apply_patch", "Codex's own name, as its hooks are sent it");
        let ctx = crate::Client::Codex.context(patch.event, patch.payload.clone(), Path::new("/p")).expect("a context");
        let tool = ctx.tool.expect("a tool call");
        assert_eq!(tool.name, "Edit");
        assert_eq!(tool.input["file_paths"], json!(["Cargo.lock", ".env"]), "every file of the patch");
    }
}
