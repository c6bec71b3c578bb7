//! Claude Code's hook-output vocabulary, said once: the keys and words of the JSON a hook answers
//! with (a command hook's stdout, an http hook's response body).
//!
//! Both directions use it: this crate writes the answer Claude Code reads, and hook-actions reads
//! a command or http hook's answer, which is written in the same format.

/// A closed table of keys, said once: each `NAME = "key",` (with its doc) becomes the constant
/// `Type::NAME`, and `Type::ALL` lists them all in order, so no key is left out of the list
/// (the tables [`Key`] here and `PayloadKey` in `fields.rs`).
macro_rules! key_table {
    ($(#[$all:meta])* $ty:ident { $($(#[$doc:meta])* $name:ident = $key:literal,)* }) => {
        impl $ty {
            $($(#[$doc])* pub const $name: &str = $key;)*
            $(#[$all])*
            pub const ALL: &[&str] = &[$($ty::$name),*];
        }
    };
}
pub(crate) use key_table;

/// The keys of a hook answer: top level, inside [`Key::HOOK_SPECIFIC_OUTPUT`], and inside a
/// permission request's [`Key::DECISION`] object.
#[derive(Debug)]
pub enum Key {}

key_table! {
    /// Every key of the table (`cargo xtask check-layers` holds the distinctive ones to this file).
    Key {
        /// Top level: the object of the answer fields that belong to one event.
        HOOK_SPECIFIC_OUTPUT = "hookSpecificOutput",
        /// Event-specific: the Claude Code name of the event answered.
        HOOK_EVENT_NAME = "hookEventName",
        /// Event-specific: the permission word of a tool call ([`Word::ALLOW`], `DENY`, `ASK`, `DEFER`).
        PERMISSION_DECISION = "permissionDecision",
        /// Event-specific: why, next to [`Key::PERMISSION_DECISION`].
        PERMISSION_DECISION_REASON = "permissionDecisionReason",
        /// Top level: [`Word::BLOCK`] (older answers: `APPROVE`, `ALLOW`, `DENY`); event-specific on a
        /// permission request: an object with [`Key::BEHAVIOR`].
        DECISION = "decision",
        /// Top level: the reason of a [`Key::DECISION`].
        REASON = "reason",
        /// In a permission request's decision object: [`Word::ALLOW`] or [`Word::DENY`].
        BEHAVIOR = "behavior",
        /// In a permission request's decision object: why it denies.
        MESSAGE = "message",
        /// The tool input to run instead (event-specific, a permission request's decision object, or
        /// top level in the older form).
        UPDATED_INPUT = "updatedInput",
        /// Event-specific: the tool output the model sees instead.
        UPDATED_TOOL_OUTPUT = "updatedToolOutput",
        /// Event-specific: the older name of [`Key::UPDATED_TOOL_OUTPUT`] for MCP tools (read only).
        UPDATED_MCP_TOOL_OUTPUT = "updatedMCPToolOutput",
        /// Event-specific: text added to the model's context.
        ADDITIONAL_CONTEXT = "additionalContext",
        /// Event-specific: the path a worktree event asks for.
        WORKTREE_PATH = "worktreePath",
        /// Top level: `false` stops the agent altogether.
        CONTINUE = "continue",
        /// Top level: why the agent stops, next to [`Key::CONTINUE`].
        STOP_REASON = "stopReason",
        /// Top level: text for the person, not the model.
        SYSTEM_MESSAGE = "systemMessage",
    }
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
