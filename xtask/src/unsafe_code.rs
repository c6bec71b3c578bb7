//! Unsafe code lives in five modules ([`UNSAFE_MODULES`]): the allocator switch of `aimon-hooks`
//! (`crates/hook-cli/src/alloc.rs`) and the exec guard's start of the command's process, the
//! mounts of its namespace, its signal handlers and its seccomp listener
//! (`crates/hook-guard/src/spawn.rs`, `mounts.rs`, `relay.rs`, `notify.rs`). The workspace denies
//! `unsafe_code`; this check makes sure no other file lifts that lint (`allow`/`expect`/`warn` of
//! `unsafe_code`), tests and benches included; that the `unsafe` keyword appears in those five
//! files and no other (comments and strings aside); and that the invariant of
//! `docs/architecture.md` ("No unsafe code but …") names exactly those five files.

use std::path::{Path, PathBuf};

use anyhow::Result;

/// The files that may lift the lint, for the modules they declare.
const ALLOWED: &[&str] = &["crates/hook-cli/src/main.rs", "crates/hook-guard/src/lib.rs"];

/// The modules that hold unsafe code, declared by the files of [`ALLOWED`].
pub(crate) const UNSAFE_MODULES: &[&str] = &[
    "crates/hook-cli/src/alloc.rs",
    "crates/hook-guard/src/mounts.rs",
    "crates/hook-guard/src/notify.rs",
    "crates/hook-guard/src/relay.rs",
    "crates/hook-guard/src/spawn.rs",
];

/// The start of the architecture document's invariant on unsafe code.
const INVARIANT: &str = "- No unsafe code but ";

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
    let mut holding = Vec::new();
    for path in rust_files(root)? {
        let relative = path.strip_prefix(root).unwrap_or(&path).display().to_string();
        let text = std::fs::read_to_string(&path)?;
        if !ALLOWED.contains(&relative.as_str()) && lifts_the_lint(&text) {
            problems.push(format!(
                "{relative} allows unsafe code; the workspace keeps it to the allocator switch (crates/hook-cli/src/alloc.rs) and the exec guard's spawn.rs, mounts.rs, relay.rs and notify.rs"
            ));
        }
        if !relative.starts_with("xtask/") && has_unsafe(&text) {
            holding.push(relative);
        }
    }
    for file in &holding {
        if !UNSAFE_MODULES.contains(&file.as_str()) {
            problems.push(format!("{file} holds unsafe code but is not in UNSAFE_MODULES (xtask/src/unsafe_code.rs)"));
        }
    }
    for file in UNSAFE_MODULES {
        if !holding.iter().any(|h| h == file) {
            problems.push(format!(
                "{file} is in UNSAFE_MODULES (xtask/src/unsafe_code.rs) but holds no unsafe code; take it off"
            ));
        }
    }
    let arch = std::fs::read_to_string(root.join("docs/architecture.md"))?;
    problems.extend(check_invariant(&arch));
    Ok(problems)
}

/// Whether `text` holds the `unsafe` keyword outside comments and literals.
fn has_unsafe(text: &str) -> bool {
    crate::modules::lex(text).iter().any(|t| t == "unsafe")
}

/// The `.rs` files in backticks of the invariant bullet on unsafe code, against [`UNSAFE_MODULES`].
fn check_invariant(arch: &str) -> Vec<String> {
    let Some(start) = arch.find(INVARIANT) else {
        return vec![format!("docs/architecture.md has no invariant starting \"{INVARIANT}\"")];
    };
    let bullet = &arch[start..];
    let bullet = &bullet[..bullet[2..].find("\n- ").map_or(bullet.len(), |e| e + 2)];
    let named: Vec<&str> = bullet.split('`').skip(1).step_by(2).filter(|w| w.ends_with(".rs")).collect();
    let mut problems = Vec::new();
    for file in UNSAFE_MODULES {
        if !named.contains(file) {
            problems.push(format!("docs/architecture.md: the invariant on unsafe code does not name `{file}`"));
        }
    }
    for file in named {
        if !UNSAFE_MODULES.contains(&file) {
            problems.push(format!(
                "docs/architecture.md: the invariant on unsafe code names `{file}`, which is not in UNSAFE_MODULES"
            ));
        }
    }
    problems
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
    fn the_invariant_must_name_every_unsafe_module_and_no_other_file() {
        let all = UNSAFE_MODULES.iter().map(|f| format!("`{f}`")).collect::<Vec<_>>().join(", ");
        let good = format!("- A.\n- No unsafe code but {all}: the rest.\n- B `x.rs`.\n");
        assert_eq!(check_invariant(&good), Vec::<String>::new());
        let short = good.replace("`crates/hook-guard/src/relay.rs`, ", "");
        assert_eq!(
            check_invariant(&short),
            ["docs/architecture.md: the invariant on unsafe code does not name `crates/hook-guard/src/relay.rs`"]
        );
        let more = good.replace(": the rest", ", `crates/hook-core/src/lib.rs`: the rest");
        assert_eq!(check_invariant(&more).len(), 1, "{:?}", check_invariant(&more));
        assert!(has_unsafe("fn f() { unsafe { g() } }"));
        assert!(!has_unsafe("// unsafe\nconst S: &str = \"unsafe\"; #[deny(unsafe_code)] fn f() {}"));
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
