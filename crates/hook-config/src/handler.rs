//! The one handler model: what a hooks.json handler is, built from hook-actions' specs.
//!
//! [`HandlerAction`] holds the action's own spec (`ShellSpec`, `HttpSpec`, `McpSpec`,
//! `DenySpec`), so building a hook hands that spec on as it is; [`HandlerSpec`] adds the fields
//! every handler carries (`timeout`/`timeoutMs`, `failClosed`, `if`, `asyncRewake`). Both derive
//! `Serialize` (the hooks.json form a handler is written back in: the importer's output, the
//! round-trip tests) and `JsonSchema` (the schema `aimon-hooks schema` prints), so the field names
//! are said once, by these types; [`handler_fields`] reads them back from the serialized form
//! (a test holds that to the schema) for the loader's unknown-field check and for SKILL.md.

use std::collections::BTreeMap;
use std::fmt::{self, Write};
use std::sync::LazyLock;
use std::time::Duration;

use hook_actions::{AgentSpec, DenySpec, HttpBody, HttpSpec, McpSpec, PromptSpec, ShellSpec};
use hook_core::{HandlerKind, RewakeSpec, RewakeTrigger};
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Serialize, Serializer};
use serde_json::Value;

use crate::matcher::MatcherCache;

/// The handler kinds, in the order the schema lists them.
pub(crate) const KINDS: [HandlerKind; 6] = [
    HandlerKind::Command,
    HandlerKind::Http,
    HandlerKind::Mcp,
    HandlerKind::Deny,
    HandlerKind::Prompt,
    HandlerKind::Agent,
];

/// Claude Code's spelling of an `mcp` handler, whose arguments are `input` (read as `mcp`/`args`).
pub(crate) const CLAUDE_MCP_TYPE: &str = "mcp_tool";
/// Claude Code's name of an `mcp_tool` handler's arguments.
pub(crate) const CLAUDE_MCP_ARGS: &str = "input";

/// What a handler does: its kind's spec, as hook-actions runs it.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(tag = "type", rename_all = "lowercase")]
#[non_exhaustive]
pub enum HandlerAction {
    /// Runs `command` verbatim under `sh -c` (R-ACT-SH-1).
    Command(ShellSpec),
    /// Calls a webhook (R-ACT-HTTP-1).
    Http(HttpSpec),
    /// Calls a tool on an MCP server declared in `.aimon/mcp.json` (R-ACT-MCP-1). Claude Code's
    /// `mcp_tool` with `input` is read as `mcp` with `args`.
    Mcp(McpSpec),
    /// Denies at once with `reason` (R-ACT-DENY-1).
    Deny(DenySpec),
    /// Asks the model configured in your own `~/.aimon/hooks.json` (`model`) whether to go on:
    /// `$ARGUMENTS` is the hook input, the answer `{ok, reason}`.
    Prompt(PromptSpec),
    /// Like `prompt`, but the model may first read the project (Read, Grep, Glob; files a
    /// `Read` deny rule protects stay closed) for up to `maxTurns` turns.
    Agent(AgentSpec),
    /// Asks the person, with `reason`: a rule pack's `ask` (not a hooks.json handler type, so not
    /// in the schema). Where a client cannot ask, its front end denies instead.
    #[serde(skip)]
    Ask(DenySpec),
    /// Allows without asking: a rule pack's `allow` (`aimon/read-only`; not a hooks.json handler
    /// type). A deny or ask of any hook wins over it in the merge.
    #[serde(skip)]
    Allow(DenySpec),
}

impl HandlerAction {
    /// The handler kind.
    pub fn kind(&self) -> HandlerKind {
        match self {
            HandlerAction::Command(_) => HandlerKind::Command,
            HandlerAction::Http(_) => HandlerKind::Http,
            HandlerAction::Mcp(_) => HandlerKind::Mcp,
            HandlerAction::Deny(_) => HandlerKind::Deny,
            HandlerAction::Prompt(_) => HandlerKind::Prompt,
            HandlerAction::Agent(_) => HandlerKind::Agent,
            // A restriction that runs no code, trusted as a deny is; the exec-time guard, which
            // enforces denies, leaves it to parse time (where the person can answer).
            HandlerAction::Ask(_) => HandlerKind::Deny,
            // Runs no code either; it is no Read rule (`read_rules` leaves it out).
            HandlerAction::Allow(_) => HandlerKind::Deny,
        }
    }
}

