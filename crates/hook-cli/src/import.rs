//! `aimon-hooks import-claude` (R-CC-3): a Claude Code settings `hooks` block → hooks.json.
//!
//! A pure JSON transformation. Nothing changes meaning silently: every dropped event, handler and
//! field is reported, a missing `timeout` is written out as Claude Code's default (600 s, where
//! AIMON's would be 30 s), `mcp_tool`/`input` become `mcp`/`args`, and `$VAR` in http headers
//! becomes `${env.VAR}`. `prompt` and `agent` handlers are kept as they are (their defaults, 30 s
//! and 60 s, are Claude Code's), and `onFailure: "block"` is written as `failClosed: true`.

use std::collections::BTreeSet;
use std::fmt;

use hook_config::{EntryDocument, HandlerSpec, HooksDocument, Severity, Tier};
use hook_core::{EventNameError, HandlerKind, HookEventType};
use hook_wire::claude::PayloadKey;
use serde_json::{Map, Value};

/// Claude Code's default handler timeout, in seconds.
pub(crate) const CLAUDE_DEFAULT_TIMEOUT_SECS: u64 = 600;

/// The converted file and what the conversion had to say about it.
#[derive(Debug, Default)]
pub(crate) struct Conversion {
    file: HooksDocument,
    /// One line per dropped or changed thing, in input order.
    pub(crate) report: Vec<Note>,
    /// Handlers written.
    pub(crate) kept: usize,
    /// MCP servers the output refers to (they must be declared in `.aimon/mcp.json`).
    servers: BTreeSet<String>,
}

/// One report line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Note {
    /// `dropped`, `changed` or `note`.
    pub(crate) kind: &'static str,
    /// `settings.json: hooks.PreToolUse[0].hooks[1]`.
    pub(crate) at: String,
    /// What happened, as a sentence.
    pub(crate) text: String,
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}: {}", self.kind, self.at, self.text)
    }
}

impl Conversion {
    /// Adds the `hooks` block of one settings document; `source` names it in the report.
    pub(crate) fn add(&mut self, source: &str, settings: &Value) {
        let Some(settings) = settings.as_object() else {
            self.note("dropped", source, "the settings file is not a JSON object");
            return;
        };
        if settings.get("disableAllHooks") == Some(&Value::Bool(true)) {
            self.note(
                "note",
                source,
                "disableAllHooks is true: Claude Code runs none of these hooks, but the converted ones will run",
            );
        }
        let events = match settings.get("hooks") {
            None => {
                self.note("note", source, "no \"hooks\" block");
                return;
            }
            Some(Value::Object(events)) => events,
            Some(_) => {
                self.note("dropped", &format!("{source}: hooks"), "\"hooks\" is not an object");
                return;
            }
        };
        for (name, entries) in events {
            let at = format!("{source}: hooks.{name}");
            let event = match HookEventType::resolve(name) {
                Ok(event) => event,
                Err(EventNameError::Unsupported(_)) => {
                    self.note("dropped", &at, "the event is not supported by AIMON in this phase");
                    continue;
                }
                Err(EventNameError::Unknown(_)) => {
                    self.note("dropped", &at, "AIMON has no such event");
                    continue;
                }
            };
            let Some(entries) = entries.as_array() else {
                self.note("dropped", &at, "the event's value is not an array of matcher groups");
                continue;
            };
            for (i, entry) in entries.iter().enumerate() {
                if let Some(entry) = self.entry(event, &format!("{at}[{i}]"), entry) {
                    self.file.push(name, entry);
                }
            }
        }
    }

