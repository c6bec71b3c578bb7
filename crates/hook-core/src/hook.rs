//! The `ExecutionHook` trait every hook implements, and a closure adapter.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use crate::context::HookContext;
use crate::error::Error;
use crate::result::HookResult;

/// The future a hook returns.
pub type HookFuture<'a> = Pin<Box<dyn Future<Output = Result<HookResult, Error>> + Send + 'a>>;

/// A hook: code that runs at an event and answers with a [`HookResult`].
///
/// "The hook said no" is an `Ok` result; `Err` means the hook could not run and is mapped by the
/// policy (R-EXEC-6). A hook future must be cancel-safe: dropping it stops the work (a command
/// hook kills its process group, R-EXEC-5).
pub trait ExecutionHook: Send + Sync + fmt::Debug {
    /// Stable id (`command@project#…` for declarative hooks, R-CFG-ID-1).
    fn id(&self) -> &str;

    /// Where the hook comes from (`user#0`, `my-skill`, `programmatic`).
    fn source(&self) -> &str {
        "programmatic"
    }

    /// A declared execution budget: a floor for the executor's net (R-EXEC-4).
    fn execution_budget(&self) -> Option<Duration> {
        None
    }

    /// Whether the hook applies to this context (matcher, `if`). Hooks that do not match are
    /// not invoked and do not appear in reports. Must be cheap and must not block.
    fn matches(&self, ctx: &HookContext) -> bool {
        let _ = ctx;
        true
    }

    /// Whether a gate the person can lift keeps this hook from running (a handler of a
    /// repository file the person has not trusted): it then never matches.
    fn withheld(&self) -> bool {
        false
    }

    /// Whether the hook would apply to this context if nothing withheld it (what an agent's
    /// client is told about when a withheld hook would have run).
    fn would_match(&self, ctx: &HookContext) -> bool {
        self.matches(ctx)
    }

    /// Whether the hook's verdict must hold for the tool input that finally runs: when a hook
    /// that does not judge rewrites the input (`updated_input`), the executor asks this hook
    /// again on the rewritten input (the organisation's managed hooks answer `true`).
    fn judges_the_final_input(&self) -> bool {
        false
    }

    /// Runs the hook.
    fn execute<'a>(&'a self, ctx: &'a HookContext) -> HookFuture<'a>;
}

/// A hook made from a closure, for programmatic registration.
///
/// ```
/// use hook_core::{FnHook, HookResult};
/// let hook = FnHook::new("audit", |ctx| async move {
///     Ok(HookResult::feedback(format!("saw {}", ctx.event)))
/// });
/// # let _ = hook;
/// ```
pub struct FnHook<F> {
    id: String,
    budget: Option<Duration>,
    f: F,
}

impl<F, Fut> FnHook<F>
where
    F: Fn(HookContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<HookResult, Error>> + Send + 'static,
{
    /// A hook with `id` that runs `f` on a copy of the context.
    pub fn new(id: impl Into<String>, f: F) -> Arc<Self> {
        Arc::new(FnHook { id: id.into(), budget: None, f })
    }

    /// The same, declaring an execution budget.
    pub fn with_budget(id: impl Into<String>, budget: Duration, f: F) -> Arc<Self> {
        Arc::new(FnHook { id: id.into(), budget: Some(budget), f })
    }
}

impl<F> fmt::Debug for FnHook<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FnHook").field("id", &self.id).finish_non_exhaustive()
    }
}

impl<F, Fut> ExecutionHook for FnHook<F>
where
    F: Fn(HookContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<HookResult, Error>> + Send + 'static,
{
    fn id(&self) -> &str {
        &self.id
    }

    fn execution_budget(&self) -> Option<Duration> {
        self.budget
    }

    fn execute<'a>(&'a self, ctx: &'a HookContext) -> HookFuture<'a> {
        Box::pin((self.f)(ctx.clone()))
    }
}
