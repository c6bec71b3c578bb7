//! The `deny` action (R-ACT-DENY-1): an immediate denial, no transport.

use hook_core::{ExecutionHook, HookContext, HookFuture};

use crate::answer::{self, Answer, Reply, Verdict};

/// A deny hook: its reason (R-ACT-DENY-1). Its serde and schema form is the `deny` handler's own
/// fields in hooks.json.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct DenySpec {
    /// Why; shown to the model. Must not be blank.
    #[schemars(pattern(r"\S"))]
    pub reason: String,
}

impl DenySpec {
    /// Denies with `reason`.
    pub fn new(reason: impl Into<String>) -> Self {
        DenySpec { reason: reason.into() }
    }
}

/// Denies at once with a fixed, non-blank reason.
///
/// ```
/// use hook_actions::DenyAction;
/// use hook_core::{ExecutionHook, HookContext, HookEventType};
/// # tokio_test_block_on(async {
/// let deny = DenyAction::new("deny@project#0", "project#0", "force push is forbidden");
/// let r = deny.execute(&HookContext::new(HookEventType::PRE_TOOL)).await.unwrap();
/// assert!(r.is_blocked());
/// assert_eq!(r.feedback.as_deref(), Some("force push is forbidden"));
/// # });
/// # fn tokio_test_block_on(f: impl std::future::Future<Output = ()>) {
/// #     tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(f)
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct DenyAction {
    id: String,
    source: String,
    reason: String,
}

impl DenyAction {
    /// A deny hook; a blank `reason` is replaced by one naming the hook, so a denial always
    /// says something.
    pub fn new(id: impl Into<String>, source: impl Into<String>, reason: impl Into<String>) -> Self {
        let id = id.into();
        let reason = reason.into();
        let reason = if reason.trim().is_empty() { format!("denied by hook '{id}'") } else { reason };
        DenyAction { id, source: source.into(), reason }
    }
}

impl ExecutionHook for DenyAction {
    fn id(&self) -> &str {
        &self.id
    }

    fn source(&self) -> &str {
        &self.source
    }

    fn execute<'a>(&'a self, ctx: &'a HookContext) -> HookFuture<'a> {
        let reply = Reply::Answer(Answer::with(Verdict::Deny, self.reason.clone()));
        Box::pin(std::future::ready(Ok(answer::resolve(&self.id, ctx.event, false, reply))))
    }
}

#[cfg(test)]
mod tests {
    use hook_core::{Decision, HookEventType};

    use super::*;

    #[tokio::test]
    async fn a_blank_reason_still_gives_a_non_blank_denial() {
        let deny = DenyAction::new("deny@user#0", "user#0", "  ");
        let r = deny.execute(&HookContext::new(HookEventType::PRE_TOOL)).await.expect("runs");
        assert_eq!(r.decision, Decision::Deny);
        assert_eq!(r.feedback.as_deref(), Some("denied by hook 'deny@user#0'"));
        assert_eq!((deny.id(), deny.source(), deny.execution_budget()), ("deny@user#0", "user#0", None));
    }
}
