//! R-LAYER-4: an AIMON event name literal appears in exactly one non-test source file (hook-core's
//! events table). Likewise a Claude Code hook-output key that cannot be mistaken for a plain word
//! (one with a capital letter, `hookSpecificOutput`) appears only in hook-claude's `keys.rs`. Test
//! code (`tests/`, `benches/`, and `#[cfg(test)]` modules at the end of a file) and comments do not
//! count.

use std::path::{Path, PathBuf};

use anyhow::Result;
use hook_core::HookEventType;
use hook_wire::claude::Key;

/// Non-test source files under `crates/*/src`, with the test module (if any) cut off.
fn source_files(root: &Path) -> Result<Vec<(PathBuf, String)>> {
    let mut files = Vec::new();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root.join("crates"))?
        .filter_map(|e| e.ok().map(|e| e.path().join("src")))
        .filter(|p| p.is_dir())
        .collect();
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir)? {
            let path = entry?.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path)?;
                files.push((path, production_part(&text)));
            }
        }
    }
    files.sort();
    Ok(files)
}

/// The text before the first `#[cfg(test)]`, without comment lines.
pub(crate) fn production_part(text: &str) -> String {
    text.lines()
        .take_while(|l| l.trim() != "#[cfg(test)]")
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Files (relative to `root`) that contain `"<word>"` for one of `words`.
fn files_spelling(files: &[(PathBuf, String)], root: &Path, words: &[&str]) -> Vec<String> {
    let mut hits: Vec<String> = files
        .iter()
        .filter(|(_, text)| words.iter().any(|w| text.contains(&format!("\"{w}\""))))
        .map(|(p, _)| p.strip_prefix(root).unwrap_or(p).display().to_string())
        .collect();
    hits.sort();
    hits
}

/// Files (relative to `root`) that contain `"<name>"` for some AIMON event name.
pub(crate) fn files_with_literals(files: &[(PathBuf, String)], root: &Path) -> Vec<String> {
    let names: Vec<&str> = HookEventType::ALL.iter().map(|e| e.name()).collect();
    files_spelling(files, root, &names)
}

/// Files (relative to `root`) that contain a distinctive Claude Code output key as a literal.
fn files_with_output_keys(files: &[(PathBuf, String)], root: &Path) -> Vec<String> {
    let keys: Vec<&str> = Key::ALL.iter().copied().filter(|k| k.chars().any(char::is_uppercase)).collect();
    files_spelling(files, root, &keys)
}

pub(crate) fn check_event_literals(root: &Path) -> Result<Vec<String>> {
    let files = source_files(root)?;
    let mut problems = sentences(&files_with_literals(&files, root));
    problems.extend(key_sentences(&files_with_output_keys(&files, root)));
    Ok(problems)
}

fn key_sentences(hits: &[String]) -> Vec<String> {
    const KEYS: &str = "crates/hook-wire/src/claude/keys.rs";
    let mut problems: Vec<String> = hits
        .iter()
        .filter(|h| h.as_str() != KEYS)
        .map(|h| format!("{h} spells a Claude Code hook-output key as a string literal; use hook_wire::claude::Key"))
        .collect();
    if !hits.iter().any(|h| h == KEYS) {
        problems.push(format!("{KEYS} no longer holds the Claude Code hook-output key literals"));
    }
    problems
}

fn sentences(hits: &[String]) -> Vec<String> {
    const TABLE: &str = "crates/hook-core/src/events.rs";
    let mut problems: Vec<String> = hits
        .iter()
        .filter(|h| h.as_str() != TABLE)
        .map(|h| {
            format!(
                "{h} spells an AIMON event name as a string literal; take it from hook-core's events table (R-LAYER-4)"
            )
        })
        .collect();
    if !hits.iter().any(|h| h == TABLE) {
        problems.push(format!("{TABLE} no longer holds the event name literals (R-LAYER-4)"));
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_literal_outside_the_events_table_is_reported() {
        let root = Path::new("/w");
        let files = vec![
            (PathBuf::from("/w/crates/hook-core/src/events.rs"), "aimon: \"preTool\"".to_owned()),
            (PathBuf::from("/w/crates/hook-config/src/x.rs"), "if name == \"postCompact\" {}".to_owned()),
            (
                PathBuf::from("/w/crates/hook-cli/src/y.rs"),
                production_part("// \"preTool\" in a comment\n#[cfg(test)]\nmod tests { \"onStart\" }"),
            ),
        ];
        let problems = sentences(&files_with_literals(&files, root));
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].starts_with("crates/hook-config/src/x.rs spells an AIMON event name"));
    }

    #[test]
    fn an_output_key_outside_hook_claude_keys_is_reported_and_a_plain_word_is_not() {
        let root = Path::new("/w");
        let files = vec![
            (PathBuf::from("/w/crates/hook-wire/src/claude/keys.rs"), "\"hookSpecificOutput\"".to_owned()),
            (PathBuf::from("/w/crates/hook-actions/src/x.rs"), "obj.get(\"permissionDecision\")".to_owned()),
            (PathBuf::from("/w/crates/hook-config/src/y.rs"), "required(\"reason\")".to_owned()),
            (
                PathBuf::from("/w/crates/hook-server/src/z.rs"),
                production_part("// \"systemMessage\" in a comment\n#[cfg(test)]\nmod tests { \"stopReason\" }"),
            ),
        ];
        let problems = key_sentences(&files_with_output_keys(&files, root));
        assert_eq!(
            problems,
            [
                "crates/hook-actions/src/x.rs spells a Claude Code hook-output key as a string literal; use hook_wire::claude::Key"
            ]
        );
    }
}