    fn entry(&mut self, event: HookEventType, at: &str, entry: &Value) -> Option<EntryDocument> {
        let Some(entry) = entry.as_object() else {
            self.note("dropped", at, "the matcher group is not an object");
            return None;
        };
        let matcher = match entry.get("matcher") {
            None | Some(Value::Null) => None,
            Some(Value::String(m)) => Some(m.clone()),
            Some(other) => {
                self.note("dropped", at, &format!("the matcher {other} is not a string; the group is dropped"));
                return None;
            }
        };
        for key in entry.keys().filter(|k| !matches!(k.as_str(), "matcher" | "hooks")) {
            self.note("dropped", at, &format!("unknown field '{key}'"));
        }
        let handlers = entry.get("hooks").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        let hooks: Vec<HandlerSpec> = handlers
            .iter()
            .enumerate()
            .filter_map(|(j, h)| self.handler(event, &format!("{at}.hooks[{j}]"), h))
            .collect();
        if hooks.is_empty() {
            self.note("dropped", at, "no handler left in the matcher group");
            return None;
        }
        self.kept += hooks.len();
        Some(EntryDocument::new(matcher, hooks))
    }

    /// One handler, converted and then read by the loader, so what is written is the handler
    /// model's hooks.json form.
    fn handler(&mut self, event: HookEventType, at: &str, handler: &Value) -> Option<HandlerSpec> {
        let Some(handler) = handler.as_object() else {
            self.note("dropped", at, "the handler is not an object");
            return None;
        };
        let ty = handler.get("type").and_then(Value::as_str).unwrap_or("");
        // `deny` is AIMON's own: a Claude Code file has none.
        let kind = match (ty, hook_config::handler_kind(ty).filter(|k| *k != HandlerKind::Deny)) {
            (_, Some(kind)) => kind,
            ("", None) => {
                self.note("dropped", at, "the handler has no \"type\"");
                return None;
            }
            (other, None) => {
                self.note("dropped", at, &format!("unknown handler type '{other}'"));
                return None;
            }
        };
        let required: &[&str] = match kind {
            HandlerKind::Command => &["command"],
            HandlerKind::Http => &["url"],
            HandlerKind::Mcp => &["server", "tool"],
            HandlerKind::Prompt | HandlerKind::Agent => &["prompt"],
            HandlerKind::Deny => &[],
        };
        let asks_model = matches!(kind, HandlerKind::Prompt | HandlerKind::Agent);
        if !event.allows_handler(kind) {
            let text = format!("{ty} handler: AIMON does not run {ty} handlers on {}", event.name());
            self.note("dropped", at, &text);
            return None;
        }
        if let Some(missing) =
            required.iter().find(|f| handler.get(**f).and_then(Value::as_str).is_none_or(|s| s.trim().is_empty()))
        {
            self.note("dropped", at, &format!("{ty} handler without \"{missing}\""));
            return None;
        }
        if kind == HandlerKind::Command && is_our_route(handler) {
            self.note(
                "dropped",
                at,
                "aimon-hooks' own route (written by 'aimon-hooks init claude'), not a hook to import",
            );
            return None;
        }
        if handler.contains_key("args") && kind == HandlerKind::Command {
            self.note("dropped", at, "exec-form command (\"args\"): AIMON runs commands under sh -c only");
            return None;
        }
        let mut fields = Map::new();
        fields.insert("type".into(), kind.config_name().into());
        for (key, value) in handler {
            match (key.as_str(), kind) {
                ("type", _) => {}
                ("command", HandlerKind::Command)
                | ("url" | hook_wire::claude::ALLOWED_ENV_VARS, HandlerKind::Http)
                | ("server" | "tool", HandlerKind::Mcp)
                | ("prompt" | "model", HandlerKind::Prompt | HandlerKind::Agent)
                | ("continueOnBlock", HandlerKind::Prompt)
                | ("maxTurns", HandlerKind::Agent)
                | ("if" | "failClosed", _) => {
                    fields.insert(key.clone(), value.clone());
                }
                ("onFailure", _) => {
                    if value.as_str() == Some("block") {
                        self.note("changed", at, "\"onFailure\": \"block\" written as \"failClosed\": true");
                    }
                    fields.insert(key.clone(), value.clone());
                }
                ("timeout", _) => match value.as_f64() {
                    Some(secs) if secs > 0.0 => {
                        fields.insert(key.clone(), value.clone());
                    }
                    _ => self.note("dropped", at, &format!("timeout {value} is not a positive number of seconds")),
                },
                ("headers", HandlerKind::Http) => {
                    fields.insert(key.clone(), self.headers(at, value));
                }
                ("input", HandlerKind::Mcp) => {
                    self.note("changed", at, "mcp_tool \"input\" written as mcp \"args\"");
                    fields.insert("args".into(), self.mcp_args(at, value));
                }
                ("args", HandlerKind::Mcp) => {
                    fields.insert("args".into(), self.mcp_args(at, value));
                }
                ("async" | "asyncRewake", _) => self.note(
                    "dropped",
                    at,
                    &format!("field '{key}': the handler now runs synchronously and its decision counts"),
                ),
                ("statusMessage", _) => self.note("dropped", at, "field 'statusMessage': AIMON shows no spinner text"),
                ("once", _) => {
                    self.note("dropped", at, "field 'once': Claude Code honours it only in skill frontmatter")
                }
                ("shell", _) => self.note("dropped", at, &format!("field 'shell' ({value}): AIMON runs sh -c")),
                _ => self.note("dropped", at, &format!("unknown field '{key}'")),
            }
        }
        if handler.get("command").and_then(Value::as_str).is_some_and(|c| c.contains("CLAUDE_PROJECT_DIR")) {
            self.note(
                "note",
                at,
                "the command reads $CLAUDE_PROJECT_DIR, which only Claude Code sets; AIMON also sets $AIMON_PROJECT_DIR",
            );
        }
        if ty != kind.config_name() {
            self.note("changed", at, &format!("type {ty} written as {}", kind.config_name()));
        }
        if let (HandlerKind::Mcp, Some(server)) = (kind, handler.get("server").and_then(Value::as_str)) {
            self.servers.insert(server.to_owned());
        }
        if asks_model {
            self.note(
                "note",
                at,
                &format!("{ty} handler: asks the model set as \"model\" in your own ~/.aimon/hooks.json (its key read from an environment variable)"),
            );
        }
        if !fields.contains_key("timeout") && !asks_model {
            fields.insert("timeout".into(), CLAUDE_DEFAULT_TIMEOUT_SECS.into());
            self.note(
                "changed",
                at,
                &format!(
                    "no timeout: wrote Claude Code's default, {CLAUDE_DEFAULT_TIMEOUT_SECS} s (AIMON's own default is {} s)",
                    hook_actions::DEFAULT_TIMEOUT.as_secs()
                ),
            );
        }
        let (spec, diagnostics) = hook_config::read_handler(event, &Value::Object(fields), Tier::Project);
        if spec.is_none() {
            let why = diagnostics.iter().find(|d| d.severity == Severity::Error).or(diagnostics.first());
            let why = why.map_or("the loader does not accept it".to_owned(), |d| d.message.clone());
            self.note("dropped", at, &format!("the converted handler is not valid: {why}"));
        }
        spec
    }

