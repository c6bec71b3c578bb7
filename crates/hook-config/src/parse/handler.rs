//! One handler of a hooks.json entry: its type, its kind's fields (`command`, `http`, `mcp`,
//! `deny`, `prompt`, `agent`), `timeout`, `failClosed` read with `onFailure`, `if` and `mode`.

use std::collections::BTreeMap;
use std::time::Duration;

use hook_actions::{AgentSpec, DenySpec, HttpBody, HttpSpec, McpSpec, PromptSpec, ShellSpec};
use hook_core::{HandlerKind, HookEventType};
use hook_wire::claude::ALLOWED_ENV_VARS;

use super::{At, Failed, Parser, Site};
use crate::handler::{
    CLAUDE_MCP_ARGS, CLAUDE_MCP_TYPE, HandlerAction, HandlerMode, HandlerSpec, ON_FAILURE, Place,
    common_handler_fields, handler_fields, handler_kind,
};
use crate::json::{Object, Value};
use crate::matcher::MatcherCache;
use crate::position::push_token;

/// An `mcp` handler's arguments.
const MCP_ARGS: &str = "args";

/// An optional non-blank string field, taken out of the handler.
fn optional_text(obj: &mut Object<'_>, field: &str) -> Result<Option<String>, Invalid> {
    match obj.remove(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Str(s)) if !s.trim().is_empty() => Ok(Some(s.into_owned())),
        Some(_) => Err(invalid(field, format!("'{field}' must be a non-blank string"))),
    }
}

/// A `timeout` this large (in seconds) is probably milliseconds (R-CFG-4d).
const SUSPICIOUS_TIMEOUT_SECS: f64 = 1000.0;

/// Why a handler is invalid: the field at fault (a pointer below the handler, empty for the
/// handler itself) and the reason.
type Invalid = (String, String);

/// An [`Invalid`] about `field`.
fn invalid(field: &str, why: String) -> Invalid {
    (push_token("", field), why)
}