/// One validated handler. Constructible from outside (hook-skill builds its frontmatter
/// handlers this way) with the constructors and `with_*` setters.
///
/// Serializes to its hooks.json form, which the loader reads back to an equal handler.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[schemars(transform = timeout_ms_property)]
#[non_exhaustive]
pub struct HandlerSpec {
    /// What it does.
    #[serde(flatten)]
    pub action: HandlerAction,
    /// Its own deadline (`timeout` seconds or `timeoutMs`; `None` = the action's default).
    #[serde(skip_serializing_if = "Option::is_none", serialize_with = "seconds")]
    #[schemars(with = "Option<f64>", extend("exclusiveMinimum" = 0))]
    pub timeout: Option<Duration>,
    /// Failures block on the decision events instead of failing open (R-CFG-4c).
    #[serde(rename = "failClosed", default, skip_serializing_if = "std::ops::Not::not")]
    pub fail_closed: bool,
    /// The asyncRewake block, when valid on the event (R-CFG-RW-1).
    #[serde(rename = "asyncRewake", skip_serializing_if = "Option::is_none", serialize_with = "rewake_block")]
    #[schemars(with = "Option<AsyncRewake>")]
    pub rewake: Option<RewakeSpec>,
    /// Claude Code's handler-level `if` rule (R-CFG-3b): one permission rule (`Bash(git *)`,
    /// `Edit(*.ts)`), honoured on tool events.
    #[serde(rename = "if", skip_serializing_if = "Option::is_none")]
    pub if_rule: Option<String>,
    /// `audit`: the hook runs and its decision is logged, but the client is answered as if it
    /// had said nothing; `enforce` (the default) applies it.
    #[serde(default, skip_serializing_if = "HandlerMode::is_enforce")]
    pub mode: HandlerMode,
    /// The loader's compiled `if` rule, reused by the build (PERF-6).
    #[serde(skip)]
    pub(crate) if_compiled: MatcherCache,
    /// Where the handler sits in its file, for `explain` and the decision log.
    #[serde(skip)]
    pub(crate) place: Place,
}

/// Whether a handler's decision binds (`enforce`) or is only logged (`audit`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum HandlerMode {
    /// Its decision applies.
    #[default]
    Enforce,
    /// It runs and its decision is logged and counted, but replaced by "no opinion".
    Audit,
}

impl HandlerMode {
    /// `enforce` or `audit`.
    pub fn as_str(self) -> &'static str {
        match self {
            HandlerMode::Enforce => "enforce",
            HandlerMode::Audit => "audit",
        }
    }

    /// Reads a hooks.json `mode` value.
    pub fn parse(text: &str) -> Option<Self> {
        [HandlerMode::Enforce, HandlerMode::Audit].into_iter().find(|m| m.as_str() == text)
    }

    fn is_enforce(&self) -> bool {
        *self == HandlerMode::Enforce
    }
}

/// The JSON pointer of a handler in its file (`/hooks/PreToolUse/0/hooks/1`), when it was read
/// from one; not part of a spec's identity.
#[derive(Clone, Debug, Default)]
pub(crate) struct Place(pub(crate) Option<std::sync::Arc<str>>);

