//! Claude Code's hook-output vocabulary, said once: the keys and words of the JSON a hook answers
//! with (a command hook's stdout, an http hook's response body).
//!
//! Both directions use it: this crate writes the answer Claude Code reads, and hook-actions reads
//! a command or http hook's answer, which is written in the same format.

/// The keys of a hook answer: top level, inside [`Key::HOOK_SPECIFIC_OUTPUT`], and inside a
/// permission request's [`Key::DECISION`] object.
#[derive(Debug)]
pub enum Key {}

impl Key {
    /// Top level: the object of the answer fields that belong to one event.
    pub const HOOK_SPECIFIC_OUTPUT: &str = "hookSpecificOutput";
    /// Event-specific: the Claude Code name of the event answered.
    pub const HOOK_EVENT_NAME: &str = "hookEventName";
    /// Event-specific: the permission word of a tool call ([`Word::ALLOW`], `DENY`, `ASK`, `DEFER`).
    pub const PERMISSION_DECISION: &str = "permissionDecision";
    /// Event-specific: why, next to [`Key::PERMISSION_DECISION`].
    pub const PERMISSION_DECISION_REASON: &str = "permissionDecisionReason";
    /// Top level: [`Word::BLOCK`] (older answers: `APPROVE`, `ALLOW`, `DENY`); event-specific on a
    /// permission request: an object with [`Key::BEHAVIOR`].
    pub const DECISION: &str = "decision";
    /// Top level: the reason of a [`Key::DECISION`].
    pub const REASON: &str = "reason";
    /// In a permission request's decision object: [`Word::ALLOW`] or [`Word::DENY`].
    pub const BEHAVIOR: &str = "behavior";
    /// In a permission request's decision object: why it denies.
    pub const MESSAGE: &str = "message";
    /// The tool input to run instead (event-specific, a permission request's decision object, or
    /// top level in the older form).
    pub const UPDATED_INPUT: &str = "updatedInput";
    /// Event-specific: the tool output the model sees instead.
    pub const UPDATED_TOOL_OUTPUT: &str = "updatedToolOutput";
    /// Event-specific: the older name of [`Key::UPDATED_TOOL_OUTPUT`] for MCP tools (read only).
    pub const UPDATED_MCP_TOOL_OUTPUT: &str = "updatedMCPToolOutput";
    /// Event-specific: text added to the model's context.
    pub const ADDITIONAL_CONTEXT: &str = "additionalContext";
    /// Event-specific: the path a worktree event asks for.
    pub const WORKTREE_PATH: &str = "worktreePath";
    /// Top level: `false` stops the agent altogether.
    pub const CONTINUE: &str = "continue";
    /// Top level: why the agent stops, next to [`Key::CONTINUE`].
    pub const STOP_REASON: &str = "stopReason";
    /// Top level: text for the person, not the model.
    pub const SYSTEM_MESSAGE: &str = "systemMessage";

    /// Every key above (`cargo xtask check-layers` holds the distinctive ones to this file).
    pub const ALL: &[&str] = &[
        Key::HOOK_SPECIFIC_OUTPUT,
        Key::HOOK_EVENT_NAME,
        Key::PERMISSION_DECISION,
        Key::PERMISSION_DECISION_REASON,
        Key::DECISION,
        Key::REASON,
        Key::BEHAVIOR,
        Key::MESSAGE,
        Key::UPDATED_INPUT,
        Key::UPDATED_TOOL_OUTPUT,
        Key::UPDATED_MCP_TOOL_OUTPUT,
        Key::ADDITIONAL_CONTEXT,
        Key::WORKTREE_PATH,
        Key::CONTINUE,
        Key::STOP_REASON,
        Key::SYSTEM_MESSAGE,
    ];
}

/// The words the decision keys hold.
#[derive(Debug)]
pub enum Word {}

impl Word {
    /// Let it happen.
    pub const ALLOW: &str = "allow";
    /// Refuse it.
    pub const DENY: &str = "deny";
    /// Ask the person.
    pub const ASK: &str = "ask";
    /// Leave it to Claude Code's own permission flow.
    pub const DEFER: &str = "defer";
    /// Stop what the event announces (top-level decision).
    pub const BLOCK: &str = "block";
    /// The older top-level word for an allow (read only).
    pub const APPROVE: &str = "approve";
}
