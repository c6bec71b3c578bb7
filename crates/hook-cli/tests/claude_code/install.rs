//! The pinned Claude Code CLI, installed with npm into `<target>/npm-cache/claude-code-<version>`
//! on first use (`tests/common/npm.rs`: one install under a lock, a completion marker last).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::npm::NpmPackage;

/// The one Claude Code version the suite drives.
const CLAUDE_CODE: NpmPackage = NpmPackage {
    slug: "claude-code",
    package: "@anthropic-ai/claude-code",
    version: "2.1.332",
    bin: "claude",
    size: "~380 MB",
};

/// The `claude` executable of the pinned version, installing it first if needed. Panics with a
/// sentence naming what to install when npm is missing or the install fails.
pub(crate) fn claude_code() -> &'static Path {
    static CLAUDE: OnceLock<PathBuf> = OnceLock::new();
    CLAUDE.get_or_init(|| CLAUDE_CODE.install(|_| ()))
}
