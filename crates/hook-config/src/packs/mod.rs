//! Rule packs: protection in the box. Each pack is a hooks.json document of ordinary rules with
//! ids, built into the binary and versioned with it (`packs/*.json` at the crate root):
//! `aimon/destructive`, `aimon/secrets`, `aimon/exfiltration`, and the opt-in `aimon/read-only`
//! (an `allow` of the calls shown to only read: the matcher atom `@read-only`); `aimon/self` is
//! self-protection (the `protect` module), always on, listed here too.
//!
//! - A pack's document is hooks.json with two more fields per entry: `id` (the rule's name in
//!   its pack: `aimon/destructive#force-push`) and `why` (for people: why the rule asks or
//!   denies), and two more handler types, `ask` and `allow`. Without those it is a file the loader reads as
//!   it is (a test holds that).
//! - A tier turns packs on with `"packs": ["aimon/destructive", …]`; a rule is turned off by id
//!   with `"disable": ["aimon/destructive#force-push"]`, read only from the person's own file
//!   (and the managed tier's); a lower tier cannot turn off a rule of a pack the managed tier
//!   turned on (the `enable` module, with the WARNs).
//! - An enabled pack becomes one more file of the loaded config (path and source: its name), of
//!   the tier that turned it on (the highest, when several did), so `list`, `explain`, `test`,
//!   the decision log and the exec-time guard see its rules like any other; its hooks' ids are
//!   the rules' ids.

mod answer;
mod enable;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use hook_core::HookEventType;
use serde::Deserialize;

pub(crate) use self::answer::FixedAnswer;
pub(crate) use self::enable::apply;
use crate::handler::HandlerSpec;
use crate::spec::{ConfigFile, HookEntrySpec, Switches};
use crate::tier::Tier;

/// The top-level key that turns packs on.
pub(crate) const PACKS_KEY: &str = "packs";
/// The top-level key that turns pack rules off by id.
pub(crate) const DISABLE_KEY: &str = "disable";

/// A rule pack built into the binary.
#[derive(Debug)]
pub struct Pack {
    name: &'static str,
    document: &'static str,
    tests: &'static str,
    rules: OnceLock<Document>,
}

/// What a rule does when it matches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RuleDecision {
    /// The person is asked (where the client cannot ask, the call is denied).
    Ask,
    /// The call is refused, with the rule's reason.
    Deny,
    /// The call is allowed without asking (`aimon/read-only`); a deny or ask of any rule wins.
    Allow,
}

impl RuleDecision {
    /// `ask` or `deny`.
    pub fn as_str(self) -> &'static str {
        match self {
            RuleDecision::Ask => "ask",
            RuleDecision::Deny => "deny",
            RuleDecision::Allow => "allow",
        }
    }
}

/// One rule of a pack.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct PackRule {
    /// Its id: `<pack>#<name>`.
    pub id: String,
    /// Its matcher, as written.
    pub matcher: String,
    /// Ask, deny or allow.
    pub decision: RuleDecision,
    /// What the model (and the person, when asked) is told.
    pub reason: String,
    /// Why the rule asks or denies, for people.
    pub why: String,
}

/// A pack document: hooks.json with `id` and `why` per entry.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Document {
    pack: String,
    about: String,
    hooks: Events,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Events {
    #[serde(rename = "PreToolUse")]
    pre_tool_use: Vec<Entry>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    id: String,
    why: String,
    matcher: String,
    hooks: [Handler; 1],
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Handler {
    #[serde(rename = "type")]
    decision: RuleDecision,
    reason: String,
}

/// The packs a tier can turn on, by name.
static PACKS: [Pack; 4] = [
    Pack::new(
        "aimon/destructive",
        include_str!("../../packs/destructive.json"),
        include_str!("../../packs/tests/destructive.json"),
    ),
    Pack::new(
        "aimon/secrets",
        include_str!("../../packs/secrets.json"),
        include_str!("../../packs/tests/secrets.json"),
    ),
    Pack::new(
        "aimon/exfiltration",
        include_str!("../../packs/exfiltration.json"),
        include_str!("../../packs/tests/exfiltration.json"),
    ),
    Pack::new(
        "aimon/read-only",
        include_str!("../../packs/read-only.json"),
        include_str!("../../packs/tests/read-only.json"),
    ),
];

/// The packs a tier can turn on (`aimon/self`, always on, is not among them: [`crate::SELF_GROUP`]).
pub fn packs() -> &'static [Pack] {
    &PACKS
}

