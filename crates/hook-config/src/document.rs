//! A hooks.json document in the model's types: what the importer writes and what the JSON Schema
//! of `aimon-hooks schema` is derived from (R-CLI-6, R-CC-3).

use std::collections::BTreeMap;

use hook_actions::ModelEndpoint;
use hook_core::HookEventType;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Serialize;

use crate::handler::{HandlerSpec, handler_schema};

/// A hooks.json file: `{"hooks": {"<Event>": [{"matcher": "...", "hooks": [handler, ...]}]}}`, and
/// in the person's own file the `model` of prompt and agent hooks.
#[derive(Clone, Debug, Default, PartialEq, Serialize, JsonSchema)]
#[schemars(title = "aimon hooks.json")]
#[non_exhaustive]
pub struct HooksDocument {
    /// Hook entries by event. AIMON (`preTool`) and Claude Code (`PreToolUse`) names are both
    /// accepted, in any case.
    #[serde(default)]
    #[schemars(schema_with = "events_schema")]
    pub hooks: BTreeMap<String, Vec<EntryDocument>>,
    /// The model `prompt` and `agent` hooks ask: read only from your own `~/.aimon/hooks.json`
    /// (a repository's file cannot spend your tokens); the key itself stays in the environment
    /// variable `keyEnv` names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<ModelEndpoint>,
    /// `false` turns self-protection off: honoured only in your own `~/.aimon/hooks.json`, and
    /// not while an organisation's managed policy is installed.
    #[serde(default, rename = "selfProtection", skip_serializing_if = "Option::is_none")]
    pub self_protection: Option<bool>,
    /// `true` runs only the organisation's managed hooks: honoured only in a managed file
    /// (`/etc/aimon/managed/`), ignored with a WARN elsewhere.
    #[serde(default, rename = "allowManagedHooksOnly", skip_serializing_if = "Option::is_none")]
    pub allow_managed_hooks_only: Option<bool>,
    /// `true` runs no hook at all: honoured only in a managed file, ignored with a WARN elsewhere.
    #[serde(default, rename = "disableAllHooks", skip_serializing_if = "Option::is_none")]
    pub disable_all_hooks: Option<bool>,
    /// The rule packs built into the binary this file turns on (`aimon/destructive`,
    /// `aimon/secrets`, `aimon/exfiltration`; `aimon-hooks packs` lists them), in any tier.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub packs: Vec<String>,
    /// Pack rules turned off by id (`aimon/destructive#force-push`): honoured only in your own
    /// `~/.aimon/hooks.json` (and a managed file), ignored with a WARN in a project's.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub disable: Vec<String>,
}

/// One matcher group of a hooks.json file.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[non_exhaustive]
pub struct EntryDocument {
    /// Which calls the group applies to: a tool name, `A|B`, a regex, `Bash(command=^git\s+push)`,
    /// a permission rule such as `Bash(git push:*)` or `Edit(src/**/*.rs)`; `*` or omitted = all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matcher: Option<String>,
    /// The handlers, run in order.
    #[serde(default)]
    #[schemars(schema_with = "handlers_schema")]
    pub hooks: Vec<HandlerSpec>,
}

impl EntryDocument {
    /// A group of `handlers` under `matcher` (`None` = all).
    pub fn new(matcher: Option<String>, hooks: Vec<HandlerSpec>) -> Self {
        EntryDocument { matcher, hooks }
    }
}

impl HooksDocument {
    /// Appends `entry` to the entries of the event written `event`.
    pub fn push(&mut self, event: &str, entry: EntryDocument) {
        self.hooks.entry(event.to_owned()).or_default().push(entry);
    }

    /// The pretty-printed, newline-terminated hooks.json text.
    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        text.push('\n');
        text
    }
}

/// The `hooks` object: its known property names come from the events table (both spellings);
/// an event's list may be `null`, as the loader allows.
fn events_schema(generator: &mut SchemaGenerator) -> Schema {
    let entries = generator.subschema_for::<Option<Vec<EntryDocument>>>();
    let mut properties = serde_json::Map::new();
    for event in HookEventType::ALL {
        for name in std::iter::once(event.name()).chain(event.claude_name()) {
            properties.insert(name.to_owned(), entries.clone().into());
        }
    }
    json_schema!({
        "type": ["object", "null"],
        "description": "Hook entries by event name (AIMON or Claude Code spelling, case-insensitive).",
        "properties": properties,
        "additionalProperties": entries,
    })
}

/// An entry's handlers (the list may be `null`, as the loader allows).
fn handlers_schema(generator: &mut SchemaGenerator) -> Schema {
    let handler = handler_schema(generator);
    json_schema!({
        "description": "The handlers, run in order.",
        "type": ["array", "null"],
        "items": handler,
    })
}

/// The JSON Schema of hooks.json, derived from the handler model.
pub fn hooks_json_schema() -> Schema {
    schemars::schema_for!(HooksDocument)
}
