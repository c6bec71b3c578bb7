//! The hooks.json loader: text → [`ConfigFile`] plus diagnostics (R-CFG-3…6, R-CFG-RW-1…4).
//!
//! Soft problems (unknown event, unknown field, invalid or misplaced handler, …) are WARN
//! diagnostics and the rest of the file loads; hard problems (syntax, an unknown handler type, a
//! non-positive timeout, an unreadable `mode` or `onFailure`, any invalid asyncRewake value, a
//! malformed shape) fail the file. Both carry file, line and column.
//!
//! After a hard error the parser skips only the value at fault (the handler, the entry, the
//! event's list, or one asyncRewake field) and reads on, so [`check_config`] reports every hard
//! error of a file (REL-6), not only the first; a JSON syntax error is the one exception, since
//! serde_json stops there. [`parse_config`] is the loader's view: the file, or its first error.

use std::cell::OnceCell;
use std::collections::BTreeMap;
use std::sync::Arc;

use hook_actions::{AgentSpec, DenySpec, HttpBody, HttpSpec, McpSpec, ModelEndpoint, PromptSpec, ShellSpec};
use std::path::Path;
use std::time::Duration;

use hook_core::{HandlerKind, HookEventType, MatchSubject, RewakeSpec, RewakeTrigger};
use hook_predicate::PathAnchors;

use crate::diagnostic::{Diagnostic, Severity};
use crate::error::Error;
use crate::handler::{
    CLAUDE_MCP_ARGS, CLAUDE_MCP_TYPE, HandlerAction, HandlerMode, HandlerSpec, ON_FAILURE, Place,
    common_handler_fields, handler_fields, handler_kind,
};
use crate::json::{self, Object, Value};
use crate::matcher::{Matcher, MatcherCache};
use crate::packs::{DISABLE_KEY, PACKS_KEY};
use crate::position::{Pointer, Pos, PositionIndex, push_token};
use crate::protect::SELF_PROTECTION_KEY;
use crate::spec::{ConfigFile, HookEntrySpec, Switches};
use crate::tier::Tier;

/// The managed tier's switch that runs its hooks alone (and self-protection).
const MANAGED_ONLY_KEY: &str = "allowManagedHooksOnly";

/// The managed tier's switch that turns every hook off (self-protection stays).
const DISABLE_ALL_KEY: &str = "disableAllHooks";

/// An `mcp` handler's arguments.
const MCP_ARGS: &str = "args";

/// The top-level key of the person's own `~/.aimon/hooks.json` naming the model endpoint of
/// `prompt` and `agent` hooks; ignored, with a WARN, in every other tier.
pub(crate) const MODEL_KEY: &str = "model";

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

/// Parses one hooks.json text of `tier`. `path` is only used in diagnostics.
///
/// Returns the file with its valid entries plus the WARN diagnostics, or the file's first hard
/// error (by position; [`check_config`] gives them all).
pub fn parse_config(text: &str, path: &Path, tier: Tier) -> Result<(ConfigFile, Vec<Diagnostic>), Error> {
    let (file, diagnostics) = check_config(text, path, tier, None);
    match file {
        Some(file) => Ok((file, diagnostics)),
        None => Err(first_error(diagnostics)),
    }
}

/// The loader's error for a file that failed: its first hard error by position.
pub(crate) fn first_error(mut diagnostics: Vec<Diagnostic>) -> Error {
    let first = diagnostics.iter().position(|d| d.severity == Severity::Error).unwrap_or_default();
    Error::Config(diagnostics.swap_remove(first))
}

/// Checks one hooks.json text of `tier` completely: every WARN and every hard error, sorted by
/// position. The file is `None` when there is at least one hard error (then it does not load).
///
/// With `declared_mcp_servers` (the names every `mcp.json` in reach declares), an `mcp` handler
/// naming another server gets a WARN `hooks: mcp server '<name>' is not declared in any mcp.json`
/// at its `server` value: a WARN, not an error, since the handler itself is well-formed and a
/// registry may be added later (hot reload picks it up); until then the call fails like any
/// unreachable server (open, or closed with `failClosed`).
pub fn check_config(
    text: &str,
    path: &Path,
    tier: Tier,
    declared_mcp_servers: Option<&[String]>,
) -> (Option<ConfigFile>, Vec<Diagnostic>) {
    let anchors = Arc::new(PathAnchors::new(path.parent().unwrap_or(Path::new("."))));
    parse_with(text, path, tier, &Options { declared_mcp_servers, anchors })
}

