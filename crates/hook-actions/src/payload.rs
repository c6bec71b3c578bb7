//! What a hook is told: one map of scalars feeds both the `AIMON_*` environment and the stdin
//! JSON, so the two never drift (R-ACT-SH-2, R-CC-1, R-CC-4). The context's own keys and values
//! come from hook-wire's Claude Code key table (the payload a hook receives is Claude Code's);
//! AIMON's keys (`event`, `skill_name`, `project_dir`, `rewake_*`) are said here. One key may differ: when the
//! client's payload has its own `event` (Claude Code's FileChanged: `change`, `add`, `unlink`),
//! the stdin JSON keeps the client's value, as a script written for the client expects, and
//! `AIMON_EVENT` stays the AIMON event name.

use hook_core::HookContext;
use serde_json::{Map, Value};

/// The context of one firing, as a command hook (and an http hook without `body`) sees it.
#[derive(Debug)]
pub(crate) struct Payload {
    /// The stdin JSON object: the scalars plus the Claude Code keys and nested objects.
    json: Map<String, Value>,
    /// `AIMON_<KEY>` and its text for each scalar (`tool_name`), valid variable names only,
    /// shortened to what the environment can carry.
    env: Vec<(String, String)>,
}

impl Payload {
    /// The payload of `ctx` for a hook registered from `source`. Unknown values are omitted.
    pub(crate) fn new(ctx: &HookContext, source: &str) -> Self {
        let mut json = Map::new();
        let mut put = |key: &str, value: Option<Value>| {
            if let Some(v) = value {
                json.insert(key.to_owned(), v);
            }
        };
        let path = |p: &std::path::PathBuf| Some(Value::String(p.display().to_string()));
        put("event", Some(ctx.event.name().into()));
        put("skill_name", Some(source.into()));
        put("project_dir", ctx.project_dir.as_ref().and_then(path));
        for (key, value) in hook_wire::claude::context_scalars(ctx) {
            put(key, Some(value));
        }
        if let Some(rw) = &ctx.rewake {
            put("rewake_id", Some(rw.envelope_id.clone().into()));
            put("rewake_attempt", Some(rw.attempt.into()));
            put("rewake_reason", Some(rw.reason.clone().into()));
        }
        // The context's own keys get the environment's room first, the client's fields after them.
        let own: Vec<String> = json.keys().cloned().collect();
        for (key, value) in &ctx.fields {
            if is_scalar(value) && !json.contains_key(key) {
                json.insert(key.clone(), value.clone());
            }
        }
        let mut scalars: Vec<(&String, &Value)> = json
            .iter()
            .filter(|(k, _)| !k.is_empty() && k.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'))
            .collect();
        scalars.sort_by_key(|(k, _)| !own.contains(k));
        let mut room = MAX_ENV_TOTAL;
        // A variable with no room left at all is left out; its value is on stdin.
        let env = scalars
            .into_iter()
            .filter_map(|(k, v)| {
                let name = format!("AIMON_{}", k.to_ascii_uppercase());
                let value = env_value(crate::template::scalar_text(v), room.checked_sub(name.len() + 2)?);
                room -= name.len() + value.len() + 2;
                Some((name, value))
            })
            .collect();
        if let Some(own) = ctx.fields.get("event") {
            json.insert("event".into(), own.clone());
        }
        for (key, value) in hook_wire::claude::context_structure(ctx) {
            json.insert(key.into(), value);
        }
        if let Some(rw) = &ctx.rewake {
            let payload = rw.payload.iter().map(|(k, v)| (k.clone(), Value::String(v.clone()))).collect();
            json.insert("rewake_payload".into(), Value::Object(payload));
        }
        for (key, value) in &ctx.fields {
            json.entry(key.clone()).or_insert_with(|| value.clone());
        }
        Payload { json, env }
    }

    /// `AIMON_<KEY>` variables; keys that are not valid variable names are left out.
    pub(crate) fn env(&self) -> impl Iterator<Item = (String, String)> + '_ {
        self.env.iter().cloned()
    }

