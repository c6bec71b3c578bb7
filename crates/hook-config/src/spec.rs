//! The validated shape of a hooks.json file: what the loader hands on (R-CFG-3/4).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Duration;

use hook_core::{HandlerKind, HookEventType, RewakeSpec, RewakeTrigger};
use serde_json::Value;

use crate::matcher::MatcherCache;
use crate::tier::Tier;

/// What a handler does, with its validated fields.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum HandlerAction {
    /// `{"type": "command", "command": …}`: runs verbatim under `sh -c` (R-ACT-SH-1).
    Command {
        /// The command line.
        command: String,
    },
    /// `{"type": "http", "url": …}` (R-ACT-HTTP-1).
    Http {
        /// Target URL (not templated).
        url: String,
        /// HTTP method (default `POST`).
        method: String,
        /// Header templates.
        headers: BTreeMap<String, String>,
        /// A string body is a template; an object/array body is rendered structurally.
        body: Option<Value>,
        /// Names `${env.X}` may read.
        allowed_env_vars: Vec<String>,
    },
    /// `{"type": "mcp", "server": …, "tool": …}` (also Claude Code's `mcp_tool` with `input`).
    Mcp {
        /// Server name from `mcp.json`.
        server: String,
        /// Tool name.
        tool: String,
        /// Arguments (string values are templates).
        args: serde_json::Map<String, Value>,
    },
    /// `{"type": "deny", "reason": …}`: preTool only.
    Deny {
        /// Non-blank reason.
        reason: String,
    },
}

impl HandlerAction {
    /// The handler kind.
    pub fn kind(&self) -> HandlerKind {
        match self {
            HandlerAction::Command { .. } => HandlerKind::Command,
            HandlerAction::Http { .. } => HandlerKind::Http,
            HandlerAction::Mcp { .. } => HandlerKind::Mcp,
            HandlerAction::Deny { .. } => HandlerKind::Deny,
        }
    }
}

/// One validated handler. Constructible from outside (hook-skill builds its frontmatter
/// handlers this way) with the constructors and `with_*` setters.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct HandlerSpec {
    /// What it does.
    pub action: HandlerAction,
    /// Its own deadline (`timeout` seconds or `timeoutMs`; `None` = the action's default).
    pub timeout: Option<Duration>,
    /// Failures block on the decision events instead of failing open (R-CFG-4c).
    pub fail_closed: bool,
    /// The asyncRewake block, when valid on the event (R-CFG-RW-1).
    pub rewake: Option<RewakeSpec>,
    /// Claude Code's handler-level `if` rule (R-CFG-3b).
    pub if_rule: Option<String>,
    /// The loader's compiled `if` rule, reused by the build (PERF-6).
    pub(crate) if_compiled: MatcherCache,
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
            if_compiled: MatcherCache::default(),
        }
    }

    /// A `command` handler.
    pub fn command(command: impl Into<String>) -> Self {
        Self::new(HandlerAction::Command { command: command.into() })
    }

    /// A `deny` handler.
    pub fn deny(reason: impl Into<String>) -> Self {
        Self::new(HandlerAction::Deny { reason: reason.into() })
    }

    /// An `http` handler posting to `url` with no headers or body.
    pub fn http(url: impl Into<String>) -> Self {
        Self::new(HandlerAction::Http {
            url: url.into(),
            method: "POST".to_owned(),
            headers: BTreeMap::new(),
            body: None,
            allowed_env_vars: Vec::new(),
        })
    }

    /// An `mcp` handler calling `tool` on `server` with `args`.
    pub fn mcp(server: impl Into<String>, tool: impl Into<String>, args: serde_json::Map<String, Value>) -> Self {
        Self::new(HandlerAction::Mcp { server: server.into(), tool: tool.into(), args })
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
        let q = |v: &str| Value::String(v.to_owned()).to_string();
        match &self.action {
            HandlerAction::Command { command } => {
                let _ = write!(s, "command {}", q(command));
            }
            HandlerAction::Http { url, method, headers, body, allowed_env_vars } => {
                let _ = write!(s, "http {method} {}", q(url));
                if !headers.is_empty() {
                    let _ = write!(s, " headers={}", canonical(&serde_json::to_value(headers).unwrap_or_default()));
                }
                if let Some(body) = body {
                    let _ = write!(s, " body={}", canonical(body));
                }
                if !allowed_env_vars.is_empty() {
                    let _ = write!(s, " allowedEnvVars={}", canonical(&Value::from(allowed_env_vars.clone())));
                }
            }
            HandlerAction::Mcp { server, tool, args } => {
                let _ = write!(s, "mcp {}/{}", q(server), q(tool));
                if !args.is_empty() {
                    let _ = write!(s, " args={}", canonical(&Value::Object(args.clone())));
                }
            }
            HandlerAction::Deny { reason } => {
                let _ = write!(s, "deny {}", q(reason));
            }
        }
        if let Some(t) = self.timeout {
            let _ = write!(s, " timeout={t:?}");
        }
        if self.fail_closed {
            s.push_str(" failClosed");
        }
        if let Some(rule) = &self.if_rule {
            let _ = write!(s, " if={}", q(rule));
        }
        if let Some(rw) = &self.rewake {
            let trigger = match &rw.trigger {
                RewakeTrigger::Delay(d) => format!("delay {d:?}"),
                RewakeTrigger::Cron { expr, zone } => format!("cron {} {zone}", q(expr)),
                RewakeTrigger::Event { kind, key } => format!("event {}/{}", q(kind), q(key)),
            };
            let payload = canonical(&serde_json::to_value(&rw.payload).unwrap_or_default());
            let _ = write!(
                s,
                " asyncRewake=({trigger}, timeout {:?}, maxAttempts {}, payload {payload}, reason {})",
                rw.timeout,
                rw.max_attempts,
                q(&rw.reason)
            );
        }
        s
    }
}

