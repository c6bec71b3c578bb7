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
use std::path::Path;
use std::sync::Arc;

use hook_actions::ModelEndpoint;
use hook_core::{HookEventType, MatchSubject};
use hook_predicate::PathAnchors;

use crate::diagnostic::{Diagnostic, Severity};
use crate::error::Error;
use crate::handler::HandlerSpec;
use crate::json::{Object, Value};
use crate::matcher::{Matcher, MatcherCache};
use crate::packs::{DISABLE_KEY, PACKS_KEY};
use crate::position::{Pointer, Pos, PositionIndex};
use crate::protect::SELF_PROTECTION_KEY;
use crate::spec::{ConfigFile, HookEntrySpec, Switches};
use crate::tier::Tier;

mod handler;
mod rewake;

/// The managed tier's switch that runs its hooks alone (and self-protection).
const MANAGED_ONLY_KEY: &str = "allowManagedHooksOnly";

/// The managed tier's switch that turns every hook off (self-protection stays).
const DISABLE_ALL_KEY: &str = "disableAllHooks";

/// The top-level key of the person's own `~/.aimon/hooks.json` naming the model endpoint of
/// `prompt` and `agent` hooks; ignored, with a WARN, in every other tier.
pub(crate) const MODEL_KEY: &str = "model";

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
}
