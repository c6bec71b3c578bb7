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
/// rendered `args` and maps a result whose structured content, or else text parsed as JSON (also
/// after a one-line label such as `Echo: `), has the shape `{decision, reason, updatedInput}` (or
/// the Claude Code output schema); other results pass. `isError`, an unknown server, a failed start, a crash or a timeout is "no usable
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
    // Structured content that carries no decision (server-filesystem answers
    // `{"content": "<text>"}`) falls back to the text (REL-5).
    let structured = output.structured.as_ref().and_then(|v| Answer::from_json(v, event));
    let answer = structured.filter(|a| *a != Answer::default());
    Reply::Answer(
        answer.or_else(|| text_json(&output.text).and_then(|v| Answer::from_json(&v, event))).unwrap_or_default(),
    )
}

/// The text content as JSON: the whole text, or the object that ends it after a one-line label
/// (server-everything's echo answers `Echo: <message>`).
fn text_json(text: &str) -> Option<Value> {
    let text = text.trim();
    serde_json::from_str(text).ok().or_else(|| {
        let start = text.find('{')?;
        let label = &text[..start];
        if label.contains('\n') {
            return None;
        }
        serde_json::from_str(&text[start..]).ok()
    })
}

answer::transport_hook!(McpAction);
