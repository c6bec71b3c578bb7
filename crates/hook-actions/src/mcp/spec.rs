//! What an `mcp` handler declares.

use std::time::Duration;

use serde_json::{Map, Value};

/// An mcp hook: `tool` on the registry's `server` (R-ACT-MCP-1).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct McpSpec {
    /// Server name in [`crate::McpServers`].
    pub server: String,
    /// Tool name.
    pub tool: String,
    /// Tool arguments; string values are template-rendered (structurally, so they stay JSON).
    pub args: Map<String, Value>,
    /// The hook's deadline and declared execution budget; `None` = [`crate::DEFAULT_TIMEOUT`].
    pub timeout: Option<Duration>,
    /// Block on decision events when the hook gives no usable decision (R-CFG-4c).
    pub fail_closed: bool,
}

impl McpSpec {
    /// Calls `tool` on `server` with no arguments, the default timeout, failing open.
    pub fn new(server: impl Into<String>, tool: impl Into<String>) -> Self {
        McpSpec { server: server.into(), tool: tool.into(), args: Map::new(), timeout: None, fail_closed: false }
    }

    /// Sets the arguments.
    pub fn with_args(mut self, args: Map<String, Value>) -> Self {
        self.args = args;
        self
    }
}

crate::answer::spec_setters!(McpSpec);