impl PartialEq for Place {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// The millisecond spelling of a handler's timeout, which wins over `timeout`.
const TIMEOUT_MS: &str = "timeoutMs";

/// Claude Code's spelling of `failClosed`: `"block"` is `failClosed: true`, `"allow"` false.
pub(crate) const ON_FAILURE: &str = "onFailure";

/// Adds `timeoutMs` beside `timeout` to the handler's schema: the model holds one deadline,
/// the file may spell it either way.
fn timeout_ms_property(schema: &mut Schema) {
    if let Some(Value::Object(properties)) = schema.get_mut("properties") {
        let ms = json_schema!({
            "description": "Timeout in milliseconds; wins over `timeout`; positive.",
            "type": ["number", "null"],
            "exclusiveMinimum": 0,
        });
        properties.insert(TIMEOUT_MS.to_owned(), ms.into());
        let on_failure = json_schema!({
            "description": "Claude Code's spelling of `failClosed`: `block` fails closed, `allow` open; if both are written and disagree, closed wins (with a warning).",
            "enum": ["block", "allow", null],
        });
        properties.insert(ON_FAILURE.to_owned(), on_failure.into());
    }
}

/// A deadline in seconds: an integer when whole (as people write it), else a fraction.
fn seconds<S: Serializer>(timeout: &Option<Duration>, serializer: S) -> Result<S::Ok, S::Error> {
    match timeout {
        Some(d) if d.subsec_nanos() == 0 => serializer.serialize_u64(d.as_secs()),
        Some(d) => serializer.serialize_f64(d.as_secs_f64()),
        None => serializer.serialize_none(),
    }
}

fn rewake_block<S: Serializer>(rewake: &Option<RewakeSpec>, serializer: S) -> Result<S::Ok, S::Error> {
    rewake.as_ref().map(AsyncRewake::from).serialize(serializer)
}

/// `asyncRewake`: one trigger and its limits (R-CFG-RW-1…4), as written in hooks.json.
#[derive(Serialize, JsonSchema)]
struct AsyncRewake {
    /// Exactly one of `delay`, `cron`, `event`.
    trigger: Trigger,
    /// How long the envelope lives (`1h`, `PT30M`); default 1h.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    timeout: Option<String>,
    /// At least 1; default 3.
    #[serde(default, rename = "maxAttempts", skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u32", range(min = 1))]
    max_attempts: Option<u32>,
    /// String → string payload handed to the re-invocation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "BTreeMap<String, String>")]
    payload: Option<BTreeMap<String, String>>,
    /// Why (required, non-blank).
    #[schemars(pattern(r"\S"))]
    reason: String,
}

/// A rewake trigger: exactly one of its forms (a second form's key is not allowed).
#[derive(Serialize, JsonSchema)]
#[serde(untagged, deny_unknown_fields)]
enum Trigger {
    /// One shot after a duration (`30s`, `5m`, `1h30m`, `PT5M`).
    Delay {
        /// The delay.
        delay: String,
    },
    /// A five-field cron expression (Sunday = 0), in an IANA zone (default UTC).
    Cron {
        /// The expression.
        cron: String,
        /// The zone.
        #[serde(default)]
        zone: Option<String>,
    },
    /// Fires when `resolve(type, key, payload)` arrives.
    Event {
        /// The event type and key.
        event: EventTrigger,
    },
}

/// An external event key.
#[derive(Serialize, JsonSchema)]
struct EventTrigger {
    /// The event type.
    #[serde(rename = "type")]
    #[schemars(pattern(r"\S"))]
    kind: String,
    /// The literal key.
    #[schemars(pattern(r"\S"))]
    key: String,
}

/// A duration as the loader reads it back: whole seconds, else milliseconds.
fn duration_text(d: Duration) -> String {
    if d.subsec_nanos() == 0 { format!("{}s", d.as_secs()) } else { format!("{}ms", d.as_millis()) }
}

impl From<&RewakeSpec> for AsyncRewake {
    fn from(spec: &RewakeSpec) -> Self {
        let trigger = match &spec.trigger {
            RewakeTrigger::Delay(d) => Trigger::Delay { delay: duration_text(*d) },
            RewakeTrigger::Cron { expr, zone } => Trigger::Cron { cron: expr.clone(), zone: Some(zone.clone()) },
            RewakeTrigger::Event { kind, key } => {
                Trigger::Event { event: EventTrigger { kind: kind.clone(), key: key.clone() } }
            }
        };
        AsyncRewake {
            trigger,
            timeout: Some(duration_text(spec.timeout)),
            max_attempts: Some(spec.max_attempts),
            payload: (!spec.payload.is_empty()).then(|| spec.payload.clone()),
            reason: spec.reason.clone(),
        }
    }
}

/// The fields a handler of any kind takes, and each kind's own, read from the types: a handler of
/// each kind with every field set, serialized, names them (cheap enough for every `run`; a test
/// holds the tables to the schema's properties).
struct Fields {
    common: Vec<&'static str>,
    own: Vec<(HandlerKind, Vec<&'static str>)>,
}

static FIELDS: LazyLock<Fields> = LazyLock::new(|| {
    let keys = |action: HandlerAction| -> Vec<&'static str> {
        let full = HandlerSpec::new(action)
            .with_timeout(Duration::from_secs(1))
            .with_fail_closed(true)
            .with_mode(HandlerMode::Audit)
            .with_rewake(RewakeSpec::new(RewakeTrigger::Delay(Duration::from_secs(1)), "r"))
            .with_if("r");
        let value = serde_json::to_value(full).unwrap_or_default();
        let mut keys: Vec<&'static str> =
            value.as_object().into_iter().flat_map(|o| o.keys()).map(|k| &*k.clone().leak()).collect();
        keys.sort_unstable();
        keys
    };
    let mut args = serde_json::Map::new();
    args.insert("a".into(), Value::Null);
    let samples = [
        HandlerAction::Command(ShellSpec::new("c")),
        HandlerAction::Http(
            HttpSpec::new("u")
                .with_method("PUT")
                .with_header("h", "v")
                .with_body(hook_actions::HttpBody::Template("b".into()))
                .with_allowed_env_vars(vec!["A".into()]),
        ),
        HandlerAction::Mcp(McpSpec::new("s", "t").with_args(args)),
        HandlerAction::Deny(DenySpec::new("r")),
        HandlerAction::Prompt(PromptSpec::new("p").with_model("m").with_continue_on_block(true)),
        HandlerAction::Agent(AgentSpec::new("p").with_model("m").with_max_turns(2)),
    ];
    let all: Vec<(HandlerKind, Vec<&'static str>)> = samples.into_iter().map(|a| (a.kind(), keys(a))).collect();
    let mut common: Vec<&'static str> =
        all[0].1.iter().copied().filter(|k| all.iter().all(|(_, ks)| ks.contains(k))).collect();
    let own =
        all.iter().map(|(kind, ks)| (*kind, ks.iter().copied().filter(|k| !common.contains(k)).collect())).collect();
    common.retain(|k| *k != "type");
    common.push(TIMEOUT_MS);
    common.push(ON_FAILURE);
    common.sort_unstable();
    Fields { common, own }
});

/// The fields every handler takes besides `type`, sorted: `asyncRewake`, `failClosed`, `if`, `mode`,
/// `timeout`, `timeoutMs`.
pub fn common_handler_fields() -> &'static [&'static str] {
    &FIELDS.common
}

/// The fields a handler of `kind` takes besides `type` and the common ones, sorted
/// (`allowedEnvVars`, `body`, `headers`, `method`, `url` for `http`).
pub fn handler_fields(kind: HandlerKind) -> &'static [&'static str] {
    FIELDS.own.iter().find(|(k, _)| *k == kind).map(|(_, f)| f.as_slice()).unwrap_or_default()
}

