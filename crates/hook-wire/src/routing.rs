//! Where each client keeps the settings that route its hooks to us: the files `init <client>`
//! writes, and the ones beside them that the client reads as the same layer (a setting in any of
//! them can add a hook, remove ours or turn hooks off). `init` and self-protection both name
//! these paths through this module, so they are said once.

use std::path::{Path, PathBuf};

/// Claude Code's settings: `~/.claude/settings.json` (user) and `<project>/.claude/settings.json`.
pub const CLAUDE_SETTINGS: &str = ".claude/settings.json";

/// Claude Code's personal project settings, `<project>/.claude/settings.local.json` (where
/// `init claude --project --http` writes, the token kept out of the repository).
pub const CLAUDE_LOCAL_SETTINGS: &str = ".claude/settings.local.json";

/// Codex's hooks file: `$CODEX_HOME/hooks.json` (user) or `<project>/.codex/hooks.json`.
pub const CODEX_HOOKS: &str = "hooks.json";

/// Codex's directory under a home or a project.
pub const CODEX_DIR: &str = ".codex";

/// Codex's configuration (trusted hook hashes, project trust), under `$CODEX_HOME`.
pub const CODEX_CONFIG: &str = "config.toml";

/// The environment variable naming Codex's home, else `~/.codex`.
const CODEX_HOME_ENV: &str = "CODEX_HOME";

/// Copilot's hooks file `init copilot` writes, under the project.
pub const COPILOT_HOOKS: &str = ".github/hooks/aimon.json";

/// `$CODEX_HOME`, else `<home>/.codex`.
pub fn codex_home(home: &Path) -> PathBuf {
    std::env::var_os(CODEX_HOME_ENV).map_or_else(|| home.join(CODEX_DIR), PathBuf::from)
}

/// Every client settings file that routes hooks for a session in `project` of the person whose
/// home is `home`. Files that do not exist are listed too: creating one can route hooks as well
/// as editing it.
pub fn routing_files(home: Option<&Path>, project: &Path) -> Vec<PathBuf> {
    let mut files = vec![
        project.join(CLAUDE_SETTINGS),
        project.join(CLAUDE_LOCAL_SETTINGS),
        project.join(CODEX_DIR).join(CODEX_HOOKS),
        project.join(COPILOT_HOOKS),
        project.join(crate::gemini::SETTINGS_FILE),
        project.join(crate::qwen::SETTINGS_FILE),
    ];
    if let Some(home) = home {
        let codex = codex_home(home);
        files.extend([
            home.join(CLAUDE_SETTINGS),
            codex.join(CODEX_HOOKS),
            codex.join(CODEX_CONFIG),
            home.join(crate::gemini::SETTINGS_FILE),
            home.join(crate::qwen::SETTINGS_FILE),
        ]);
    }
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_client_has_its_project_file_and_the_home_adds_the_user_files() {
        let project = Path::new("/p");
        let without_home = routing_files(None, project);
        for rel in [".claude/settings.json", ".codex/hooks.json", ".github/hooks/aimon.json", ".gemini/settings.json"] {
            assert!(without_home.contains(&project.join(rel)), "{rel}");
        }
        assert!(without_home.iter().all(|p| p.starts_with(project)));
        let with_home = routing_files(Some(Path::new("/h")), project);
        assert!(with_home.iter().any(|p| p == Path::new("/h/.claude/settings.json")));
        assert!(with_home.iter().any(|p| p == Path::new("/h/.qwen/settings.json")));
    }
}
