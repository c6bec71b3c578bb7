//! The crate's one error type.

/// Errors of `hook-actions`. A hook that says no is a `HookResult`, never an error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An MCP server registry (`mcp.json`) could not be read.
    #[error("invalid mcp server registry: {0}")]
    McpRegistry(String),
}
