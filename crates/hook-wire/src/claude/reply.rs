//! A verdict → Claude Code's hook output contract (R-CLI-2, R-CLI-2b).
//!
//! The events table says which *kind* of answer channel an event has; this module is the one
//! place that turns the kind into Claude Code's keys. JSON answers exit 0; keys Claude Code does
//! not need are omitted (never `null`, which its schema check would reject). Advisory events
//! never block: at most context for the model and a system message for the person.

use hook_core::{
    AnswerChannel, BLOCKED_REASON, Decision, DecisionChannel, EventVerdict, FeedbackRoute, HookFeedback, MatchSubject,
    OnFailure, Verdict,
};
use serde_json::{Map, Value, json};

use super::keys::{Key, Word};

/// Claude Code's answer in its own terms, before it becomes the client-neutral [`crate::Answer`].
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Reply {
    /// Nothing to say: exit 0, no output.
    Silent,
    /// Print this object, exit 0.
    Json(Value),
    /// Print this sentence on stderr and exit with this code.
    Stderr(u8, String),
    /// Print this line on stdout (not JSON), exit 0: a path the event asks for.
    Line(String),
}

/// Claude Code's answer for `verdict` (the command-hook form).
pub(crate) fn reply(verdict: &EventVerdict) -> Reply {
    let spec = verdict.event.spec();
    let merged = &verdict.report.merged;
    let mut out = Map::new();
    let mut specific = Map::new();
    let refused = matches!(verdict.outcome, Verdict::Blocked | Verdict::Denied);
    match spec.answer {
        // Claude Code reads these refusals from the exit code, with the reason on stderr.
        AnswerChannel::ExitCode | AnswerChannel::Path | AnswerChannel::PassThrough if refused => {
            return Reply::Stderr(2, verdict.reason.clone().unwrap_or_else(|| BLOCKED_REASON.to_owned()));
        }
        AnswerChannel::Path => {
            return match merged.passthrough.get(Key::WORKTREE_PATH).and_then(Value::as_str) {
                Some(path) => Reply::Line(path.to_owned()),
                None => Reply::Stderr(1, "no hook answered with a worktree path".to_owned()),
            };
        }
        _ => {}
    }
    match spec.answer {
        AnswerChannel::PermissionDecision => permission_decision(verdict, &mut specific),
        AnswerChannel::PermissionBehavior => permission_behavior(verdict, &mut specific),
        AnswerChannel::TopLevelBlock => top_level_block(verdict, &mut out),
        AnswerChannel::ExitCode | AnswerChannel::Path | AnswerChannel::PassThrough | AnswerChannel::Nothing => {}
    }
    if let Some(context) = model_context(verdict) {
        specific.insert(Key::ADDITIONAL_CONTEXT.into(), model_text(&context));
    }
    if (spec.answer, spec.matcher) == (AnswerChannel::TopLevelBlock, MatchSubject::Tool)
        && let Some(output) = &merged.updated_output
    {
        specific.insert(Key::UPDATED_TOOL_OUTPUT.into(), output.clone());
    }
    for (key, value) in &merged.passthrough {
        specific.entry(key.clone()).or_insert_with(|| value.clone());
    }
    if let Some(reason) = &merged.stop_reason {
        out.insert(Key::CONTINUE.into(), false.into());
        out.insert(Key::STOP_REASON.into(), model_text(reason));
    }
    if let Some(message) = &merged.system_message {
        out.insert(Key::SYSTEM_MESSAGE.into(), model_text(message));
    }
    if !specific.is_empty() {
        let mut with_name = Map::new();
        with_name.insert(Key::HOOK_EVENT_NAME.into(), verdict.event.payload_name().into());
        with_name.extend(specific);
        out.insert(Key::HOOK_SPECIFIC_OUTPUT.into(), Value::Object(with_name));
    }
    if out.is_empty() { Reply::Silent } else { Reply::Json(Value::Object(out)) }
}