/// Reads one handler of `event` in its hooks.json form as the loader does, in a file of `tier`:
/// the handler when the loader keeps it, and every diagnostic about it (pointers below
/// `/hooks/<event>/0/hooks/0`).
pub fn read_handler(
    event: HookEventType,
    handler: &serde_json::Value,
    tier: Tier,
) -> (Option<HandlerSpec>, Vec<Diagnostic>) {
    let document = serde_json::json!({ "hooks": { event.name(): [{ "hooks": [handler] }] } }).to_string();
    let (file, diagnostics) = check_config(&document, Path::new("<handler>"), tier, None);
    let handler = file.and_then(|f| f.entries.into_iter().next()).and_then(|e| e.handlers.into_iter().next());
    (handler, diagnostics)
}

/// How the loader reads a file beyond its text.
pub(crate) struct Options<'a> {
    /// When given, `mcp` handlers naming another server are flagged.
    pub(crate) declared_mcp_servers: Option<&'a [String]>,
    /// What patterns compile against (the build's anchors, so its compiled matchers are reused).
    pub(crate) anchors: Arc<PathAnchors>,
}

/// [`check_config`] with the loader's options.
pub(crate) fn parse_with(
    text: &str,
    path: &Path,
    tier: Tier,
    options: &Options<'_>,
) -> (Option<ConfigFile>, Vec<Diagnostic>) {
    let root: Value<'_> = match serde_json::from_str(text) {
        Ok(root) => root,
        Err(e) => {
            let message =
                format!("invalid JSON: {e}").replace(&format!(" at line {} column {}", e.line(), e.column()), "");
            let at = Pos { line: e.line().max(1), column: e.column().max(1) };
            return (None, vec![Diagnostic::at(Severity::Error, path, at, "", message)]);
        }
    };
    let mut parser = Parser {
        text,
        path,
        tier,
        index: OnceCell::new(),
        diagnostics: Vec::new(),
        options,
        switches: Switches::default(),
    };
    let mut entries = parser.root(root);
    // serde_json's map order is its own (sorted, or insertion order under `preserve_order`);
    // pin both: entries by the events table's order (stable, so entry order within an event is
    // the file's), diagnostics by position.
    entries.sort_by_key(|e| e.event.index());
    let mut diagnostics = parser.diagnostics;
    diagnostics.sort_by_key(|d| (d.line, d.column));
    let failed = diagnostics.iter().any(|d| d.severity == Severity::Error);
    let file = (!failed).then(|| ConfigFile {
        tier,
        path: path.to_owned(),
        entries,
        sha256: crate::trust::sha256_hex(text.as_bytes()),
        switches: parser.switches,
    });
    (file, diagnostics)
}

/// A hard error was recorded; the value at fault is skipped.
#[derive(Debug)]
struct Failed;

/// Where a diagnostic points: a value or the key naming it.
#[derive(Clone, Copy)]
enum At<'p> {
    Value(&'p Pointer<'p>),
    Key(&'p Pointer<'p>),
    /// Placed on the handler at `handler`, about its field `field` (which may be missing).
    Field {
        handler: &'p Pointer<'p>,
        field: &'p str,
    },
}

/// Why a handler is invalid: the field at fault (a pointer below the handler, empty for the
/// handler itself) and the reason.
type Invalid = (String, String);

/// An [`Invalid`] about `field`.
fn invalid(field: &str, why: String) -> Invalid {
    (push_token("", field), why)
}

struct Parser<'a> {
    text: &'a str,
    path: &'a Path,
    tier: Tier,
    /// Built on the first diagnostic: a clean file never pays for it.
    index: OnceCell<PositionIndex>,
    diagnostics: Vec<Diagnostic>,
    options: &'a Options<'a>,
    /// The top-level switches read so far.
    switches: Switches,
}

/// Where one handler sits, for its messages.
struct Site<'a> {
    event: HookEventType,
    event_as_written: &'a str,
    pointer: &'a Pointer<'a>,
}

