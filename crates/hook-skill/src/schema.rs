//! The frontmatter schema (R-SKILL-1/2), checked over the located YAML tree.
//!
//! It differs from hooks.json on purpose: AIMON event keys only, one `action:` mapping per entry,
//! `shell` for the command type, `timeoutMs` only, and every violation is an error (hooks.json
//! would WARN and skip). Which events are allowed, which take a matcher and which action types
//! each accepts is read from hook-core's events table. Once the frontmatter-only rules pass, the
//! action is handed to hook-config's handler parser in its hooks.json shape, so field validation
//! (required fields, blank values, timeouts, methods, headers, bodies) and matcher parsing are the
//! one validator hooks.json uses; anything it would only WARN about is an error here.

use std::path::Path;

use hook_config::{HookEntrySpec, Tier};
use hook_core::{HandlerKind, HookEventType};
use serde_json::{Map, Value as Json};

use crate::error::Error;
use crate::yaml::{Node, Pos, Value};

/// What a SKILL.md frontmatter declares.
#[derive(Debug, Default)]
pub(crate) struct Declared {
    /// The `name:` field.
    pub(crate) name: Option<String>,
    /// One entry (with exactly one handler) per frontmatter entry, in file order.
    pub(crate) entries: Vec<HookEntrySpec>,
}

/// The longest skill name accepted.
const MAX_NAME_CHARS: usize = 64;

/// Whether `name` can be a skill name: 1 to 64 ASCII letters, digits, `-`, `_` or `.`, so that it
/// reads unambiguously inside hook ids (`command@my-skill#…`) and group names.
pub(crate) fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_NAME_CHARS
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

/// The rule [`valid_name`] checks, for messages.
pub(crate) fn name_rule() -> String {
    format!("1 to {MAX_NAME_CHARS} ASCII letters, digits, '-', '_' or '.'")
}

/// The frontmatter spelling of a handler kind: `shell` for `command`, the hooks.json name otherwise.
pub(crate) fn frontmatter_type(kind: HandlerKind) -> &'static str {
    match kind {
        HandlerKind::Command => "shell",
        other => other.config_name(),
    }
}

/// The handler kinds of the events table, in order of first appearance.
fn kinds() -> Vec<HandlerKind> {
    let mut kinds = Vec::new();
    for kind in HookEventType::ALL.iter().flat_map(|e| e.spec().handlers) {
        if !kinds.contains(kind) {
            kinds.push(*kind);
        }
    }
    kinds
}

/// Names joined with `, `.
fn list<I: IntoIterator<Item = &'static str>>(names: I) -> String {
    names.into_iter().collect::<Vec<_>>().join(", ")
}

fn frontmatter_events() -> impl Iterator<Item = HookEventType> {
    HookEventType::ALL.iter().copied().filter(|e| e.spec().frontmatter)
}

/// The handler fields common to every kind that frontmatter takes: milliseconds only, and
/// neither `if` nor `asyncRewake`. A `deny` action takes none of them.
const FRONTMATTER_COMMON_FIELDS: [&str; 2] = ["timeoutMs", "failClosed"];

/// The fields an action of `kind` takes besides `type`: its own (hook-config's handler model)
/// and, but for `deny`, the frontmatter's common ones.
fn action_fields(kind: HandlerKind) -> Vec<&'static str> {
    let common: &[&str] = if kind == HandlerKind::Deny { &[] } else { &FRONTMATTER_COMMON_FIELDS };
    hook_config::handler_fields(kind).iter().chain(common).copied().collect()
}

/// Checks a parsed frontmatter. `origin` names the file in messages; `first_line` is the file
/// line the YAML starts on.
pub(crate) struct Checker<'a> {
    pub(crate) origin: &'a str,
    pub(crate) first_line: u64,
}

