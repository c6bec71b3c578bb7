//! The `http` action.

mod spec;
mod transport;

use std::time::Duration;

use hook_core::{ExecutionHook, HookContext, HookFuture};

pub use self::spec::{HttpBody, HttpSpec};
use crate::answer::{self, DEFAULT_TIMEOUT};

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

    fn budget(&self) -> Duration {
        self.spec.timeout.unwrap_or(DEFAULT_TIMEOUT)
    }
}

impl ExecutionHook for HttpAction {
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
        let call = transport::call(&self.spec, ctx, &self.source);
        Box::pin(async move { Ok(answer::run(&self.id, ctx, self.spec.fail_closed, self.budget(), call).await) })
    }
}
