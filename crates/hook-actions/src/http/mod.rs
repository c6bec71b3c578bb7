//! The `http` action.

mod spec;
mod transport;

use hook_core::HookContext;

pub use self::spec::{HttpBody, HttpSpec};
use crate::answer::{self, Reply};

/// An http hook (R-ACT-HTTP): sends the rendered request with the process-wide client and maps
/// a JSON answer (`{decision, reason, updatedInput}` or the Claude Code output schema). An empty
/// 2xx body passes; a transport error, non-2xx status, timeout, oversized or non-JSON body is "no
/// usable decision" (WARN and proceed, or block when `failClosed`).
#[derive(Debug, Clone)]
pub struct HttpAction {
    id: String,
    source: String,
    spec: HttpSpec,
}

impl HttpAction {
    /// An http hook with `id`, registered from `source` (`${context.skill_name}`).
    pub fn new(id: impl Into<String>, source: impl Into<String>, spec: HttpSpec) -> Self {
        HttpAction { id: id.into(), source: source.into(), spec }
    }

    async fn call(&self, ctx: &HookContext) -> Reply {
        transport::call(&self.spec, ctx, &self.source).await
    }
}

answer::transport_hook!(HttpAction);