/// The pack named `name`.
pub fn pack(name: &str) -> Option<&'static Pack> {
    PACKS.iter().find(|p| p.name == name)
}

/// The version every built-in pack carries: the binary's.
pub const PACKS_VERSION: &str = env!("CARGO_PKG_VERSION");

impl Pack {
    const fn new(name: &'static str, document: &'static str, tests: &'static str) -> Self {
        Pack { name, document, tests, rules: OnceLock::new() }
    }

    /// Its name (`aimon/destructive`).
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// What it protects, in one sentence.
    pub fn about(&self) -> &str {
        &self.document().about
    }

    /// Its document, as built in.
    pub fn document_text(&self) -> &'static str {
        self.document
    }

    /// Its policy tests (`aimon-hooks test --packs`), in `aimon-hooks test`'s format; payload
    /// paths may start with `$HOME/` or `$PROJECT/`.
    pub fn tests(&self) -> &'static str {
        self.tests
    }

    fn document(&self) -> &Document {
        self.rules.get_or_init(|| {
            let doc: Document = serde_json::from_str(self.document)
                .unwrap_or_else(|e| panic!("the built-in pack {} does not read: {e}", self.name));
            assert_eq!(doc.pack, self.name, "a built-in pack names itself");
            doc
        })
    }

    /// Its rules, in order.
    pub fn rules(&self) -> Vec<PackRule> {
        self.document()
            .hooks
            .pre_tool_use
            .iter()
            .map(|e| PackRule {
                id: format!("{}#{}", self.name, e.id),
                matcher: e.matcher.clone(),
                decision: e.hooks[0].decision,
                reason: e.hooks[0].reason.clone(),
                why: e.why.clone(),
            })
            .collect()
    }

    /// The pack as a loaded file of `tier`, without the rules whose ids are in `off`.
    pub(crate) fn file(&self, tier: Tier, off: &[String]) -> ConfigFile {
        let entries = self
            .rules()
            .into_iter()
            .filter(|r| !off.contains(&r.id))
            .map(|r| {
                let handler = match r.decision {
                    RuleDecision::Ask => HandlerSpec::ask(r.reason),
                    RuleDecision::Deny => HandlerSpec::deny(r.reason),
                    RuleDecision::Allow => HandlerSpec::allow(r.reason),
                };
                HookEntrySpec::new(HookEventType::PRE_TOOL, r.matcher, vec![handler])
            })
            .collect();
        ConfigFile {
            tier,
            path: PathBuf::from(self.name),
            entries,
            sha256: crate::trust::sha256_hex(self.document.as_bytes()),
            switches: Switches::default(),
        }
    }
}

/// Whether `path` is a built-in pack's (the path of a pack's loaded file is its name).
pub(crate) fn is_pack(path: &Path) -> bool {
    path.is_relative() && PACKS.iter().any(|p| Path::new(p.name) == path)
}

/// The pack of a loaded file, when it is one.
pub(crate) fn of_file(file: &ConfigFile) -> Option<&'static Pack> {
    PACKS.iter().find(|p| Path::new(p.name) == file.path).filter(|_| file.path.is_relative())
}

/// The ids of a pack file's entries, in order (`None` for any other file): each entry's rule is
/// found by its matcher, unique within a pack.
pub(crate) fn rule_ids(file: &ConfigFile) -> Option<Vec<String>> {
    let rules = of_file(file)?.rules();
    let id = |matcher: &str| rules.iter().find(|r| r.matcher == matcher).map(|r| r.id.clone()).unwrap_or_default();
    Some(file.entries.iter().map(|e| id(&e.matcher)).collect())
}

/// The packs a loaded config has on: each pack's name, the tier that turned it on, and how many
/// of its rules are on.
pub fn active_packs(config: &crate::LoadedConfig) -> Vec<(&'static str, Tier, usize)> {
    config.files.iter().filter_map(|f| of_file(f).map(|p| (p.name, f.tier, f.entries.len()))).collect()
}

#[cfg(test)]
mod tests;
