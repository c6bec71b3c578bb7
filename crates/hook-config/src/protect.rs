//! Self-protection, the `aimon/self` pack: the files that make up the policy and its routing are
//! out of every tool call's reach for writing, whatever the tiers say.
//!
//! What is protected, for a project and a home directory:
//! - both `.aimon/` directories, whole (every tier's hooks files, `mcp.json`, `tests/`, the trust
//!   store, serve's token and socket, the decision log, the rewake store), and the directories
//!   themselves (a rename or a removal of one takes every file in it away);
//! - the organisation's managed tier, its directory whole (`/etc/aimon/managed/`);
//! - the decision log where `AIMON_DECISION_LOG` moves it (the caller passes the path it read);
//! - every client settings file that routes hooks ([`hook_wire::routing_files`]);
//! - the skill directories, `.claude/skills/` under the project and the home directory (a skill's
//!   SKILL.md can declare hooks, and a write's content is not always visible);
//! - the `aimon-hooks` binary that answers (the one the settings name).
//!
//! Together they are one ordinary deny rule (`Edit(…) | Edit(…) | …`, one hook with one reason),
//! so it covers every editing tool of every client and
//! Bash (redirections, the file arguments of modelled programs; an unmodelled program naming the
//! path is uncertain, and a deny holds on uncertain), and whatever else the path matcher covers.
//! Reading stays allowed, except serve's token (a second hook, `Read(…) | Edit(…)`). The hooks go into a registry
//! group of their own ([`SELF_GROUP`]) that hot reload never replaces, so no tier can take them
//! out; only the person's own `~/.aimon/hooks.json` can turn them off (`"selfProtection": false`),
//! and not while a managed policy is installed.

use std::path::Path;
use std::sync::Arc;

use hook_core::{AimonDir, HookEventType};

use crate::declarative::{BuildEnv, DeclarativeHook};
use crate::handler::HandlerSpec;
use crate::packs::{PackRule, RuleDecision};
use crate::tier::TierPaths;

/// The registry group (and the source name) of the self-protection hooks.
pub const SELF_GROUP: &str = "aimon/self";

/// The top-level key of the person's own `~/.aimon/hooks.json` that turns self-protection off
/// (`false`); ignored, with a WARN, in every other tier.
pub(crate) const SELF_PROTECTION_KEY: &str = "selfProtection";

/// Whether the person's own `~/.aimon/hooks.json` says `"selfProtection": false`. A file that
/// cannot be read or parsed leaves it on, and so does an installed managed policy.
fn turned_off(paths: &TierPaths) -> bool {
    let Some(file) = paths.user_file().filter(|_| !paths.has_managed_policy()) else { return false };
    let Ok(text) = std::fs::read(&file) else { return false };
    serde_json::from_slice::<serde_json::Value>(&text)
        .is_ok_and(|v| v.get(SELF_PROTECTION_KEY) == Some(&serde_json::Value::Bool(false)))
}

/// Where Claude Code finds skills, whose SKILL.md can declare hooks, under a home or a project.
const SKILLS: &str = ".claude/skills";

/// The reason of a refused write.
const EDIT_REASON: &str = "aimon-hooks keeps its own files out of the agent's reach: its policy and stores (the .aimon \
     directories), your agents' hook settings, their skills and the aimon-hooks binary cannot be changed by a tool \
     call. If you want one of them changed, change it yourself, outside the agent.";

/// The reason of a refused read of serve's token.
const SECRET_REASON: &str = "aimon-hooks keeps its own files out of the agent's reach: the daemon's token cannot be \
     read or changed by a tool call. If you want it changed, change it yourself, outside the agent.";

