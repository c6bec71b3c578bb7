//! The two-axis result model (R-RES).

use serde_json::{Map, Value};

use crate::rewake::RewakeSpec;

/// The permission axis. Ordered weakest to strongest: `Allow < Ask < Defer < Deny` (Claude
/// Code's precedence).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Decision {
    /// No objection.
    #[default]
    Allow,
    /// A person should confirm.
    Ask,
    /// Leave it to the client's own permission flow (Claude Code's `defer`); read as Ask where
    /// an event reads ask, and it cancels explicit allows.
    Defer,
    /// Refused: the action must not happen, whatever later hooks say (the strongest decision);
    /// the hook's feedback is the reason given to the model.
    Deny,
}

/// The flow axis. Ordered weakest to strongest: `Continue < Block`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FlowControl {
    /// Let the loop go on past the event (the default; no opinion on flow).
    #[default]
    Continue,
    /// Stop what the event announces.
    Block,
}

impl Decision {
    /// Lower-case name (`allow`, `ask`, `deny`).
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Allow => "allow",
            Decision::Ask => "ask",
            Decision::Defer => "defer",
            Decision::Deny => "deny",
        }
    }
}

impl FlowControl {
    /// Lower-case name (`continue`, `block`).
    pub fn as_str(self) -> &'static str {
        match self {
            FlowControl::Continue => "continue",
            FlowControl::Block => "block",
        }
    }
}

/// What one hook (or a merged chain) answered: two axes and four side channels, plus two
/// observability fields.
///
/// ```
/// use hook_core::{Decision, FlowControl, HookResult};
/// let merged = HookResult::merge([HookResult::allow(), HookResult::deny("no"), HookResult::block("stop")]);
/// assert_eq!((merged.decision, merged.flow), (Decision::Deny, FlowControl::Block));
/// assert_eq!(merged.feedback.as_deref(), Some("no\nstop"));
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct HookResult {
    /// Permission axis: whether the action the event asks about may happen ([`Decision`]).
    pub decision: Decision,
    /// Flow axis: whether what the event announces goes on; independent of `decision`, so a hook
    /// can allow a tool call and still stop the turn ([`FlowControl`]).
    pub flow: FlowControl,
    /// Replacement tool input (a pipeline: the last one wins).
    pub updated_input: Option<Value>,
    /// Replacement tool output (a pipeline: the last one wins).
    pub updated_output: Option<Value>,
    /// Text for the model; on a deny/block/ask it is the reason (R-RES-3).
    pub feedback: Option<String>,
    /// Deferred re-invocations asked for (R-RW-1).
    pub rewake_specs: Vec<RewakeSpec>,
    /// Text for the person, not the model (R-CC-2); logged and reported.
    pub system_message: Option<String>,
    /// Why this hook produced no usable decision (timeout, crash, malformed answer, …), when it did not.
    pub failure: Option<String>,
    /// The hook said "allow" in so many words (Claude Code's `permissionDecision: "allow"`), as
    /// opposed to having no opinion. Only meaningful while `decision` is `Allow`.
    pub explicit_allow: bool,
    /// The hook asked the agent to stop altogether (Claude Code's `continue: false`), with this
    /// reason for the person. Passed on to the client; on a continuation event it means "stop".
    pub stop_reason: Option<String>,
    /// Event-specific answer fields the engine does not model (a worktree path, an elicitation
    /// response, a session title, …), handed to the client unchanged. Later hooks' keys win.
    pub passthrough: Map<String, Value>,
}

impl HookResult {
    /// Allow and continue.
    pub fn allow() -> Self {
        HookResult::default()
    }

    /// Allow, said explicitly: the caller may skip its own permission prompt (R-CLI-2).
    pub fn explicit_allow() -> Self {
        HookResult { explicit_allow: true, ..Self::default() }
    }

    /// Defer to the client's own permission flow, with `reason`.
    pub fn defer(reason: impl Into<String>) -> Self {
        HookResult { decision: Decision::Defer, feedback: Some(reason.into()), ..Self::default() }
    }

