//! `aimon-hooks schema` (R-CLI-6): the JSON Schema of hooks.json, generated with schemars.
//!
//! hook-config parses hooks.json by hand (for positions and per-field WARNs) and exposes no serde
//! file types, so the shape is mirrored here as serde + schemars types. The unit tests below
//! deserialize every seed example and the demo's files into the mirror, so it cannot drift from
//! what the loader accepts without a test failing.

use std::collections::BTreeMap;

use hook_core::HookEventType;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;
use serde_json::Value;

/// A hooks.json file: `{"hooks": {"<Event>": [{"matcher": "...", "hooks": [handler, ...]}]}}`.
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(title = "aimon hooks.json")]
#[expect(dead_code, reason = "schema mirror: schemars reads the fields, code never does")]
struct HooksFile {
    /// Hook entries by event. AIMON (`preTool`) and Claude Code (`PreToolUse`) names are both
    /// accepted, in any case.
    #[serde(default)]
    #[schemars(schema_with = "events_schema")]
    hooks: BTreeMap<String, Vec<Entry>>,
}

/// One matcher group.
#[derive(Debug, Deserialize, JsonSchema)]
#[expect(dead_code, reason = "schema mirror: schemars reads the fields, code never does")]
struct Entry {
    /// Which calls the group applies to: a tool name, `A|B`, a regex, `Bash(command=^git\s+push)`,
    /// a permission rule such as `Bash(git push:*)` or `Edit(src/**/*.rs)`; `*` or omitted = all.
    #[serde(default)]
    matcher: Option<String>,
    /// The handlers, run in order.
    hooks: Vec<Handler>,
}

/// Fields every handler may carry.
#[derive(Debug, Deserialize, JsonSchema)]
#[expect(dead_code, reason = "schema mirror: schemars reads the fields, code never does")]
struct Common {
    /// Timeout in seconds (Claude Code parity); positive.
    #[serde(default)]
    #[schemars(range(min = 0.001))]
    timeout: Option<f64>,
    /// Timeout in milliseconds; wins over `timeout`; positive.
    #[serde(default, rename = "timeoutMs")]
    #[schemars(range(min = 1))]
    timeout_ms: Option<u64>,
    /// One Claude Code permission rule (`Bash(git *)`, `Edit(*.ts)`); honoured on tool events.
    #[serde(default, rename = "if")]
    if_rule: Option<String>,
    /// A failure of this handler blocks on the decision events instead of failing open.
    #[serde(default, rename = "failClosed")]
    fail_closed: Option<bool>,
    /// Ask to be invoked again later (preTool, preCompact, onSessionStart, onSessionEnd, onConfigReload).
    #[serde(default, rename = "asyncRewake")]
    async_rewake: Option<AsyncRewake>,
}

/// A handler.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "lowercase")]
#[expect(dead_code, reason = "schema mirror: schemars reads the fields, code never does")]
enum Handler {
    /// Runs `command` verbatim under `sh -c`; context on stdin (JSON) and in `AIMON_*` variables.
    Command {
        /// The command line (never template-rendered).
        command: String,
        #[serde(flatten)]
        common: Common,
    },
    /// Calls a webhook (preTool and postTool only).
    Http {
        /// The URL (not templated).
        url: String,
        /// HTTP method (default POST).
        #[serde(default)]
        method: Option<String>,
        /// Header values; `${tool_input.x}`, `${env.X}`, `${context.x}` are rendered.
        #[serde(default)]
        headers: Option<BTreeMap<String, String>>,
        /// A template string, or a JSON value rendered structurally.
        #[serde(default)]
        body: Option<Value>,
        /// Environment variables `${env.X}` may read.
        #[serde(default, rename = "allowedEnvVars")]
        allowed_env_vars: Option<Vec<String>>,
        #[serde(flatten)]
        common: Common,
    },
    /// Calls a tool on an MCP server declared in `.aimon/mcp.json` (preTool and postTool only).
    /// Claude Code's `mcp_tool` with `input` is read as `mcp` with `args`.
    #[serde(alias = "mcp_tool")]
    Mcp {
        /// The server name.
        server: String,
        /// The tool name.
        tool: String,
        /// Tool arguments; string values are rendered.
        #[serde(default, alias = "input")]
        args: Option<serde_json::Map<String, Value>>,
        #[serde(flatten)]
        common: Common,
    },
    /// Denies immediately with `reason` (preTool only).
    Deny {
        /// Why; shown to the model.
        reason: String,
        #[serde(flatten)]
        common: Common,
    },
}

