//! The payload keys of a call's context, said once: one table read (payload → [`HookContext`])
//! and written (context → the payload a command or http hook receives) side by side; templates
//! look their `${context.X}` names up in it too.

use std::path::{Path, PathBuf};

use hook_core::{HookContext, HookEventType, MatchSubject, ToolCall};
use serde_json::{Map, Value};

use super::keys::key_table;
use crate::error::Error;
use crate::read::kind;

/// The keys of a Claude Code hook payload that the context models.
#[derive(Debug)]
pub enum PayloadKey {}

key_table! {
    /// Every key of the table (`cargo xtask check-layers` holds them to this module).
    PayloadKey {
        /// The Claude Code name of the event.
        HOOK_EVENT_NAME = "hook_event_name",
        /// The session.
        SESSION_ID = "session_id",
        /// The session's transcript file.
        TRANSCRIPT_PATH = "transcript_path",
        /// The client's working directory.
        CWD = "cwd",
        /// The client's permission mode.
        PERMISSION_MODE = "permission_mode",
        /// AIMON: the context of the call.
        CONTEXT_ID = "context_id",
        /// AIMON: who invoked the hook.
        INVOKER_NAME = "invoker_name",
        /// AIMON: what kind of invoker.
        INVOKER_TYPE = "invoker_type",
        /// AIMON: the loop's iteration.
        ITERATION = "iteration",
        /// The tool's name.
        TOOL_NAME = "tool_name",
        /// The tool's input.
        TOOL_INPUT = "tool_input",
        /// The tool call's id.
        TOOL_USE_ID = "tool_use_id",
        /// The tool's response (after the call).
        TOOL_RESPONSE = "tool_response",
        /// How the tool call ended.
        TOOL_RESULT_STATUS = "tool_result_status",
        /// Present when the call comes from inside a subagent (its mail is the main agent's).
        AGENT_ID = "agent_id",
    }
}

/// One scalar of the context and its payload key.
struct Scalar {
    key: &'static str,
    /// Read only on tool events (elsewhere the key stays in the context's fields).
    tool: bool,
    /// `${context.<key>}` renders it.
    template: bool,
    get: fn(&HookContext) -> Option<Value>,
    set: fn(&mut HookContext, Value) -> Result<(), Error>,
}

fn text(s: Option<&String>) -> Option<Value> {
    s.map(|s| Value::String(s.clone()))
}

fn string(key: &str, value: Value) -> Result<Option<String>, Error> {
    match value {
        Value::Null => Ok(None),
        Value::String(s) => Ok(Some(s)),
        other => Err(Error::Payload(format!("\"{key}\" in the payload must be a string, not {}", kind(&other)))),
    }
}

fn tool(ctx: &mut HookContext) -> &mut ToolCall {
    ctx.tool.get_or_insert_with(|| ToolCall::new(String::new(), Value::Object(Map::new())))
}

