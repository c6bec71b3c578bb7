//! The trust verdict for the files of one project.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::store::TrustStore;
use crate::tier::Tier;

/// Decides which files of a project may run code (R-CLI-12). Cheap to clone; a snapshot of the
/// store taken when it was made — make a new one to see later `trust` calls.
#[derive(Clone, Debug)]
pub struct TrustGate {
    inner: Gate,
}

#[derive(Clone, Debug)]
enum Gate {
    /// An explicit project, or the override: every file is trusted.
    Everything,
    /// The store's record of `project`.
    Store {
        /// The project as the caller named it (for messages).
        project: PathBuf,
        /// Its canonical directory, `None` when it cannot be resolved (nothing is trusted then).
        canon: Option<PathBuf>,
        /// The project is the home directory: its `.aimon/` is the USER tier, the person's own.
        is_home: bool,
        /// Canonical path → SHA-256 of the files trusted for this project.
        files: BTreeMap<PathBuf, String>,
    },
}

impl TrustGate {
    /// Trusts every file: `run --project DIR`, `AIMON_TRUST_PROJECT_HOOKS=1`, library callers
    /// that load a project the person named.
    pub fn everything() -> Self {
        TrustGate { inner: Gate::Everything }
    }

    /// The gate for a project derived from an agent's call (`claude`, `serve`): every file when
    /// `trust_all` (the caller's reading of `AIMON_TRUST_PROJECT_HOOKS=1`: CI, headless runs),
    /// else [`Self::from_store`].
    pub fn for_agent(home: Option<&Path>, project: &Path, trust_all: bool) -> Self {
        if trust_all { Self::everything() } else { Self::from_store(home, project) }
    }

    /// The verdict of the person's store (`<home>/.aimon/trusted.json`) for `project`. Without a
    /// home directory nothing of the project is trusted; a store that cannot be read trusts
    /// nothing of it either (a WARN says why). USER-tier files stay trusted.
    pub fn from_store(home: Option<&Path>, project: &Path) -> Self {
        let canon = std::fs::canonicalize(project).ok();
        let is_home = canon.is_some() && home.and_then(|h| std::fs::canonicalize(h).ok()) == canon;
        let read = home.map(|h| TrustStore::in_home(h).read()).transpose();
        let files = match read {
            Ok(doc) => doc
                .and_then(|mut doc| canon.as_ref().and_then(|c| doc.projects.remove(c)))
                .map(|p| p.files)
                .unwrap_or_default(),
            Err(e) => {
                tracing::warn!("hooks: {e}; the project's command, http, mcp, prompt and agent hooks are not trusted");
                BTreeMap::new()
            }
        };
        TrustGate { inner: Gate::Store { project: project.to_owned(), canon, is_home, files } }
    }

    /// Whether this gate trusts every file.
    pub fn trusts_everything(&self) -> bool {
        matches!(self.inner, Gate::Everything)
    }

    /// Whether the file at `path` of `tier`, whose text hashes to `sha256`, may run code.
    /// MANAGED and USER files always may (the organisation's and the person's own); a SKILL.md
    /// outside the project directory is the person's own.
    pub fn is_trusted(&self, tier: Tier, path: &Path, sha256: &str) -> bool {
        let Gate::Store { project, canon, is_home, files } = &self.inner else { return true };
        if matches!(tier, Tier::Managed | Tier::User) || *is_home {
            return true;
        }
        let Some(canon) = canon else { return false };
        let Ok(real) = std::fs::canonicalize(path) else { return false };
        if tier == Tier::Skill && !path.starts_with(project) && !real.starts_with(canon) {
            return true;
        }
        files.get(&real).is_some_and(|h| h == sha256)
    }

    /// `run 'aimon-hooks trust --project <dir>'`: what makes this project trusted.
    pub fn command(&self) -> String {
        match &self.inner {
            Gate::Store { project, .. } => format!("run 'aimon-hooks trust --project {}'", project.display()),
            Gate::Everything => "run 'aimon-hooks trust'".to_owned(),
        }
    }

    /// The one WARN for an untrusted file whose command, http, mcp, prompt and agent hooks were skipped.
    pub fn warn_skipped(&self, file: &Path) {
        tracing::warn!(
            "hooks: {} is not trusted, so its command, http, mcp, prompt and agent hooks are skipped; {} to trust it",
            file.display(),
            self.command()
        );
    }

    /// Why a hook of the untrusted `file` does not run (for `explain`).
    pub fn skipped_reason(&self, file: &Path) -> String {
        format!("{} is not trusted; {} to trust it", file.display(), self.command())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trust::sha256_hex;

    #[test]
    fn a_file_is_trusted_only_with_its_recorded_hash_and_managed_and_user_files_always() {
        let home = tempfile::tempdir().expect("home");
        let project = tempfile::tempdir().expect("project");
        let file = project.path().join(".aimon/hooks.json");
        std::fs::create_dir_all(file.parent().expect("parent")).expect("mkdir");
        std::fs::write(&file, "v1").expect("write");
        let store = TrustStore::in_home(home.path());
        let gate = || TrustGate::from_store(Some(home.path()), project.path());
        assert!(!gate().is_trusted(Tier::Project, &file, &sha256_hex(b"v1")), "nothing recorded yet");
        assert!(gate().is_trusted(Tier::User, &file, "whatever"), "USER files are the person's own");
        assert!(
            gate().is_trusted(Tier::Managed, Path::new("/etc/aimon/managed/hooks.json"), "x"),
            "the organisation's"
        );
        store.trust(project.path()).expect("trust");
        let gate = gate();
        assert!(gate.is_trusted(Tier::Project, &file, &sha256_hex(b"v1")));
        assert!(!gate.is_trusted(Tier::Project, &file, &sha256_hex(b"v2")), "a changed file is untrusted again");
        assert!(!gate.is_trusted(Tier::Local, &project.path().join(".aimon/hooks.local.json"), &sha256_hex(b"v1")));
        assert!(TrustGate::everything().is_trusted(Tier::Project, &file, "anything"));
    }

    #[test]
    fn a_symlink_to_another_projects_trusted_files_gains_no_trust() {
        let home = tempfile::tempdir().expect("home");
        let trusted = tempfile::tempdir().expect("trusted project");
        let hostile = tempfile::tempdir().expect("hostile project");
        std::fs::create_dir_all(trusted.path().join(".aimon")).expect("mkdir");
        std::fs::write(trusted.path().join(".aimon/hooks.json"), "v1").expect("write");
        let store = TrustStore::in_home(home.path());
        store.trust(trusted.path()).expect("trust");
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(trusted.path().join(".aimon"), hostile.path().join(".aimon")).expect("symlink");
            let gate = TrustGate::from_store(Some(home.path()), hostile.path());
            assert!(!gate.is_trusted(Tier::Project, &hostile.path().join(".aimon/hooks.json"), &sha256_hex(b"v1")));
        }
    }

    #[test]
    fn skills_outside_the_project_are_the_persons_own() {
        let home = tempfile::tempdir().expect("home");
        let project = tempfile::tempdir().expect("project");
        let elsewhere = tempfile::tempdir().expect("elsewhere");
        let outside = elsewhere.path().join("SKILL.md");
        let inside = project.path().join("SKILL.md");
        std::fs::write(&outside, "x").expect("write");
        std::fs::write(&inside, "x").expect("write");
        let gate = TrustGate::from_store(Some(home.path()), project.path());
        assert!(gate.is_trusted(Tier::Skill, &outside, &sha256_hex(b"x")));
        assert!(!gate.is_trusted(Tier::Skill, &inside, &sha256_hex(b"x")));
    }
}
