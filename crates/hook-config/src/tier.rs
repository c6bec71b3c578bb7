//! The configuration tiers and where their files live (R-CFG-1), the organisation's managed tier
//! above the person's own.

use std::fmt;
use std::path::{Path, PathBuf};

use hook_core::AimonDir;

/// The environment variable naming the managed tier's directory (tests); unset or empty, it is
/// [`DEFAULT_MANAGED_DIR`]. Read in [`TierPaths::new`] and nowhere else.
pub const MANAGED_DIR_ENV: &str = "AIMON_MANAGED_DIR";

/// Where an organisation installs its policy: `hooks.json` and `hooks.d/*.json`.
pub const DEFAULT_MANAGED_DIR: &str = "/etc/aimon/managed";

/// Where a hook definition comes from. Dispatch order is MANAGED first, then USER → PROJECT →
/// LOCAL (R-CFG-2); the derived order is the dispatch order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub enum Tier {
    /// The organisation's policy, `/etc/aimon/managed/hooks.json` then `hooks.d/*.json` in name
    /// order, weight 100: dispatched first, never removed by another tier.
    Managed,
    /// `~/.aimon/hooks.json`, weight 10.
    User,
    /// `<project>/.aimon/hooks.json`, weight 20.
    Project,
    /// `<project>/.aimon/hooks.local.json`, weight 30.
    Local,
    /// SKILL.md frontmatter, weight 0, isolated from the file tiers.
    Skill,
}

impl Tier {
    /// The file tiers in dispatch order.
    pub const FILES: [Tier; 4] = [Tier::Managed, Tier::User, Tier::Project, Tier::Local];

    /// The precedence weight: the seed's for the person's tiers, above all of them for MANAGED.
    pub fn weight(self) -> u32 {
        match self {
            Tier::Managed => 100,
            Tier::User => 10,
            Tier::Project => 20,
            Tier::Local => 30,
            Tier::Skill => 0,
        }
    }

    /// `MANAGED`, `USER`, `PROJECT`, `LOCAL`, `SKILL` (as in WARN texts: `… in PROJECT`).
    pub fn name(self) -> &'static str {
        match self {
            Tier::Managed => "MANAGED",
            Tier::User => "USER",
            Tier::Project => "PROJECT",
            Tier::Local => "LOCAL",
            Tier::Skill => "SKILL",
        }
    }

    /// The source name of a file tier's hooks (`managed#0`, `user#0`, `project#0`, `local#0`): the
    /// tier in lower case and the file's index within the tier (a `hooks.d` file of the managed
    /// tier is named instead, [`crate::ConfigFile::source`]).
    pub fn source(self) -> String {
        format!("{}#0", self.name().to_ascii_lowercase())
    }
}

impl fmt::Display for Tier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The roots the file tiers hang off.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TierPaths {
    /// The home directory (USER tier); `None` skips the tier.
    pub home: Option<PathBuf>,
    /// The project root (PROJECT and LOCAL tiers).
    pub project: PathBuf,
    /// The managed tier's directory ([`MANAGED_DIR_ENV`], else [`DEFAULT_MANAGED_DIR`]).
    pub managed: PathBuf,
}

impl TierPaths {
    /// Paths for `project`, with the home directory `home`, and the managed directory of the
    /// environment.
    pub fn new(home: Option<PathBuf>, project: impl Into<PathBuf>) -> Self {
        let managed = std::env::var_os(MANAGED_DIR_ENV)
            .filter(|v| !v.is_empty())
            .map_or_else(|| PathBuf::from(DEFAULT_MANAGED_DIR), PathBuf::from);
        TierPaths { home, project: project.into(), managed }
    }

    /// These paths with the managed tier in `dir`.
    pub fn with_managed_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.managed = dir.into();
        self
    }

    /// `<managed>/hooks.json`.
    pub fn managed_file(&self) -> PathBuf {
        self.managed.join("hooks.json")
    }

    /// `<managed>/hooks.d`, whose `*.json` files follow `hooks.json` in name order.
    pub fn managed_drop_ins(&self) -> PathBuf {
        self.managed.join("hooks.d")
    }

    /// The managed tier's files in dispatch order: `hooks.json` (existing or not), then the
    /// `hooks.d/*.json` files there are now, by name.
    pub fn managed_files(&self) -> Vec<PathBuf> {
        let mut drop_ins: Vec<PathBuf> = std::fs::read_dir(self.managed_drop_ins())
            .into_iter()
            .flatten()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "json") && p.is_file())
            .collect();
        drop_ins.sort();
        std::iter::once(self.managed_file()).chain(drop_ins).collect()
    }

    /// Whether an organisation's policy is installed: any managed file exists.
    pub fn has_managed_policy(&self) -> bool {
        self.managed_files().iter().any(|p| p.is_file())
    }

    /// `~/.aimon/hooks.json`.
    pub fn user_file(&self) -> Option<PathBuf> {
        self.home.as_deref().map(|h| AimonDir::under(h).hooks())
    }

    /// `<project>/.aimon/hooks.json`.
    pub fn project_file(&self) -> PathBuf {
        AimonDir::under(&self.project).hooks()
    }

    /// `<project>/.aimon/hooks.local.json`.
    pub fn local_file(&self) -> PathBuf {
        AimonDir::under(&self.project).local_hooks()
    }

    /// The file of `tier` (`None` for SKILL, and for USER without a home directory; the managed
    /// tier's `hooks.json`, [`TierPaths::managed_files`] has all of them).
    pub fn file(&self, tier: Tier) -> Option<PathBuf> {
        match tier {
            Tier::Managed => Some(self.managed_file()),
            Tier::User => self.user_file(),
            Tier::Project => Some(self.project_file()),
            Tier::Local => Some(self.local_file()),
            Tier::Skill => None,
        }
    }

    /// The existing-or-not files of the tiers, in dispatch order: the managed tier's, then USER,
    /// PROJECT and LOCAL.
    pub fn files(&self) -> Vec<(Tier, PathBuf)> {
        let managed = self.managed_files().into_iter().map(|p| (Tier::Managed, p));
        let own = Tier::FILES[1..].iter().filter_map(|&t| self.file(t).map(|p| (t, p)));
        managed.chain(own).collect()
    }

    /// The MCP server registries hot reload watches with the tiers: `~/.aimon/mcp.json` (when
    /// there is a home directory), then `<project>/.aimon/mcp.json`.
    pub fn mcp_files(&self) -> Vec<PathBuf> {
        [self.home.as_deref(), Some(self.project.as_path())]
            .into_iter()
            .flatten()
            .map(|root| AimonDir::under(root).mcp())
            .collect()
    }

    /// The anchors of `tier`'s patterns (R-PRED-3): relative globs at the project, `~/…` at the
    /// home directory, `/…` at the tier's root.
    pub fn anchors(&self, tier: Tier) -> hook_predicate::PathAnchors {
        let anchors = hook_predicate::PathAnchors::new(self.project.clone()).with_tier_root(self.tier_root(tier));
        match &self.home {
            Some(h) => anchors.with_home(h.clone()),
            None => anchors,
        }
    }

    /// The root `/…` rules of `tier` are relative to (R-PRED-3): home for USER, else the project.
    pub fn tier_root(&self, tier: Tier) -> &Path {
        match tier {
            Tier::User => self.home.as_deref().unwrap_or(&self.project),
            _ => &self.project,
        }
    }
}
