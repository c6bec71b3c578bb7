//! Which packs the tiers turn on, and which of their rules the person turns off.
//!
//! - `"packs": [name, …]` counts in every tier; a pack several tiers turn on is loaded once, as
//!   the highest tier's (so the managed tier's pack stays the organisation's). `aimon/self` is
//!   always on; naming it changes nothing.
//! - `"disable": ["<pack>#<rule>", …]` counts in the person's own file and the managed tier's;
//!   a project's (or its local file's) is ignored with a WARN, so a repository cannot switch the
//!   person's protection off. A USER `disable` of a rule of a pack the managed tier turned on is
//!   refused with a WARN. Self-protection's rules are not turned off this way
//!   (`"selfProtection": false`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

use super::{DISABLE_KEY, PACKS, PACKS_KEY, pack};
use crate::diagnostic::{Diagnostic, Severity};
use crate::position::{Pos, PositionIndex};
use crate::protect::SELF_GROUP;
use crate::spec::LoadedConfig;
use crate::tier::Tier;

/// The two keys, from a file whose other keys the loader reads.
#[derive(Debug, Default, Deserialize)]
struct Keys {
    #[serde(default)]
    packs: Option<Value>,
    #[serde(default)]
    disable: Option<Value>,
}

/// One file's WARNs, placed by JSON pointer.
struct Warner<'a> {
    path: &'a Path,
    text: &'a str,
    index: Option<PositionIndex>,
    out: &'a mut Vec<Diagnostic>,
}

impl Warner<'_> {
    fn warn(&mut self, pointer: &str, message: String) {
        let index = self.index.get_or_insert_with(|| PositionIndex::new(self.text));
        let pos = if pointer.is_empty() { Pos { line: 1, column: 1 } } else { index.value(pointer) };
        self.out.push(Diagnostic::at(Severity::Warning, self.path, pos, pointer, message));
    }
}

/// The strings of a `packs` or `disable` value, with their pointers; a WARN for anything else.
fn strings(value: Option<Value>, key: &str, w: &mut Warner<'_>) -> Vec<(String, String)> {
    match value {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .into_iter()
            .enumerate()
            .filter_map(|(i, item)| match item {
                Value::String(s) => Some((s, format!("/{key}/{i}"))),
                _ => {
                    w.warn(&format!("/{key}/{i}"), format!("hooks: '{key}' holds names (strings); ignored"));
                    None
                }
            })
            .collect(),
        Some(_) => {
            w.warn(&format!("/{key}"), format!("hooks: '{key}' must be a list of names; ignored"));
            Vec::new()
        }
    }
}

/// Adds the packs the tier files (`files`: tier, path, text, in dispatch order) turn on to
/// `config`, each without the rules turned off, and returns the WARNs.
pub(crate) fn apply(files: &[(Tier, PathBuf, String)], config: &mut LoadedConfig) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    // The highest tier turning each pack on.
    let mut on: BTreeMap<&'static str, Tier> = BTreeMap::new();
    // Each honoured `disable`: the rule id, the tier, and where it was written.
    let mut off: Vec<(String, Tier, usize, String)> = Vec::new();
    for (k, (tier, path, text)) in files.iter().enumerate() {
        if !text.contains(PACKS_KEY) && !text.contains(DISABLE_KEY) {
            continue;
        }
        let Ok(keys) = serde_json::from_str::<Keys>(text) else { continue };
        let mut w = Warner { path, text, index: None, out: &mut out };
        for (name, pointer) in strings(keys.packs, PACKS_KEY, &mut w) {
            match pack(&name) {
                Some(p) => {
                    on.entry(p.name).or_insert(*tier);
                }
                None if name == SELF_GROUP => {}
                None => {
                    let known: Vec<&str> = PACKS.iter().map(|p| p.name).chain([SELF_GROUP]).collect();
                    w.warn(&pointer, format!("hooks: unknown pack '{name}' (known: {}); ignored", known.join(", ")));
                }
            }
        }
        let disables = strings(keys.disable, DISABLE_KEY, &mut w);
        if !disables.is_empty() && !matches!(tier, Tier::User | Tier::Managed) {
            let message = format!(
                "hooks: '{DISABLE_KEY}' is read only from your own ~/.aimon/hooks.json (a project cannot turn a \
                 pack's rule off); ignored in {tier}"
            );
            w.warn(&format!("/{DISABLE_KEY}"), message);
            continue;
        }
        for (id, pointer) in disables {
            let known =
                id.split_once('#').and_then(|(p, _)| pack(p)).is_some_and(|p| p.rules().iter().any(|r| r.id == id));
            if id.starts_with(&format!("{SELF_GROUP}#")) {
                let message = format!(
                    "hooks: '{id}' is self-protection, which only \"selfProtection\": false in your own \
                     ~/.aimon/hooks.json turns off; ignored"
                );
                w.warn(&pointer, message);
            } else if !known {
                w.warn(&pointer, format!("hooks: no pack has a rule '{id}' (`aimon-hooks packs` lists them); ignored"));
            } else {
                off.push((id, *tier, k, pointer));
            }
        }
    }
    for (name, tier) in on {
        let Some(p) = pack(name) else { continue };
        let mut turned_off = Vec::new();
        for (id, by, k, pointer) in &off {
            if !id.starts_with(&format!("{name}#")) {
                continue;
            }
            if *by > tier {
                let (_, path, text) = &files[*k];
                let mut w = Warner { path, text, index: None, out: &mut out };
                let message = format!(
                    "hooks: '{id}' is a rule of a pack the organisation's managed policy turns on; a {by} file \
                     cannot turn it off; ignored"
                );
                w.warn(pointer, message);
            } else {
                turned_off.push(id.clone());
            }
        }
        config.files.push(p.file(tier, &turned_off));
    }
    out
}