/// `asyncRewake`: one trigger and its limits.
#[derive(Debug, Deserialize, JsonSchema)]
#[expect(dead_code, reason = "schema mirror: schemars reads the fields, code never does")]
struct AsyncRewake {
    /// Exactly one of `delay`, `cron`, `event`.
    trigger: Trigger,
    /// How long the envelope lives (`1h`, `PT30M`); default 1h.
    #[serde(default)]
    timeout: Option<String>,
    /// At least 1; default 3.
    #[serde(default, rename = "maxAttempts")]
    #[schemars(range(min = 1))]
    max_attempts: Option<u32>,
    /// String → string payload handed to the re-invocation.
    #[serde(default)]
    payload: Option<BTreeMap<String, String>>,
    /// Why (required, non-blank).
    reason: String,
}

/// A rewake trigger.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
#[expect(dead_code, reason = "schema mirror: schemars reads the fields, code never does")]
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
#[derive(Debug, Deserialize, JsonSchema)]
#[expect(dead_code, reason = "schema mirror: schemars reads the fields, code never does")]
struct EventTrigger {
    /// The event type.
    #[serde(rename = "type")]
    kind: String,
    /// The literal key.
    key: String,
}

/// The `hooks` object: its known property names come from the events table (both spellings).
fn events_schema(generator: &mut SchemaGenerator) -> Schema {
    let entries = generator.subschema_for::<Vec<Entry>>();
    let mut properties = serde_json::Map::new();
    for event in HookEventType::ALL {
        let names = std::iter::once(event.name()).chain(event.claude_name());
        for name in names {
            properties.insert(name.to_owned(), entries.clone().into());
        }
    }
    json_schema!({
        "type": "object",
        "description": "Hook entries by event name (AIMON or Claude Code spelling, case-insensitive).",
        "properties": properties,
        "additionalProperties": entries,
    })
}

/// The JSON Schema of hooks.json.
pub(crate) fn hooks_json_schema() -> Schema {
    schemars::schema_for!(HooksFile)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(rel: &str) -> String {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    #[test]
    fn the_seed_examples_and_the_demo_fit_the_mirrored_shape() {
        for rel in [
            "tests/fixtures/seed1-audit-http.json",
            "tests/fixtures/seed2-deny-rm-rf.json",
            "tests/fixtures/seed3-post-tool-metrics.json",
            "tests/fixtures/seed4-mcp-policy.json",
            "tests/fixtures/seed5-user.json",
            "tests/fixtures/seed5-project.json",
            "tests/fixtures/seed5-local.json",
            "tests/fixtures/seed6-async-rewake.json",
            "../../examples/demo/.aimon/hooks.json",
            "../../examples/demo/.aimon/hooks.local.json",
            "../../examples/demo/home/.aimon/hooks.json",
        ] {
            let parsed: Result<HooksFile, _> = serde_json::from_str(&read(rel));
            assert!(parsed.is_ok(), "{rel}: {parsed:?}");
        }
    }

    #[test]
    fn handler_types_the_loader_refuses_do_not_fit_either() {
        for handler in
            [r#"{"type":"prompt","prompt":"ok?"}"#, r#"{"type":"agent","prompt":"x"}"#, r#"{"type":"shell"}"#]
        {
            let text = format!(r#"{{"hooks":{{"PreToolUse":[{{"hooks":[{handler}]}}]}}}}"#);
            assert!(serde_json::from_str::<HooksFile>(&text).is_err(), "{handler}");
        }
    }

    #[test]
    fn every_event_of_the_table_is_a_known_property_in_both_spellings() {
        let schema = serde_json::to_value(hooks_json_schema()).expect("schema is JSON");
        let text = schema.to_string();
        for event in HookEventType::ALL {
            assert!(text.contains(&format!("\"{}\"", event.name())), "{event}");
            if let Some(claude) = event.claude_name() {
                assert!(text.contains(&format!("\"{claude}\"")), "{claude}");
            }
        }
    }
}
