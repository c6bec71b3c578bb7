//! The files the command's own mount namespace hides or makes read-only: the paths of the Read
//! and Edit deny rules (hook-predicate's [`rule_paths`]), resolved against the file system when
//! the guard starts. A literal path or a whole directory (`dir/**`) is that path; any other glob
//! is matched against the tree below its literal base, at most [`MAX_VISITED`] entries (more is
//! refused: a glob the guard cannot hold whole is not held in part). A path absent at start is not
//! mounted over (see docs/security.md).

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;

use hook_config::{DeclarativeHook, TierPaths};
use hook_core::HookEventType;
use hook_predicate::{RuleAccess, RulePath, rule_paths};

/// The most entries a glob's walk visits.
pub(crate) const MAX_VISITED: usize = 20_000;

/// What the command sees at a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum View {
    /// An empty file or directory, mode 0, read-only: a Read rule's path.
    Hidden,
    /// The path itself, read-only: an Edit rule's path.
    ReadOnly,
}

/// One mount of the command's namespace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Mount {
    /// Absolute, symlinks followed.
    pub(crate) path: PathBuf,
    pub(crate) view: View,
    pub(crate) dir: bool,
}

/// The mounts for the hooks among `hooks` the guard mounts ([`DeclarativeHook::guard_mounts`]),
/// in the order they are made
/// (a directory before what is below it); a path both hidden and read-only is hidden, and nothing
/// below a hidden directory is mounted. `Err`: the sentence the guard refuses with.
pub(crate) fn mounts<'a>(
    hooks: impl IntoIterator<Item = &'a (HookEventType, Arc<DeclarativeHook>)>,
    paths: &TierPaths,
) -> Result<Vec<Mount>, String> {
    let mut found = Vec::new();
    // Self-protection names each directory twice (`Edit(dir) | Edit(dir/**)`, both the path
    // itself) and serve's token for Read and Edit: a path is resolved once for each view.
    let mut resolved = HashSet::new();
    for (_, hook) in hooks {
        if !hook.guard_mounts() {
            continue;
        }
        let Ok(rules) = rule_paths(hook.matcher(), &paths.anchors(hook.tier())) else {
            continue;
        };
        for rule in rules {
            let view = match rule.access {
                RuleAccess::Read => View::Hidden,
                RuleAccess::Edit => View::ReadOnly,
            };
            let key = match whole_path(&rule) {
                Some(path) => (true, path.into_os_string(), view),
                None => (false, rule.glob.clone().into(), view),
            };
            if !resolved.insert(key) {
                continue;
            }
            for path in resolve(&rule)? {
                let Ok(real) = std::fs::canonicalize(&path) else { continue };
                let dir = real.is_dir();
                found.push(Mount { path: real, view, dir });
            }
        }
    }
    Ok(plan(found))
}

/// Sorted by path (a directory before what is below it), one mount a path (hidden wins), none
/// below a hidden directory.
fn plan(mut found: Vec<Mount>) -> Vec<Mount> {
    found.sort_by(|a, b| a.path.cmp(&b.path).then(a.view.cmp(&b.view)));
    found.dedup_by(|later, kept| later.path == kept.path);
    let mut out: Vec<Mount> = Vec::with_capacity(found.len());
    for mount in found {
        let under_hidden = out.iter().any(|m| m.view == View::Hidden && m.dir && mount.path.starts_with(&m.path));
        if !under_hidden {
            out.push(mount);
        }
    }
    out
}

/// The one path `rule` names, when it names a path as it is: a literal path or a whole
/// directory (`dir/**`).
fn whole_path(rule: &RulePath) -> Option<PathBuf> {
    let base = rule.base();
    (rule.is_literal() || rule.whole_dir().is_some_and(|d| d == base)).then_some(base)
}

/// The existing paths `rule` names now.
fn resolve(rule: &RulePath) -> Result<Vec<PathBuf>, String> {
    if let Some(path) = whole_path(rule) {
        return Ok(std::fs::symlink_metadata(&path).is_ok().then_some(path).into_iter().collect());
    }
    let mut out = Vec::new();
    let mut stack = vec![rule.base()];
    let mut visited = 0;
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            visited += 1;
            if visited > MAX_VISITED {
                return Err(format!(
                    "the deny rule on {} names more than {MAX_VISITED} files to check at start",
                    rule.glob
                ));
            }
            let path = entry.path();
            if rule.matches(&path) {
                out.push(path);
            } else if entry.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(path);
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use hook_config::{BuildEnv, load_tiers};

    #[test]
    fn the_paths_of_read_and_edit_deny_rules_are_resolved_at_start_into_mounts() {
        let project = tempfile::tempdir().expect("project");
        let root = std::fs::canonicalize(project.path()).expect("real");
        for dir in [".aimon", "keys/old", "secrets", "src"] {
            std::fs::create_dir_all(root.join(dir)).expect("mkdir");
        }
        for file in [".env", "keys/a.pem", "keys/old/b.pem", "keys/c.txt", "secrets/x", "src/.env", "src/main.rs"] {
            std::fs::write(root.join(file), "x").expect("write");
        }
        let rules = r#"{"hooks": {"PreToolUse": [
          {"matcher": "Read(.env)", "hooks": [{"type": "deny", "reason": "r"}]},
          {"matcher": "Read(./keys/**/*.pem) | Read(./secrets/**) | Read(./absent)", "hooks": [{"type": "deny", "reason": "r"}]},
          {"matcher": "Edit(./src/**) | Edit(./secrets/x)", "hooks": [{"type": "deny", "reason": "r"}]},
          {"matcher": "Edit(./keys/c.txt) & input.content~x", "hooks": [{"type": "deny", "reason": "r"}]},
          {"matcher": "Read(./keys/c.txt)", "hooks": [{"type": "command", "command": "true"}]}
        ]}}"#;
        std::fs::write(root.join(".aimon/hooks.json"), rules).expect("hooks.json");
        let paths = TierPaths::new(None, &root);
        let (config, _) = load_tiers(&paths).expect("loads");
        let got = mounts(&config.into_hooks(&BuildEnv::new(&paths)), &paths).expect("resolves");
        let got: Vec<(String, View, bool)> = got
            .iter()
            .map(|m| (m.path.strip_prefix(&root).expect("inside").display().to_string(), m.view, m.dir))
            .collect();
        let want = [
            (".env", View::Hidden, false),
            ("keys/a.pem", View::Hidden, false),
            ("keys/old/b.pem", View::Hidden, false),
            ("secrets", View::Hidden, true),
            ("src", View::ReadOnly, true),
            ("src/.env", View::Hidden, false),
        ];
        let want: Vec<(String, View, bool)> = want.iter().map(|(p, v, d)| ((*p).to_owned(), *v, *d)).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn a_path_hidden_and_read_only_is_hidden_and_nothing_below_a_hidden_directory_is_mounted() {
        let m = |path: &str, view, dir| Mount { path: path.into(), view, dir };
        let got = plan(vec![
            m("/p/a/b", View::ReadOnly, false),
            m("/p/a", View::Hidden, true),
            m("/p/c", View::ReadOnly, false),
            m("/p/c", View::Hidden, false),
            m("/p", View::ReadOnly, true),
        ]);
        assert_eq!(
            got,
            vec![m("/p", View::ReadOnly, true), m("/p/a", View::Hidden, true), m("/p/c", View::Hidden, false)]
        );
    }
}
