//! Unsafe code lives in five modules: the allocator switch of `aimon-hooks`
//! (`crates/hook-cli/src/alloc.rs`) and the exec guard's start of the command's process, the
//! mounts of its namespace, its signal handlers and its seccomp listener
//! (`crates/hook-guard/src/spawn.rs`, `mounts.rs`, `relay.rs`, `notify.rs`). The workspace denies
//! `unsafe_code`; this check makes sure no other file lifts that lint (`allow`/`expect`/`warn` of
//! `unsafe_code`), tests and benches included.

use std::path::{Path, PathBuf};

use anyhow::Result;

/// The files that may lift the lint, for the modules they declare.
const ALLOWED: &[&str] = &["crates/hook-cli/src/main.rs", "crates/hook-guard/src/lib.rs"];

/// The lint's name.
const LINT: &str = "unsafe_code";

/// Every `.rs` file under `crates/`, `xtask/` and `fuzz/` (build output excluded).
fn rust_files(root: &Path) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    let mut dirs: Vec<PathBuf> =
        ["crates", "xtask", "fuzz"].iter().map(|d| root.join(d)).filter(|p| p.is_dir()).collect();
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir)? {
            let path = entry?.path();
            if path.is_dir() {
                if path.file_name().is_none_or(|n| n != "target") {
                    dirs.push(path);
                }
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    Ok(files)
}

/// Whether `text` lifts the `unsafe_code` lint somewhere.
fn lifts_the_lint(text: &str) -> bool {
    ["allow(", "expect(", "warn("]
        .iter()
        .any(|level| text.match_indices(level).any(|(at, _)| text[at + level.len()..].trim_start().starts_with(LINT)))
}

pub(crate) fn check_unsafe_code(root: &Path) -> Result<Vec<String>> {
    let mut problems = Vec::new();
    for path in rust_files(root)? {
        let relative = path.strip_prefix(root).unwrap_or(&path).display().to_string();
        if !ALLOWED.contains(&relative.as_str()) && lifts_the_lint(&std::fs::read_to_string(&path)?) {
            problems.push(format!(
                "{relative} allows unsafe code; the workspace keeps it to the allocator switch (crates/hook-cli/src/alloc.rs) and the exec guard's spawn.rs, mounts.rs, relay.rs and notify.rs"
            ));
        }
    }
    Ok(problems)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_way_of_lifting_the_lint_is_seen_and_other_mentions_are_not() {
        let table = [
            (format!("#![allow({LINT})]"), true),
            (format!("#[expect({LINT}, reason = \"x\")]"), true),
            (format!("#[warn( {LINT})]"), true),
            ("#[allow(dead_code)]".to_owned(), false),
            (format!("{LINT} = \"deny\""), false),
        ];
        for (text, lifts) in table {
            assert_eq!(lifts_the_lint(&text), lifts, "{text}");
        }
    }

    #[test]
    fn only_the_allowed_files_lift_the_lint_today_and_each_of_them_does() {
        let root = crate::workspace_root();
        assert_eq!(check_unsafe_code(&root).expect("readable"), Vec::<String>::new());
        for file in ALLOWED {
            assert!(lifts_the_lint(&std::fs::read_to_string(root.join(file)).expect("readable")), "{file}");
        }
    }
}
