//! The configuration tiers and where their files live (R-CFG-1).

use std::fmt;
use std::path::{Path, PathBuf};

use hook_core::AimonDir;

/// Where a hook definition comes from. Dispatch order is ascending weight (R-CFG-2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub enum Tier {
    /// `~/.aimon/hooks.json`, weight 10.
    User,
    /// `<project>/.aimon/hooks.json`, weight 20.
    Project,
    /// `<project>/.aimon/hooks.local.json`, weight 30.
    Local,
    /// SKILL.md frontmatter, weight 0, isolated from the three file tiers.
    Skill,
}

impl Tier {
    /// The three file tiers in dispatch order.
    pub const FILES: [Tier; 3] = [Tier::User, Tier::Project, Tier::Local];

    /// The seed's precedence weight.
    pub fn weight(self) -> u32 {
        match self {
            Tier::User => 10,
            Tier::Project => 20,
            Tier::Local => 30,
            Tier::Skill => 0,
        }
    }

    /// `USER`, `PROJECT`, `LOCAL`, `SKILL` (as in WARN texts: `… in PROJECT`).
    pub fn name(self) -> &'static str {
        match self {
            Tier::User => "USER",
            Tier::Project => "PROJECT",
            Tier::Local => "LOCAL",
            Tier::Skill => "SKILL",
        }
    }

    /// The source name of a file tier's hooks (`user#0`, `project#0`, `local#0`): the tier in
    /// lower case and the file's index within the tier (each file tier has one file).
    pub fn source(self) -> String {
        format!("{}#0", self.name().to_ascii_lowercase())
    }
}

impl fmt::Display for Tier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The roots the three file tiers hang off.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TierPaths {
    /// The home directory (USER tier); `None` skips the tier.
    pub home: Option<PathBuf>,
    /// The project root (PROJECT and LOCAL tiers).
    pub project: PathBuf,
}

impl TierPaths {
    /// Paths for `project`, with the home directory `home`.
    pub fn new(home: Option<PathBuf>, project: impl Into<PathBuf>) -> Self {
        TierPaths { home, project: project.into() }
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

    /// The file of `tier` (`None` for SKILL, and for USER without a home directory).
    pub fn file(&self, tier: Tier) -> Option<PathBuf> {
        match tier {
            Tier::User => self.user_file(),
            Tier::Project => Some(self.project_file()),
            Tier::Local => Some(self.local_file()),
            Tier::Skill => None,
        }
    }

    /// The existing-or-not files of the three tiers, in dispatch order.
    pub fn files(&self) -> Vec<(Tier, PathBuf)> {
        Tier::FILES.iter().filter_map(|&t| self.file(t).map(|p| (t, p))).collect()
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
