//! hooks.json building blocks shared by the test files.

use serde_json::{Value, json};

/// `{"hooks": {event: [{"matcher": matcher, "hooks": [handler]}]}}`.
pub(crate) fn on(event: &str, matcher: &str, handler: Value) -> Value {
    json!({"hooks": {event: [{"matcher": matcher, "hooks": [handler]}]}})
}

/// A `deny` handler.
pub(crate) fn deny(reason: &str) -> Value {
    json!({"type": "deny", "reason": reason})
}

/// A `command` handler with a 30 s timeout.
pub(crate) fn command(cmd: &str) -> Value {
    json!({"type": "command", "command": cmd, "timeout": 30})
}

/// A `command` handler printing `answer` (a JSON text without single quotes) on stdout.
pub(crate) fn answering(answer: &str) -> Value {
    command(&format!("echo '{answer}'"))
}
