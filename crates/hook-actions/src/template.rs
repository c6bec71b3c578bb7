//! The template renderer (R-ACT-TPL-1…3): `${tool_input.X}`, `${env.X}`, `${context.X}`.
//!
//! Used by http (headers, body) and mcp (args); never by a shell command (R-ACT-SH-1).

use std::convert::Infallible;

use hook_core::HookContext;
use serde_json::{Map, Value};

/// Renders `template` for a hook firing on `ctx`, registered from `source`.
///
/// - `${tool_input.a.b}` is a dotted path into the tool input (array indices are numbers);
///   strings render raw, other values as compact JSON;
/// - `${env.X}` renders the environment variable `X` only when `allowed_env` lists it; any other
///   name renders "" with a WARN;
/// - `${context.X}` for X in `event` (the AIMON name), `skill_name` (`source`), `invoker_name`,
///   `invoker_type`, `tool_name`, `iteration`, `tool_result_status` (postTool only).
///
/// Any other `${…}` (an unknown prefix, or no dot, like `${session_id}`) stays literal; a known
/// prefix without a value renders "". Values are not escaped: for a JSON body, give the body as a
/// JSON object so it is rendered structurally.
///
/// ```
/// use hook_core::{HookContext, HookEventType, ToolCall};
/// use hook_actions::render_template;
/// let ctx = HookContext::new(HookEventType::PRE_TOOL)
///     .with_tool(ToolCall::new("Bash", serde_json::json!({"command": "ls"})));
/// let out = render_template("${context.tool_name}: ${tool_input.command} ${session_id}", &ctx, "project#0", &[]);
/// assert_eq!(out, "Bash: ls ${session_id}");
/// ```
pub fn render_template(template: &str, ctx: &HookContext, source: &str, allowed_env: &[String]) -> String {
    let rendered = substitute(template, |inner| Ok::<_, Infallible>(lookup(inner, ctx, source, allowed_env)));
    rendered.unwrap_or_else(|never| match never {})
}

