//! The executor (R-EXEC): runs a chain of hooks under a policy.

use std::any::Any;
use std::borrow::Cow;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;

use futures_util::FutureExt;
use futures_util::future::join_all;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use crate::context::HookContext;
use crate::events::OnFailure;
use crate::hook::ExecutionHook;
use crate::policy::{ExecutionMode, HookExecutionPolicy, OnException};
use crate::result::HookResult;

/// What happened to one invoked hook (R-EXEC-8).
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct HookRun {
    /// The hook's id.
    pub hook_id: String,
    /// The hook's source.
    pub source: String,
    /// Its result (after policy mapping when it failed).
    pub result: HookResult,
    /// Wall time (virtual under a paused clock).
    pub elapsed: Duration,
    /// Why it failed, when the executor had to map it (timeout, error, panic).
    pub error: Option<String>,
}

/// The outcome of one dispatch.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct ExecutionReport {
    /// Every invoked hook, in dispatch order; hooks that did not match are absent.
    pub runs: Vec<HookRun>,
    /// The merged result (R-RES-4). On interruption it is blocked.
    pub merged: HookResult,
    /// The caller was cancelled while waiting (R-EXEC-7).
    pub interrupted: bool,
}

/// The reason an interrupted chain carries (R-EXEC-7).
pub const INTERRUPTED_REASON: &str = "hook execution was interrupted before every hook answered";

impl ExecutionReport {
    /// The results in dispatch order.
    pub fn results(&self) -> impl Iterator<Item = &HookResult> {
        self.runs.iter().map(|r| &r.result)
    }
}

/// Runs hooks under a policy. Stateless; one per engine is plenty.
#[derive(Debug, Clone, Copy, Default)]
pub struct HookExecutor;

impl HookExecutor {
    /// Runs the matching hooks of `hooks` for `ctx` under `policy`.
    ///
    /// Sequential: in order, each seeing the input as updated by the previous one (R-EXEC-2).
    /// Parallel: all at once, every result returned (R-EXEC-3). Each hook runs under the policy
    /// net widened by its declared budget (R-EXEC-4); a hook that times out is dropped, which
    /// stops its work (R-EXEC-5). Errors and panics are mapped by `on_exception` (R-EXEC-6).
    /// When `cancel` fires, the chain is blocked whatever the policy and no further hook runs
    /// (R-EXEC-7).
    pub async fn execute<'h>(
        &self,
        hooks: impl IntoIterator<Item = &'h Arc<dyn ExecutionHook>>,
        ctx: &HookContext,
        policy: &HookExecutionPolicy,
        cancel: &CancellationToken,
    ) -> ExecutionReport {
        let hooks: Vec<&Arc<dyn ExecutionHook>> = hooks.into_iter().collect();
        let mut report = match policy.mode {
            ExecutionMode::Sequential => sequential(&hooks, ctx, policy, cancel).await,
            ExecutionMode::Parallel => parallel(&hooks, ctx, policy, cancel).await,
        };
        if !report.interrupted && ctx.event.spec().updates_input {
            judge_the_final_input(&hooks, ctx, policy, cancel, &mut report).await;
        }
        // A cancelled wait blocks, except where a failure must change nothing (R-EVT-8).
        report.merged = if report.interrupted && ctx.event.spec().on_failure != OnFailure::Report {
            HookResult::merge(report.results().cloned().chain([HookResult::block(INTERRUPTED_REASON)]))
        } else {
            HookResult::merge(report.results().cloned())
        };
        report
    }
}

async fn sequential(
    hooks: &[&Arc<dyn ExecutionHook>],
    ctx: &HookContext,
    policy: &HookExecutionPolicy,
    cancel: &CancellationToken,
) -> ExecutionReport {
    let mut report = ExecutionReport::default();
    // Cloned only once a hook rewrites the input or output.
    let mut current = Cow::Borrowed(ctx);
    for hook in hooks {
        if !hook.matches(&current) {
            continue;
        }
        if cancel.is_cancelled() {
            report.interrupted = true;
            break;
        }
        let run = tokio::select! {
            biased;
            () = cancel.cancelled() => { report.interrupted = true; break; }
            run = run_one(hook, &current, policy) => run,
        };
        if (run.result.updated_input.is_some() || run.result.updated_output.is_some())
            && let Some(tool) = current.to_mut().tool.as_mut()
        {
            if let Some(input) = &run.result.updated_input {
                tool.input = input.clone();
            }
            if let Some(output) = &run.result.updated_output {
                tool.response = Some(output.clone());
            }
        }
        let stop = policy.stop_on_blocked && run.result.is_blocked();
        report.runs.push(run);
        if stop {
            break;
        }
    }
    report
}

