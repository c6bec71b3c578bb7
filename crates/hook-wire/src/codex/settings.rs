//! Codex's settings for `init codex`: its `hooks.json` has Claude Code's shape (edited with
//! [`crate::claude::add_routes`]), and Codex runs a hook of a non-managed layer only when
//! `config.toml` holds `[hooks.state."<key>"] trusted_hash = "<hash>"` for it, the hash being
//! Codex's own fingerprint of the handler. This module computes both; the caller writes them.

use std::path::Path;

use hook_core::HandlerKind;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// The Codex events `init codex` routes: those of its twelve that our events table has.
pub const ROUTED_EVENTS: &[&str] = &[
    "SessionStart",
    "SessionEnd",
    "UserPromptSubmit",
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
    "PreCompact",
    "SubagentStart",
    "SubagentStop",
    "Stop",
];

/// The timeout (seconds) `init codex` writes; Codex's default.
const TIMEOUT_SECS: u64 = 600;

/// The timeout Codex gives a SessionEnd hook at most (it hashes the clamped value).
const SESSION_END_MAX_SECS: u64 = 3;

/// The `command` handler that runs `binary codex`.
pub fn command_route(binary: &str) -> Value {
    let quoted = if binary.contains([' ', '\'', '"']) {
        format!("'{}'", binary.replace('\'', "'\\''"))
    } else {
        binary.to_owned()
    };
    json!({"type": HandlerKind::Command.config_name(), "command": format!("{quoted} codex"), "timeout": TIMEOUT_SECS})
}

/// Codex's snake_case label of an event in trust keys and hashes (`PreToolUse` → `pre_tool_use`).
fn snake(event: &str) -> String {
    let mut out = String::new();
    for (i, c) in event.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

/// The key Codex keeps the trust of handler `handler` of group `group` of `event` under.
pub fn trust_key(hooks_json: &Path, event: &str, group: usize, handler: usize) -> String {
    format!("{}:{}:{group}:{handler}", hooks_json.display(), snake(event))
}

/// The hash Codex trusts a one-handler `command` group by: `sha256:` and the hex SHA-256 of the
/// compact, key-sorted JSON of the group's identity (codex-rs `hooks/src/engine/discovery.rs`,
/// `config/src/fingerprint.rs`).
pub fn trust_hash(event: &str, matcher: Option<&str>, command: &str, timeout: u64) -> String {
    let timeout = if event == "SessionEnd" { timeout.min(SESSION_END_MAX_SECS) } else { timeout };
    let mut identity = json!({
        "event_name": snake(event),
        "hooks": [{"async": false, "command": command, "timeout": timeout, "type": "command"}],
    });
    if let Some(matcher) = matcher {
        identity["matcher"] = json!(matcher);
    }
    // serde_json's map is sorted (the workspace does not enable `preserve_order`).
    let digest = Sha256::digest(identity.to_string().as_bytes());
    format!("sha256:{}", digest.iter().map(|b| format!("{b:02x}")).collect::<String>())
}

/// The trust entries (key, hash) of every handler in `settings` (a parsed `hooks.json` at
/// `hooks_json`) that is `route`: what `init codex` writes to `config.toml` after routing, and
/// removes before routing again or with `--remove`.
pub fn trusted_hashes(settings: &Value, hooks_json: &Path, route: &Value) -> Vec<(String, String)> {
    let Some(command) = route.get("command").and_then(Value::as_str) else { return Vec::new() };
    let timeout = route.get("timeout").and_then(Value::as_u64).unwrap_or(TIMEOUT_SECS);
    let mut out = Vec::new();
    let Some(hooks) = settings.get("hooks").and_then(Value::as_object) else { return out };
    for (event, groups) in hooks {
        for (g, group) in groups.as_array().into_iter().flatten().enumerate() {
            let matcher = group.get("matcher").and_then(Value::as_str);
            for (h, handler) in group.get("hooks").and_then(Value::as_array).into_iter().flatten().enumerate() {
                if handler.get("command").and_then(Value::as_str) == Some(command) {
                    out.push((trust_key(hooks_json, event, g, h), trust_hash(event, matcher, command, timeout)));
                }
            }
        }
    }
    out
}
