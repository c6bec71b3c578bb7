//! Claude Code transcripts: `~/.claude/projects/<project, mangled>/<session>.jsonl`, one JSON
//! object per line. An `assistant` line's `message.content` holds its `tool_use` blocks (`id`,
//! `name`, `input`); a `user` line holds either a prompt (`message.content` a string, or text
//! blocks) or the `tool_result` blocks of earlier calls (`tool_use_id`, `content`, `is_error`).
//! Every line carries `sessionId`, `cwd` and `timestamp`. An assistant message that ends its turn
//! (`message.stop_reason` `end_turn`) is where the Stop hooks ran.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use hook_core::HookEventType;
use serde_json::{Map, Value, json};

use super::PayloadKey;
use crate::session::{Happened, PROMPT, Session, call, fields};

/// Claude Code's directory name for a project: every character that is not an ASCII letter or
/// digit becomes `-` (`/work/my.app` → `-work-my-app`).
fn mangle(project: &Path) -> String {
    project.display().to_string().chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect()
}

/// The directory of `project`'s transcripts under the home directory `home`.
pub fn transcript_dir(home: &Path, project: &Path) -> PathBuf {
    home.join(".claude").join("projects").join(mangle(project))
}

/// The calls of one transcript (`path`: the file, as the payloads name it; `text`: its lines).
pub(crate) fn read(path: &str, text: &str) -> Session {
    let mut out = Session::default();
    // tool_use id → (index of its PreToolUse in the calls, name, input)
    let mut pending: HashMap<String, (usize, String, Value)> = HashMap::new();
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        // Most lines of a real transcript (attachments, API request records, snapshots) are
        // neither prompts nor calls: they are only checked, not built into a tree.
        if !line.contains("\"user\"") && !line.contains("\"assistant\"") {
            if let Err(e) = serde_json::from_str::<serde::de::IgnoredAny>(line) {
                out.bad(n, e.to_string());
            }
            continue;
        }
        let value: Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => {
                out.bad(n, e.to_string());
                continue;
            }
        };
        let common = |event: HookEventType, mut payload: Map<String, Value>| {
            for (from, to) in [("sessionId", PayloadKey::SESSION_ID), ("cwd", PayloadKey::CWD)] {
                if let Some(v) = value.get(from).filter(|v| v.is_string()) {
                    payload.insert(to.into(), v.clone());
                }
            }
            payload.insert(PayloadKey::TRANSCRIPT_PATH.into(), path.into());
            call(n, value.get("timestamp"), event, payload)
        };
        let message = value.get("message");
        let content = message.and_then(|m| m.get("content"));
        match value.get("type").and_then(Value::as_str) {
            Some("assistant") => {
                for block in content.and_then(Value::as_array).into_iter().flatten() {
                    if block.get("type").and_then(Value::as_str) != Some("tool_use") {
                        continue;
                    }
                    let (Some(id), Some(name)) =
                        (block.get("id").and_then(Value::as_str), block.get("name").and_then(Value::as_str))
                    else {
                        out.bad(n, "a tool_use without id or name");
                        continue;
                    };
                    let input = block.get("input").cloned().unwrap_or_else(|| json!({}));
                    let fields = fields([
                        (PayloadKey::TOOL_NAME, name.into()),
                        (PayloadKey::TOOL_INPUT, input.clone()),
                        (PayloadKey::TOOL_USE_ID, id.into()),
                    ]);
                    let mut pre = common(HookEventType::PRE_TOOL, fields);
                    pre.happened = Happened::Unknown;
                    pending.insert(id.to_owned(), (out.calls.len(), name.to_owned(), input));
                    out.calls.push(pre);
                }
                if message.and_then(|m| m.get("stop_reason")).and_then(Value::as_str) == Some("end_turn") {
                    let text = texts(content);
                    out.calls.push(common(
                        HookEventType::ON_STOP,
                        fields([("stop_hook_active", false.into()), ("last_assistant_message", text.into())]),
                    ));
                }
            }
            Some("user") if value.get("isMeta").and_then(Value::as_bool) != Some(true) => {
                let results: Vec<&Value> = content
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
                    .collect();
                if results.is_empty() {
                    let prompt = texts(content);
                    if !prompt.is_empty() {
                        out.calls.push(common(HookEventType::USER_PROMPT_SUBMIT, fields([(PROMPT, prompt.into())])));
                    }
                    continue;
                }
                for result in results {
                    let Some((index, name, input)) =
                        result.get(PayloadKey::TOOL_USE_ID).and_then(Value::as_str).and_then(|id| pending.remove(id))
                    else {
                        continue;
                    };
                    let is_error = result.get("is_error").and_then(Value::as_bool) == Some(true);
                    let text = texts(result.get("content"));
                    if is_error && refused(&text) {
                        out.calls[index].happened = Happened::Denied(text);
                        continue;
                    }
                    out.calls[index].happened = Happened::Ran;
                    let response = value.get("toolUseResult").cloned().unwrap_or_else(|| text.clone().into());
                    let id = out.calls[index].payload.get(PayloadKey::TOOL_USE_ID).cloned().unwrap_or_default();
                    let mut post = fields([
                        (PayloadKey::TOOL_NAME, name.into()),
                        (PayloadKey::TOOL_INPUT, input),
                        (PayloadKey::TOOL_USE_ID, id),
                        (PayloadKey::TOOL_RESPONSE, response),
                    ]);
                    post.insert(
                        PayloadKey::TOOL_RESULT_STATUS.into(),
                        if is_error { "error" } else { "success" }.into(),
                    );
                    out.calls.push(common(HookEventType::POST_TOOL, post));
                }
            }
            _ => {}
        }
    }
    out
}

