//! The public trait (R-PRED-1).

/// A compiled matcher: does this tool call (or event subject) match?
///
/// Tool events: the tool name and its input. Events without a tool (R-PRED-4b): the config layer
/// passes the event's match subject (e.g. `"manual"`, `"startup"`, an agent type) as `tool_name` and
/// `&serde_json::Value::Null` as input; name-only patterns then match that subject.
pub trait ToolInputPredicate: Send + Sync + std::fmt::Debug {
    /// Whether the call matches. Never panics, whatever the input.
    fn test(&self, tool_name: &str, input: &serde_json::Value) -> bool;
}