impl Parser<'_> {
    fn diagnostic(&self, severity: Severity, at: At<'_>, message: String) -> Diagnostic {
        let index = self.index.get_or_init(|| PositionIndex::new(self.text));
        let (pos, pointer) = match at {
            At::Value(p) => {
                let p = p.render();
                (index.value(&p), p)
            }
            At::Key(p) => {
                let p = p.render();
                (index.key(&p), p)
            }
            At::Field { handler, field } => {
                let handler = handler.render();
                (index.value(&handler), format!("{handler}{field}"))
            }
        };
        Diagnostic::at(severity, self.path, pos, &pointer, message)
    }

    fn warn(&mut self, at: At<'_>, message: String) {
        let d = self.diagnostic(Severity::Warning, at, message);
        self.diagnostics.push(d);
    }

    /// Records a hard error: the file will not load.
    fn error(&mut self, at: At<'_>, message: String) -> Failed {
        let d = self.diagnostic(Severity::Error, at, message);
        self.diagnostics.push(d);
        Failed
    }

    /// WARNs about every key of `obj` that `known` refuses; `suffix` ends the message.
    fn unknown_fields(
        &mut self,
        obj: &Object<'_>,
        known: impl Fn(&str) -> bool,
        pointer: &Pointer<'_>,
        suffix: impl Fn() -> String,
    ) {
        for key in obj.keys().filter(|k| !known(k)) {
            let message = format!("hooks: unknown field '{key}' in {}{}", self.tier, suffix());
            self.warn(At::Key(&pointer.key(key)), message);
        }
    }

    /// The valid entries; hard errors are recorded and their values skipped. The document is
    /// consumed as it is read: each entry's values are freed while they are still in cache.
    fn root(&mut self, root: Value<'_>) -> Vec<HookEntrySpec> {
        let Value::Object(obj) = root else {
            self.error(At::Value(&Pointer::ROOT), "hooks.json must be a JSON object".to_owned());
            return Vec::new();
        };
        let mut obj = Object::new(obj);
        self.model_endpoint(&mut obj);
        let known = |k: &str| {
            matches!(k, "hooks" | SELF_PROTECTION_KEY | MANAGED_ONLY_KEY | DISABLE_ALL_KEY | PACKS_KEY | DISABLE_KEY)
        };
        self.unknown_fields(&obj, known, &Pointer::ROOT, String::new);
        for (key, tier) in
            [(SELF_PROTECTION_KEY, Tier::User), (MANAGED_ONLY_KEY, Tier::Managed), (DISABLE_ALL_KEY, Tier::Managed)]
        {
            let Some(value) = obj.remove(key) else { continue };
            let at = Pointer::ROOT.key(key);
            if self.tier != tier {
                let only = match tier {
                    Tier::User => "read only from your own ~/.aimon/hooks.json",
                    _ => "honoured only in the organisation's managed policy",
                };
                self.warn(At::Key(&at), format!("hooks: '{key}' is {only}; ignored in {}", self.tier));
                continue;
            }
            let Value::Bool(on) = value else {
                self.warn(At::Value(&at), format!("hooks: '{key}' must be true or false; ignored"));
                continue;
            };
            match key {
                SELF_PROTECTION_KEY => self.switches.self_protection_off = !on,
                MANAGED_ONLY_KEY => self.switches.managed_hooks_only = on,
                _ => self.switches.all_hooks_disabled = on,
            }
        }
        let hooks = Pointer::ROOT.key("hooks");
        let events = match obj.remove("hooks") {
            None | Some(Value::Null) => return Vec::new(),
            Some(Value::Object(events)) => Object::new(events),
            Some(_) => {
                self.error(At::Value(&hooks), "'hooks' must be an object of event names".to_owned());
                return Vec::new();
            }
        };
        let mut entries = Vec::new();
        for (name, list) in events.into_members() {
            let pointer = hooks.key(&name);
            let event = match HookEventType::resolve(&name) {
                Ok(e) => e,
                Err(e) => {
                    self.warn(At::Key(&pointer), e.warning());
                    continue;
                }
            };
            let list = match list {
                Value::Array(list) => list,
                Value::Null => continue,
                _ => {
                    self.error(At::Value(&pointer), format!("event '{name}' must be an array of entries"));
                    continue;
                }
            };
            entries.reserve(list.len());
            for (i, entry) in list.into_iter().enumerate() {
                if let Ok(entry) = self.entry(event, &name, entry, &pointer.index(i)) {
                    entries.push(entry);
                }
            }
        }
        entries
    }

    /// Takes the top-level `model` out: checked in the person's own file, a WARN elsewhere
    /// (hook-config reads it again when building, see `BuildEnv`).
    fn model_endpoint(&mut self, obj: &mut Object<'_>) {
        let Some(value) = obj.remove(MODEL_KEY) else { return };
        let at = Pointer::ROOT.key(MODEL_KEY);
        if self.tier != Tier::User {
            let message = format!(
                "hooks: '{MODEL_KEY}' is read only from your own ~/.aimon/hooks.json (it spends your tokens); ignored in {}",
                self.tier
            );
            self.warn(At::Key(&at), message);
        } else if let Err(e) = serde_json::from_value::<ModelEndpoint>(value.into()) {
            let message =
                format!("hooks: '{MODEL_KEY}' is not a model endpoint ({e}); prompt and agent hooks will fail");
            self.warn(At::Value(&at), message);
        }
    }

    fn entry(
        &mut self,
        event: HookEventType,
        name: &str,
        entry: Value<'_>,
        pointer: &Pointer<'_>,
    ) -> Result<HookEntrySpec, Failed> {
        let Value::Object(obj) = entry else {
            return Err(self.error(At::Value(pointer), format!("an entry of event '{name}' must be an object")));
        };
        let mut obj = Object::new(obj);
        self.unknown_fields(&obj, |k| matches!(k, "matcher" | "hooks"), pointer, String::new);
        let matcher_ptr = pointer.key("matcher");
        // A bad matcher fails the entry, but its handlers are still checked.
        let matcher = match obj.remove("matcher") {
            None | Some(Value::Null) => Ok("*".to_owned()),
            Some(Value::Str(m)) => Ok(m.into_owned()),
            Some(_) => Err(self.error(At::Value(&matcher_ptr), "'matcher' must be a string".to_owned())),
        };
        let mut compiled = MatcherCache::default();
        if let Ok(matcher) = &matcher {
            let trimmed = matcher.trim();
            if !trimmed.is_empty() && trimmed != "*" {
                if event.spec().matcher == MatchSubject::Nothing {
                    self.warn(At::Value(&matcher_ptr), format!("hooks: matcher is ignored on event '{name}'"));
                } else {
                    compiled = self.check_pattern(matcher, At::Value(&matcher_ptr));
                }
            }
        }
        let hooks_ptr = pointer.key("hooks");
        let list = match obj.remove("hooks") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(list)) => list,
            Some(_) => {
                return Err(
                    self.error(At::Value(&hooks_ptr), "'hooks' of an entry must be an array of handlers".to_owned())
                );
            }
        };
        let mut handlers = Vec::with_capacity(list.len());
        for (j, handler) in list.into_iter().enumerate() {
            let ptr = hooks_ptr.index(j);
            let site = Site { event, event_as_written: name, pointer: &ptr };
            if let Ok(Some(h)) = self.handler(&site, handler) {
                handlers.push(h);
            }
        }
        Ok(HookEntrySpec { event, event_as_written: name.to_owned(), matcher: matcher?, handlers, compiled })
    }

    /// WARN when a matcher or `if` pattern cannot be parsed (R-PRED-5), on every load whatever
    /// the call: parsing is hook-predicate's syntax check, cheap, while the regex automata it
    /// needs are built on first use. Parsed once here and handed to the build (PERF-6).
    fn check_pattern(&mut self, pattern: &str, at: At<'_>) -> MatcherCache {
        let matcher = Matcher::new(pattern, &self.options.anchors);
        if !matcher.parses() {
            self.warn(at, format!("hooks: matcher '{pattern}' could not be parsed"));
        }
        MatcherCache(Some(matcher))
    }

    /// WARNs that the handler is invalid because of `field` (empty: the handler itself).
    fn invalid(&mut self, site: &Site<'_>, (field, why): Invalid) {
        let message = format!("hooks: invalid handler in {} on event '{}': {why}", self.tier, site.event_as_written);
        self.warn(At::Field { handler: site.pointer, field: &field }, message);
    }

    /// Parses one handler; `Ok(None)` = skipped with a WARN, `Err` = hard error(s) recorded.
    fn handler(&mut self, site: &Site<'_>, handler: Value<'_>) -> Result<Option<HandlerSpec>, Failed> {
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
    fn on_failure(&mut self, site: &Site<'_>, obj: &Object<'_>, fail_closed: Option<bool>) -> Option<bool> {
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
    fn action(kind: HandlerKind, claude_mcp: bool, obj: &mut Object<'_>) -> Result<HandlerAction, Invalid> {
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
                let allowed_env_vars = match obj.get("allowedEnvVars") {
                    None | Some(Value::Null) => Vec::new(),
                    Some(Value::Array(names)) => names
                        .iter()
                        .map(|n| {
                            n.as_str().map(str::to_owned).ok_or_else(|| {
                                invalid("allowedEnvVars", "'allowedEnvVars' must be an array of strings".to_owned())
                            })
                        })
                        .collect::<Result<_, _>>()?,
                    Some(_) => {
                        return Err(invalid(
                            "allowedEnvVars",
                            "'allowedEnvVars' must be an array of strings".to_owned(),
                        ));
                    }
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
    fn timeout(&mut self, site: &Site<'_>, obj: &Object<'_>) -> Result<Option<Duration>, Failed> {
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

    /// The asyncRewake block (R-CFG-RW-1…4, R-CFG-4b). Invalid values fail the file; each
    /// field is checked, so every invalid one reports.
    fn rewake(&mut self, site: &Site<'_>, obj: &mut Object<'_>) -> Result<Option<RewakeSpec>, Failed> {
        let ptr = site.pointer.key("asyncRewake");
        let mut block = match obj.remove("asyncRewake") {
            None | Some(Value::Null) => return Ok(None),
            Some(Value::Bool(_)) => {
                let message = format!(
                    "hooks: boolean 'asyncRewake' (Claude Code's form) is ignored in {} on event '{}'; AIMON expects an asyncRewake object",
                    self.tier, site.event_as_written
                );
                self.warn(At::Value(&ptr), message);
                return Ok(None);
            }
            Some(Value::Object(block)) => Object::new(block),
            Some(_) => return Err(self.error(At::Value(&ptr), "asyncRewake must be an object".to_owned())),
        };
        self.unknown_fields(
            &block,
            |k| matches!(k, "trigger" | "timeout" | "maxAttempts" | "payload" | "reason"),
            &ptr,
            || " in asyncRewake".to_owned(),
        );
        let trigger = self.trigger(&ptr, &mut block);
        let reason_ptr = ptr.key("reason");
        let reason =
            match block.get("reason") {
                Some(Value::Str(r)) if !r.trim().is_empty() => Ok(r.clone().into_owned()),
                _ => Err(self
                    .error(At::Value(&reason_ptr), "asyncRewake.reason is required and must not be blank".to_owned())),
            };
        let timeout =
            block.get("timeout").map(|v| self.duration(v, &ptr.key("timeout"), "asyncRewake.timeout")).transpose();
        let attempts_ptr = ptr.key("maxAttempts");
        let max_attempts = block
            .get("maxAttempts")
            .map(|v| match v.as_u64().filter(|&n| n >= 1).and_then(|n| u32::try_from(n).ok()) {
                Some(n) => Ok(n),
                None => Err(self.error(
                    At::Value(&attempts_ptr),
                    "asyncRewake.maxAttempts must be an integer of at least 1".to_owned(),
                )),
            })
            .transpose();
        let payload_ptr = ptr.key("payload");
        let payload = block
            .get("payload")
            .map(|v| {
                let strings = v.as_object().and_then(|map| {
                    map.iter()
                        .map(|(k, v)| v.as_str().map(|v| (k.to_owned(), v.to_owned())))
                        .collect::<Option<BTreeMap<_, _>>>()
                });
                strings.ok_or_else(|| {
                    self.error(At::Value(&payload_ptr), "asyncRewake.payload must be an object of strings".to_owned())
                })
            })
            .transpose();
        let mut spec = RewakeSpec::new(trigger?, reason?);
        if let Some(timeout) = timeout? {
            spec.timeout = timeout;
        }
        if let Some(n) = max_attempts? {
            spec.max_attempts = n;
        }
        if let Some(payload) = payload? {
            spec.payload = payload;
        }
        if !site.event.spec().rewake {
            self.warn(
                At::Key(&ptr),
                format!("hooks: 'asyncRewake' is not supported on event '{}'", site.event_as_written),
            );
            return Ok(None);
        }
        Ok(Some(spec))
    }

    fn trigger(&mut self, rewake_ptr: &Pointer<'_>, block: &mut Object<'_>) -> Result<RewakeTrigger, Failed> {
        let ptr = rewake_ptr.key("trigger");
        let trigger = match block.remove("trigger") {
            Some(Value::Object(trigger)) => Object::new(trigger),
            present => {
                let at = if present.is_some() { At::Value(&ptr) } else { At::Key(rewake_ptr) };
                return Err(self.error(at, "asyncRewake.trigger is required and must be an object".to_owned()));
            }
        };
        self.unknown_fields(
            &trigger,
            |k| matches!(k, "delay" | "cron" | "zone" | "event"),
            &ptr,
            || " in asyncRewake.trigger".to_owned(),
        );
        let present: Vec<&str> = ["delay", "cron", "event"].into_iter().filter(|k| trigger.contains_key(k)).collect();
        if present.len() != 1 {
            return Err(self.error(
                At::Value(&ptr),
                "asyncRewake.trigger must have exactly one of 'delay', 'cron' or 'event'".to_owned(),
            ));
        }
        let field_ptr = ptr.key(present[0]);
        let null = Value::Null;
        let value = trigger.get(present[0]).unwrap_or(&null);
        match present[0] {
            "delay" => Ok(RewakeTrigger::Delay(self.duration(value, &field_ptr, "asyncRewake.trigger.delay")?)),
            "cron" => {
                let expr = value.as_str().unwrap_or_default();
                let cron =
                    hook_rewake::validate_cron(expr).map_err(|e| self.error(At::Value(&field_ptr), e.to_string()));
                let zone_ptr = ptr.key("zone");
                let zone = match trigger.get("zone") {
                    None | Some(Value::Null) => Ok("UTC".to_owned()),
                    Some(Value::Str(z)) if hook_rewake::validate_zone(z).is_ok() => Ok(z.clone().into_owned()),
                    Some(Value::Str(z)) => Err(self.error(
                        At::Value(&zone_ptr),
                        format!("asyncRewake.trigger.zone '{z}' is not a known IANA time zone"),
                    )),
                    Some(_) => {
                        Err(self.error(At::Value(&zone_ptr), "asyncRewake.trigger.zone must be a string".to_owned()))
                    }
                };
                cron?;
                Ok(RewakeTrigger::Cron { expr: expr.to_owned(), zone: zone? })
            }
            _ => {
                let text = |k: &str| {
                    json::member(value, k).and_then(Value::as_str).filter(|s| !s.trim().is_empty()).map(str::to_owned)
                };
                match (text("type"), text("key")) {
                    (Some(kind), Some(key)) => Ok(RewakeTrigger::Event { kind, key }),
                    _ => Err(self.error(
                        At::Value(&field_ptr),
                        "asyncRewake.trigger.event must be an object with non-blank 'type' and 'key' strings"
                            .to_owned(),
                    )),
                }
            }
        }
    }

    fn duration(&mut self, value: &Value<'_>, pointer: &Pointer<'_>, what: &str) -> Result<Duration, Failed> {
        let Some(text) = value.as_str() else {
            return Err(
                self.error(At::Value(pointer), format!("{what} must be a duration string such as \"5m\" or \"PT5M\""))
            );
        };
        hook_rewake::parse_duration(text).map_err(|e| self.error(At::Value(pointer), format!("{what}: {e}")))
    }
}

/// The WARN for a handler kind `event` does not take, in the seed's troubleshooting words
/// followed by the kinds it takes: `hooks: only 'command' actions are valid on onStart (it takes
/// 'command'; 'http' is skipped)` where the event runs commands only, `hooks: 'deny' is not valid
/// on PostToolUse (it takes 'command', 'http', 'mcp')` elsewhere.
pub(crate) fn wrong_kind(kind: HandlerKind, event: HookEventType, as_written: &str) -> String {
    let takes: Vec<String> = event.spec().handlers.iter().map(|k| format!("'{}'", k.config_name())).collect();
    let (takes, given) = (takes.join(", "), kind.config_name());
    if event.spec().handlers == [HandlerKind::Command] {
        format!("hooks: only 'command' actions are valid on {as_written} (it takes {takes}; '{given}' is skipped)")
    } else {
        format!("hooks: '{given}' is not valid on {as_written} (it takes {takes})")
    }
}
