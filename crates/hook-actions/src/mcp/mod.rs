//! The `mcp` action.

mod servers;
mod spec;
mod transport;

use std::sync::Arc;
use std::time::Duration;

use hook_core::{ExecutionHook, HookContext, HookEventType, HookFuture};
use serde_json::Value;

pub use self::servers::McpServers;
pub use self::spec::McpSpec;
use self::transport::ToolOutput;
use crate::answer::{self, Answer, DEFAULT_TIMEOUT, Reply};
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

    fn budget(&self) -> Duration {
        self.spec.timeout.unwrap_or(DEFAULT_TIMEOUT)
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

impl ExecutionHook for McpAction {
    fn id(&self) -> &str {
        &self.id
    }

    fn source(&self) -> &str {
        &self.source
    }

    fn execution_budget(&self) -> Option<Duration> {
        Some(self.budget())
    }

    fn execute<'a>(&'a self, ctx: &'a HookContext) -> HookFuture<'a> {
        Box::pin(
            async move { Ok(answer::run(&self.id, ctx, self.spec.fail_closed, self.budget(), self.call(ctx)).await) },
        )
    }
}