    /// `$VAR` and `${VAR}` (Claude Code's header interpolation) → `${env.VAR}`.
    fn headers(&mut self, at: &str, headers: &Value) -> Value {
        let Some(map) = headers.as_object() else { return headers.clone() };
        let mut out = Map::new();
        for (name, value) in map {
            let converted = match value.as_str() {
                Some(text) => {
                    let rewritten = env_placeholders(text);
                    if rewritten != text {
                        self.note("changed", at, &format!("header '{name}': {text} written as {rewritten}"));
                    }
                    Value::String(rewritten)
                }
                None => value.clone(),
            };
            out.insert(name.clone(), converted);
        }
        Value::Object(out)
    }

    /// Claude Code's `${path}` placeholders → AIMON's: `${tool_input.x}` is the same,
    /// `${tool_name}` becomes `${context.tool_name}`, anything else stays literal (reported).
    fn mcp_args(&mut self, at: &str, value: &Value) -> Value {
        match value {
            Value::String(text) => {
                let mut out = String::with_capacity(text.len());
                let mut rest = text.as_str();
                while let Some(start) = rest.find("${") {
                    let Some(len) = rest[start..].find('}') else { break };
                    let name = &rest[start + 2..start + len];
                    out.push_str(&rest[..start]);
                    match name {
                        PayloadKey::TOOL_NAME => out.push_str(&format!("${{context.{}}}", PayloadKey::TOOL_NAME)),
                        n if n.starts_with("tool_input.") || n.starts_with("env.") || n.starts_with("context.") => {
                            out.push_str(&rest[start..=start + len]);
                        }
                        n => {
                            self.note(
                                "note",
                                at,
                                &format!("placeholder ${{{n}}} has no AIMON equivalent and stays literal"),
                            );
                            out.push_str(&rest[start..=start + len]);
                        }
                    }
                    rest = &rest[start + len + 1..];
                }
                out.push_str(rest);
                Value::String(out)
            }
            Value::Array(items) => Value::Array(items.iter().map(|v| self.mcp_args(at, v)).collect()),
            Value::Object(map) => Value::Object(map.iter().map(|(k, v)| (k.clone(), self.mcp_args(at, v))).collect()),
            other => other.clone(),
        }
    }