/// `text` with every `${…}` replaced by what `replace` gives for the text between the braces:
/// `Ok(None)` keeps the placeholder as written, an error stops. An unclosed `${` and what follows
/// it stay as written; a value is not scanned again. The one scanner of this crate's `${…}`
/// forms: the templates here and the variables of `.mcp.json` (`mcp/servers.rs`).
pub(crate) fn substitute<E>(
    text: &str,
    mut replace: impl FnMut(&str) -> Result<Option<String>, E>,
) -> Result<String, E> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[start..]);
            return Ok(out);
        };
        match replace(&after[..end])? {
            Some(value) => out.push_str(&value),
            None => out.push_str(&rest[start..start + 2 + end + 1]),
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Renders every string inside `value` (not object keys), so the result is valid JSON whatever
/// the substituted values hold (R-ACT-TPL-2, structural form).
pub(crate) fn render_value(value: &Value, ctx: &HookContext, source: &str, allowed_env: &[String]) -> Value {
    match value {
        Value::String(s) => Value::String(render_template(s, ctx, source, allowed_env)),
        Value::Array(items) => Value::Array(items.iter().map(|v| render_value(v, ctx, source, allowed_env)).collect()),
        Value::Object(map) => Value::Object(render_map(map, ctx, source, allowed_env)),
        other => other.clone(),
    }
}

/// [`render_value`] for an object.
pub(crate) fn render_map(
    map: &Map<String, Value>,
    ctx: &HookContext,
    source: &str,
    allowed_env: &[String],
) -> Map<String, Value> {
    map.iter().map(|(k, v)| (k.clone(), render_value(v, ctx, source, allowed_env))).collect()
}

/// The text for one placeholder body (`prefix.name`), or `None` when it stays literal.
fn lookup(inner: &str, ctx: &HookContext, source: &str, allowed_env: &[String]) -> Option<String> {
    let (prefix, name) = inner.split_once('.')?;
    match prefix {
        hook_wire::claude::TOOL_INPUT_PREFIX => Some(tool_input(ctx, name).map(scalar_text).unwrap_or_default()),
        "env" => Some(env(name, allowed_env)),
        "context" => Some(context(name, ctx, source).unwrap_or_default()),
        _ => None,
    }
}

fn tool_input<'a>(ctx: &'a HookContext, path: &str) -> Option<&'a Value> {
    let mut value = &ctx.tool.as_ref()?.input;
    for segment in path.split('.') {
        value = match value {
            Value::Object(map) => map.get(segment)?,
            Value::Array(items) => items.get(segment.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(value)
}

/// How a JSON value reads inside text: strings raw, null empty, the rest as compact JSON.
pub(crate) fn scalar_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn env(name: &str, allowed_env: &[String]) -> String {
    if allowed_env.iter().any(|a| a == name) {
        std::env::var(name).unwrap_or_default()
    } else {
        let key = hook_wire::claude::ALLOWED_ENV_VARS;
        tracing::warn!("hooks: env var '{name}' is not in {key}; rendered as an empty string");
        String::new()
    }
}

/// `${context.<name>}`: AIMON's `event` and `skill_name`, else the context's scalars that
/// hook-wire's key table lets templates name.
fn context(name: &str, ctx: &HookContext, source: &str) -> Option<String> {
    match name {
        "event" => Some(ctx.event.name().to_owned()),
        "skill_name" => Some(source.to_owned()),
        _ => hook_wire::claude::template_scalar(ctx, name).map(|v| scalar_text(&v)),
    }
}

#[cfg(test)]
mod tests {
    use hook_core::{HookContext, HookEventType, ToolCall};
    use serde_json::json;

    use super::*;

    fn post_tool() -> HookContext {
        let mut tool = ToolCall::new("Write", json!({"file_path": "/tmp/a", "payload": {"id": 7, "tags": ["x", "y"]}}));
        tool.result_status = Some("success".into());
        let mut ctx = HookContext::new(HookEventType::POST_TOOL).with_tool(tool);
        ctx.invoker_name = Some("main".into());
        ctx.invoker_type = Some("MAIN_AGENT".into());
        ctx.iteration = Some(3);
        ctx
    }

    // R-ACT-TPL-1, R-ACT-TPL-2: one case per line: (template, rendered).
    const CASES: &[(&str, &str)] = &[
        ("${tool_input.file_path}", "/tmp/a"),
        ("${tool_input.payload.id}", "7"),
        ("${tool_input.payload.tags.1}", "y"),
        ("${tool_input.payload.tags}", r#"["x","y"]"#),
        ("${tool_input.missing}", ""),
        ("${context.event}", "postTool"),
        ("${context.skill_name}", "project#0"),
        ("${context.invoker_name}/${context.invoker_type}", "main/MAIN_AGENT"),
        ("${context.tool_name} #${context.iteration}", "Write #3"),
        ("${context.tool_result_status}", "success"),
        ("${context.nope}", ""),
        ("${session_id}", "${session_id}"),
        ("${unknown.x}", "${unknown.x}"),
        ("${tool_input.file_path", "${tool_input.file_path"),
        ("a ${ b } c", "a ${ b } c"),
        ("$${context.iteration}}", "$3}"),
    ];

    #[test]
    fn each_placeholder_renders_as_the_table_says() {
        let ctx = post_tool();
        for (template, want) in CASES {
            assert_eq!(render_template(template, &ctx, "project#0", &[]), *want, "template {template}");
        }
    }

    #[test]
    fn tool_result_status_renders_empty_off_post_tool() {
        let mut ctx = post_tool();
        ctx.event = HookEventType::PRE_TOOL;
        assert_eq!(render_template("[${context.tool_result_status}]", &ctx, "s", &[]), "[]");
    }

    #[test]
    fn env_renders_only_whitelisted_names() {
        // PATH is set in every test environment; R-ACT-TPL-1, REL-4.
        let ctx = post_tool();
        let path = std::env::var("PATH").expect("PATH is set");
        assert_eq!(render_template("${env.PATH}", &ctx, "s", &["PATH".to_owned()]), path);
        assert_eq!(render_template("${env.PATH}", &ctx, "s", &[]), "");
    }

    #[test]
    fn structural_rendering_keeps_hostile_values_valid_json() {
        let ctx = HookContext::new(HookEventType::PRE_TOOL)
            .with_tool(ToolCall::new("Bash", json!({"command": "echo \"}\\\n$(rm -rf /)`x`; ls"})));
        let body = json!({"cmd": "${tool_input.command}", "list": ["${context.tool_name}", 1]});
        let rendered = render_value(&body, &ctx, "s", &[]);
        let text = serde_json::to_string(&rendered).expect("serialises");
        let back: Value = serde_json::from_str(&text).expect("valid JSON");
        assert_eq!(back["cmd"], json!("echo \"}\\\n$(rm -rf /)`x`; ls"));
        assert_eq!(back["list"], json!(["Bash", 1]));
    }
}
