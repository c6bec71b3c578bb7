//! Call-site chains (R-CHAIN): one typed entry point per decision point, so the rules of the
//! events table are applied once, here, and not by every embedder.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::context::HookContext;
use crate::error::Error;
use crate::events::{DecisionChannel, FeedbackRoute, HookEventType};
use crate::executor::{ExecutionReport, HookExecutor};
use crate::feedback::HookFeedback;
use crate::policy::HookExecutionPolicy;
use crate::registry::HookRegistry;
use crate::result::{Decision, FlowControl};
use crate::rewake::{RewakeRequest, RewakeSink};

/// A chain's outcome with the report it was derived from.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Chained<O> {
    /// What the agent loop should do.
    pub outcome: O,
    /// Per-hook detail.
    pub report: ExecutionReport,
}

/// Pre-tool outcome (R-CHAIN-1, R-CHAIN-2).
#[derive(Debug, Clone, PartialEq)]
pub enum PreToolOutcome {
    /// Run the tool with `input`; append `feedback` to its result.
    Proceed {
        /// The input after every `updated_input`.
        input: Value,
        /// Advisory feedback, not yet wrapped.
        feedback: Option<String>,
    },
    /// A hook wants a person to confirm. An embedder that cannot ask treats this as a denial.
    Ask {
        /// Why.
        reason: String,
    },
    /// Do not run the tool; return `tool_result` to the model instead.
    Cancelled {
        /// The reason.
        reason: String,
        /// The tool-result text: the reason, plus wrapped advisory feedback.
        tool_result: String,
    },
}

/// Permission outcome (R-CHAIN-2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PermissionOutcome {
    /// No hook objected.
    Allow,
    /// Ask the person.
    Ask(String),
    /// Deny before dispatch.
    Deny(String),
}

/// Post-tool outcome (R-CHAIN-3).
#[derive(Debug, Clone, PartialEq)]
pub struct PostToolOutcome {
    /// The tool output after every `updated_output`.
    pub output: Value,
    /// Advisory feedback, not yet wrapped.
    pub feedback: Option<String>,
    /// The output text with the feedback wrapped into it, ready for the tool result.
    pub tool_result: String,
}

/// Whether compaction was triggered by a person or automatically.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompactTrigger {
    /// `/compact`.
    Manual,
    /// Context pressure.
    Auto,
}

impl CompactTrigger {
    /// The payload value (`manual`, `auto`).
    pub fn as_str(self) -> &'static str {
        match self {
            CompactTrigger::Manual => "manual",
            CompactTrigger::Auto => "auto",
        }
    }
}

/// Pre-compact outcome (R-CHAIN-5).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PreCompactOutcome {
    /// Compact; fold `custom_instructions` into the summariser prompt.
    Proceed {
        /// Hook feedback, as custom instructions.
        custom_instructions: Option<String>,
    },
    /// AUTO compaction skipped.
    Skipped {
        /// Why.
        reason: String,
    },
    /// MANUAL compaction refused.
    Refused {
        /// Why.
        reason: String,
    },
}

/// Continuation outcome (R-EVT-7): onStop, subagentStop, teammateIdle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StopOutcome {
    /// Let the agent stop. `reason` is set when a hook asked to stop altogether (for the person).
    Stop {
        /// A hook's stop reason, if one asked to stop.
        reason: Option<String>,
    },
    /// Do not stop: go on with `reason` as the next instruction.
    KeepWorking {
        /// The next instruction.
        reason: String,
    },
}

/// onStop's cap in the events table ([`crate::EventSpec::continuation_cap`]): consecutive "keep
/// working" answers allowed per session before the agent may stop anyway, unless the embedder
/// says otherwise ([`HookEngine::with_continuation_cap`]; the binary passes
/// `CLAUDE_CODE_STOP_HOOK_BLOCK_CAP`) (R-EVT-7).
pub const DEFAULT_CONTINUATION_CAP: u32 = 8;

/// The engine an agent loop embeds: registry + policy + chains.
#[derive(Clone)]
pub struct HookEngine {
    registry: Arc<HookRegistry>,
    policy: HookExecutionPolicy,
    rewake: Option<Arc<dyn RewakeSink>>,
    /// Set by [`HookEngine::with_continuation_cap`]; else each event's own.
    continuation_cap: Option<u32>,
    continuations: Arc<Mutex<HashMap<String, u32>>>,
}

impl fmt::Debug for HookEngine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HookEngine")
            .field("policy", &self.policy)
            .field("rewake", &self.rewake.is_some())
            .finish_non_exhaustive()
    }
}