    fn note(&mut self, kind: &'static str, at: &str, text: &str) {
        self.report.push(Note { kind, at: at.to_owned(), text: text.to_owned() });
    }

    /// The hooks.json text: pretty-printed, newline-terminated.
    pub(crate) fn to_json(&self) -> String {
        self.file.to_json()
    }

    /// The report, ending with a reminder about MCP servers when there are any.
    pub(crate) fn report_lines(&self) -> Vec<String> {
        let mut lines: Vec<String> = self.report.iter().map(ToString::to_string).collect();
        if !self.servers.is_empty() {
            let names: Vec<&str> = self.servers.iter().map(String::as_str).collect();
            lines.push(format!(
                "note: declare the MCP server(s) {} in .aimon/mcp.json (the .mcp.json shape)",
                names.join(", ")
            ));
        }
        lines
    }
}

/// Rewrites `$VAR` and `${VAR}` as `${env.VAR}`.
fn env_placeholders(text: &str) -> String {
    let is_start = |c: char| c.is_ascii_alphabetic() || c == '_';
    let is_name = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(dollar) = rest.find('$') {
        out.push_str(&rest[..dollar]);
        let after = &rest[dollar + 1..];
        if let Some(inner) = after.strip_prefix('{') {
            let end = inner.find('}');
            match end {
                Some(end) if inner[..end].starts_with(is_start) && inner[..end].chars().all(is_name) => {
                    out.push_str(&format!("${{env.{}}}", &inner[..end]));
                    rest = &inner[end + 1..];
                    continue;
                }
                _ => {}
            }
        } else if after.starts_with(is_start) {
            let end = after.find(|c: char| !is_name(c)).unwrap_or(after.len());
            out.push_str(&format!("${{env.{}}}", &after[..end]));
            rest = &after[end..];
            continue;
        }
        out.push('$');
        rest = after;
    }
    out.push_str(rest);
    out
}

/// Whether a command handler is the route `init claude` writes (exec form `aimon-hooks` +
/// `["claude"]`, or an older init's shell form `… aimon-hooks claude`), whatever the binary's path.
fn is_our_route(handler: &Map<String, Value>) -> bool {
    let Some(command) = handler.get("command").and_then(Value::as_str) else { return false };
    let program = |c: &str| std::path::Path::new(c.trim_matches('\'')).file_name().is_some_and(|n| n == "aimon-hooks");
    match handler.get("args") {
        Some(args) => program(command) && args == &serde_json::json!(["claude"]),
        None => command.strip_suffix(" claude").is_some_and(program),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_header_variables_become_env_placeholders() {
        for (input, expected) in [
            ("Bearer $TOKEN", "Bearer ${env.TOKEN}"),
            ("Bearer ${TOKEN}", "Bearer ${env.TOKEN}"),
            ("${A}-$B_2x", "${env.A}-${env.B_2x}"),
            ("costs $5", "costs $5"),
            ("${tool_input.x}", "${tool_input.x}"),
            ("trailing $", "trailing $"),
        ] {
            assert_eq!(env_placeholders(input), expected, "{input}");
        }
    }
}
