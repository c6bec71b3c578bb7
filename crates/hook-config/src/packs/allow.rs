//! A pack rule's `allow`: the call goes ahead without the client's own prompt (`aimon/read-only`).

use hook_core::{ExecutionHook, HookContext, HookFuture, HookResult};

/// Answers an explicit allow; the merge lets any deny or ask win over it, and a rule matched only
/// uncertainly does not allow (`DeclarativeHook` drops the explicit allow then).
#[derive(Debug)]
pub(crate) struct AllowAction {
    id: String,
    source: String,
}

impl AllowAction {
    pub(crate) fn new(id: &str, source: &str) -> Self {
        AllowAction { id: id.to_owned(), source: source.to_owned() }
    }
}

impl ExecutionHook for AllowAction {
    fn id(&self) -> &str {
        &self.id
    }

    fn source(&self) -> &str {
        &self.source
    }

    fn execute<'a>(&'a self, _ctx: &'a HookContext) -> HookFuture<'a> {
        Box::pin(std::future::ready(Ok(HookResult::explicit_allow())))
    }
}
