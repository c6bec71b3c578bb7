//! The JSON object `aimon-hooks run` prints (R-CLI-1): every key always present, `null` when empty.

use std::borrow::Cow;

use hook_core::{EventVerdict, HookFeedback, HookRun, Verdict};
use serde::Serialize;
use serde_json::Value;

/// Every field below, camelCase, in this order; `hooks` lists each invoked hook.
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

/// The process exit code for a verdict: 2 when blocked or denied, else 0.
pub fn exit_code(outcome: Verdict) -> u8 {
    match outcome {
        Verdict::Blocked | Verdict::Denied => 2,
        Verdict::Proceed | Verdict::Ask => 0,
    }
}