/// The permission decision (with its reason and the updated input): allow only when a hook allowed
/// explicitly.
fn permission_decision(verdict: &EventVerdict, specific: &mut Map<String, Value>) {
    let merged = &verdict.report.merged;
    let decision = match verdict.outcome {
        Verdict::Denied | Verdict::Blocked => Some(Word::DENY),
        Verdict::Ask if merged.decision == Decision::Defer => Some(Word::DEFER),
        Verdict::Ask => Some(Word::ASK),
        Verdict::Proceed if merged.explicit_allow => Some(Word::ALLOW),
        Verdict::Proceed => None,
    };
    if let Some(decision) = decision {
        specific.insert(Key::PERMISSION_DECISION.into(), decision.into());
    }
    if let Some(reason) = &verdict.reason {
        specific.insert(Key::PERMISSION_DECISION_REASON.into(), model_text(reason));
    }
    if let (Verdict::Proceed | Verdict::Ask, Some(input), true) =
        (verdict.outcome, &merged.updated_input, verdict.event.spec().updates_input)
    {
        specific.insert(Key::UPDATED_INPUT.into(), input.clone());
    }
}

/// A permission request's decision object: deny with a message, or allow (with the updated input)
/// when said explicitly.
fn permission_behavior(verdict: &EventVerdict, specific: &mut Map<String, Value>) {
    let merged = &verdict.report.merged;
    match verdict.outcome {
        Verdict::Denied | Verdict::Blocked => {
            let message = verdict.reason.clone().unwrap_or_default();
            let decision = json!({Key::BEHAVIOR: Word::DENY, Key::MESSAGE: model_text(&message)});
            specific.insert(Key::DECISION.into(), decision);
        }
        Verdict::Proceed if merged.explicit_allow => {
            let mut decision = json!({Key::BEHAVIOR: Word::ALLOW});
            if let Some(input) = &merged.updated_input {
                decision[Key::UPDATED_INPUT] = input.clone();
            }
            specific.insert(Key::DECISION.into(), decision);
        }
        Verdict::Proceed | Verdict::Ask => {}
    }
}

/// The top-level block decision with its reason. On an event where a block decides nothing (postTool)
/// the blocking hooks' reasons still go there: Claude Code shows them to the model.
fn top_level_block(verdict: &EventVerdict, out: &mut Map<String, Value>) {
    let reason = match verdict.outcome {
        Verdict::Blocked | Verdict::Denied => verdict.reason.clone(),
        Verdict::Proceed | Verdict::Ask => {
            let results = || verdict.report.results().filter(|r| r.is_blocked());
            let reasons: Vec<&str> = results().filter_map(|r| r.feedback.as_deref()).collect();
            match (results().next(), reasons.is_empty()) {
                (None, _) => None,
                (Some(_), true) => Some(BLOCKED_REASON.to_owned()),
                (Some(_), false) => Some(reasons.join("\n")),
            }
        }
    };
    if let Some(reason) = reason {
        out.insert(Key::DECISION.into(), Word::BLOCK.into());
        out.insert(Key::REASON.into(), model_text(&reason));
    }
}

/// The additional context: the feedback of an event whose feedback reaches the model. Where the
/// channel carries block reasons itself, only the advice of the hooks that did not block.
fn model_context(verdict: &EventVerdict) -> Option<String> {
    let spec = verdict.event.spec();
    match (spec.feedback, spec.answer) {
        (FeedbackRoute::ToolResult | FeedbackRoute::ModelContext, AnswerChannel::PermissionBehavior) => None,
        (FeedbackRoute::ToolResult | FeedbackRoute::ModelContext, AnswerChannel::TopLevelBlock) => {
            HookFeedback::collect_advisory(verdict.report.results())
        }
        (FeedbackRoute::ToolResult | FeedbackRoute::ModelContext, _) => verdict.feedback.clone(),
        (FeedbackRoute::Discarded | FeedbackRoute::UserMessage | FeedbackRoute::CompactInstructions, _) => None,
    }
}