impl HookEngine {
    /// An engine over `registry` with the default policy and no rewake service.
    pub fn new(registry: Arc<HookRegistry>) -> Self {
        HookEngine {
            registry,
            policy: HookExecutionPolicy::default(),
            rewake: None,
            continuation_cap: None,
            continuations: Arc::default(),
        }
    }

    /// Runs every chain under `policy` instead of the default fail-open sequential one (a
    /// parallel mode, another timeout, fail-closed).
    pub fn with_policy(mut self, policy: HookExecutionPolicy) -> Self {
        self.policy = policy;
        self
    }

    /// Allows at most `cap` consecutive "keep working" answers per session for every
    /// continuation event (default: each event's own, 8 for onStop). The engine reads no
    /// environment: `aimon-hooks` passes `CLAUDE_CODE_STOP_HOOK_BLOCK_CAP` here.
    pub fn with_continuation_cap(mut self, cap: u32) -> Self {
        self.continuation_cap = Some(cap);
        self
    }

    /// Sends rewake specs to `sink`.
    pub fn with_rewake(mut self, sink: Arc<dyn RewakeSink>) -> Self {
        self.rewake = Some(sink);
        self
    }

    /// The registry the chains read: register or remove hooks through it while the engine runs.
    pub fn registry(&self) -> &Arc<HookRegistry> {
        &self.registry
    }

    /// The policy every chain runs under (see [`HookEngine::with_policy`]).
    pub fn policy(&self) -> &HookExecutionPolicy {
        &self.policy
    }

    /// Runs the hooks of `ctx.event` and hands their rewake specs on; no interpretation.
    pub async fn dispatch(&self, ctx: &HookContext, cancel: &CancellationToken) -> ExecutionReport {
        let snapshot = self.registry.snapshot();
        let report = HookExecutor.execute(snapshot.hooks(ctx.event), ctx, &self.policy, cancel).await;
        self.forward_rewakes(ctx, &report);
        report
    }

    fn forward_rewakes(&self, ctx: &HookContext, report: &ExecutionReport) {
        for run in &report.runs {
            let specs = &run.result.rewake_specs;
            if specs.is_empty() {
                continue;
            }
            if !ctx.event.spec().rewake {
                tracing::warn!(hook = %run.hook_id, "hooks: 'asyncRewake' is not supported on event '{}'", ctx.event);
                continue;
            }
            let Some(sink) = &self.rewake else {
                tracing::warn!(
                    hook = %run.hook_id,
                    "Hook returned {} rewake spec(s) but no RewakeService is wired",
                    specs.len()
                );
                continue;
            };
            for spec in specs {
                sink.schedule(RewakeRequest::new(run.hook_id.clone(), ctx.clone(), spec.clone()));
            }
        }
    }

    /// Pre-tool chain (R-CHAIN-1/2). `ctx.tool` must be set.
    pub async fn pre_tool(&self, ctx: &HookContext, cancel: &CancellationToken) -> Chained<PreToolOutcome> {
        debug_assert_eq!(ctx.event, HookEventType::PRE_TOOL);
        let report = self.dispatch(ctx, cancel).await;
        let merged = &report.merged;
        let advisory = HookFeedback::collect_advisory(report.results());
        let outcome = if merged.is_blocked() {
            let reason = blocking_reason(&report);
            let tool_result = HookFeedback::append_to_tool_result(&reason, advisory.as_deref());
            PreToolOutcome::Cancelled { reason, tool_result }
        } else if asks(merged.decision) {
            PreToolOutcome::Ask { reason: ask_reason(&report) }
        } else {
            let original = ctx.tool.as_ref().map(|t| t.input.clone()).unwrap_or(Value::Null);
            PreToolOutcome::Proceed { input: merged.updated_input.clone().unwrap_or(original), feedback: advisory }
        };
        Chained { outcome, report }
    }

    /// Permission chain (R-CHAIN-2).
    pub async fn permission(&self, ctx: &HookContext, cancel: &CancellationToken) -> Chained<PermissionOutcome> {
        let report = self.dispatch(ctx, cancel).await;
        let outcome = if report.merged.is_blocked() {
            PermissionOutcome::Deny(blocking_reason(&report))
        } else if asks(report.merged.decision) {
            PermissionOutcome::Ask(ask_reason(&report))
        } else {
            PermissionOutcome::Allow
        };
        Chained { outcome, report }
    }

