//! The corpus and the corrections of its labels kept beside the bench (`peers_labels.toml`).

use std::collections::HashMap;
use std::path::Path;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Label {
    Dangerous,
    Safe,
    /// longline's "ask": neither rate counts it; the table has its own column.
    Other,
}

impl Label {
    fn parse(word: &str) -> Option<Label> {
        match word {
            "dangerous" => Some(Label::Dangerous),
            "safe" => Some(Label::Safe),
            "other" => Some(Label::Other),
            _ => None,
        }
    }

    pub(crate) fn word(self) -> &'static str {
        match self {
            Label::Dangerous => "dangerous",
            Label::Safe => "safe",
            Label::Other => "other",
        }
    }
}

/// One line of `peer-commands.jsonl`, with its label after the corrections.
#[derive(Debug, Clone)]
pub(crate) struct Line {
    pub(crate) source: String,
    pub(crate) id: String,
    pub(crate) command: String,
    pub(crate) label: Label,
    /// The label was corrected by `peers_labels.toml`.
    pub(crate) corrected: bool,
}

/// Reads the corpus (third-party data, read by path and never copied into the repository).
pub(crate) fn corpus(path: &Path) -> Result<Vec<Line>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut lines = Vec::new();
    for (n, raw) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let row: serde_json::Value =
            serde_json::from_str(raw).map_err(|e| format!("{}:{}: {e}", path.display(), n + 1))?;
        let field = |key: &str| row[key].as_str().map(str::to_string);
        let (Some(source), Some(id), Some(command), Some(label)) =
            (field("source"), field("id"), field("command"), field("label").as_deref().and_then(Label::parse))
        else {
            return Err(format!("{}:{}: a line without source, id, command or a known label", path.display(), n + 1));
        };
        lines.push(Line { source, id, command, label, corrected: false });
    }
    Ok(lines)
}

/// One entry of `peers_labels.toml`.
#[derive(Debug)]
struct Correction {
    was: Label,
    label: Label,
}

/// Applies the corrections to `lines`; returns how many applied and warnings (an entry that names
/// no line, or whose `was` is no longer the corpus' label).
pub(crate) fn correct(lines: &mut [Line], path: &Path) -> Result<(usize, Vec<String>), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let doc: toml_edit::DocumentMut = text.parse().map_err(|e| format!("{}: {e}", path.display()))?;
    let mut corrections = HashMap::new();
    if let Some(entries) = doc.get("line").and_then(|l| l.as_array_of_tables()) {
        for (n, entry) in entries.iter().enumerate() {
            let word = |key: &str| entry.get(key).and_then(|v| v.as_str()).map(str::to_string);
            let (Some(source), Some(id), Some(was), Some(label), Some(_reason), Some(_shows)) = (
                word("source"),
                word("id"),
                word("was").as_deref().and_then(Label::parse),
                word("label").as_deref().and_then(Label::parse),
                word("reason"),
                word("shows"),
            ) else {
                return Err(format!(
                    "{}: entry {}: needs source, id, was, label, reason and shows",
                    path.display(),
                    n + 1
                ));
            };
            corrections.insert((source, id), Correction { was, label });
        }
    }
    let mut warnings = Vec::new();
    let mut applied = 0;
    for line in lines.iter_mut() {
        let Some(fix) = corrections.remove(&(line.source.clone(), line.id.clone())) else { continue };
        if line.label != fix.was {
            warnings.push(format!(
                "{} {}: the corpus now says {}, the correction expected {}",
                line.source,
                line.id,
                line.label.word(),
                fix.was.word()
            ));
        }
        line.label = fix.label;
        line.corrected = true;
        applied += 1;
    }
    for (source, id) in corrections.into_keys() {
        warnings.push(format!("{source} {id}: in {} but not in the corpus", path.display()));
    }
    Ok((applied, warnings))
}
