//! Codex rollouts: `~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`, one JSON object per
//! line, each `{"timestamp", "type", "payload"}`:
//! - `session_meta`: `payload.id` (the session) and `payload.cwd`;
//! - `response_item` with `payload.type` `function_call` (`name`, `arguments` as a JSON text,
//!   `call_id`) or `custom_tool_call` (`name`, `input`, `call_id`), answered by a
//!   `function_call_output` / `custom_tool_call_output` (`call_id`, `output`);
//! - `event_msg` with `payload.type` `user_message` (`message`: a prompt) or `task_complete`
//!   (`last_agent_message`: the turn ended, where Stop hooks run).
//!
//! Tools are named as Codex's hooks see them: the shell tools (`shell`, `exec_command`,
//! `local_shell`) are `Bash` with `{"command": …}`, `apply_patch` is `Edit` with the first file
//! the patch touches as `file_path`, MCP tools keep their `mcp__server__tool` names.

use std::collections::HashMap;
use std::path::Path;

use hook_core::HookEventType;
use serde_json::{Map, Value, json};

use super::{Happened, Recorded, Unreadable};
use hook_wire::claude::PayloadKey;

/// The calls of one rollout, in order; unreadable lines go to `bad`.
pub(super) fn read(file: &Path, text: &str, bad: &mut Vec<Unreadable>) -> Vec<Recorded> {
    let mut out = Vec::new();
    let (mut session, mut cwd): (Option<String>, Option<String>) = (None, None);
    let mut pending: HashMap<String, (usize, String, Value)> = HashMap::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let value: Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => {
                bad.push(Unreadable { file: file.to_owned(), line: i + 1, error: e.to_string() });
                continue;
            }
        };
        let payload = value.get("payload").cloned().unwrap_or(Value::Null);
        let kind = payload.get("type").and_then(Value::as_str).unwrap_or_default().to_owned();
        let make = |event: HookEventType, fields: Vec<(&str, Value)>| {
            let mut payload: Map<String, Value> = fields.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
            if let Some(s) = &session {
                payload.insert(PayloadKey::SESSION_ID.into(), s.clone().into());
            }
            if let Some(c) = &cwd {
                payload.insert("cwd".into(), c.clone().into());
            }
            payload.insert(PayloadKey::TRANSCRIPT_PATH.into(), file.display().to_string().into());
            Recorded {
                file: file.to_owned(),
                line: i + 1,
                time: value.get("timestamp").and_then(Value::as_str).map(str::to_owned),
                event,
                payload,
                happened: Happened::Ran,
            }
        };
        match (value.get("type").and_then(Value::as_str), kind.as_str()) {
            (Some("session_meta"), _) => {
                session = payload.get("id").and_then(Value::as_str).map(str::to_owned);
                cwd = payload.get("cwd").and_then(Value::as_str).map(str::to_owned);
            }
            (Some("response_item"), "function_call" | "custom_tool_call" | "local_shell_call") => {
                let name = payload.get("name").and_then(Value::as_str).unwrap_or("local_shell");
                let arguments = match payload.get("arguments") {
                    Some(Value::String(text)) => serde_json::from_str(text).unwrap_or_else(|_| json!({"input": text})),
                    Some(other) => other.clone(),
                    None => payload.get("input").or_else(|| payload.get("action")).cloned().unwrap_or(Value::Null),
                };
                let Some(id) = payload.get("call_id").and_then(Value::as_str) else {
                    bad.push(Unreadable {
                        file: file.to_owned(),
                        line: i + 1,
                        error: "a tool call without call_id".into(),
                    });
                    continue;
                };
                let (tool, input) = tool_of(name, arguments);
                let mut call = make(
                    HookEventType::PRE_TOOL,
                    vec![
                        (PayloadKey::TOOL_NAME, tool.clone().into()),
                        (PayloadKey::TOOL_INPUT, input.clone()),
                        (PayloadKey::TOOL_USE_ID, id.into()),
                    ],
                );
                call.happened = Happened::Unknown;
                pending.insert(id.to_owned(), (out.len(), tool, input));
                out.push(call);
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
                    out[index].happened = Happened::Denied(output);
                    continue;
                }
                out[index].happened = Happened::Ran;
                let id = out[index].payload.get(PayloadKey::TOOL_USE_ID).cloned().unwrap_or_default();
                out.push(make(
                    HookEventType::POST_TOOL,
                    vec![
                        (PayloadKey::TOOL_NAME, tool.into()),
                        (PayloadKey::TOOL_INPUT, input),
                        (PayloadKey::TOOL_USE_ID, id),
                        (PayloadKey::TOOL_RESPONSE, output.into()),
                    ],
                ));
            }
            (Some("event_msg"), "user_message") => {
                let prompt = payload.get("message").and_then(Value::as_str).unwrap_or_default().to_owned();
                out.push(make(HookEventType::USER_PROMPT_SUBMIT, vec![("prompt", prompt.into())]));
            }
            (Some("event_msg"), "task_complete") => {
                let last = payload.get("last_agent_message").cloned().unwrap_or(Value::Null);
                out.push(make(
                    HookEventType::ON_STOP,
                    vec![("stop_hook_active", false.into()), ("last_assistant_message", last)],
                ));
            }
            _ => {}
        }
    }
    out
}

/// The tool name and input a Codex hook sees for a call of `name` with `arguments`.
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
        "apply_patch" => {
            let patch =
                arguments.get("input").and_then(Value::as_str).or_else(|| arguments.as_str()).unwrap_or_default();
            let file = patch.lines().find_map(|l| {
                ["*** Update File: ", "*** Add File: ", "*** Delete File: "].iter().find_map(|p| l.strip_prefix(p))
            });
            ("Edit".to_owned(), json!({"file_path": file.unwrap_or_default(), "patch": patch}))
        }
        other => (other.to_owned(), arguments),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Written from the rollout format above.
    const ROLLOUT: &str = r#"{"timestamp":"2026-12-01T10:00:00.000Z","type":"session_meta","payload":{"id":"019a-codex","cwd":"/p","cli_version":"0.171.0"}}
{"timestamp":"2026-12-01T10:00:01.000Z","type":"event_msg","payload":{"type":"user_message","message":"push it"}}
{"timestamp":"2026-12-01T10:00:02.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"git push --force\"]}","call_id":"c1"}}
{"timestamp":"2026-12-01T10:00:03.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"{\"output\":\"ok\"}"}}
{"timestamp":"2026-12-01T10:00:04.000Z","type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","input":"*** Begin Patch\n*** Update File: Cargo.lock\n*** End Patch","call_id":"c2"}}
{"timestamp":"2026-12-01T10:00:05.000Z","type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"c2","output":"Command blocked by PreToolUse hook: no"}}
{broken
{"timestamp":"2026-12-01T10:00:06.000Z","type":"event_msg","payload":{"type":"task_complete","last_agent_message":"done"}}"#;

    #[test]
    fn a_rollout_gives_its_prompt_shell_and_patch_calls_and_stop() {
        let mut bad = Vec::new();
        let calls = read(Path::new("/r.jsonl"), ROLLOUT, &mut bad);
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
        assert_eq!(calls[3].payload["tool_input"]["file_path"], "Cargo.lock");
        assert!(matches!(calls[3].happened, Happened::Denied(_)));
        assert_eq!((bad.len(), bad[0].line), (1, 7));
    }
}