/// Asks the hooks that judge the final input ([`ExecutionHook::judges_the_final_input`]) again
/// when the input that would run is a rewrite by a hook that does not judge it: they run in order
/// on the rewritten input and their runs are added to `report`, so a refusal there refuses the
/// call and a rewrite of theirs is the last one. Nothing is asked again when the chain already
/// refuses or nothing rewrote the input.
async fn judge_the_final_input(
    hooks: &[&Arc<dyn ExecutionHook>],
    ctx: &HookContext,
    policy: &HookExecutionPolicy,
    cancel: &CancellationToken,
    report: &mut ExecutionReport,
) {
    let judges: Vec<&Arc<dyn ExecutionHook>> = hooks.iter().copied().filter(|h| h.judges_the_final_input()).collect();
    // The last rewrite is the one that runs (R-RES-4).
    let Some(last) = report.runs.iter().rev().find(|r| r.result.updated_input.is_some()) else { return };
    if judges.is_empty() || judges.iter().any(|h| h.id() == last.hook_id) {
        return;
    }
    if HookResult::merge(report.results().cloned()).is_blocked() {
        return;
    }
    let mut rewritten = ctx.clone();
    let (Some(tool), Some(input)) = (rewritten.tool.as_mut(), last.result.updated_input.clone()) else { return };
    tool.input = input;
    tracing::debug!(rewritten_by = %last.hook_id, "hooks: the input was rewritten; its judges are asked again");
    let again = sequential(&judges, &rewritten, policy, cancel).await;
    report.interrupted |= again.interrupted;
    report.runs.extend(again.runs);
}

async fn parallel(
    hooks: &[&Arc<dyn ExecutionHook>],
    ctx: &HookContext,
    policy: &HookExecutionPolicy,
    cancel: &CancellationToken,
) -> ExecutionReport {
    let matching = hooks.iter().filter(|h| h.matches(ctx));
    let all = join_all(matching.map(|h| run_one(h, ctx, policy)));
    tokio::select! {
        biased;
        () = cancel.cancelled() => ExecutionReport { interrupted: true, ..ExecutionReport::default() },
        runs = all => ExecutionReport { runs, ..ExecutionReport::default() },
    }
}

async fn run_one(hook: &Arc<dyn ExecutionHook>, ctx: &HookContext, policy: &HookExecutionPolicy) -> HookRun {
    let id = hook.id();
    let net = policy.effective_timeout(id, hook.execution_budget());
    let span = tracing::info_span!("hook", id, event = ctx.event.name(), elapsed_ms = tracing::field::Empty);
    let started = Instant::now();
    let outcome =
        tokio::time::timeout(net, AssertUnwindSafe(hook.execute(ctx)).catch_unwind()).instrument(span.clone()).await;
    let elapsed = started.elapsed();
    span.record("elapsed_ms", elapsed.as_millis() as u64);
    let failure = match outcome {
        Ok(Ok(Ok(result))) => Ok(result),
        Ok(Ok(Err(err))) => Err(err.to_string()),
        Ok(Err(panic)) => Err(format!("hook panicked: {}", panic_message(&*panic))),
        Err(_) => Err(format!("hook timed out after {net:?}")),
    };
    let (result, error) = match failure {
        Ok(result) => (result, None),
        Err(cause) => (map_failure(id, &cause, policy.on_exception, ctx.event.spec().on_failure), Some(cause)),
    };
    tracing::debug!(parent: &span, decision = result.decision.as_str(), flow = result.flow.as_str(), error = error.as_deref(), "hook finished");
    HookRun { hook_id: id.to_owned(), source: hook.source().to_owned(), result, elapsed, error }
}

fn map_failure(id: &str, cause: &str, on_exception: OnException, on_failure: OnFailure) -> HookResult {
    match on_exception {
        OnException::FailOpen | OnException::FailClosed if on_failure == OnFailure::Report => {
            tracing::warn!(hook = id, "hooks: hook '{id}' failed, proceeding: {cause}");
            HookResult::allow().with_failure(cause)
        }
        OnException::FailOpen => {
            tracing::warn!(hook = id, "hooks: hook '{id}' failed, proceeding (fail-open): {cause}");
            HookResult::allow().with_failure(cause)
        }
        OnException::FailClosed => {
            tracing::warn!(hook = id, "hooks: hook '{id}' failed, blocking (fail-closed): {cause}");
            HookResult::block(format!("hook '{id}' failed: {cause}")).with_failure(cause)
        }
    }
}

fn panic_message(panic: &(dyn Any + Send)) -> &str {
    panic
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("non-string panic payload")
}
