//! Self-protection, the `aimon/self` pack: the files that make up the policy and its routing are
//! out of every tool call's reach for writing, whatever the tiers say.
//!
//! What is protected, for a project and a home directory:
//! - both `.aimon/` directories, whole (every tier's hooks files, `mcp.json`, `tests/`, the trust
//!   store, serve's token and socket, the decision log, the rewake store), and the directories
//!   themselves (a rename or a removal of one takes every file in it away);
//! - the decision log where `AIMON_DECISION_LOG` moves it;
//! - every client settings file that routes hooks ([`hook_wire::routing_files`]);
//! - the skill directories, `.claude/skills/` under the project and the home directory (a skill's
//!   SKILL.md can declare hooks, and a write's content is not always visible);
//! - the `aimon-hooks` binary that answers (the one the settings name).
//!
//! Each is an ordinary `Edit(…)` deny rule, so it covers every editing tool of every client and
//! Bash (redirections, the file arguments of modelled programs; an unmodelled program naming the
//! path is uncertain, and a deny holds on uncertain), and whatever else the path matcher covers.
//! Reading stays allowed, except serve's token (`Read(…)` too). The hooks go into a registry
//! group of their own ([`SELF_GROUP`]) that hot reload never replaces, so no tier can take them
//! out; only the person's own `~/.aimon/hooks.json` can turn them off (`"selfProtection": false`).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use hook_core::{AimonDir, HookEventType};

use crate::decision_log::DECISION_LOG_ENV;
use crate::declarative::{BuildEnv, DeclarativeHook};
use crate::handler::HandlerSpec;
use crate::ids::HookIds;
use crate::tier::{Tier, TierPaths};

/// The registry group (and the source name) of the self-protection hooks.
pub const SELF_GROUP: &str = "aimon/self";

/// The top-level key of the person's own `~/.aimon/hooks.json` that turns self-protection off
/// (`false`); ignored, with a WARN, in every other tier.
pub(crate) const SELF_PROTECTION_KEY: &str = "selfProtection";

/// Whether the person's own `~/.aimon/hooks.json` says `"selfProtection": false`. A file that
/// cannot be read or parsed leaves it on.
fn turned_off(paths: &TierPaths) -> bool {
    let Some(file) = paths.user_file() else { return false };
    let Ok(text) = std::fs::read(&file) else { return false };
    serde_json::from_slice::<serde_json::Value>(&text)
        .is_ok_and(|v| v.get(SELF_PROTECTION_KEY) == Some(&serde_json::Value::Bool(false)))
}

/// Where Claude Code finds skills, whose SKILL.md can declare hooks, under a home or a project.
const SKILLS: &str = ".claude/skills";

/// One protected thing: the rule that denies it and what it is, for the reason.
struct Guarded {
    rule: String,
    what: String,
    path: PathBuf,
}

impl Guarded {
    /// Writes to `path` (and, for a directory, to everything below it) are denied.
    fn edits(path: &Path, what: impl Into<String>, tree: bool) -> Self {
        let rule = if tree {
            format!("Edit({}) | Edit({}/**)", body(path), body(path))
        } else {
            format!("Edit({})", body(path))
        };
        Guarded { rule, what: what.into(), path: path.to_owned() }
    }

    /// Reads of `path` are denied as well as writes.
    fn secret(path: &Path, what: impl Into<String>) -> Self {
        let rule = format!("Edit({0}) | Read({0})", body(path));
        Guarded { rule, what: what.into(), path: path.to_owned() }
    }

    fn reason(&self) -> String {
        format!(
            "aimon-hooks keeps its own files out of the agent's reach: {} ({}) cannot be changed by a tool call{}. \
             If you want it changed, change it yourself, outside the agent.",
            self.what,
            self.path.display(),
            if self.rule.contains("Read(") { " or read" } else { "" },
        )
    }
}

/// An absolute path as a rule body: `//` and the path with glob metacharacters escaped.
fn body(path: &Path) -> String {
    let text = path.to_string_lossy();
    let mut out = String::with_capacity(text.len() + 2);
    out.push('/');
    for c in text.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '{' | '}' | '\\' | '(' | ')' | '!') {
            out.push('\\');
        }
        out.push(c);
    }
    if !out.starts_with("//") {
        out.insert(0, '/');
    }
    out
}

/// What self-protection guards for the tiers at `paths`.
fn guarded(paths: &TierPaths) -> Vec<Guarded> {
    let project = &paths.project;
    let mut list = vec![Guarded::edits(AimonDir::under(project).path(), "the project's aimon-hooks policy", true)];
    if let Some(home) = &paths.home {
        let dir = AimonDir::under(home);
        list.push(Guarded::secret(&dir.serve_token(), "the daemon's token"));
        list.push(Guarded::edits(dir.path(), "your aimon-hooks policy and its stores", true));
        list.push(Guarded::edits(&home.join(SKILLS), "your skills", true));
    }
    if let Some(log) = std::env::var_os(DECISION_LOG_ENV).filter(|v| !v.is_empty()) {
        list.push(Guarded::edits(
            &std::path::absolute(PathBuf::from(log)).unwrap_or_default(),
            "the decision log",
            false,
        ));
    }
    for (file, what) in hook_wire::routing_files(paths.home.as_deref(), project) {
        list.push(Guarded::edits(&file, what, false));
    }
    list.push(Guarded::edits(&project.join(SKILLS), "the project's skills", true));
    if let Some(binary) = std::env::current_exe().ok().and_then(|b| std::fs::canonicalize(b).ok()) {
        list.push(Guarded::edits(&binary, "the aimon-hooks binary your agents' settings run", false));
    }
    list
}

/// The self-protection hooks for the tiers at `paths` (PreToolUse deny hooks), to be registered
/// in [`SELF_GROUP`]. Empty when the person's own `~/.aimon/hooks.json` turns it off.
pub fn self_protection(paths: &TierPaths) -> Vec<(HookEventType, Arc<DeclarativeHook>)> {
    if turned_off(paths) {
        tracing::debug!("hooks: self-protection is off (selfProtection: false in your own hooks.json)");
        return Vec::new();
    }
    let env = BuildEnv::without_mcp(paths);
    let mut ids = HookIds::default();
    guarded(paths)
        .into_iter()
        .map(|g| {
            let handler = HandlerSpec::deny(g.reason());
            let hook = DeclarativeHook::build(
                HookEventType::PRE_TOOL,
                &g.rule,
                &handler,
                Tier::User,
                SELF_GROUP,
                &mut ids,
                &env,
            );
            (HookEventType::PRE_TOOL, hook)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_becomes_an_absolute_rule_body_with_its_metacharacters_escaped() {
        assert_eq!(body(Path::new("/p/.aimon")), "//p/.aimon");
        assert_eq!(body(Path::new("/a b/x[1](2)*")), r"//a b/x\[1\]\(2\)\*");
    }

    #[test]
    fn every_rule_parses() {
        let paths = TierPaths::new(Some(PathBuf::from("/h")), "/p (copy)");
        for g in guarded(&paths) {
            let anchors = paths.anchors(Tier::User);
            hook_predicate::parse(&g.rule, &anchors).unwrap_or_else(|e| panic!("{}: {e}", g.rule));
        }
    }
}
