//! The `mcp` action.

mod servers;
mod spec;
mod transport;

use std::sync::Arc;

use hook_core::{HookContext, HookEventType};
use serde_json::Value;

pub use self::servers::McpServers;
pub use self::spec::McpSpec;
use self::transport::ToolOutput;
use crate::answer::{self, Answer, Reply};
use crate::template::render_map;

/// An mcp hook (R-ACT-MCP): calls a tool on a server of an [`McpServers`] registry with the
/// rendered `args` and maps a result whose structured content, or text parsed as JSON, has the
/// shape `{decision, reason, updatedInput}` (or the Claude Code output schema); other results
/// pass. `isError`, an unknown server, a failed start, a crash or a timeout is "no usable
/// decision" (WARN and proceed, or block when `failClosed`).
#[derive(Debug, Clone)]
pub struct McpAction {
    id: String,
    source: String,
    spec: McpSpec,
    servers: Arc<McpServers>,
}

impl McpAction {
    /// An mcp hook with `id`, registered from `source`, calling into `servers`.
    pub fn new(id: impl Into<String>, source: impl Into<String>, spec: McpSpec, servers: Arc<McpServers>) -> Self {
        McpAction { id: id.into(), source: source.into(), spec, servers }
    }

    async fn call(&self, ctx: &HookContext) -> Reply {
        let args = render_map(&self.spec.args, ctx, &self.source, &[]);
        match self.servers.call(&self.spec.server, &self.spec.tool, args).await {
            Ok(output) => reply(output, ctx.event),
            Err(cause) => Reply::Failed(cause),
        }
    }
}

fn reply(output: ToolOutput, event: HookEventType) -> Reply {
    if output.is_error {
        let first = output.text.lines().next().unwrap_or("").trim();
        return Reply::Failed(format!("tool reported an error: {first}"));
    }
    let parsed = || serde_json::from_str::<Value>(output.text.trim()).ok();
    let answer = output.structured.as_ref().and_then(|v| Answer::from_json(v, event));
    Reply::Answer(answer.or_else(|| parsed().and_then(|v| Answer::from_json(&v, event))).unwrap_or_default())
}

answer::transport_hook!(McpAction);