/// The kind a hooks.json `type` names (Claude Code's `mcp_tool` is `mcp`).
pub fn handler_kind(name: &str) -> Option<HandlerKind> {
    if name == CLAUDE_MCP_TYPE {
        return Some(HandlerKind::Mcp);
    }
    KINDS.into_iter().find(|k| k.config_name() == name)
}

/// The schema of one handler: the model's, plus Claude Code's `mcp_tool` spelling.
pub(crate) fn handler_schema(generator: &mut SchemaGenerator) -> Schema {
    let model = generator.subschema_for::<HandlerSpec>();
    let mcp = generator.subschema_for::<McpSpec>();
    json_schema!({
        "anyOf": [
            model,
            {
                "description": "Claude Code's spelling of an `mcp` handler: `input` is read as `args`.",
                "type": "object",
                "properties": {
                    "type": {"const": CLAUDE_MCP_TYPE},
                    CLAUDE_MCP_ARGS: {"type": ["object", "null"]},
                },
                "required": ["type"],
                "allOf": [mcp],
            },
        ],
    })
}

impl HandlerSpec {
    /// A handler doing `action`, with no timeout, `if` or rewake, failing open.
    pub fn new(action: HandlerAction) -> Self {
        HandlerSpec {
            action,
            timeout: None,
            fail_closed: false,
            rewake: None,
            if_rule: None,
            mode: HandlerMode::Enforce,
            if_compiled: MatcherCache::default(),
            place: Place::default(),
        }
    }

    /// A `command` handler.
    pub fn command(command: impl Into<String>) -> Self {
        Self::new(HandlerAction::Command(ShellSpec::new(command)))
    }