    /// The stdin line: compact JSON and a newline (R-ACT-SH-2b).
    pub(crate) fn line(&self) -> Vec<u8> {
        let mut line = self.body();
        line.push(b'\n');
        line
    }

    /// The compact JSON object.
    pub(crate) fn body(&self) -> Vec<u8> {
        serde_json::to_vec(&self.json).unwrap_or_else(|_| b"{}".to_vec())
    }
}

/// The most bytes of one `AIMON_*` value. Linux refuses to start a program with any one
/// environment string over 128 KiB (`E2BIG`); the whole value is on stdin anyway.
pub(crate) const MAX_ENV_VALUE: usize = 32 << 10;

/// The most bytes of all `AIMON_*` variables together (names, values, `=` and the NUL), well
/// inside the room `execve` gives arguments and environment together (2 MiB by default).
pub(crate) const MAX_ENV_TOTAL: usize = 256 << 10;

/// `text` as the environment can carry it: cut at its first NUL (a C string ends there) and to at
/// most `room` (and [`MAX_ENV_VALUE`]) bytes, on a character boundary.
fn env_value(mut text: String, room: usize) -> String {
    if let Some(nul) = text.find('\0') {
        text.truncate(nul);
    }
    let mut end = text.len().min(room).min(MAX_ENV_VALUE);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.truncate(end);
    text
}

