//! A pack rule's `ask`: the person decides, told the rule's reason.

use hook_core::{ExecutionHook, HookContext, HookFuture, HookResult};

/// Answers `ask` with a fixed reason (the front end of a client that cannot ask denies instead).
#[derive(Debug)]
pub(crate) struct AskAction {
    id: String,
    source: String,
    reason: String,
}

impl AskAction {
    pub(crate) fn new(id: &str, source: &str, reason: &str) -> Self {
        AskAction { id: id.to_owned(), source: source.to_owned(), reason: reason.to_owned() }
    }
}

impl ExecutionHook for AskAction {
    fn id(&self) -> &str {
        &self.id
    }

    fn source(&self) -> &str {
        &self.source
    }

    fn execute<'a>(&'a self, _ctx: &'a HookContext) -> HookFuture<'a> {
        Box::pin(std::future::ready(Ok(HookResult::ask(self.reason.clone()))))
    }
}