impl Parser<'_> {
    /// WARNs that the handler is invalid because of `field` (empty: the handler itself).
    pub(super) fn invalid(&mut self, site: &Site<'_>, (field, why): Invalid) {
        let message = format!("hooks: invalid handler in {} on event '{}': {why}", self.tier, site.event_as_written);
        self.warn(At::Field { handler: site.pointer, field: &field }, message);
    }

    /// Parses one handler; `Ok(None)` = skipped with a WARN, `Err` = hard error(s) recorded.
    pub(super) fn handler(&mut self, site: &Site<'_>, handler: Value<'_>) -> Result<Option<HandlerSpec>, Failed> {
        let Value::Object(obj) = handler else {
            self.invalid(site, (String::new(), "a handler must be an object".to_owned()));
            return Ok(None);
        };
        let mut obj = Object::new(obj);
        let type_ptr = site.pointer.key("type");
        let written = obj.get("type").and_then(Value::as_str);
        let kind = match (written, written.and_then(handler_kind)) {
            (None, _) => {
                self.invalid(site, invalid("type", "'type' is required".to_owned()));
                return Ok(None);
            }
            (_, Some(kind)) => kind,
            (Some(other), None) => {
                return Err(self.error(At::Value(&type_ptr), format!("unknown handler type '{other}'")));
            }
        };
        let claude_mcp = written == Some(CLAUDE_MCP_TYPE);
        let own = |key: &str| {
            let spelled = |f: &&'static str| if claude_mcp && *f == MCP_ARGS { CLAUDE_MCP_ARGS } else { *f };
            handler_fields(kind).iter().map(spelled).any(|f| f == key)
        };
        let known = |key: &str| key == "type" || common_handler_fields().contains(&key) || own(key);
        let suffix = || format!(" on event '{}'", site.event_as_written);
        self.unknown_fields(&obj, known, site.pointer, suffix);

        // Hard errors first: they fail the file whatever else is wrong with the handler. Both
        // parts are checked, so both report.
        let (timeout, rewake) = (self.timeout(site, &obj), self.rewake(site, &mut obj));
        let (timeout, rewake) = (timeout?, rewake?);

        let fail_closed = match obj.get("failClosed") {
            None | Some(Value::Null) => None,
            Some(Value::Bool(b)) => Some(*b),
            Some(_) => {
                self.invalid(site, invalid("failClosed", "'failClosed' must be true or false".to_owned()));
                return Ok(None);
            }
        };
        let Some(fail_closed) = self.on_failure(site, &obj, fail_closed) else { return Ok(None) };
        let mode_ptr = site.pointer.key("mode");
        let mode = match obj.get("mode") {
            None | Some(Value::Null) => HandlerMode::Enforce,
            Some(Value::Str(m)) if HandlerMode::parse(m).is_some() => HandlerMode::parse(m).unwrap_or_default(),
            // A mode that cannot be read fails the file: guessing either way could switch a veto
            // off, or make an audit bind.
            Some(_) => {
                return Err(self.error(At::Value(&mode_ptr), "'mode' must be \"enforce\" or \"audit\"".to_owned()));
            }
        };
        let if_ptr = site.pointer.key("if");
        let if_rule = match obj.remove("if") {
            None | Some(Value::Null) => None,
            Some(Value::Str(rule)) => Some(rule.into_owned()),
            Some(_) => {
                self.invalid(site, invalid("if", "'if' must be a string".to_owned()));
                return Ok(None);
            }
        };
        let action = match Self::action(kind, claude_mcp, &mut obj) {
            Ok(action) => action,
            Err(why) => {
                self.invalid(site, why);
                return Ok(None);
            }
        };
        if !site.event.allows_handler(kind) {
            let message = wrong_kind(kind, site.event, site.event_as_written);
            self.warn(At::Value(&type_ptr), message);
            return Ok(None);
        }
        if let (HandlerAction::Mcp(spec), Some(declared)) = (&action, self.options.declared_mcp_servers)
            && !declared.contains(&spec.server)
        {
            let message = format!("hooks: mcp server '{}' is not declared in any mcp.json", spec.server);
            self.warn(At::Value(&site.pointer.key("server")), message);
        }
        let mut if_compiled = MatcherCache::default();
        if let Some(rule) = &if_rule {
            if site.event.supports_if() {
                if_compiled = self.check_pattern(rule, At::Value(&if_ptr));
            } else {
                self.warn(
                    At::Value(&if_ptr),
                    format!("hooks: 'if' is not supported on event '{}'", site.event_as_written),
                );
            }
        }
        let place = Place(Some(site.pointer.render().into()));
        Ok(Some(HandlerSpec { action, timeout, fail_closed, rewake, if_rule, mode, if_compiled, place }))
    }

    /// `failClosed` read with Claude Code's `onFailure` (`block` closed, `allow` open): closed
    /// when either says so, with a WARN when they disagree; `None` after a hard error.
    pub(super) fn on_failure(&mut self, site: &Site<'_>, obj: &Object<'_>, fail_closed: Option<bool>) -> Option<bool> {
        let at = site.pointer.key(ON_FAILURE);
        let block = match obj.get(ON_FAILURE) {
            None | Some(Value::Null) => None,
            Some(Value::Str(w)) if w == "block" => Some(true),
            Some(Value::Str(w)) if w == "allow" => Some(false),
            // Like `mode`: guessing either way could let through a call meant to stop, or stop
            // one meant to pass.
            Some(_) => {
                self.error(At::Value(&at), format!("'{ON_FAILURE}' must be \"block\" or \"allow\""));
                return None;
            }
        };
        if let (Some(closed), Some(block)) = (fail_closed, block)
            && closed != block
        {
            let message = format!(
                "hooks: 'failClosed' and '{ON_FAILURE}' disagree on event '{}'; the handler fails closed",
                site.event_as_written
            );
            self.warn(At::Value(&at), message);
        }
        Some(fail_closed.unwrap_or(false) || block.unwrap_or(false))
    }

    /// The kind-specific fields, taken out of the handler; `Err(why)` makes the handler invalid
    /// (R-CFG-4).
    pub(super) fn action(kind: HandlerKind, claude_mcp: bool, obj: &mut Object<'_>) -> Result<HandlerAction, Invalid> {
        let mut required = |field: &str| match obj.remove(field) {
            Some(Value::Str(s)) if !s.trim().is_empty() => Ok(s.into_owned()),
            Some(Value::Str(_)) => Err(invalid(field, format!("'{field}' must not be blank"))),
            None | Some(Value::Null) => Err(invalid(field, format!("'{field}' is required"))),
            Some(_) => Err(invalid(field, format!("'{field}' must be a string"))),
        };
        match kind {
            HandlerKind::Command => Ok(HandlerAction::Command(ShellSpec::new(required("command")?))),
            HandlerKind::Deny => Ok(HandlerAction::Deny(DenySpec::new(required("reason")?))),
            HandlerKind::Prompt => {
                let mut spec = PromptSpec::new(required("prompt")?);
                spec.model = optional_text(obj, "model")?;
                spec.continue_on_block = match obj.remove("continueOnBlock") {
                    None | Some(Value::Null) => false,
                    Some(Value::Bool(b)) => b,
                    Some(_) => {
                        return Err(invalid("continueOnBlock", "'continueOnBlock' must be true or false".to_owned()));
                    }
                };
                Ok(HandlerAction::Prompt(spec))
            }
            HandlerKind::Agent => {
                let mut spec = AgentSpec::new(required("prompt")?);
                spec.model = optional_text(obj, "model")?;
                spec.max_turns = match obj.remove("maxTurns") {
                    None | Some(Value::Null) => None,
                    Some(v) => match serde_json::Value::from(v).as_u64().and_then(|n| u32::try_from(n).ok()) {
                        Some(n) if n > 0 => Some(n),
                        _ => return Err(invalid("maxTurns", "'maxTurns' must be a positive integer".to_owned())),
                    },
                };
                Ok(HandlerAction::Agent(spec))
            }
            HandlerKind::Mcp => {
                let (server, tool) = (required("server")?, required("tool")?);
                let field = if claude_mcp { CLAUDE_MCP_ARGS } else { MCP_ARGS };
                let args = match obj.remove(field) {
                    None | Some(Value::Null) => serde_json::Map::new(),
                    Some(Value::Object(args)) => args.into(),
                    Some(_) => return Err(invalid(field, format!("'{field}' must be an object"))),
                };
                Ok(HandlerAction::Mcp(McpSpec::new(server, tool).with_args(args)))
            }
            HandlerKind::Http => {
                let url = required("url")?;
                // No method: hook-actions' default (`POST`).
                let method = match obj.get("method") {
                    None | Some(Value::Null) => None,
                    Some(Value::Str(m)) if !m.trim().is_empty() => Some(m.trim().to_ascii_uppercase()),
                    Some(_) => return Err(invalid("method", "'method' must be a non-blank string".to_owned())),
                };
                let headers = match obj.remove("headers") {
                    None | Some(Value::Null) => BTreeMap::new(),
                    Some(Value::Object(h)) => Object::new(h)
                        .into_members()
                        .map(|(k, v)| match v {
                            Value::Str(v) => Ok((k.into_owned(), v.into_owned())),
                            _ => Err((push_token("/headers", &k), format!("header '{k}' must be a string"))),
                        })
                        .collect::<Result<_, _>>()?,
                    Some(_) => return Err(invalid("headers", "'headers' must be an object of strings".to_owned())),
                };
                let body =
                    match obj.remove("body") {
                        None | Some(Value::Null) => None,
                        Some(b) => Some(HttpBody::from_value(b.into()).ok_or_else(|| {
                            invalid("body", "'body' must be a string, an object or an array".to_owned())
                        })?),
                    };
                let not_names =
                    || invalid(ALLOWED_ENV_VARS, format!("'{ALLOWED_ENV_VARS}' must be an array of strings"));
                let allowed_env_vars = match obj.get(ALLOWED_ENV_VARS) {
                    None | Some(Value::Null) => Vec::new(),
                    Some(Value::Array(names)) => names
                        .iter()
                        .map(|n| n.as_str().map(str::to_owned).ok_or_else(not_names))
                        .collect::<Result<_, _>>()?,
                    Some(_) => return Err(not_names()),
                };
                let mut spec = HttpSpec::new(url).with_headers(headers).with_allowed_env_vars(allowed_env_vars);
                if let Some(method) = method {
                    spec = spec.with_method(method);
                }
                spec.body = body;
                Ok(HandlerAction::Http(spec))
            }
        }
    }

    /// `timeoutMs` wins over `timeout` (seconds); both must be positive (R-ACT-SH-4, R-CFG-4d).
    pub(super) fn timeout(&mut self, site: &Site<'_>, obj: &Object<'_>) -> Result<Option<Duration>, Failed> {
        let mut result = None;
        for (field, scale) in [("timeout", 1.0), ("timeoutMs", 0.001)] {
            let ptr = site.pointer.key(field);
            let secs = match obj.get(field) {
                None | Some(Value::Null) => continue,
                Some(Value::Number(n)) => n.as_f64().unwrap_or(f64::NAN),
                Some(_) => return Err(self.error(At::Value(&ptr), format!("'{field}' must be a number"))),
            };
            if !secs.is_finite() || secs <= 0.0 {
                return Err(self.error(At::Value(&ptr), format!("'{field}' must be positive")));
            }
            if field == "timeout" && secs >= SUSPICIOUS_TIMEOUT_SECS {
                let message = format!(
                    "hooks: timeout of {secs} seconds in {} on event '{}' looks like milliseconds; 'timeout' is in seconds, use 'timeoutMs' for milliseconds",
                    self.tier, site.event_as_written
                );
                self.warn(At::Value(&ptr), message);
            }
            let Ok(d) = Duration::try_from_secs_f64(secs * scale) else {
                return Err(self.error(At::Value(&ptr), format!("'{field}' is out of range")));
            };
            result = Some(d);
        }
        Ok(result)
    }
}

/// The WARN for a handler kind `event` does not take, in the seed's troubleshooting words
/// followed by the kinds it takes: `hooks: only 'command' actions are valid on onStart (it takes
/// 'command'; 'http' is skipped)` where the event runs commands only, `hooks: 'deny' is not valid
/// on PostToolUse (it takes 'command', 'http', 'mcp')` elsewhere.
fn wrong_kind(kind: HandlerKind, event: HookEventType, as_written: &str) -> String {
    let takes: Vec<String> = event.spec().handlers.iter().map(|k| format!("'{}'", k.config_name())).collect();
    let (takes, given) = (takes.join(", "), kind.config_name());
    if event.spec().handlers == [HandlerKind::Command] {
        format!("hooks: only 'command' actions are valid on {as_written} (it takes {takes}; '{given}' is skipped)")
    } else {
        format!("hooks: '{given}' is not valid on {as_written} (it takes {takes})")
    }
}
