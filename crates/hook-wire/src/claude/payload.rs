//! A Claude-Code-shaped JSON payload → [`HookContext`] (R-CC-1).
//!
//! The common keys (`session_id`, `transcript_path`, `cwd`, `permission_mode`) and the tool keys
//! (`tool_name`, `tool_input`, `tool_use_id`, `tool_response`, `tool_result_status`) fill the
//! context's own fields; AIMON's `invoker_name`, `invoker_type`, `iteration` and `context_id` are
//! read too. `hook_event_name` is dropped (the event is given separately); every other key lands
//! in [`HookContext::fields`] under its own name (`trigger`, `source`, `reason`, `agent_type`, …).

use std::path::{Path, PathBuf};

use hook_core::{HookContext, HookEventType, MatchSubject, ToolCall};
use serde_json::{Map, Value};

use crate::error::Error;
use crate::read::kind;

/// Builds the context of `event` from `payload`. `project` becomes `project_dir`.
///
/// Tool events (preTool, postTool, permissionRequest, permissionDenied) need a string
/// `tool_name`; `tool_input` defaults to `{}`.
pub fn payload_context(
    event: HookEventType,
    mut payload: Map<String, Value>,
    project: &Path,
) -> Result<HookContext, Error> {
    payload.remove("hook_event_name");
    let mut ctx = HookContext::new(event);
    ctx.project_dir = Some(project.to_owned());
    ctx.session_id = take_string(&mut payload, "session_id")?;
    ctx.transcript_path = take_string(&mut payload, "transcript_path")?;
    ctx.cwd = take_string(&mut payload, "cwd")?.map(PathBuf::from);
    ctx.permission_mode = take_string(&mut payload, "permission_mode")?;
    ctx.context_id = take_string(&mut payload, "context_id")?;
    ctx.invoker_name = take_string(&mut payload, "invoker_name")?;
    ctx.invoker_type = take_string(&mut payload, "invoker_type")?;
    ctx.iteration = match payload.remove("iteration") {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            v.as_u64()
                .ok_or_else(|| Error::Payload(format!("\"iteration\" must be a non-negative integer, not {v}")))?,
        ),
    };
    if event.spec().matcher == MatchSubject::Tool {
        let Some(name) = take_string(&mut payload, "tool_name")? else {
            return Err(Error::Payload(format!(
                "the payload for {event} has no \"tool_name\"; a tool event needs the name of the tool"
            )));
        };
        let input = payload.remove("tool_input").filter(|v| !v.is_null()).unwrap_or_else(|| Value::Object(Map::new()));
        let mut tool = ToolCall::new(name, input);
        tool.use_id = take_string(&mut payload, "tool_use_id")?;
        tool.response = payload.remove("tool_response");
        tool.result_status = take_string(&mut payload, "tool_result_status")?;
        ctx.tool = Some(tool);
    }
    ctx.fields = payload;
    Ok(ctx)
}

fn take_string(payload: &mut Map<String, Value>, key: &str) -> Result<Option<String>, Error> {
    match payload.remove(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(Error::Payload(format!("\"{key}\" in the payload must be a string, not {}", kind(&other)))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(v: Value) -> Map<String, Value> {
        let Value::Object(m) = v else { unreachable!("test payloads are objects") };
        m
    }

    #[test]
    fn a_pre_tool_use_payload_fills_the_common_and_tool_fields_and_keeps_the_rest() {
        let payload = object(json!({
            "session_id": "s1", "transcript_path": "/t.jsonl", "cwd": "/w", "permission_mode": "default",
            "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"},
            "tool_use_id": "toolu_1", "prompt_id": "p1"
        }));
        let ctx = payload_context(HookEventType::PRE_TOOL, payload, Path::new("/proj")).expect("valid payload");
        assert_eq!(ctx.session_id.as_deref(), Some("s1"));
        assert_eq!(ctx.cwd.as_deref(), Some(Path::new("/w")));
        assert_eq!(ctx.project_dir.as_deref(), Some(Path::new("/proj")));
        let tool = ctx.tool.expect("tool call");
        assert_eq!((tool.name.as_str(), tool.use_id.as_deref()), ("Bash", Some("toolu_1")));
        assert_eq!(tool.input, json!({"command": "ls"}));
        assert_eq!(Value::Object(ctx.fields), json!({"prompt_id": "p1"}));
    }

    #[test]
    fn a_pre_compact_payload_keeps_trigger_as_the_match_subject_r_pred_4b() {
        let payload = object(json!({"trigger": "auto", "custom_instructions": ""}));
        let ctx = payload_context(HookEventType::PRE_COMPACT, payload, Path::new("/p")).expect("valid payload");
        assert_eq!(ctx.match_subject(), Some("auto"));
        assert!(ctx.tool.is_none());
    }

    #[test]
    fn a_tool_event_without_tool_name_is_a_usage_error() {
        let err = payload_context(HookEventType::PRE_TOOL, Map::new(), Path::new("/p")).expect_err("no tool_name");
        assert!(err.to_string().contains("\"tool_name\""), "{err}");
    }

    #[test]
    fn a_non_string_common_key_is_refused() {
        let err = payload_context(HookEventType::ON_STOP, object(json!({"session_id": 3})), Path::new("/p"))
            .expect_err("bad");
        assert!(err.to_string().contains("\"session_id\""), "{err}");
    }
}