    /// A `deny` handler.
    pub fn deny(reason: impl Into<String>) -> Self {
        Self::new(HandlerAction::Deny(DenySpec::new(reason)))
    }

    /// A rule pack's `allow` handler.
    pub(crate) fn allow(reason: impl Into<String>) -> Self {
        Self::new(HandlerAction::Allow(DenySpec::new(reason)))
    }

    /// A rule pack's `ask` handler.
    pub(crate) fn ask(reason: impl Into<String>) -> Self {
        Self::new(HandlerAction::Ask(DenySpec::new(reason)))
    }

    /// An `http` handler posting to `url` with no headers or body.
    pub fn http(url: impl Into<String>) -> Self {
        Self::new(HandlerAction::Http(HttpSpec::new(url)))
    }

    /// An `mcp` handler calling `tool` on `server` with `args`.
    pub fn mcp(server: impl Into<String>, tool: impl Into<String>, args: serde_json::Map<String, Value>) -> Self {
        Self::new(HandlerAction::Mcp(McpSpec::new(server, tool).with_args(args)))
    }

    /// A `prompt` handler asking `prompt`.
    pub fn prompt(prompt: impl Into<String>) -> Self {
        Self::new(HandlerAction::Prompt(PromptSpec::new(prompt)))
    }

    /// Sets the timeout.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Sets `failClosed`.
    pub fn with_fail_closed(mut self, fail_closed: bool) -> Self {
        self.fail_closed = fail_closed;
        self
    }

    /// Sets the mode (`audit` or `enforce`).
    pub fn with_mode(mut self, mode: HandlerMode) -> Self {
        self.mode = mode;
        self
    }

    /// Attaches an asyncRewake spec.
    pub fn with_rewake(mut self, rewake: RewakeSpec) -> Self {
        self.rewake = Some(rewake);
        self
    }

    /// Sets the `if` rule.
    pub fn with_if(mut self, rule: impl Into<String>) -> Self {
        self.if_rule = Some(rule.into());
        self
    }

    /// The handler kind.
    pub fn kind(&self) -> HandlerKind {
        self.action.kind()
    }

    /// A one-line, deterministic summary (`command "echo hi" timeout=5s`), used by `list`,
    /// `explain` and the snapshot tests. It is also the content the hook id is derived from.
    pub fn summary(&self) -> String {
        let mut s = String::new();
        let _ = self.write_summary(&mut s);
        s
    }