/// Text for the model, cut again for the merged answer (R-CC-6).
fn model_text(text: &str) -> Value {
    HookFeedback::clamp(text, HookFeedback::MAX_CHARS).into()
}

/// The answer when the configuration (or the payload) could not be read (R-EVT-8): on an event
/// that can refuse something, refuse it through its channel with the error as the reason (a
/// permission request denies in JSON, since Claude Code ignores exit 2 there; elsewhere exit 2);
/// on every other event report it (exit 1) and change nothing.
pub(crate) fn on_error(event: hook_core::HookEventType, error: &str) -> Reply {
    let spec = event.spec();
    match (spec.on_failure, spec.answer) {
        (OnFailure::Refuse, AnswerChannel::PermissionBehavior) => Reply::Json(json!({
            Key::HOOK_SPECIFIC_OUTPUT: {
                Key::HOOK_EVENT_NAME: event.payload_name(),
                Key::DECISION: {Key::BEHAVIOR: Word::DENY, Key::MESSAGE: error},
            }
        })),
        (OnFailure::Refuse, _) => Reply::Stderr(2, error.to_owned()),
        (OnFailure::FailClosed | OnFailure::Report, _) => Reply::Stderr(1, error.to_owned()),
    }
}

/// The answer when a payload could not be read at all (what the lenient reader still refuses, a
/// body too large, a read that failed), or its event could not be read (`None`): no input may
/// switch a veto off, so an event that can veto (a block or deny channel) refuses through its
/// channel with the problem as the reason, and an unreadable event name refuses with exit 2
/// (blocking wherever Claude Code reads one). Advisory and continuation events report it (exit 1):
/// a failure never makes the agent keep working (R-EVT-8).
pub(crate) fn unreadable(event: Option<hook_core::HookEventType>, error: &str) -> Reply {
    let Some(event) = event else { return Reply::Stderr(2, error.to_owned()) };
    let spec = event.spec();
    match (spec.decision, spec.answer) {
        (DecisionChannel::Advisory | DecisionChannel::Continuation, _) => Reply::Stderr(1, error.to_owned()),
        (_, AnswerChannel::PermissionBehavior) => Reply::Json(json!({
            Key::HOOK_SPECIFIC_OUTPUT: {
                Key::HOOK_EVENT_NAME: event.payload_name(),
                Key::DECISION: {Key::BEHAVIOR: Word::DENY, Key::MESSAGE: error},
            }
        })),
        (DecisionChannel::Block | DecisionChannel::Deny, _) => Reply::Stderr(2, error.to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use hook_core::{
        CancellationToken, FnHook, HookContext, HookEngine, HookEventType, HookRegistry, HookResult, ToolCall,
    };

    use super::*;

    /// The verdict of one hook that answered `result`.
    async fn verdict(event: HookEventType, result: HookResult) -> EventVerdict {
        let registry = Arc::new(HookRegistry::new());
        registry.register(
            event,
            FnHook::new("project#0", move |_| {
                let result = result.clone();
                async move { Ok(result) }
            }),
        );
        let mut ctx = HookContext::new(event);
        if event.spec().matcher == MatchSubject::Tool {
            ctx = ctx.with_tool(ToolCall::new("Bash", json!({"command": "ls"})));
        }
        HookEngine::new(registry).run_event(&ctx, &CancellationToken::new()).await
    }

    /// The verdict → answer direction of R-CC-2, one row per channel and outcome (the reverse,
    /// a hook's answer → its result, is hook-actions' table).
    #[tokio::test]
    async fn each_verdict_is_answered_in_its_events_channel_as_the_table_says() {
        let json = |v: Value| Reply::Json(v);
        let rows: Vec<(HookEventType, HookResult, Reply)> = vec![
            (
                HookEventType::PRE_TOOL,
                HookResult::deny("rm -rf"),
                json(json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                                   "permissionDecisionReason": "rm -rf"}})),
            ),
            (
                HookEventType::PRE_TOOL,
                HookResult::ask("sure?"),
                json(json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask",
                                                   "permissionDecisionReason": "sure?"}})),
            ),
            (
                HookEventType::PRE_TOOL,
                HookResult::defer("later"),
                json(json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "defer",
                                                   "permissionDecisionReason": "later"}})),
            ),
            (
                HookEventType::PRE_TOOL,
                HookResult::explicit_allow().with_updated_input(json!({"command": "ls -a"})),
                json(json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
                                                   "updatedInput": {"command": "ls -a"}}})),
            ),
            (HookEventType::PRE_TOOL, HookResult::allow(), Reply::Silent),
            (
                HookEventType::PRE_TOOL,
                HookResult::allow().with_system_message("hi"),
                json(json!({"systemMessage": "hi"})),
            ),
            (
                HookEventType::PERMISSION_REQUEST,
                HookResult::deny("no"),
                json(json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest",
                                                   "decision": {"behavior": "deny", "message": "no"}}})),
            ),
            (
                HookEventType::PERMISSION_REQUEST,
                HookResult::explicit_allow(),
                json(json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest",
                                                   "decision": {"behavior": "allow"}}})),
            ),
            (
                HookEventType::ON_STOP,
                HookResult::block("keep going"),
                json(json!({"decision": "block", "reason": "keep going"})),
            ),
            (
                HookEventType::ON_STOP,
                HookResult::allow().with_stop("done"),
                json(json!({"continue": false, "stopReason": "done"})),
            ),
            (
                HookEventType::USER_PROMPT_SUBMIT,
                HookResult::block("a secret"),
                json(json!({"decision": "block", "reason": "a secret"})),
            ),
            (HookEventType::TASK_CREATED, HookResult::block("not now"), Reply::Stderr(2, "not now".to_owned())),
            (
                HookEventType::WORKTREE_CREATE,
                HookResult::allow().with_passthrough(Key::WORKTREE_PATH, json!("/w/t")),
                Reply::Line("/w/t".to_owned()),
            ),
            (
                HookEventType::WORKTREE_CREATE,
                HookResult::allow(),
                Reply::Stderr(1, "no hook answered with a worktree path".to_owned()),
            ),
            // A block decides nothing on an advisory event: its reason reaches the model as context.
            (
                HookEventType::POST_TOOL_FAILURE,
                HookResult::block("flaky test"),
                json(json!({"hookSpecificOutput": {"hookEventName": "PostToolUseFailure",
                                                   "additionalContext": "flaky test"}})),
            ),
        ];
        for (event, merged, want) in rows {
            let label = format!("{event} {merged:?}");
            assert_eq!(reply(&verdict(event, merged).await), want, "{label}");
        }
    }

    #[test]
    fn an_unreadable_payload_is_refused_where_the_event_can_veto_and_reported_elsewhere() {
        let e = "cannot read";
        let refusal = |exit| Reply::Stderr(exit, e.to_owned());
        let cases = [
            (Some(HookEventType::PRE_TOOL), refusal(2)),
            (Some(HookEventType::USER_PROMPT_SUBMIT), refusal(2)),
            (Some(HookEventType::PRE_COMPACT), refusal(2)),
            (Some(HookEventType::TASK_CREATED), refusal(2)),
            (Some(HookEventType::WORKTREE_CREATE), refusal(2)),
            (Some(HookEventType::ON_STOP), refusal(1)),
            (Some(HookEventType::POST_TOOL), refusal(1)),
            (None, refusal(2)),
        ];
        for (event, want) in cases {
            assert_eq!(unreadable(event, e), want, "{event:?}");
        }
        let Reply::Json(json) = unreadable(Some(HookEventType::PERMISSION_REQUEST), e) else {
            unreachable!("a permission request is refused in JSON")
        };
        assert_eq!(json[Key::HOOK_SPECIFIC_OUTPUT][Key::DECISION], json!({"behavior": "deny", "message": e}));
    }
}