    /// Ask a person; `reason` is the question's reason.
    pub fn ask(reason: impl Into<String>) -> Self {
        HookResult { decision: Decision::Ask, feedback: Some(reason.into()), ..Self::default() }
    }

    /// Deny; `reason` goes into `feedback` (R-RES-3).
    pub fn deny(reason: impl Into<String>) -> Self {
        HookResult { decision: Decision::Deny, feedback: Some(reason.into()), ..Self::default() }
    }

    /// Block; the feedback is the reason.
    pub fn block(reason: impl Into<String>) -> Self {
        HookResult { flow: FlowControl::Block, feedback: Some(reason.into()), ..Self::default() }
    }

    /// Allow with advisory feedback for the model.
    pub fn feedback(text: impl Into<String>) -> Self {
        HookResult { feedback: Some(text.into()), ..Self::default() }
    }

    /// Sets `updated_input`.
    pub fn with_updated_input(mut self, input: Value) -> Self {
        self.updated_input = Some(input);
        self
    }

    /// Sets `updated_output`.
    pub fn with_updated_output(mut self, output: Value) -> Self {
        self.updated_output = Some(output);
        self
    }

    /// Sets advisory feedback (or replaces the reason).
    pub fn with_feedback(mut self, text: impl Into<String>) -> Self {
        self.feedback = Some(text.into());
        self
    }

    /// Adds a rewake spec.
    pub fn with_rewake(mut self, spec: RewakeSpec) -> Self {
        self.rewake_specs.push(spec);
        self
    }

    /// Sets the message for the person.
    pub fn with_system_message(mut self, text: impl Into<String>) -> Self {
        self.system_message = Some(text.into());
        self
    }

    /// Asks the agent to stop altogether, with `reason` for the person.
    pub fn with_stop(mut self, reason: impl Into<String>) -> Self {
        self.stop_reason = Some(reason.into());
        self
    }

    /// Adds an event-specific answer field the engine passes through unchanged.
    pub fn with_passthrough(mut self, key: impl Into<String>, value: Value) -> Self {
        self.passthrough.insert(key.into(), value);
        self
    }

    /// Records why the hook produced no usable decision.
    pub fn with_failure(mut self, cause: impl Into<String>) -> Self {
        self.failure = Some(cause.into());
        self
    }

    /// Denied or blocked: its feedback is a reason, not advice (R-RES-3, R-RES-5).
    pub fn is_blocked(&self) -> bool {
        self.decision == Decision::Deny || self.flow == FlowControl::Block
    }

    /// Feedback that is advice for the model, not a deny/block/ask reason.
    pub fn advisory_feedback(&self) -> Option<&str> {
        (self.decision == Decision::Allow && self.flow == FlowControl::Continue)
            .then_some(self.feedback.as_deref())
            .flatten()
    }

    /// Folds results in dispatch order (R-RES-4): each axis takes the strongest value, feedback
    /// and system messages are joined with newlines, rewake specs concatenated, and the last
    /// `updated_input`/`updated_output` wins. `explicit_allow` holds when any hook allowed explicitly
    /// (it counts only while the merged decision stays `Allow`).
    pub fn merge(results: impl IntoIterator<Item = HookResult>) -> HookResult {
        let mut merged = HookResult::default();
        for r in results {
            merged.decision = merged.decision.max(r.decision);
            merged.flow = merged.flow.max(r.flow);
            join(&mut merged.feedback, r.feedback);
            join(&mut merged.system_message, r.system_message);
            join(&mut merged.failure, r.failure);
            merged.explicit_allow |= r.explicit_allow;
            join(&mut merged.stop_reason, r.stop_reason);
            merged.passthrough.extend(r.passthrough);
            merged.rewake_specs.extend(r.rewake_specs);
            if r.updated_input.is_some() {
                merged.updated_input = r.updated_input;
            }
            if r.updated_output.is_some() {
                merged.updated_output = r.updated_output;
            }
        }
        merged
    }
}

fn join(into: &mut Option<String>, next: Option<String>) {
    match (into.as_mut(), next) {
        (Some(acc), Some(n)) => {
            acc.push('\n');
            acc.push_str(&n);
        }
        (None, Some(n)) => *into = Some(n),
        (_, None) => {}
    }
}