    /// Writes [`Self::summary`] into `out` (the hook id hashes it without building the string).
    pub(crate) fn write_summary(&self, s: &mut impl Write) -> fmt::Result {
        match &self.action {
            HandlerAction::Command(spec) => {
                s.write_str("command ")?;
                quoted(s, &spec.command)?;
            }
            HandlerAction::Http(spec) => {
                for part in ["http ", &spec.method, " "] {
                    s.write_str(part)?;
                }
                quoted(s, &spec.url)?;
                if !spec.headers.is_empty() {
                    s.write_str(" headers=")?;
                    string_map(s, &spec.headers)?;
                }
                match &spec.body {
                    None => {}
                    Some(HttpBody::Template(text)) => {
                        s.write_str(" body=")?;
                        quoted(s, text)?;
                    }
                    Some(HttpBody::Structured(value)) => {
                        s.write_str(" body=")?;
                        canonical(s, value)?;
                    }
                    Some(body) => {
                        s.write_str(" body=")?;
                        canonical(s, &body.to_value())?;
                    }
                }
                if !spec.allowed_env_vars.is_empty() {
                    write!(s, " {}=[", hook_wire::claude::ALLOWED_ENV_VARS)?;
                    for (i, name) in spec.allowed_env_vars.iter().enumerate() {
                        if i > 0 {
                            s.write_str(",")?;
                        }
                        quoted(s, name)?;
                    }
                    s.write_str("]")?;
                }
            }
            HandlerAction::Mcp(spec) => {
                s.write_str("mcp ")?;
                quoted(s, &spec.server)?;
                s.write_str("/")?;
                quoted(s, &spec.tool)?;
                if !spec.args.is_empty() {
                    s.write_str(" args=")?;
                    canonical_map(s, &spec.args)?;
                }
            }
            HandlerAction::Deny(spec) => {
                s.write_str("deny ")?;
                quoted(s, &spec.reason)?;
            }
            HandlerAction::Ask(spec) => {
                s.write_str("ask ")?;
                quoted(s, &spec.reason)?;
            }
            HandlerAction::Allow(spec) => {
                s.write_str("allow ")?;
                quoted(s, &spec.reason)?;
            }
            HandlerAction::Prompt(spec) => {
                s.write_str("prompt ")?;
                quoted(s, &spec.prompt)?;
                model_summary(s, spec.model.as_deref())?;
                if spec.continue_on_block {
                    s.write_str(" continueOnBlock")?;
                }
            }
            HandlerAction::Agent(spec) => {
                s.write_str("agent ")?;
                quoted(s, &spec.prompt)?;
                model_summary(s, spec.model.as_deref())?;
                if let Some(turns) = spec.max_turns {
                    write!(s, " maxTurns={turns}")?;
                }
            }
        }
        if let Some(t) = self.timeout {
            write!(s, " timeout={t:?}")?;
        }
        if self.fail_closed {
            s.write_str(" failClosed")?;
        }
        if self.mode == HandlerMode::Audit {
            s.write_str(" mode=audit")?;
        }
        if let Some(rule) = &self.if_rule {
            s.write_str(" if=")?;
            quoted(s, rule)?;
        }
        if let Some(rw) = &self.rewake {
            s.write_str(" asyncRewake=(")?;
            match &rw.trigger {
                RewakeTrigger::Delay(d) => write!(s, "delay {d:?}")?,
                RewakeTrigger::Cron { expr, zone } => {
                    s.write_str("cron ")?;
                    quoted(s, expr)?;
                    write!(s, " {zone}")?;
                }
                RewakeTrigger::Event { kind, key } => {
                    s.write_str("event ")?;
                    quoted(s, kind)?;
                    s.write_str("/")?;
                    quoted(s, key)?;
                }
            }
            write!(s, ", timeout {:?}, maxAttempts {}, payload ", rw.timeout, rw.max_attempts)?;
            string_map(s, &rw.payload)?;
            s.write_str(", reason ")?;
            quoted(s, &rw.reason)?;
            s.write_str(")")?;
        }
        Ok(())
    }
}

/// ` model="…"` when a model hook names its own model.
fn model_summary(s: &mut impl Write, model: Option<&str>) -> fmt::Result {
    let Some(model) = model else { return Ok(()) };
    s.write_str(" model=")?;
    quoted(s, model)
}

/// `text` as a JSON string literal, escaped by serde_json straight into `out`. Text with nothing
/// to escape (no `"`, `\\` or control character, the only characters serde_json escapes) is
/// written as it is, between quotes.
fn quoted(out: &mut impl Write, text: &str) -> fmt::Result {
    if !text.bytes().any(|b| b < 0x20 || b == b'"' || b == b'\\') {
        out.write_char('"')?;
        out.write_str(text)?;
        return out.write_char('"');
    }
    /// serde_json writes a string literal in pieces that each end at a character boundary (it only
    /// cuts before an ASCII character it escapes), so every piece is UTF-8 on its own.
    struct Utf8Pieces<'w, W>(&'w mut W);
    impl<W: Write> std::io::Write for Utf8Pieces<'_, W> {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            let piece = std::str::from_utf8(buf).map_err(std::io::Error::other)?;
            self.0.write_str(piece).map_err(std::io::Error::other)?;
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    serde_json::to_writer(Utf8Pieces(out), text).map_err(|_| fmt::Error)
}

/// A string-to-string map as a JSON object, keys sorted (a `BTreeMap` already is).
fn string_map(out: &mut impl Write, map: &BTreeMap<String, String>) -> fmt::Result {
    out.write_str("{")?;
    for (i, (k, v)) in map.iter().enumerate() {
        if i > 0 {
            out.write_str(",")?;
        }
        quoted(out, k)?;
        out.write_str(":")?;
        quoted(out, v)?;
    }
    out.write_str("}")
}

/// A JSON object with its keys sorted, values canonical.
fn canonical_map(out: &mut impl Write, map: &serde_json::Map<String, Value>) -> fmt::Result {
    out.write_str("{")?;
    if map.keys().is_sorted() {
        canonical_members(out, map.iter())?;
    } else {
        let mut sorted: Vec<(&String, &Value)> = map.iter().collect();
        sorted.sort_by_key(|(k, _)| *k);
        canonical_members(out, sorted.into_iter())?;
    }
    out.write_str("}")
}

