//! `run`'s answer (R-CLI-1), the same from `aimon-hooks run` and `serve`'s `POST /v1/run/{event}`:
//! the policy its flags select, the JSON object it prints, its exit code, and the deny of a
//! payload it cannot read.

use std::borrow::Cow;

use hook_core::{
    DecisionChannel, EventVerdict, ExecutionMode, ExecutionReport, HookEventType, HookExecutionPolicy, HookFeedback,
    HookResult, HookRun, Verdict,
};
use serde::Serialize;
use serde_json::Value;

/// The policy `run`'s flags select (R-CLI-1).
pub fn run_policy(stop_on_blocked: bool, fail_closed: bool, parallel: bool) -> HookExecutionPolicy {
    let mut policy = match (fail_closed, stop_on_blocked) {
        (false, false) => HookExecutionPolicy::fail_open(),
        (false, true) => HookExecutionPolicy::stop_on_blocked(),
        (true, false) => HookExecutionPolicy::fail_closed(),
        (true, true) => HookExecutionPolicy::fail_closed_stop_on_blocked(),
    };
    if parallel {
        policy.mode = ExecutionMode::Parallel;
    }
    policy
}

/// `run`'s verdict on a payload that could not be read: denied with `error` as the reason where
/// `event` can veto (its JSON and exit code then say so as for any deny); `None` elsewhere.
pub fn unreadable_verdict(event: HookEventType, error: &str) -> Option<EventVerdict> {
    if matches!(event.spec().decision, DecisionChannel::Advisory | DecisionChannel::Continuation) {
        return None;
    }
    let reason = format!("aimon-hooks: {error}");
    let mut report = ExecutionReport::default();
    report.merged = HookResult::deny(reason.clone());
    let mut verdict = EventVerdict::from_report(event, report);
    // No hook ran, so the report holds no reason of its own.
    verdict.reason = Some(reason);
    Some(verdict)
}

/// The JSON object `run` prints: every field below, camelCase, in this order, always present
/// (`null` when empty); `hooks` lists each invoked hook.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunOutput<'a> {
    event: &'static str,
    outcome: &'static str,
    decision: &'static str,
    flow: &'static str,
    reason: Option<Cow<'a, str>>,
    feedback: Option<Cow<'a, str>>,
    updated_input: Option<&'a Value>,
    updated_output: Option<&'a Value>,
    system_message: Option<Cow<'a, str>>,
    hooks: Vec<HookLine<'a>>,
}

/// One invoked hook: every field below, camelCase, in this order.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct HookLine<'a> {
    id: &'a str,
    source: &'a str,
    decision: &'static str,
    flow: &'static str,
    elapsed_ms: u64,
    error: Option<&'a str>,
}

impl<'a> RunOutput<'a> {
    /// The object for `verdict`.
    pub fn new(verdict: &'a EventVerdict) -> Self {
        let merged = &verdict.report.merged;
        RunOutput {
            event: verdict.event.name(),
            outcome: verdict.outcome.as_str(),
            decision: merged.decision.as_str(),
            flow: merged.flow.as_str(),
            reason: model_text(verdict.reason.as_deref()),
            feedback: model_text(verdict.feedback.as_deref()),
            updated_input: merged.updated_input.as_ref(),
            updated_output: merged.updated_output.as_ref(),
            system_message: model_text(merged.system_message.as_deref()),
            hooks: verdict.report.runs.iter().map(HookLine::new).collect(),
        }
    }
}

impl<'a> HookLine<'a> {
    fn new(run: &'a HookRun) -> Self {
        HookLine {
            id: &run.hook_id,
            source: &run.source,
            decision: run.result.decision.as_str(),
            flow: run.result.flow.as_str(),
            elapsed_ms: u64::try_from(run.elapsed.as_millis()).unwrap_or(u64::MAX),
            error: run.error.as_deref().or(run.result.failure.as_deref()),
        }
    }
}

/// Text for the model, cut again for the merged answer (R-CC-6).
fn model_text(text: Option<&str>) -> Option<Cow<'_, str>> {
    text.map(|t| HookFeedback::clamp(t, HookFeedback::MAX_CHARS))
}

/// The process exit code `run` ends with: 2 when blocked or denied, else 0.
pub fn exit_code(outcome: Verdict) -> u8 {
    match outcome {
        Verdict::Blocked | Verdict::Denied => 2,
        Verdict::Proceed | Verdict::Ask => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unreadable_payload_is_a_deny_of_run_where_the_event_can_veto() {
        let verdict = unreadable_verdict(HookEventType::PRE_TOOL, "not JSON").expect("preTool can veto");
        assert_eq!((verdict.outcome, verdict.reason.as_deref()), (Verdict::Denied, Some("aimon-hooks: not JSON")));
        assert_eq!(exit_code(verdict.outcome), 2);
        let blocked = unreadable_verdict(HookEventType::USER_PROMPT_SUBMIT, "x").expect("a block channel");
        assert_eq!(exit_code(blocked.outcome), 2);
        assert!(unreadable_verdict(HookEventType::POST_TOOL, "x").is_none());
        assert!(unreadable_verdict(HookEventType::ON_STOP, "x").is_none(), "a failure never keeps the agent working");
    }
}
