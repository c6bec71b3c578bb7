//! No library reads the process environment except where it is the feature (issue #42): outside
//! the files listed here, no non-test source under `crates/*/src` spells `env::var`,
//! `env::var_os` or `current_dir()`. hook-cli reads its environment once, in `env.rs`, and hands
//! values on. Each entry says why the read stays where it is; an entry whose file no longer reads
//! the environment fails too, so the list only shrinks. Test code (`#[cfg(test)]` modules at the
//! end of a file, `tests/`, `benches/`) and comments do not count.

use std::path::Path;

use anyhow::Result;

/// The files that may read the process environment, each with why.
const READERS: &[(&str, &str)] = &[
    ("crates/hook-cli/src/env.rs", "the binary's one read of its variables, working directory and HOME"),
    ("crates/hook-actions/src/template.rs", "a hook's `${VAR}` (allowedEnvVars) is the hook process's own environment"),
    (
        "crates/hook-actions/src/mcp/servers.rs",
        "`.mcp.json`'s `${VAR}` is expanded from the environment, as Claude Code does",
    ),
    (
        "crates/hook-actions/src/prompt/transport.rs",
        "a prompt hook's API key is read from the variable its config names",
    ),
    (
        "crates/hook-config/src/tier.rs",
        "AIMON_MANAGED_DIR: the organisation's tier; to be passed by the callers (TierPaths::new has eighteen)",
    ),
    (
        "crates/hook-wire/src/routing.rs",
        "CODEX_HOME: where Codex itself reads its settings; to be passed by the caller",
    ),
    ("crates/hook-guard/src/spawn.rs", "the guarded command is found on the PATH the guard starts with"),
    ("crates/hook-guard/src/lib.rs", "the guard's own program is found on its PATH"),
    ("crates/hook-guard/src/rules.rs", "the programs a rule names are resolved on the PATH the command starts with"),
    (
        "crates/hook-guard/src/identity.rs",
        "git's exec-path, where `git push` is `git-push`, may be moved by GIT_EXEC_PATH",
    ),
    (
        "crates/hook-shell/src/bash_agrees.rs",
        "a test module (declared under `#[cfg(test)]`): its stubs go first on a copy of PATH",
    ),
];

fn reads_environment(text: &str) -> bool {
    ["env::var(", "env::var_os(", "current_dir()"].iter().any(|needle| text.contains(needle))
}

/// The files (relative to `root`) that read the environment, of `files`.
fn readers(files: &[(std::path::PathBuf, String)], root: &Path) -> Vec<String> {
    let mut hits: Vec<String> = files
        .iter()
        .filter(|(_, text)| reads_environment(text))
        .map(|(p, _)| p.strip_prefix(root).unwrap_or(p).display().to_string())
        .collect();
    hits.sort();
    hits
}

fn problems(hits: &[String]) -> Vec<String> {
    let mut out: Vec<String> = hits
        .iter()
        .filter(|f| !READERS.iter().any(|(r, _)| r == f))
        .map(|f| {
            format!("{f} reads the process environment; take the value from the caller (hook-cli reads it in env.rs)")
        })
        .collect();
    out.extend(
        READERS.iter().filter(|(r, _)| !hits.iter().any(|h| h == r)).map(|(r, _)| {
            format!("{r} no longer reads the process environment; drop it from xtask/src/environment.rs")
        }),
    );
    out
}

pub(crate) fn check_environment_reads(root: &Path) -> Result<Vec<String>> {
    let files = crate::literals::source_files(root)?;
    Ok(problems(&readers(&files, root)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::literals::production_part;

    #[test]
    fn a_read_outside_the_list_fails_and_a_stale_entry_fails_too() {
        let root = Path::new("/w");
        let files = vec![
            (root.join("crates/hook-x/src/a.rs"), production_part("fn f() { std::env::var(\"X\"); }")),
            (
                root.join("crates/hook-x/src/b.rs"),
                production_part("// env::var( in a comment\n#[cfg(test)]\nmod t { std::env::current_dir(); }"),
            ),
        ];
        let hits = readers(&files, root);
        assert_eq!(hits, ["crates/hook-x/src/a.rs"]);
        let found = problems(&hits);
        assert!(found.iter().any(|p| p.starts_with("crates/hook-x/src/a.rs reads")), "{found:?}");
        assert!(found.iter().any(|p| p.contains("crates/hook-cli/src/env.rs no longer reads")), "{found:?}");
    }
}