/// The scalars, in the order a hook's payload lists them.
const SCALARS: &[Scalar] = &[
    Scalar {
        key: PayloadKey::SESSION_ID,
        tool: false,
        template: false,
        get: |c| text(c.session_id.as_ref()),
        set: |c, v| string(PayloadKey::SESSION_ID, v).map(|s| c.session_id = s),
    },
    Scalar {
        key: PayloadKey::TRANSCRIPT_PATH,
        tool: false,
        template: false,
        get: |c| text(c.transcript_path.as_ref()),
        set: |c, v| string(PayloadKey::TRANSCRIPT_PATH, v).map(|s| c.transcript_path = s),
    },
    Scalar {
        key: PayloadKey::CWD,
        tool: false,
        template: false,
        get: |c| c.cwd.as_ref().map(|p| p.display().to_string().into()),
        set: |c, v| string(PayloadKey::CWD, v).map(|s| c.cwd = s.map(PathBuf::from)),
    },
    Scalar {
        key: PayloadKey::PERMISSION_MODE,
        tool: false,
        template: false,
        get: |c| text(c.permission_mode.as_ref()),
        set: |c, v| string(PayloadKey::PERMISSION_MODE, v).map(|s| c.permission_mode = s),
    },
    Scalar {
        key: PayloadKey::CONTEXT_ID,
        tool: false,
        template: false,
        get: |c| text(c.context_id.as_ref()),
        set: |c, v| string(PayloadKey::CONTEXT_ID, v).map(|s| c.context_id = s),
    },
    Scalar {
        key: PayloadKey::INVOKER_NAME,
        tool: false,
        template: true,
        get: |c| text(c.invoker_name.as_ref()),
        set: |c, v| string(PayloadKey::INVOKER_NAME, v).map(|s| c.invoker_name = s),
    },
    Scalar {
        key: PayloadKey::INVOKER_TYPE,
        tool: false,
        template: true,
        get: |c| text(c.invoker_type.as_ref()),
        set: |c, v| string(PayloadKey::INVOKER_TYPE, v).map(|s| c.invoker_type = s),
    },
    Scalar {
        key: PayloadKey::ITERATION,
        tool: false,
        template: true,
        get: |c| c.iteration.map(Value::from),
        set: |c, v| {
            c.iteration = match v {
                Value::Null => None,
                v => Some(v.as_u64().ok_or_else(|| {
                    Error::Payload(format!("\"{}\" must be a non-negative integer, not {v}", PayloadKey::ITERATION))
                })?),
            };
            Ok(())
        },
    },
    Scalar {
        key: PayloadKey::TOOL_NAME,
        tool: true,
        template: true,
        get: |c| c.tool_name().map(Value::from),
        set: |c, v| {
            if let Some(name) = string(PayloadKey::TOOL_NAME, v)? {
                tool(c).name = name;
            }
            Ok(())
        },
    },
    Scalar {
        key: PayloadKey::TOOL_USE_ID,
        tool: true,
        template: false,
        get: |c| text(c.tool.as_ref()?.use_id.as_ref()),
        set: |c, v| string(PayloadKey::TOOL_USE_ID, v).map(|s| tool(c).use_id = s),
    },
    Scalar {
        key: PayloadKey::TOOL_RESULT_STATUS,
        tool: true,
        template: true,
        get: |c| text(c.tool.as_ref()?.result_status.as_ref()),
        set: |c, v| string(PayloadKey::TOOL_RESULT_STATUS, v).map(|s| tool(c).result_status = s),
    },
];

/// Builds the context of `event` from `payload`. `project` becomes `project_dir`.
///
/// Tool events (preTool, postTool, permissionRequest, permissionDenied) need a string
/// `tool_name`; `tool_input` defaults to `{}`. `hook_event_name` is dropped (the event is given
/// separately); every key the table does not model lands in [`HookContext::fields`] under its own
/// name (`trigger`, `source`, `reason`, `agent_type`, …). The one way in from outside is
/// [`crate::Client::context`], which adds what the client implies by firing the event.
pub(crate) fn payload_context(
    event: HookEventType,
    mut payload: Map<String, Value>,
    project: &Path,
) -> Result<HookContext, Error> {
    payload.remove(PayloadKey::HOOK_EVENT_NAME);
    let tool_event = event.spec().matcher == MatchSubject::Tool;
    let mut ctx = HookContext::new(event);
    ctx.project_dir = Some(project.to_owned());
    for scalar in SCALARS.iter().filter(|s| tool_event || !s.tool) {
        if let Some(value) = payload.remove(scalar.key) {
            (scalar.set)(&mut ctx, value)?;
        }
    }
    if tool_event {
        if ctx.tool.as_ref().is_none_or(|t| t.name.is_empty()) {
            return Err(Error::Payload(format!(
                "the payload for {event} has no \"{}\"; a tool event needs the name of the tool",
                PayloadKey::TOOL_NAME
            )));
        }
        let tool = tool(&mut ctx);
        if let Some(input) = payload.remove(PayloadKey::TOOL_INPUT).filter(|v| !v.is_null()) {
            tool.input = input;
        }
        tool.response = payload.remove(PayloadKey::TOOL_RESPONSE);
    }
    ctx.fields = payload;
    Ok(ctx)
}

