//! What an `mcp` handler declares.

use std::time::Duration;

use serde_json::{Map, Value};

/// An mcp hook: `tool` on the registry's `server` (R-ACT-MCP-1).
///
/// Its serde and schema form is the `mcp` handler's own fields in hooks.json (Claude Code's
/// `mcp_tool` spells `args` as `input`); `timeout` and `failClosed` are the handler's common
/// fields, which hook-config owns.
#[derive(Debug, Clone, PartialEq, serde::Serialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct McpSpec {
    /// The server's name in `.aimon/mcp.json`.
    #[schemars(pattern(r"\S"))]
    pub server: String,
    /// The tool's name.
    #[schemars(pattern(r"\S"))]
    pub tool: String,
    /// Tool arguments; string values are template-rendered (structurally, so they stay JSON).
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub args: Map<String, Value>,
    /// The hook's deadline and declared execution budget; `None` = [`crate::DEFAULT_TIMEOUT`].
    #[serde(skip)]
    pub timeout: Option<Duration>,
    /// Block on decision events when the hook gives no usable decision (R-CFG-4c).
    #[serde(skip)]
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