/// JSON text with object keys sorted at every level, whatever serde_json's map order is.
pub(crate) fn canonical(value: &Value) -> String {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            let fields: Vec<String> =
                keys.into_iter().map(|k| format!("{}:{}", Value::String(k.clone()), canonical(&map[k]))).collect();
            format!("{{{}}}", fields.join(","))
        }
        Value::Array(items) => format!("[{}]", items.iter().map(canonical).collect::<Vec<_>>().join(",")),
        other => other.to_string(),
    }
}

/// One entry of one event: a matcher and its valid handlers.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct HookEntrySpec {
    /// The event.
    pub event: HookEventType,
    /// The event name as written in the file (used in messages).
    pub event_as_written: String,
    /// The matcher as written (`*` when omitted).
    pub matcher: String,
    /// The handlers that passed validation, in file order.
    pub handlers: Vec<HandlerSpec>,
    /// The loader's compiled matcher, reused by the build (PERF-6).
    pub(crate) compiled: MatcherCache,
}

impl HookEntrySpec {
    /// An entry for `event` with `matcher` and `handlers` (the event written as its AIMON name).
    pub fn new(event: HookEventType, matcher: impl Into<String>, handlers: Vec<HandlerSpec>) -> Self {
        HookEntrySpec {
            event,
            event_as_written: event.name().to_owned(),
            matcher: matcher.into(),
            handlers,
            compiled: MatcherCache::default(),
        }
    }
}

/// One parsed file.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ConfigFile {
    /// Its tier.
    pub tier: Tier,
    /// Its path.
    pub path: PathBuf,
    /// Entries in file order (events in file order, then entries in array order).
    pub entries: Vec<HookEntrySpec>,
    /// The SHA-256 (hex) of the text it was parsed from, which trust compares (R-CLI-12).
    pub sha256: String,
}

impl ConfigFile {
    /// The source name of the file's hooks (`project#0`, R-CFG-ID-1).
    pub fn source(&self) -> String {
        self.tier.source()
    }
}

/// The merged configuration of the three file tiers, in dispatch order (R-CFG-2).
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct LoadedConfig {
    /// The files that exist, USER → PROJECT → LOCAL.
    pub files: Vec<ConfigFile>,
}

impl LoadedConfig {
    /// A config of `files`, given in dispatch order.
    pub fn from_files(files: Vec<ConfigFile>) -> Self {
        LoadedConfig { files }
    }

    /// Every (file, entry, handler) in dispatch order.
    pub fn handlers(&self) -> impl Iterator<Item = (&ConfigFile, &HookEntrySpec, &HandlerSpec)> {
        self.files.iter().flat_map(|f| f.entries.iter().flat_map(move |e| e.handlers.iter().map(move |h| (f, e, h))))
    }

    /// A deterministic multi-line rendering (one handler per line), for snapshots and `list`.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for (file, entry, handler) in self.handlers() {
            let _ = writeln!(
                out,
                "{} {} matcher={} {}",
                file.tier,
                entry.event,
                Value::String(entry.matcher.clone()),
                handler.summary()
            );
        }
        out
    }
}