/// Whether a tool result's error text says the call never ran: a hook or the person refused it.
fn refused(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    (lower.contains("hook") && (lower.contains("denied") || lower.contains("blocked") || lower.contains("deny")))
        || lower.contains("permission to use")
        || lower.contains("doesn't want to proceed")
        || lower.contains("was rejected")
}

/// The text of a `content` value: a string, or its text blocks joined.
fn texts(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter_map(|b| b.get("text").and_then(Value::as_str).or_else(|| b.as_str()))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_project_directory_is_mangled_as_claude_code_names_it() {
        assert_eq!(mangle(Path::new("/tmp/.tmpAb12/project")), "-tmp--tmpAb12-project");
        assert_eq!(mangle(Path::new("/work/my_app")), "-work-my-app");
    }

    #[test]
    fn a_transcript_gives_its_prompt_calls_results_and_stop_in_order() {
        let text = [
            r#"{"type":"user","sessionId":"s","cwd":"/p","timestamp":"2026-12-01T10:00:00Z","message":{"role":"user","content":"list files"}}"#,
            r#"{"type":"assistant","sessionId":"s","cwd":"/p","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}},{"type":"tool_use","id":"t2","name":"Bash","input":{"command":"git push"}}]}}"#,
            "not json",
            r#"{"type":"user","sessionId":"s","cwd":"/p","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"a\nb"},{"type":"tool_result","tool_use_id":"t2","is_error":true,"content":"PreToolUse:Bash hook error: denied: no pushes"}]}}"#,
            r#"{"type":"assistant","sessionId":"s","cwd":"/p","message":{"role":"assistant","stop_reason":"end_turn","content":[{"type":"text","text":"done"}]}}"#,
        ]
        .join("\n");
        let session = read("/t.jsonl", &text);
        let calls = &session.calls;
        let summary: Vec<(HookEventType, &Happened)> = calls.iter().map(|c| (c.event, &c.happened)).collect();
        assert_eq!(summary.len(), 5, "{summary:?}");
        assert_eq!(summary[0].0, HookEventType::USER_PROMPT_SUBMIT);
        assert_eq!((summary[1].0, summary[1].1), (HookEventType::PRE_TOOL, &Happened::Ran));
        assert!(matches!(summary[2], (HookEventType::PRE_TOOL, Happened::Denied(_))));
        assert_eq!(summary[3].0, HookEventType::POST_TOOL);
        assert_eq!(summary[4].0, HookEventType::ON_STOP);
        assert_eq!(calls[1].payload["session_id"], "s");
        assert_eq!(calls[1].payload["transcript_path"], "/t.jsonl");
        assert_eq!(calls[3].payload["tool_response"], "a\nb");
        assert_eq!(session.unreadable.iter().map(|(line, _)| *line).collect::<Vec<_>>(), [3]);
    }
}