fn is_scalar(value: &Value) -> bool {
    matches!(value, Value::String(_) | Value::Number(_) | Value::Bool(_))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use hook_core::{HookEventType, RewakeInvocation, ToolCall};
    use serde_json::json;

    use super::*;

    fn sample() -> HookContext {
        let mut tool = ToolCall::new("Bash", json!({"command": "ls"}));
        tool.use_id = Some("toolu_1".into());
        tool.response = Some(json!({"stdout": "x"}));
        tool.result_status = Some("success".into());
        let mut ctx = HookContext::new(HookEventType::POST_TOOL)
            .with_tool(tool)
            .with_field("agent_type", "Explore")
            .with_field("background_tasks", json!([]));
        ctx.session_id = Some("s1".into());
        ctx.cwd = Some("/work".into());
        ctx.project_dir = Some("/proj".into());
        ctx.iteration = Some(2);
        ctx
    }

    #[test]
    fn env_and_json_carry_the_same_scalars() {
        // R-ACT-SH-2: each AIMON_X is key x of the JSON.
        let p = Payload::new(&sample(), "project#0");
        let json: Value = serde_json::from_slice(&p.body()).expect("json");
        for (name, value) in p.env() {
            let key = name.strip_prefix("AIMON_").expect("prefix").to_ascii_lowercase();
            assert_eq!(crate::template::scalar_text(&json[&key]), value, "{name}");
        }
        let env: BTreeMap<_, _> = p.env().collect();
        assert_eq!(env["AIMON_EVENT"], "postTool");
        assert_eq!(env["AIMON_TOOL_NAME"], "Bash");
        assert_eq!(env["AIMON_PROJECT_DIR"], "/proj");
        assert_eq!(env["AIMON_TOOL_RESULT_STATUS"], "success");
        assert_eq!(env["AIMON_ITERATION"], "2");
        assert_eq!(env["AIMON_AGENT_TYPE"], "Explore");
        assert!(!env.contains_key("AIMON_BACKGROUND_TASKS"));
    }

    #[test]
    fn json_has_the_claude_code_keys_and_omits_unknown_values() {
        // R-CC-1
        let json: Value = serde_json::from_slice(&Payload::new(&sample(), "s").body()).expect("json");
        assert_eq!(json["hook_event_name"], "PostToolUse");
        assert_eq!(json["event"], "postTool");
        assert_eq!(json["tool_input"], json!({"command": "ls"}));
        assert_eq!(json["tool_response"], json!({"stdout": "x"}));
        assert_eq!(json["tool_use_id"], "toolu_1");
        assert_eq!(json["cwd"], "/work");
        assert_eq!(json["background_tasks"], json!([]));
        assert!(json.get("transcript_path").is_none());
        assert!(json.get("permission_mode").is_none());
    }

    #[test]
    fn a_clients_own_event_field_reaches_stdin_and_aimon_event_stays_the_aimon_name() {
        let ctx = HookContext::new(HookEventType::FILE_CHANGED)
            .with_field("event", "unlink")
            .with_field("file_path", "/proj/.env");
        let p = Payload::new(&ctx, "s");
        let json: Value = serde_json::from_slice(&p.body()).expect("json");
        assert_eq!(json["event"], "unlink");
        assert_eq!(json["hook_event_name"], "FileChanged");
        let env: BTreeMap<_, _> = p.env().collect();
        assert_eq!(env["AIMON_EVENT"], "fileChanged");
        assert_eq!(env["AIMON_FILE_PATH"], "/proj/.env");
    }

    #[test]
    fn values_the_environment_cannot_carry_are_shortened_there_and_whole_on_stdin() {
        let prompt = format!("é{}", "x".repeat(200 << 10));
        let ctx = HookContext::new(HookEventType::USER_PROMPT_SUBMIT)
            .with_field("prompt", prompt.as_str())
            .with_field("note", "before\0after");
        let p = Payload::new(&ctx, "s");
        let env: BTreeMap<_, _> = p.env().collect();
        assert_eq!(env["AIMON_NOTE"], "before", "cut at the NUL");
        assert_eq!(env["AIMON_PROMPT"].len(), MAX_ENV_VALUE);
        assert!(prompt.starts_with(&env["AIMON_PROMPT"]));
        let odd = env_value(format!("a{}", "é".repeat(MAX_ENV_VALUE)), usize::MAX);
        assert_eq!(odd.len(), MAX_ENV_VALUE - 1, "cut on a character boundary");
        let json: Value = serde_json::from_slice(&p.body()).expect("json");
        assert_eq!((json["prompt"].as_str(), json["note"].as_str()), (Some(prompt.as_str()), Some("before\0after")));
    }

    #[test]
    fn many_large_fields_share_a_bounded_room_and_the_contexts_own_keys_come_first() {
        let mut ctx = HookContext::new(HookEventType::PRE_TOOL).with_tool(ToolCall::new("Bash", json!({})));
        for i in 0..40 {
            ctx = ctx.with_field(format!("a{i:02}"), "y".repeat(MAX_ENV_VALUE));
        }
        let env: Vec<(String, String)> = Payload::new(&ctx, "s").env().collect();
        let total: usize = env.iter().map(|(k, v)| k.len() + v.len() + 2).sum();
        assert!(total <= MAX_ENV_TOTAL, "{total}");
        let tool = env.iter().find(|(k, _)| k == "AIMON_TOOL_NAME").map(|(_, v)| v.as_str());
        assert_eq!(tool, Some("Bash"), "a client's fields cannot crowd out the context's own keys");
    }

    #[test]
    fn the_stdin_line_is_one_compact_line() {
        // R-ACT-SH-2b
        let ctx = HookContext::new(HookEventType::ON_START)
            .with_field("prompt", "a\nb")
            .with_field("x", json!({"deep": [1, 2]}));
        let line = Payload::new(&ctx, "s").line();
        assert_eq!(line.iter().filter(|b| **b == b'\n').count(), 1);
        assert_eq!(line.last(), Some(&b'\n'));
    }

    #[test]
    fn a_rewake_fire_carries_its_id_and_attempt_in_the_env_and_the_stdin_json() {
        let mut ctx = HookContext::new(HookEventType::PRE_TOOL);
        ctx.rewake = Some(RewakeInvocation::new("env-1", 2, BTreeMap::from([("k".into(), "v".into())]), "later"));
        let p = Payload::new(&ctx, "s");
        let env: BTreeMap<_, _> = p.env().collect();
        assert_eq!(env["AIMON_REWAKE_ID"], "env-1");
        assert_eq!(env["AIMON_REWAKE_ATTEMPT"], "2");
        let json: Value = serde_json::from_slice(&p.body()).expect("json");
        assert_eq!(json["rewake_id"], "env-1");
        assert_eq!(json["rewake_attempt"], 2);
        assert_eq!(json["rewake_payload"], json!({"k": "v"}));
    }
}