/// `"k":v` members, comma-separated, in the order given.
fn canonical_members<'v>(out: &mut impl Write, members: impl Iterator<Item = (&'v String, &'v Value)>) -> fmt::Result {
    for (i, (k, v)) in members.enumerate() {
        if i > 0 {
            out.write_str(",")?;
        }
        quoted(out, k)?;
        out.write_str(":")?;
        canonical(out, v)?;
    }
    Ok(())
}

/// A JSON value with object keys sorted, so equal values summarise equally.
pub(crate) fn canonical(out: &mut impl Write, value: &Value) -> fmt::Result {
    match value {
        Value::Object(map) => canonical_map(out, map),
        Value::Array(items) => {
            out.write_str("[")?;
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.write_str(",")?;
                }
                canonical(out, item)?;
            }
            out.write_str("]")
        }
        Value::String(text) => quoted(out, text),
        other => write!(out, "{other}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summaries_quote_every_text_exactly_as_serde_json_does() {
        let texts =
            ["", "plain", "é ü 日本", "a\"b", "back\\slash", "tab\there", "nl\n", "\u{1}\u{1f}", "\u{7f}", "/x~"];
        for text in texts {
            let mut ours = String::new();
            quoted(&mut ours, text).expect("writes");
            assert_eq!(ours, serde_json::to_string(text).expect("serializes"), "{text:?}");
        }
        let mut headers = BTreeMap::new();
        headers.insert("B\"".to_owned(), "v\n".to_owned());
        headers.insert("A".to_owned(), "w".to_owned());
        let mut ours = String::new();
        string_map(&mut ours, &headers).expect("writes");
        let mut theirs = String::new();
        canonical(&mut theirs, &serde_json::to_value(&headers).expect("a value")).expect("writes");
        assert_eq!(ours, theirs);
        assert_eq!(ours, r#"{"A":"w","B\"":"v\n"}"#);
        let mut args = serde_json::Map::new();
        args.insert("b".into(), serde_json::json!([1, {"z": null, "y": true}]));
        args.insert("a".into(), Value::from("x"));
        let mut ours = String::new();
        canonical(&mut ours, &Value::Object(args)).expect("writes");
        assert_eq!(ours, r#"{"a":"x","b":[1,{"y":true,"z":null}]}"#);
    }

    #[test]
    fn the_field_tables_are_read_from_the_types() {
        assert_eq!(
            common_handler_fields(),
            ["asyncRewake", "failClosed", "if", "mode", "onFailure", "timeout", "timeoutMs"]
        );
        assert_eq!(handler_fields(HandlerKind::Command), ["command"]);
        assert_eq!(handler_fields(HandlerKind::Http), ["allowedEnvVars", "body", "headers", "method", "url"]);
        assert_eq!(handler_fields(HandlerKind::Mcp), ["args", "server", "tool"]);
        assert_eq!(handler_fields(HandlerKind::Deny), ["reason"]);
        assert_eq!(handler_fields(HandlerKind::Prompt), ["continueOnBlock", "model", "prompt"]);
        assert_eq!(handler_fields(HandlerKind::Agent), ["maxTurns", "model", "prompt"]);
    }

    #[test]
    fn the_field_tables_are_the_schemas_properties() {
        let names = |schema: &Value| -> Vec<String> {
            let mut names: Vec<String> = schema["properties"]
                .as_object()
                .map(|p| p.keys().filter(|k| *k != "type").cloned().collect())
                .unwrap_or_default();
            names.sort();
            names
        };
        let settings = schemars::generate::SchemaSettings::draft2020_12().with(|s| s.inline_subschemas = true);
        let handler = settings.into_generator().into_root_schema_for::<HandlerSpec>().to_value();
        assert_eq!(names(&handler), common_handler_fields());
        let variants = handler["oneOf"].as_array().expect("one schema per kind");
        for kind in KINDS {
            let variant = variants.iter().find(|v| v["properties"]["type"]["const"] == kind.config_name());
            assert_eq!(names(variant.expect("the kind's schema")), handler_fields(kind), "{kind:?}");
        }
    }
}
