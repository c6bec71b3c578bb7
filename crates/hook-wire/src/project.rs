//! The project a Claude Code hook call belongs to: one derivation for `claude` and `serve`.

use std::path::{Path, PathBuf};

/// Where a call says its project is, strongest first.
#[derive(Debug, Default, Clone, Copy)]
pub struct ProjectHints<'a> {
    /// Named explicitly (`serve`'s `project` query parameter, `run --project`).
    pub explicit: Option<&'a Path>,
    /// `CLAUDE_PROJECT_DIR`: the environment for `claude`, the `X-Claude-Project-Dir` header over HTTP.
    pub client_project_dir: Option<&'a Path>,
    /// The payload's `cwd`.
    pub cwd: Option<&'a Path>,
}

/// The project directory of a call.
///
/// The explicit project, else `CLAUDE_PROJECT_DIR`, else the payload's `cwd` walked up to the
/// nearest directory holding `.aimon/` or `.git` — never the home directory itself (its `.aimon/`
/// is the person's own tier) and never above it; with no such directory, `cwd` itself. Relative
/// paths are taken against `base` (the process's working directory); with no hint at all the
/// answer is `base`.
///
/// ```
/// use std::path::Path;
/// use hook_wire::{ProjectHints, project_dir};
/// let hints = ProjectHints { client_project_dir: Some(Path::new("/w/app")), ..ProjectHints::default() };
/// assert_eq!(project_dir(&hints, Path::new("/"), None), Path::new("/w/app"));
/// ```
pub fn project_dir(hints: &ProjectHints<'_>, base: &Path, home: Option<&Path>) -> PathBuf {
    let absolute = |p: &Path| if p.is_absolute() { p.to_owned() } else { base.join(p) };
    let nonempty = |p: &&Path| !p.as_os_str().is_empty();
    if let Some(dir) = hints.explicit.filter(nonempty).or(hints.client_project_dir.filter(nonempty)) {
        return absolute(dir);
    }
    let Some(cwd) = hints.cwd.filter(nonempty).map(absolute) else {
        return base.to_owned();
    };
    for dir in cwd.ancestors() {
        if home.is_some_and(|h| dir == h) {
            break;
        }
        if hook_core::AimonDir::under(dir).path().is_dir() || dir.join(".git").exists() {
            return dir.to_owned();
        }
    }
    cwd
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(dirs: &[&str]) -> tempfile::TempDir {
        let root = tempfile::tempdir().expect("tempdir");
        for d in dirs {
            std::fs::create_dir_all(root.path().join(d)).expect("mkdir");
        }
        root
    }

    fn derive(root: &Path, cwd: &str, home: Option<&str>) -> PathBuf {
        let cwd = root.join(cwd);
        let home = home.map(|h| root.join(h));
        let hints = ProjectHints { cwd: Some(&cwd), ..ProjectHints::default() };
        project_dir(&hints, Path::new("/"), home.as_deref())
    }

    #[test]
    fn the_explicit_project_wins_over_client_project_dir_and_cwd() {
        let hints = ProjectHints {
            explicit: Some(Path::new("/a")),
            client_project_dir: Some(Path::new("/b")),
            cwd: Some(Path::new("/c")),
        };
        assert_eq!(project_dir(&hints, Path::new("/"), None), Path::new("/a"));
        let hints = ProjectHints { explicit: None, ..hints };
        assert_eq!(project_dir(&hints, Path::new("/"), None), Path::new("/b"));
    }

    #[test]
    fn cwd_walks_up_to_the_nearest_directory_with_aimon_or_git() {
        let root = tree(&["h/repo/.git", "h/repo/src/deep", "h/other/.aimon", "h/other/x"]);
        let r = root.path();
        assert_eq!(derive(r, "h/repo/src/deep", Some("h")), r.join("h/repo"));
        assert_eq!(derive(r, "h/other/x", Some("h")), r.join("h/other"));
    }

    #[test]
    fn the_walk_never_reaches_the_home_directory_or_above_it() {
        let root = tree(&[".git", "h/.aimon", "h/plain/sub"]);
        let r = root.path();
        assert_eq!(derive(r, "h/plain/sub", Some("h")), r.join("h/plain/sub"));
    }

    #[test]
    fn outside_home_the_walk_goes_up_to_the_root() {
        let root = tree(&["srv/.git", "srv/a/b", "h"]);
        let r = root.path();
        assert_eq!(derive(r, "srv/a/b", Some("h")), r.join("srv"));
    }

    #[test]
    fn relative_and_missing_hints_are_taken_against_the_base() {
        let hints = ProjectHints { client_project_dir: Some(Path::new("p")), ..ProjectHints::default() };
        assert_eq!(project_dir(&hints, Path::new("/base"), None), Path::new("/base/p"));
        assert_eq!(project_dir(&ProjectHints::default(), Path::new("/base"), None), Path::new("/base"));
    }
}
