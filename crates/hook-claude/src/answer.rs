//! A verdict → Claude Code's hook output contract (R-CLI-2).
//!
//! JSON answers exit 0; keys Claude Code does not need are omitted (never `null`, which its schema
//! check would reject). Advisory events never block: at most a `systemMessage` for the person.

use hook_core::{EventVerdict, HookEventType, HookFeedback, Verdict};
use serde_json::{Map, Value, json};

/// What the process does after evaluating (or failing to evaluate) a Claude Code call.
#[derive(Debug, PartialEq)]
pub enum Answer {
    /// Nothing to say: exit 0, no output.
    Silent,
    /// Print this object, exit 0.
    Json(Value),
    /// Print this sentence on stderr and exit with this code.
    Stderr(u8, String),
}

/// Claude Code's answer for `verdict`.
pub fn answer(verdict: &EventVerdict) -> Answer {
    let event = verdict.event;
    let merged = &verdict.report.merged;
    let mut out = Map::new();
    let mut specific = Map::new();
    match event {
        HookEventType::PRE_TOOL => {
            match verdict.outcome {
                Verdict::Denied | Verdict::Blocked => {
                    specific.insert("permissionDecision".into(), "deny".into());
                }
                Verdict::Ask => {
                    specific.insert("permissionDecision".into(), "ask".into());
                }
                Verdict::Proceed if merged.explicit_allow => {
                    specific.insert("permissionDecision".into(), "allow".into());
                }
                Verdict::Proceed => {}
            }
            if let Some(reason) = &verdict.reason {
                specific.insert("permissionDecisionReason".into(), model_text(reason));
            }
            if let (Verdict::Proceed | Verdict::Ask, Some(input)) = (verdict.outcome, &merged.updated_input) {
                specific.insert("updatedInput".into(), input.clone());
            }
            if let Some(feedback) = &verdict.feedback {
                specific.insert("additionalContext".into(), model_text(feedback));
            }
        }
        HookEventType::PERMISSION_REQUEST if verdict.outcome == Verdict::Denied => {
            let message = model_text(verdict.reason.as_deref().unwrap_or_default());
            specific.insert("decision".into(), json!({"behavior": "deny", "message": message}));
        }
        HookEventType::PERMISSION_REQUEST if verdict.outcome == Verdict::Proceed && merged.explicit_allow => {
            let mut decision = json!({"behavior": "allow"});
            if let Some(input) = &merged.updated_input {
                decision["updatedInput"] = input.clone();
            }
            specific.insert("decision".into(), decision);
        }
        HookEventType::PRE_COMPACT => {
            if let (Verdict::Blocked | Verdict::Denied, Some(reason)) = (verdict.outcome, &verdict.reason) {
                out.insert("decision".into(), "block".into());
                out.insert("reason".into(), model_text(reason));
            }
        }
        HookEventType::POST_TOOL => {
            let reasons: Vec<&str> =
                verdict.report.results().filter(|r| r.is_blocked()).filter_map(|r| r.feedback.as_deref()).collect();
            if verdict.report.results().any(|r| r.is_blocked()) {
                out.insert("decision".into(), "block".into());
                let reason = if reasons.is_empty() { "blocked by hook".to_owned() } else { reasons.join("\n") };
                out.insert("reason".into(), model_text(&reason));
            }
            if let Some(context) = HookFeedback::collect_advisory(verdict.report.results()) {
                specific.insert("additionalContext".into(), model_text(&context));
            }
            if let Some(output) = &merged.updated_output {
                specific.insert("updatedToolOutput".into(), output.clone());
            }
        }
        _ => {}
    }
    if let Some(message) = &merged.system_message {
        out.insert("systemMessage".into(), model_text(message));
    }
    if !specific.is_empty() {
        let mut with_name = Map::new();
        with_name.insert("hookEventName".into(), event.payload_name().into());
        with_name.extend(specific);
        out.insert("hookSpecificOutput".into(), Value::Object(with_name));
    }
    if out.is_empty() { Answer::Silent } else { Answer::Json(Value::Object(out)) }
}

/// Text for the model, cut again for the merged answer (R-CC-6).
fn model_text(text: &str) -> Value {
    HookFeedback::clamp(text, HookFeedback::MAX_CHARS).into()
}

/// The answer when the configuration (or the payload) could not be read: a gate must not
/// silently open. preTool and preCompact veto with exit 2; permissionRequest denies in JSON
/// (Claude Code ignores exit 2 there); other events exit 1.
pub fn on_error(event: HookEventType, error: &str) -> Answer {
    match event {
        HookEventType::PRE_TOOL | HookEventType::PRE_COMPACT => Answer::Stderr(2, error.to_owned()),
        HookEventType::PERMISSION_REQUEST => Answer::Json(json!({
            "hookSpecificOutput": {
                "hookEventName": event.payload_name(),
                "decision": {"behavior": "deny", "message": error},
            }
        })),
        _ => Answer::Stderr(1, error.to_owned()),
    }
}