/// The context's scalars under their payload keys (each known one: a command hook's `AIMON_*`
/// environment is made of these and its own keys).
pub fn context_scalars(ctx: &HookContext) -> Vec<(&'static str, Value)> {
    SCALARS.iter().filter_map(|s| Some((s.key, (s.get)(ctx)?))).collect()
}

/// The context's structured keys (the event's Claude Code name, the tool's input and response),
/// which a hook receives on stdin but not in its environment.
pub fn context_structure(ctx: &HookContext) -> Vec<(&'static str, Value)> {
    let mut out = vec![(PayloadKey::HOOK_EVENT_NAME, Value::from(ctx.event.payload_name()))];
    if let Some(tool) = &ctx.tool {
        out.push((PayloadKey::TOOL_INPUT, tool.input.clone()));
        if let Some(response) = &tool.response {
            out.push((PayloadKey::TOOL_RESPONSE, response.clone()));
        }
    }
    out
}

/// The value `${context.<name>}` renders from the table, if `name` is a scalar templates may
/// name (`tool_result_status` only on an event that reports a tool's result).
pub fn template_scalar(ctx: &HookContext, name: &str) -> Option<Value> {
    let scalar = SCALARS.iter().find(|s| s.template && s.key == name)?;
    if scalar.key == PayloadKey::TOOL_RESULT_STATUS && ctx.event.spec().tool_result.is_none() {
        return None;
    }
    (scalar.get)(ctx)
}

/// The `${tool_input.X}` prefix of templates: the payload key of the tool input.
pub const TOOL_INPUT_PREFIX: &str = PayloadKey::TOOL_INPUT;

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn object(v: Value) -> Map<String, Value> {
        let Value::Object(m) = v else { unreachable!("test payloads are objects") };
        m
    }

    fn written(ctx: &HookContext) -> Map<String, Value> {
        let mut out = ctx.fields.clone();
        out.extend(context_scalars(ctx).into_iter().map(|(k, v)| (k.to_owned(), v)));
        out.extend(context_structure(ctx).into_iter().map(|(k, v)| (k.to_owned(), v)));
        out
    }

    #[test]
    fn a_context_written_and_read_back_is_the_same_context() {
        let mut tool = ToolCall::new("Bash", json!({"command": "ls"}));
        tool.use_id = Some("toolu_1".into());
        tool.response = Some(json!({"stdout": "x"}));
        tool.result_status = Some("success".into());
        let mut ctx = HookContext::new(HookEventType::POST_TOOL).with_tool(tool).with_field("agent_type", "Explore");
        ctx.session_id = Some("s1".into());
        ctx.transcript_path = Some("/t.jsonl".into());
        ctx.cwd = Some("/w".into());
        ctx.permission_mode = Some("default".into());
        ctx.project_dir = Some("/proj".into());
        ctx.context_id = Some("c1".into());
        ctx.invoker_name = Some("main".into());
        ctx.invoker_type = Some("MAIN_AGENT".into());
        ctx.iteration = Some(3);
        let back = payload_context(ctx.event, written(&ctx), Path::new("/proj")).expect("readable");
        assert_eq!(format!("{back:?}"), format!("{ctx:?}"));
        let keys: Vec<&str> = SCALARS.iter().map(|s| s.key).collect();
        assert!(keys.iter().all(|k| PayloadKey::ALL.contains(k)), "every scalar's key is in the key table");
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
        let payload = object(json!({"trigger": "auto", "custom_instructions": "", "tool_name": "x"}));
        let ctx = payload_context(HookEventType::PRE_COMPACT, payload, Path::new("/p")).expect("valid payload");
        assert_eq!(ctx.match_subject(), Some("auto"));
        assert!(ctx.tool.is_none());
        assert_eq!(ctx.fields.get("tool_name"), Some(&json!("x")), "tool keys of other events stay fields");
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
        let err = payload_context(HookEventType::ON_STOP, object(json!({"iteration": -1})), Path::new("/p"))
            .expect_err("bad");
        assert!(err.to_string().contains("\"iteration\""), "{err}");
    }
}