/// The rule denying writes to `path` (and, for a directory, to the directory and everything
/// below it).
fn edits(path: &Path, tree: bool) -> String {
    if tree { format!("Edit({0}) | Edit({0}/**)", body(path)) } else { format!("Edit({})", body(path)) }
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

/// The rules of what self-protection guards for the tiers at `paths`: the writes it denies, and
/// the secret whose reads it denies too; `decision_log` is the log's path when it is not the
/// default one.
fn rules(paths: &TierPaths, decision_log: Option<&Path>) -> (Vec<String>, Option<String>) {
    let project = &paths.project;
    let mut writes = vec![
        edits(AimonDir::under(project).path(), true),
        edits(&project.join(SKILLS), true),
        edits(&paths.managed, true),
    ];
    let mut secret = None;
    if let Some(home) = &paths.home {
        let dir = AimonDir::under(home);
        secret = Some(format!("Read({0}) | Edit({0})", body(&dir.serve_token())));
        writes.push(edits(dir.path(), true));
        writes.push(edits(&home.join(SKILLS), true));
    }
    if let Some(log) = decision_log.filter(|l| !l.as_os_str().is_empty())
        && let Ok(log) = std::path::absolute(log)
    {
        writes.push(edits(&log, false));
    }
    for file in hook_wire::routing_files(paths.home.as_deref(), project) {
        writes.push(edits(&file, false));
    }
    if let Some(binary) = std::env::current_exe().ok().and_then(|b| std::fs::canonicalize(b).ok()) {
        writes.push(edits(&binary, false));
    }
    (writes, secret)
}

/// The self-protection hooks for the tiers at `paths` (PreToolUse deny hooks), to be registered
/// in [`SELF_GROUP`]; `decision_log` is where `AIMON_DECISION_LOG` moved the decision log, if
/// it did (the caller reads the variable). Empty when the person's own `~/.aimon/hooks.json`
/// turns it off.
pub fn self_protection(paths: &TierPaths, decision_log: Option<&Path>) -> Vec<(HookEventType, Arc<DeclarativeHook>)> {
    if turned_off(paths) {
        tracing::debug!("hooks: self-protection is off (selfProtection: false in your own hooks.json)");
        return Vec::new();
    }
    let env = BuildEnv::without_mcp(paths);
    let (writes, secret) = rules(paths, decision_log);
    let rules = std::iter::once((writes.join(" | "), POLICY_FILES, EDIT_REASON))
        .chain(secret.map(|s| (s, SERVE_TOKEN, SECRET_REASON)));
    rules
        .map(|(rule, name, reason)| {
            let handler = HandlerSpec::deny(reason);
            let id = format!("{SELF_GROUP}#{name}");
            let hook = DeclarativeHook::build_named(HookEventType::PRE_TOOL, &rule, &handler, SELF_GROUP, &id, &env);
            (HookEventType::PRE_TOOL, hook)
        })
        .collect()
}

/// The name of the rule denying writes to the policy's files.
const POLICY_FILES: &str = "policy-files";
/// The name of the rule denying reads and writes of serve's token.
const SERVE_TOKEN: &str = "serve-token";

/// Self-protection's rules as a pack lists them (`aimon-hooks packs`, docs/packs.md): their
/// matchers name paths only known for a project and a home directory, so they are described.
pub fn self_protection_rules() -> Vec<PackRule> {
    let rule = |name: &str, matcher: &str, reason: &str, why: &str| PackRule {
        id: format!("{SELF_GROUP}#{name}"),
        matcher: matcher.to_owned(),
        decision: RuleDecision::Deny,
        reason: reason.to_owned(),
        why: why.to_owned(),
    };
    vec![
        rule(
            POLICY_FILES,
            "Edit(<both .aimon/ directories, the managed policy, the clients' hook settings, their skills, the \
             aimon-hooks binary>)",
            EDIT_REASON,
            "deny: an agent that can edit its own policy has none; only the person changes it, outside the agent",
        ),
        rule(
            SERVE_TOKEN,
            "Read(~/.aimon/serve.token) | Edit(~/.aimon/serve.token)",
            SECRET_REASON,
            "deny: whoever holds the daemon's token can ask it for decisions in the person's name",
        ),
    ]
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    #[test]
    fn a_path_becomes_an_absolute_rule_body_with_its_metacharacters_escaped() {
        assert_eq!(body(Path::new("/p/.aimon")), "//p/.aimon");
        assert_eq!(body(Path::new("/a b/x[1](2)*")), r"//a b/x\[1\]\(2\)\*");
    }

    #[test]
    fn every_rule_parses() {
        let paths = TierPaths::new(Some(PathBuf::from("/h")), "/p (copy)");
        let (writes, secret) = rules(&paths, Some(Path::new("/var/log/decisions.jsonl")));
        assert!(writes.iter().any(|w| w.contains("//var/log/decisions.jsonl")), "{writes:?}");
        for rule in writes.iter().chain(&secret) {
            let anchors = paths.anchors(crate::Tier::User);
            hook_predicate::parse(rule, &anchors).unwrap_or_else(|e| panic!("{rule}: {e}"));
        }
        assert_eq!(self_protection(&paths, None).len(), 2, "one hook for the writes, one for the token");
    }
}
