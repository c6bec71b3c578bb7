//! A pack rule's fixed answer: `ask` (the person decides, told the rule's reason; the front end
//! of a client that cannot ask denies instead) or `allow` (`aimon/read-only`: the call goes ahead
//! without the client's own prompt).

use hook_core::{ExecutionHook, HookContext, HookFuture, HookResult};

/// Answers the same result to every call it is asked about. An explicit allow loses to any deny
/// or ask in the merge, and a rule matched only uncertainly does not allow (`DeclarativeHook`
/// drops the explicit allow then).
#[derive(Debug)]
pub(crate) struct FixedAnswer {
    id: String,
    source: String,
    answer: HookResult,
}

impl FixedAnswer {
    /// `ask` with `reason`.
    pub(crate) fn ask(id: &str, source: &str, reason: &str) -> Self {
        FixedAnswer { id: id.to_owned(), source: source.to_owned(), answer: HookResult::ask(reason.to_owned()) }
    }

    /// An explicit allow.
    pub(crate) fn allow(id: &str, source: &str) -> Self {
        FixedAnswer { id: id.to_owned(), source: source.to_owned(), answer: HookResult::explicit_allow() }
    }
}

impl ExecutionHook for FixedAnswer {
    fn id(&self) -> &str {
        &self.id
    }

    fn source(&self) -> &str {
        &self.source
    }

    fn execute<'a>(&'a self, _ctx: &'a HookContext) -> HookFuture<'a> {
        Box::pin(std::future::ready(Ok(self.answer.clone())))
    }
}
