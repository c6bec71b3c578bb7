//! The context a hook sees when it fires.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::{Map, Value};

use crate::events::{HookEventType, MatchSubject};

/// The tool call a tool event is about.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ToolCall {
    /// Tool name (`Bash`, `mcp__memory__create`).
    pub name: String,
    /// Tool arguments; hook n+1 of a sequential chain sees hook n's `updated_input` here.
    pub input: Value,
    /// The tool-use id, when known.
    pub use_id: Option<String>,
    /// The tool's response (postTool only).
    pub response: Option<Value>,
    /// `success` or `error` (postTool only).
    pub result_status: Option<String>,
}

impl ToolCall {
    /// A call of `name` with `input`.
    pub fn new(name: impl Into<String>, input: Value) -> Self {
        ToolCall { name: name.into(), input, use_id: None, response: None, result_status: None }
    }
}

/// Set on the context when a hook is re-invoked by a rewake fire (R-RW-4).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct RewakeInvocation {
    /// The envelope that fired.
    pub envelope_id: String,
    /// 1 for the first fire, +1 for each chained follow-up.
    pub attempt: u32,
    /// The envelope payload, with a resolving caller's payload merged over it.
    pub payload: BTreeMap<String, String>,
    /// The spec's reason.
    pub reason: String,
}

impl RewakeInvocation {
    /// The invocation for fire number `attempt` of envelope `envelope_id`.
    pub fn new(
        envelope_id: impl Into<String>,
        attempt: u32,
        payload: BTreeMap<String, String>,
        reason: impl Into<String>,
    ) -> Self {
        RewakeInvocation { envelope_id: envelope_id.into(), attempt, payload, reason: reason.into() }
    }
}

/// What a hook sees: the event, who fired it, and the event's own fields.
///
/// One shape serves every event; event-specific values (`trigger`, `source`, `reason`,
/// `agent_type`, …) sit in [`HookContext::fields`] under their Claude Code keys.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct HookContext {
    /// The event firing.
    pub event: HookEventType,
    /// Session id, when known.
    pub session_id: Option<String>,
    /// Transcript path, when known.
    pub transcript_path: Option<String>,
    /// Working directory of the agent (a command hook runs there).
    pub cwd: Option<PathBuf>,
    /// Permission mode, when known.
    pub permission_mode: Option<String>,
    /// Project root (`AIMON_PROJECT_DIR`).
    pub project_dir: Option<PathBuf>,
    /// The agent-execution context id a rewake re-hydrates from.
    pub context_id: Option<String>,
    /// Who invoked the tool or turn.
    pub invoker_name: Option<String>,
    /// `MAIN_AGENT`, `SUBAGENT`, …
    pub invoker_type: Option<String>,
    /// ReAct loop iteration.
    pub iteration: Option<u64>,
    /// The tool call, on tool events.
    pub tool: Option<ToolCall>,
    /// Event-specific fields, keyed by their Claude Code names.
    pub fields: Map<String, Value>,
    /// Present when this invocation is a rewake fire.
    pub rewake: Option<RewakeInvocation>,
    /// The client whose call this is (`claude`, `codex`, `aimon`, …), as the decision log names
    /// it; `None` when the front end did not say.
    pub client: Option<&'static str>,
    /// Whether the tool's command runs under the exec-time guard, whose kernel mounts hide the
    /// paths of the Read deny rules from it (set by the front end from the client's own
    /// settings, never from the payload): such a rule need not refuse a command for what it may
    /// read by names the text does not show.
    pub guarded: bool,
}

impl HookContext {
    /// An empty context for `event`.
    pub fn new(event: HookEventType) -> Self {
        HookContext {
            event,
            session_id: None,
            transcript_path: None,
            cwd: None,
            permission_mode: None,
            project_dir: None,
            context_id: None,
            invoker_name: None,
            invoker_type: None,
            iteration: None,
            tool: None,
            fields: Map::new(),
            rewake: None,
            client: None,
            guarded: false,
        }
    }

    /// Marks the tool's command as run under the exec-time guard ([`HookContext::guarded`]).
    pub fn with_guard(mut self, guarded: bool) -> Self {
        self.guarded = guarded;
        self
    }

    /// Sets the client whose call this is.
    pub fn with_client(mut self, client: &'static str) -> Self {
        self.client = Some(client);
        self
    }

    /// Sets the tool call.
    pub fn with_tool(mut self, tool: ToolCall) -> Self {
        self.tool = Some(tool);
        self
    }

    /// Sets an event-specific field.
    pub fn with_field(mut self, key: impl Into<String>, value: impl Into<Value>) -> Self {
        self.fields.insert(key.into(), value.into());
        self
    }

    /// The tool name, on tool events.
    pub fn tool_name(&self) -> Option<&str> {
        self.tool.as_ref().map(|t| t.name.as_str())
    }

    /// The string a matcher is tested against on this event (R-PRED-4b).
    pub fn match_subject(&self) -> Option<&str> {
        match self.event.spec().matcher {
            MatchSubject::Tool => self.tool_name(),
            MatchSubject::Field(key) => self.fields.get(key).and_then(Value::as_str),
            MatchSubject::FileName(key) => self
                .fields
                .get(key)
                .and_then(Value::as_str)
                .map(|path| path.rsplit(['/', '\\']).find(|part| !part.is_empty()).unwrap_or(path)),
            MatchSubject::Nothing => None,
        }
    }
}