    /// Post-tool chain (R-CHAIN-3): advisory, but output rewrites and feedback apply.
    pub async fn post_tool(&self, ctx: &HookContext, cancel: &CancellationToken) -> Chained<PostToolOutcome> {
        let report = self.dispatch(ctx, cancel).await;
        warn_ignored_blocks(ctx.event, &report);
        let original = ctx.tool.as_ref().and_then(|t| t.response.clone()).unwrap_or(Value::Null);
        let output = report.merged.updated_output.clone().unwrap_or(original);
        // On postTool a block has no decision channel, but its reason still reaches the model
        // as feedback (R-ACT-SH-3, Claude Code shows it).
        let texts: Vec<&str> = report.results().filter_map(|r| r.feedback.as_deref()).collect();
        let feedback = (!texts.is_empty()).then(|| texts.join("\n"));
        let body = match &output {
            Value::String(s) => s.clone(),
            Value::Null => String::new(),
            other => other.to_string(),
        };
        let tool_result = HookFeedback::append_to_tool_result(&body, feedback.as_deref());
        Chained { outcome: PostToolOutcome { output, feedback, tool_result }, report }
    }

    /// On-start chain (R-CHAIN-4): `Err(ExecutionBlockedByHook)` on block; `Ok(Some(text))` is a
    /// user-role message to append.
    pub async fn on_start(
        &self,
        ctx: &HookContext,
        cancel: &CancellationToken,
    ) -> (Result<Option<String>, Error>, ExecutionReport) {
        let report = self.dispatch(ctx, cancel).await;
        let outcome = if report.merged.is_blocked() {
            Err(Error::ExecutionBlockedByHook { reason: blocking_reason(&report) })
        } else {
            Ok(HookFeedback::collect_advisory(report.results()))
        };
        (outcome, report)
    }

    /// Pre-compact chain (R-CHAIN-5).
    pub async fn pre_compact(
        &self,
        ctx: &HookContext,
        trigger: CompactTrigger,
        cancel: &CancellationToken,
    ) -> Chained<PreCompactOutcome> {
        let report = self.dispatch(ctx, cancel).await;
        let outcome = if report.merged.is_blocked() {
            let reason = blocking_reason(&report);
            match trigger {
                CompactTrigger::Auto => PreCompactOutcome::Skipped { reason },
                CompactTrigger::Manual => PreCompactOutcome::Refused { reason },
            }
        } else {
            PreCompactOutcome::Proceed { custom_instructions: HookFeedback::collect_advisory(report.results()) }
        };
        Chained { outcome, report }
    }

    /// Continuation chain (R-EVT-7) for onStop, subagentStop and teammateIdle: `KeepWorking`
    /// when a hook blocks (or gives context for the model), at most the cap's number of times in
    /// a row per session; a failure or a stop request lets the agent stop (R-EVT-8).
    pub async fn on_stop(&self, ctx: &HookContext, cancel: &CancellationToken) -> Chained<StopOutcome> {
        let verdict = self.run_event(ctx, cancel).await;
        let session = ctx.session_id.clone().unwrap_or_default();
        let mut counts = self.continuations.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let outcome = match verdict.keep_working() {
            Some(reason) => {
                let count = counts.entry(session.clone()).or_insert(0);
                *count += 1;
                let cap =
                    self.continuation_cap.or(ctx.event.spec().continuation_cap).unwrap_or(DEFAULT_CONTINUATION_CAP);
                if *count > cap {
                    tracing::warn!("hooks: {} kept the agent working {cap} times in a row; letting it stop", ctx.event);
                    counts.remove(&session);
                    StopOutcome::Stop { reason: None }
                } else {
                    StopOutcome::KeepWorking { reason: reason.to_owned() }
                }
            }
            None => {
                counts.remove(&session);
                StopOutcome::Stop { reason: verdict.report.merged.stop_reason.clone() }
            }
        };
        Chained { outcome, report: verdict.report }
    }

    /// Advisory events (R-CHAIN-6): fire, WARN on any block/deny, drop feedback.
    pub async fn fire(&self, ctx: &HookContext, cancel: &CancellationToken) -> ExecutionReport {
        let report = self.dispatch(ctx, cancel).await;
        warn_ignored_blocks(ctx.event, &report);
        report
    }

    /// Runs `ctx.event` through the chain the events table gives it and summarises the result in
    /// one shape (the CLI's view).
    pub async fn run_event(&self, ctx: &HookContext, cancel: &CancellationToken) -> EventVerdict {
        let report = self.dispatch(ctx, cancel).await;
        warn_ignored_blocks(ctx.event, &report);
        EventVerdict::from_report(ctx.event, report)
    }
}

/// A chain's result for any event in one shape (R-CLI-1's `outcome`).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct EventVerdict {
    /// The event the verdict answers; its events-table row says which channels the answer uses.
    pub event: HookEventType,
    /// What the loop should do.
    pub outcome: Verdict,
    /// The blocking/denying/asking reason.
    pub reason: Option<String>,
    /// Advisory feedback through the event's route (`None` where the route discards it).
    pub feedback: Option<String>,
    /// Per-hook detail: every hook's run with its result, failure and timing, for logs and reports.
    pub report: ExecutionReport,
}