impl Checker<'_> {
    /// An error at `pos` of the YAML block.
    pub(crate) fn error(&self, pos: Pos, message: impl Into<String>) -> Error {
        Error::Frontmatter {
            origin: self.origin.to_owned(),
            line: pos.line + self.first_line - 1,
            column: pos.column,
            message: message.into(),
        }
    }

    fn key<'n>(&self, key: &'n Node, what: &str) -> Result<&'n str, Error> {
        match &key.value {
            Value::Str(s) => Ok(s),
            other => Err(self.error(key.pos, format!("{what} must be strings, found {}", other.kind()))),
        }
    }

    /// The whole frontmatter: `name` and `hooks` are read, other keys are the skill's business.
    pub(crate) fn document(&self, root: &Node) -> Result<Declared, Error> {
        let fields = match &root.value {
            Value::Null => return Ok(Declared::default()),
            Value::Map(fields) => fields,
            other => {
                return Err(self.error(
                    root.pos,
                    format!("the frontmatter must be a mapping (name: …, hooks: …), found {}", other.kind()),
                ));
            }
        };
        let mut declared = Declared::default();
        for (key, value) in fields {
            match &key.value {
                Value::Str(k) if k == "name" => match &value.value {
                    Value::Str(name) if valid_name(name) => declared.name = Some(name.clone()),
                    Value::Str(name) => {
                        return Err(self.error(value.pos, format!("'name' must be {}, found '{name}'", name_rule())));
                    }
                    other => {
                        return Err(self.error(value.pos, format!("'name' must be a string, found {}", other.kind())));
                    }
                },
                Value::Str(k) if k == "hooks" => declared.entries = self.hooks(value)?,
                _ => {}
            }
        }
        Ok(declared)
    }

    fn hooks(&self, hooks: &Node) -> Result<Vec<HookEntrySpec>, Error> {
        let events = match &hooks.value {
            Value::Null => return Ok(Vec::new()),
            Value::Map(events) => events,
            other => {
                return Err(self.error(
                    hooks.pos,
                    format!(
                        "'hooks' must be a mapping from AIMON event names to lists of entries, found {}",
                        other.kind()
                    ),
                ));
            }
        };
        let mut out = Vec::new();
        for (key, entries) in events {
            let event = self.event(key)?;
            let Value::Seq(entries) = &entries.value else {
                return Err(self.error(
                    entries.pos,
                    format!(
                        "'{event}' must be a list of entries (- action: {{ type: …, … }}), found {}",
                        entries.value.kind()
                    ),
                ));
            };
            for entry in entries {
                out.push(self.entry(event, entry)?);
            }
        }
        Ok(out)
    }

    /// An event key: the exact AIMON name of an event the table allows in frontmatter.
    fn event(&self, key: &Node) -> Result<HookEventType, Error> {
        let name = self.key(key, "event keys")?;
        if let Some(event) = frontmatter_events().find(|e| e.name() == name) {
            return Ok(event);
        }
        let allowed = list(frontmatter_events().map(HookEventType::name));
        let message = match HookEventType::resolve(name) {
            Ok(event) if !event.spec().frontmatter => {
                let written = if name == event.name() { format!("'{name}'") } else { format!("'{name}' ({event})") };
                format!(
                    "{written} cannot be declared in frontmatter: it fires outside a skill invocation, in the session or application lifecycle; declare it in hooks.json"
                )
            }
            Ok(event) if event.claude_name().is_some_and(|c| c.eq_ignore_ascii_case(name.trim())) => {
                format!(
                    "'{name}' is a Claude Code event name; frontmatter takes AIMON event keys only: write '{event}'"
                )
            }
            Ok(event) => format!("event key '{name}' must be written exactly '{event}'"),
            Err(hook_core::EventNameError::Unsupported(_)) => {
                format!("'{name}' event is not supported by AIMON in this phase; frontmatter event keys are: {allowed}")
            }
            Err(_) => format!("unknown event '{name}'; frontmatter event keys are: {allowed}"),
        };
        Err(self.error(key.pos, message))
    }

    fn entry(&self, event: HookEventType, entry: &Node) -> Result<HookEntrySpec, Error> {
        let Value::Map(fields) = &entry.value else {
            return Err(self.error(
                entry.pos,
                format!("an entry of '{event}' must be a mapping with an 'action:' key, found {}", entry.value.kind()),
            ));
        };
        let takes_matcher = event.spec().frontmatter_matcher;
        let (mut matcher, mut action) = (None, None);
        for (key, value) in fields {
            match self.key(key, "entry keys")? {
                "action" => action = Some(value),
                "matcher" if takes_matcher => matcher = Some(value),
                "matcher" => {
                    let allowed =
                        list(frontmatter_events().filter(|e| e.spec().frontmatter_matcher).map(HookEventType::name));
                    return Err(self.error(
                        key.pos,
                        format!("'matcher' is not allowed on '{event}': only {allowed} take a matcher in frontmatter"),
                    ));
                }
                "hooks" => {
                    return Err(self.error(
                        key.pos,
                        "nested 'hooks:' arrays are the hooks.json shape; a frontmatter entry has one 'action:' mapping instead: write '- action: { type: shell, command: \"…\" }'",
                    ));
                }
                other => {
                    let takes = if takes_matcher { "'matcher' and 'action'" } else { "only 'action'" };
                    return Err(self.error(
                        key.pos,
                        format!("unknown key '{other}' in an entry of '{event}': an entry takes {takes}"),
                    ));
                }
            }
        }
        let matcher = match matcher {
            None => None,
            Some(Node { value: Value::Str(m), .. }) => Some(m.as_str()),
            Some(other) => {
                return Err(self.error(other.pos, format!("'matcher' must be a string, found {}", other.value.kind())));
            }
        };
        let Some(action) = action else {
            return Err(self.error(entry.pos, format!("an entry of '{event}' has no 'action:' mapping")));
        };
        let handler = self.action(event, action)?;
        self.validate(event, matcher, handler, action, entry)
    }

    /// The frontmatter-only rules of an action; returns it in its hooks.json shape.
    fn action(&self, event: HookEventType, action: &Node) -> Result<Json, Error> {
        let types = list(kinds().into_iter().map(frontmatter_type));
        let Value::Map(fields) = &action.value else {
            return Err(self.error(
                action.pos,
                format!("'action' must be a mapping with a 'type' ({types}), found {}", action.value.kind()),
            ));
        };
        let Some((type_key, type_node)) = fields.iter().find(|(k, _)| k.value == Value::Str("type".to_owned())) else {
            return Err(self.error(action.pos, format!("'action' has no 'type': write one of {types}")));
        };
        let Value::Str(written) = &type_node.value else {
            return Err(self.error(type_node.pos, format!("'type' must be a string, found {}", type_node.value.kind())));
        };
        let Some(kind) = kinds().into_iter().find(|k| frontmatter_type(*k) == written) else {
            let message = match kinds().into_iter().find(|k| k.config_name() == written) {
                Some(kind) => format!(
                    "action type '{written}' is the hooks.json spelling; in frontmatter write 'type: {}'",
                    frontmatter_type(kind)
                ),
                None => format!("unknown action type '{written}': write one of {types}"),
            };
            return Err(self.error(type_node.pos, message));
        };
        if !event.allows_handler(kind) {
            let valid_on = list(frontmatter_events().filter(|e| e.allows_handler(kind)).map(HookEventType::name));
            return Err(self.error(
                type_node.pos,
                format!("action type '{written}' is not valid on '{event}': it is valid only on {valid_on}"),
            ));
        }
        let allowed = action_fields(kind);
        let mut handler = Map::new();
        handler.insert("type".to_owned(), Json::from(kind.config_name()));
        for (key, value) in fields.iter().filter(|(k, _)| k != type_key) {
            let name = self.key(key, "action keys")?;
            if name == "timeout" && allowed.contains(&"timeoutMs") {
                let example = match value.value {
                    Value::Int(secs) if secs > 0 && secs < i128::from(u32::MAX) => {
                        format!("timeoutMs: {}", secs * 1000)
                    }
                    _ => "timeoutMs: 5000".to_owned(),
                };
                return Err(self.error(
                    key.pos,
                    format!("'timeout' is not accepted in frontmatter: give milliseconds as 'timeoutMs' ({example})"),
                ));
            }
            if !allowed.contains(&name) {
                return Err(self.error(
                    key.pos,
                    format!(
                        "unknown field '{name}' in a '{written}' action: it takes {}",
                        list(allowed.iter().copied())
                    ),
                ));
            }
            handler.insert(name.to_owned(), self.json(value)?);
        }
        Ok(Json::Object(handler))
    }

    /// A YAML value as JSON (mapping keys must be strings, numbers finite and in range).
    fn json(&self, node: &Node) -> Result<Json, Error> {
        Ok(match &node.value {
            Value::Null => Json::Null,
            Value::Bool(b) => Json::Bool(*b),
            Value::Int(i) => match (i64::try_from(*i), u64::try_from(*i)) {
                (Ok(n), _) => Json::from(n),
                (_, Ok(n)) => Json::from(n),
                _ => return Err(self.error(node.pos, "number out of range")),
            },
            Value::Float(f) => serde_json::Number::from_f64(*f)
                .map(Json::Number)
                .ok_or_else(|| self.error(node.pos, "numbers must be finite"))?,
            Value::Str(s) => Json::String(s.clone()),
            Value::Seq(items) => Json::Array(items.iter().map(|n| self.json(n)).collect::<Result<_, _>>()?),
            Value::Map(fields) => {
                let mut map = Map::new();
                for (k, v) in fields {
                    map.insert(self.key(k, "mapping keys")?.to_owned(), self.json(v)?);
                }
                Json::Object(map)
            }
        })
    }

    /// Runs the entry through hook-config's parser as a one-handler hooks.json document of the
    /// SKILL tier. Its WARNs are errors here; each is placed on the field it names.
    fn validate(
        &self,
        event: HookEventType,
        matcher: Option<&str>,
        handler: Json,
        action: &Node,
        entry: &Node,
    ) -> Result<HookEntrySpec, Error> {
        let mut json_entry = Map::new();
        if let Some(m) = matcher {
            json_entry.insert("matcher".to_owned(), Json::from(m));
        }
        json_entry.insert("hooks".to_owned(), Json::Array(vec![handler]));
        let mut events = Map::new();
        events.insert(event.name().to_owned(), Json::Array(vec![Json::Object(json_entry)]));
        let doc = serde_json::json!({ "hooks": events }).to_string();
        let parsed = hook_config::parse_config(&doc, Path::new(self.origin), Tier::Skill);
        let diagnostic = match parsed {
            Ok((file, diagnostics)) => match diagnostics.into_iter().next() {
                Some(d) => d,
                None => {
                    let entry_spec = file.entries.into_iter().next().filter(|e| e.handlers.len() == 1);
                    return entry_spec.ok_or_else(|| self.error(action.pos, "the action was not accepted"));
                }
            },
            Err(hook_config::Error::Config(d)) => d,
            Err(other) => return Err(self.error(action.pos, other.to_string())),
        };
        let entry_pointer = format!("/hooks/{}/0", event.name());
        let at = match diagnostic.pointer.strip_prefix(&entry_pointer) {
            Some(rest) if rest.starts_with("/hooks/0") => place(action, &rest["/hooks/0".len()..]),
            Some(rest) => place(entry, rest),
            None => action.pos,
        };
        Err(self.error(at, diagnostic.message))
    }
}

/// Where a JSON pointer below `node` lands in the YAML tree: the deepest node it reaches (a
/// missing field is reported on the mapping that lacks it).
fn place(node: &Node, pointer: &str) -> Pos {
    let mut node = node;
    for token in pointer.split('/').skip(1) {
        let token = token.replace("~1", "/").replace("~0", "~");
        let next = match &node.value {
            Value::Map(fields) => fields.iter().find(|(k, _)| k.value == Value::Str(token.clone())).map(|(_, v)| v),
            Value::Seq(items) => token.parse::<usize>().ok().and_then(|i| items.get(i)),
            _ => None,
        };
        match next {
            Some(next) => node = next,
            None => break,
        }
    }
    node.pos
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_frontmatter_common_fields_are_handler_fields_of_the_model() {
        for field in FRONTMATTER_COMMON_FIELDS {
            assert!(hook_config::common_handler_fields().contains(&field), "{field}");
        }
        assert_eq!(action_fields(HandlerKind::Command), ["command", "timeoutMs", "failClosed"]);
        assert_eq!(action_fields(HandlerKind::Deny), ["reason"]);
    }
}
