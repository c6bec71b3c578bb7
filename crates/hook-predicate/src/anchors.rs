//! Where relative path globs are anchored (R-PRED-3).

use std::path::PathBuf;

/// Anchors for path globs in permission rules (R-PRED-3): `//…` is absolute, `~/…` is under `home`,
/// `/…` is relative to `tier_root` (the project for PROJECT, LOCAL and SKILL rules, the home directory
/// for USER rules), and everything else is relative to `project_root`. Relative paths in tool input
/// are resolved against `project_root` too. Relative roots are made absolute against the current
/// directory when a pattern is parsed.
#[derive(Debug, Clone)]
pub struct PathAnchors {
    /// The project root: relative globs and relative tool paths are anchored here.
    pub project_root: PathBuf,
    /// The home directory for `~/…` globs; without it a `~/…` glob is resolved against the home
    /// directory of the process when it is first matched (R-PRED-3b).
    pub home: Option<PathBuf>,
    /// The root of the tier that declares the rule, for `/…` globs.
    pub tier_root: PathBuf,
}

impl PathAnchors {
    /// Anchors at `project_root`, no home directory, tier root = project root.
    pub fn new(project_root: impl Into<PathBuf>) -> Self {
        let project_root = project_root.into();
        PathAnchors { tier_root: project_root.clone(), project_root, home: None }
    }

    /// Sets the home directory for `~/…` globs.
    pub fn with_home(self, home: impl Into<PathBuf>) -> Self {
        PathAnchors { home: Some(home.into()), ..self }
    }

    /// Sets the root of the declaring tier for `/…` globs.
    pub fn with_tier_root(self, root: impl Into<PathBuf>) -> Self {
        PathAnchors { tier_root: root.into(), ..self }
    }
}