/// The four outcomes of R-CLI-1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Go on: no hook objected, the event only takes advice, or on a continuation event a hook
    /// asked the agent to stop.
    Proceed,
    /// Ask a person (preTool, permissionRequest).
    Ask,
    /// Stop what the event announces: a block on a block event, or "keep working" on a
    /// continuation event (onStop and its kin).
    Blocked,
    /// Refuse the action: a hook denied, or blocked on an event whose channel is a denial.
    Denied,
}

impl Verdict {
    /// `proceed`, `ask`, `blocked`, `denied`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Proceed => "proceed",
            Verdict::Ask => "ask",
            Verdict::Blocked => "blocked",
            Verdict::Denied => "denied",
        }
    }
}

impl EventVerdict {
    /// On a continuation event (onStop, subagentStop, teammateIdle): `Some(next instruction)` when
    /// the agent should keep working — a block's reason, or context for the model — and `None`
    /// when it may stop (no hook objected, a hook asked to stop, or hooks failed) (R-EVT-7/8).
    pub fn keep_working(&self) -> Option<&str> {
        let spec = self.event.spec();
        if spec.decision != DecisionChannel::Continuation || self.report.merged.stop_reason.is_some() {
            return None;
        }
        match self.outcome {
            Verdict::Blocked | Verdict::Denied => self.reason.as_deref(),
            Verdict::Proceed | Verdict::Ask => self.feedback.as_deref(),
        }
    }

    /// Reads a report the way `event`'s chain does.
    pub fn from_report(event: HookEventType, report: ExecutionReport) -> Self {
        let spec = event.spec();
        let merged = &report.merged;
        let outcome = match spec.decision {
            DecisionChannel::Advisory => Verdict::Proceed,
            // A stop request is the opposite of "keep working" (R-EVT-7).
            DecisionChannel::Continuation if merged.stop_reason.is_some() => Verdict::Proceed,
            DecisionChannel::Continuation if merged.is_blocked() => Verdict::Blocked,
            DecisionChannel::Continuation => Verdict::Proceed,
            _ if merged.decision == Decision::Deny => Verdict::Denied,
            DecisionChannel::Deny if merged.flow == FlowControl::Block => Verdict::Denied,
            DecisionChannel::Block if merged.flow == FlowControl::Block => Verdict::Blocked,
            _ if asks(merged.decision) && spec.reads_ask => Verdict::Ask,
            _ => Verdict::Proceed,
        };
        let reason = match outcome {
            Verdict::Blocked | Verdict::Denied => Some(blocking_reason(&report)),
            Verdict::Ask => Some(ask_reason(&report)),
            Verdict::Proceed => None,
        };
        let feedback = match (spec.feedback, spec.decision) {
            (FeedbackRoute::Discarded, _) => None,
            // Where a block decides nothing, its reason is feedback like any other text.
            (_, DecisionChannel::Advisory) => {
                let texts: Vec<&str> = report.results().filter_map(|r| r.feedback.as_deref()).collect();
                (!texts.is_empty()).then(|| texts.join("\n"))
            }
            _ => HookFeedback::collect_advisory(report.results()),
        };
        EventVerdict { event, outcome, reason, feedback, report }
    }
}

/// Ask and defer both leave the call to a person or the client's own permission flow.
fn asks(decision: Decision) -> bool {
    matches!(decision, Decision::Ask | Decision::Defer)
}

/// The reason of a block whose hooks gave none.
pub const BLOCKED_REASON: &str = "blocked by hook";

fn blocking_reason(report: &ExecutionReport) -> String {
    if report.interrupted {
        return crate::executor::INTERRUPTED_REASON.to_owned();
    }
    HookFeedback::collect_reasons(report.results())
        .or_else(|| report.results().filter(|r| r.is_blocked()).find_map(|r| r.system_message.clone()))
        .unwrap_or_else(|| BLOCKED_REASON.to_owned())
}

fn ask_reason(report: &ExecutionReport) -> String {
    let texts: Vec<&str> =
        report.results().filter(|r| asks(r.decision)).filter_map(|r| r.feedback.as_deref()).collect();
    if texts.is_empty() { "a hook asks for confirmation".to_owned() } else { texts.join("\n") }
}

fn warn_ignored_blocks(event: HookEventType, report: &ExecutionReport) {
    if event.has_decision_channel() {
        return;
    }
    for run in report.runs.iter().filter(|r| r.result.is_blocked()) {
        tracing::warn!(
            hook = %run.hook_id,
            "hooks: {} from hook '{}' on '{}' ignored: event has no decision channel",
            if run.result.decision == Decision::Deny { Decision::Deny.as_str() } else { FlowControl::Block.as_str() },
            run.hook_id,
            event
        );
    }
}
