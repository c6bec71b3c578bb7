//! R-LAYER-4: an AIMON event name literal appears in exactly one non-test source file (hook-core's
//! events table). Likewise a Claude Code key — of the answer (those that cannot be mistaken for a
//! plain word: with a capital letter, `hookSpecificOutput`) and of the payload (with an
//! underscore, `tool_input`, `hook_event_name`; the wire module's tables `Key::ALL` and
//! `PayloadKey::ALL` list them) — is
//! spelled only in the wire crate, `crates/hook-wire/src/` (Claude Code's module, and the other
//! clients' modules whose own wire shares a key: Gemini's `decision`, Qwen's `tool_input`). And no crate but hook-core decides behaviour
//! by comparing or matching an event constant (`== HookEventType::PRE_TOOL`, a match arm): what an
//! event does is a column of the events table. Test code (`tests/`, `benches/`, and
//! `#[cfg(test)]` modules at the end of a file) and comments do not count.

use std::path::{Path, PathBuf};

use anyhow::Result;
use hook_core::HookEventType;
use hook_wire::claude::{Key, PayloadKey};

/// Non-test source files under `crates/*/src`, with the test module (if any) cut off.
pub(crate) fn source_files(root: &Path) -> Result<Vec<(PathBuf, String)>> {
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

/// The Claude Code keys no file outside the wire module may spell: those that cannot be mistaken
/// for a plain word (`cwd` is also a `/proc` entry): answer keys with a capital letter, payload
/// keys with an underscore, and the http handler's `allowedEnvVars`.
fn claude_keys() -> Vec<&'static str> {
    let answer = Key::ALL.iter().copied().filter(|k| k.chars().any(char::is_uppercase));
    let payload = PayloadKey::ALL.iter().copied().filter(|k| k.contains('_'));
    answer.chain(payload).chain([hook_wire::claude::ALLOWED_ENV_VARS]).collect()
}

/// Files (relative to `root`) that contain a Claude Code key as a literal.
fn files_with_output_keys(files: &[(PathBuf, String)], root: &Path) -> Vec<String> {
    files_spelling(files, root, &claude_keys())
}

/// `HookEventType::<CONST>` compared (`==`, `!=`) or matched (an arm, `matches!`) on.
fn event_decision() -> regex::Regex {
    regex::Regex::new(
        r"(?:[=!]=\s*HookEventType::[A-Z][A-Z_]+)|(?:HookEventType::[A-Z][A-Z_]+\s*(?:==|!=|=>|\|))|(?:matches!\([^)]*HookEventType::[A-Z])",
    )
    .unwrap_or_else(|e| unreachable!("the pattern is valid: {e}"))
}

/// Files (relative to `root`) outside hook-core that decide by an event constant.
pub(crate) fn files_deciding_by_event(files: &[(PathBuf, String)], root: &Path) -> Vec<String> {
    let pattern = event_decision();
    let mut hits: Vec<String> = files
        .iter()
        .map(|(p, text)| (p.strip_prefix(root).unwrap_or(p).display().to_string(), text))
        .filter(|(p, text)| !p.starts_with("crates/hook-core/") && pattern.is_match(text))
        .map(|(p, _)| p)
        .collect();
    hits.sort();
    hits
}

pub(crate) fn check_event_literals(root: &Path) -> Result<Vec<String>> {
    let files = source_files(root)?;
    let mut problems = sentences(&files_with_literals(&files, root));
    problems.extend(key_sentences(&files_with_output_keys(&files, root)));
    problems.extend(files_deciding_by_event(&files, root).into_iter().map(|f| {
        format!("{f} decides by comparing or matching a HookEventType constant; give the events table a column instead")
    }));
    Ok(problems)
}

