//! Where AIMON keeps its files: one `.aimon/` directory in the home directory and one in each
//! project. Every crate names these paths through [`AimonDir`], so the layout is said once.
//!
//! | File | Under the home directory | Under a project |
//! |---|---|---|
//! | `hooks.json` | the USER tier | the PROJECT tier |
//! | `hooks.local.json` | — | the LOCAL tier |
//! | `mcp.json` | user MCP servers | project MCP servers |
//! | `trusted.json` | the trust store | — |
//! | `rewake.db` | the default rewake store | — |
//! | `serve.sock`, `serve.token` | the daemon's socket and bearer token | — |

use std::path::{Path, PathBuf};

/// The `.aimon/` directory under a home or a project directory, and the files in it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AimonDir(PathBuf);

impl AimonDir {
    /// The directory's name.
    pub const NAME: &'static str = ".aimon";

    /// `<root>/.aimon`.
    pub fn under(root: &Path) -> Self {
        AimonDir(root.join(Self::NAME))
    }

    /// The directory itself.
    pub fn path(&self) -> &Path {
        &self.0
    }

    /// `hooks.json`: the USER tier under the home directory, the PROJECT tier under a project.
    pub fn hooks(&self) -> PathBuf {
        self.0.join("hooks.json")
    }

    /// `hooks.local.json`: a project's LOCAL tier.
    pub fn local_hooks(&self) -> PathBuf {
        self.0.join("hooks.local.json")
    }

    /// `mcp.json`: the MCP server registry (Claude Code's `.mcp.json` shape).
    pub fn mcp(&self) -> PathBuf {
        self.0.join("mcp.json")
    }

    /// `trusted.json`: the trust store (home directory).
    pub fn trust_store(&self) -> PathBuf {
        self.0.join("trusted.json")
    }

    /// `rewake.db`: the default SQLite rewake store (home directory).
    pub fn rewake_db(&self) -> PathBuf {
        self.0.join("rewake.db")
    }

    /// `serve.sock`: the daemon's Unix socket (home directory).
    pub fn serve_socket(&self) -> PathBuf {
        self.0.join("serve.sock")
    }

    /// `serve.token`: the daemon's bearer token (home directory).
    pub fn serve_token(&self) -> PathBuf {
        self.0.join("serve.token")
    }
}