fn key_sentences(hits: &[String]) -> Vec<String> {
    const WIRE: &str = "crates/hook-wire/src/";
    const TABLES: [&str; 2] = ["crates/hook-wire/src/claude/keys.rs", "crates/hook-wire/src/claude/fields.rs"];
    let mut problems: Vec<String> = hits
        .iter()
        .filter(|h| !h.starts_with(WIRE))
        .map(|h| format!("{h} spells a Claude Code key as a string literal; use hook_wire::claude::Key, PayloadKey or ALLOWED_ENV_VARS"))
        .collect();
    for table in TABLES.iter().filter(|t| !hits.iter().any(|h| h == *t)) {
        problems.push(format!("{table} no longer holds Claude Code key literals"));
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
    fn a_claude_key_outside_the_wire_module_is_reported_and_a_plain_word_is_not() {
        let root = Path::new("/w");
        let files = vec![
            (PathBuf::from("/w/crates/hook-wire/src/claude/keys.rs"), "\"hookSpecificOutput\"".to_owned()),
            (PathBuf::from("/w/crates/hook-wire/src/claude/fields.rs"), "\"tool_input\"".to_owned()),
            (PathBuf::from("/w/crates/hook-wire/src/claude/mod.rs"), "\"session_id\"".to_owned()),
            (PathBuf::from("/w/crates/hook-actions/src/x.rs"), "obj.get(\"permissionDecision\")".to_owned()),
            (PathBuf::from("/w/crates/hook-actions/src/p.rs"), "json.insert(\"tool_input\", v)".to_owned()),
            (PathBuf::from("/w/crates/hook-config/src/y.rs"), "required(\"reason\")".to_owned()),
            (PathBuf::from("/w/crates/hook-cli/src/i.rs"), "(\"url\" | \"allowedEnvVars\", kind)".to_owned()),
            (
                PathBuf::from("/w/crates/hook-server/src/z.rs"),
                production_part("// \"systemMessage\" in a comment\n#[cfg(test)]\nmod tests { \"stopReason\" }"),
            ),
        ];
        let problems = key_sentences(&files_with_output_keys(&files, root));
        assert_eq!(
            problems,
            [
                "crates/hook-actions/src/p.rs spells a Claude Code key as a string literal; use hook_wire::claude::Key, PayloadKey or ALLOWED_ENV_VARS",
                "crates/hook-actions/src/x.rs spells a Claude Code key as a string literal; use hook_wire::claude::Key, PayloadKey or ALLOWED_ENV_VARS",
                "crates/hook-cli/src/i.rs spells a Claude Code key as a string literal; use hook_wire::claude::Key, PayloadKey or ALLOWED_ENV_VARS",
            ]
        );
    }

    #[test]
    fn deciding_by_an_event_constant_outside_hook_core_is_reported_and_naming_one_is_not() {
        let root = Path::new("/w");
        let file = |path: &str, text: &str| (PathBuf::from(format!("/w/{path}")), production_part(text));
        let files = vec![
            file("crates/hook-core/src/chains.rs", "if ctx.event == HookEventType::ON_STOP {}"),
            file("crates/hook-a/src/x.rs", "if event == HookEventType::POST_TOOL {}"),
            file("crates/hook-b/src/x.rs", "match e { HookEventType::ON_STOP => 1, _ => 0 }"),
            file("crates/hook-c/src/x.rs", "HookEventType::PRE_TOOL | HookEventType::POST_TOOL => {}"),
            file("crates/hook-d/src/x.rs", "matches!(e, HookEventType::ON_STOP)"),
            file("crates/hook-e/src/x.rs", "x != HookEventType::ON_START"),
            file(
                "crates/hook-f/src/x.rs",
                "registry.register(HookEventType::ON_CONFIG_RELOAD, h); HookEventType::ALL.len()",
            ),
            file(
                "crates/hook-g/src/x.rs",
                "fn f() {}\n#[cfg(test)]\nmod tests { assert!(e == HookEventType::ON_STOP) }",
            ),
        ];
        let hits = files_deciding_by_event(&files, root);
        let expected = ["a", "b", "c", "d", "e"].map(|c| format!("crates/hook-{c}/src/x.rs"));
        assert_eq!(hits, expected);
    }
}
