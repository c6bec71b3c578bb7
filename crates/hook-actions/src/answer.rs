//! The one internal shape every transport ends in, and its mapping onto the event's decision
//! channel (R-ACT-SH-3, R-CC-2, R-ACT-HTTP-3, R-ACT-MCP-3, R-CFG-4c). A JSON answer is read with
//! Claude Code's output keys as hook-wire's Claude Code module says them ([`Key`], [`Word`]), the keys it writes.

use std::borrow::Cow;
use std::future::Future;
use std::time::Duration;

use hook_core::{AnswerChannel, DecisionChannel, HookContext, HookEventType, HookFeedback, HookResult, OnFailure};
use hook_wire::claude::{Key, Word};
use serde_json::{Map, Value};

/// The timeout of a shell, http or mcp action that declares none (R-ACT-SH-4): the executor's
/// default net, so an action without a timeout and the net around it agree.
pub const DEFAULT_TIMEOUT: Duration = hook_core::HookExecutionPolicy::DEFAULT_TIMEOUT;

/// An exit-2 stderr reason is cut to this many characters (R-ACT-SH-3); every other text of a
/// hook answer to [`HookFeedback::MAX_CHARS`] (R-CC-6).
pub const MAX_REASON_CHARS: usize = 4000;

/// What a transport brought back.
#[derive(Debug)]
pub(crate) enum Reply {
    /// A usable answer (possibly "nothing to say").
    Answer(Answer),
    /// No usable decision: timeout, spawn failure, crash, unexpected exit, malformed response,
    /// transport error. The string is the cause.
    Failed(String),
}

/// What the hook said, before the event's rules apply.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Nothing to decide.
    #[default]
    Pass,
    /// An explicit allow.
    Allow,
    /// A person should confirm.
    Ask,
    /// Leave it to the client's own permission flow (the permission word defer).
    Defer,
    /// An explicit denial (as permission decision, permission-request behavior or top-level decision).
    Deny,
    /// A block (the top-level block decision, or stopping the agent) or an exit-2 veto.
    Block,
}

/// A hook's answer, transport-neutral.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Answer {
    pub(crate) verdict: Verdict,
    pub(crate) reason: Option<String>,
    pub(crate) updated_input: Option<Value>,
    pub(crate) updated_output: Option<Value>,
    /// The additional context: advice for the model.
    pub(crate) context: Option<String>,
    pub(crate) system_message: Option<String>,
    /// Stop the agent altogether, with this reason.
    pub(crate) stop: Option<String>,
    /// Event-specific keys the engine does not model, kept for the client.
    pub(crate) passthrough: Map<String, Value>,
}

impl Answer {
    /// A verdict with a reason.
    pub(crate) fn with(verdict: Verdict, reason: impl Into<String>) -> Self {
        Answer { verdict, reason: Some(reason.into()), ..Answer::default() }
    }

    /// Reads a JSON answer: the Claude Code output schema (R-CC-2) and the seed's
    /// `{decision: deny|allow, reason, updatedInput}` (R-ACT-HTTP-3, R-ACT-MCP-3). `None` when
    /// `value` is not an object.
    pub(crate) fn from_json(value: &Value, event: HookEventType) -> Option<Answer> {
        let obj = value.as_object()?;
        let mut a = Answer {
            reason: text(obj, Key::REASON),
            updated_input: obj.get(Key::UPDATED_INPUT).filter(|v| v.is_object()).cloned(),
            system_message: text(obj, Key::SYSTEM_MESSAGE),
            ..Answer::default()
        };
        a.verdict = match text(obj, Key::DECISION).as_deref() {
            Some(Word::ALLOW | Word::APPROVE) => Verdict::Allow,
            Some(Word::DENY) => Verdict::Deny,
            // Deprecated PreToolUse form: a block means deny where the answer is a permission decision.
            Some(Word::BLOCK) if event.spec().answer == AnswerChannel::PermissionDecision => Verdict::Deny,
            Some(Word::BLOCK) => Verdict::Block,
            _ => Verdict::Pass,
        };
        if let Some(h) = obj.get(Key::HOOK_SPECIFIC_OUTPUT).and_then(Value::as_object) {
            if let Some(v) = verdict(text(h, Key::PERMISSION_DECISION).as_deref()) {
                a.verdict = v;
                a.reason = text(h, Key::PERMISSION_DECISION_REASON).or(a.reason);
            }
            if let Some(d) = h.get(Key::DECISION).and_then(Value::as_object) {
                if let Some(v) = verdict(text(d, Key::BEHAVIOR).as_deref()) {
                    a.verdict = v;
                    a.reason = text(d, Key::MESSAGE).or(a.reason);
                }
                a.updated_input = d.get(Key::UPDATED_INPUT).filter(|v| v.is_object()).cloned().or(a.updated_input);
            }
            a.updated_input = h.get(Key::UPDATED_INPUT).filter(|v| v.is_object()).cloned().or(a.updated_input);
            a.updated_output = h.get(Key::UPDATED_TOOL_OUTPUT).or_else(|| h.get(Key::UPDATED_MCP_TOOL_OUTPUT)).cloned();
            a.context = text(h, Key::ADDITIONAL_CONTEXT);
            a.passthrough = h
                .iter()
                .filter(|(k, _)| !MODELLED.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
        }
        if obj.get(Key::CONTINUE) == Some(&Value::Bool(false)) {
            let stop_reason = text(obj, Key::STOP_REASON);
            a.stop = Some(stop_reason.clone().unwrap_or_else(|| "stopped by hook".to_owned()));
            // On a continuation event "stop" is the opposite of a block (keep working).
            if event.spec().decision != DecisionChannel::Continuation {
                a.verdict = Verdict::Block;
                a.reason = stop_reason.or(a.reason);
            }
        }
        Some(a)
    }

    /// Reads a command hook's plain (non-JSON) stdout on exit 0 where the event gives it a
    /// meaning: feedback, or the path the event asks for (the last non-empty line).
    pub(crate) fn from_plain_stdout(text: &str, event: HookEventType) -> Answer {
        let spec = event.spec();
        let mut a = Answer::default();
        if spec.answer == AnswerChannel::Path {
            if let Some(path) = text.lines().map(str::trim).rfind(|l| !l.is_empty()) {
                a.passthrough.insert(Key::WORKTREE_PATH.into(), path.into());
            }
        } else if spec.stdout_is_feedback && !text.trim().is_empty() {
            a.context = Some(text.trim().to_owned());
        }
        a
    }

    /// An exit-2 veto: the veto stands whatever the JSON said, and a JSON deny stays a deny
    /// (R-CC-7); the reason is the JSON's when the JSON makes a blocking decision with one, else
    /// `stderr` (R-CC-2).
    pub(crate) fn veto(self, stderr: &str) -> Answer {
        let json_reason = matches!(self.verdict, Verdict::Deny | Verdict::Block).then_some(self.reason).flatten();
        let reason = json_reason.or_else(|| {
            Some(HookFeedback::clamp(stderr.trim(), MAX_REASON_CHARS).into_owned()).filter(|s| !s.is_empty())
        });
        let verdict = if self.verdict == Verdict::Deny { Verdict::Deny } else { Verdict::Block };
        Answer { verdict, reason, ..self }
    }
}

/// The event-specific keys the engine reads itself; every other key is passed through.
const MODELLED: &[&str] = &[
    Key::HOOK_EVENT_NAME,
    Key::PERMISSION_DECISION,
    Key::PERMISSION_DECISION_REASON,
    Key::DECISION,
    Key::UPDATED_INPUT,
    Key::UPDATED_TOOL_OUTPUT,
    Key::UPDATED_MCP_TOOL_OUTPUT,
    Key::ADDITIONAL_CONTEXT,
];

fn verdict(word: Option<&str>) -> Option<Verdict> {
    match word? {
        Word::ALLOW => Some(Verdict::Allow),
        Word::DENY => Some(Verdict::Deny),
        Word::ASK => Some(Verdict::Ask),
        Word::DEFER => Some(Verdict::Defer),
        _ => None,
    }
}

fn text(obj: &Map<String, Value>, key: &str) -> Option<String> {
    obj.get(key).and_then(Value::as_str).filter(|s| !s.trim().is_empty()).map(str::to_owned)
}

/// Runs one transport call under the action's budget and maps what came back (R-ACT-SH-4/5).
/// When the budget runs out the call's future is dropped, which stops its work (a shell call
/// kills its process group).
pub(crate) async fn run(
    id: &str,
    ctx: &HookContext,
    fail_closed: bool,
    budget: Duration,
    call: impl Future<Output = Reply>,
) -> HookResult {
    let reply = match tokio::time::timeout(budget, call).await {
        Ok(reply) => reply,
        Err(_) => Reply::Failed(format!("timed out after {budget:?}")),
    };
    resolve(id, ctx.event, fail_closed, reply)
}

/// Maps a reply onto `event`'s decision channel.
pub(crate) fn resolve(id: &str, event: HookEventType, fail_closed: bool, reply: Reply) -> HookResult {
    match reply {
        Reply::Answer(answer) => decide(id, event, answer),
        Reply::Failed(cause) => failed(id, event, fail_closed, cause),
    }
}

fn decide(id: &str, event: HookEventType, a: Answer) -> HookResult {
    let spec = event.spec();
    let reason =
        || a.reason.clone().or_else(|| a.system_message.clone()).unwrap_or_else(|| format!("blocked by hook '{id}'"));
    let mut result = match a.verdict {
        Verdict::Pass => HookResult::allow(),
        Verdict::Allow => HookResult::explicit_allow(),
        Verdict::Ask if spec.reads_ask => HookResult::ask(reason()),
        Verdict::Defer if spec.reads_ask => HookResult::defer(reason()),
        Verdict::Ask | Verdict::Defer => {
            tracing::warn!(hook = id, "hook '{id}' asked for confirmation on {event}, which reads no ask; proceeding");
            HookResult::allow()
        }
        Verdict::Deny | Verdict::Block => match spec.decision {
            DecisionChannel::Deny => HookResult::deny(reason()),
            DecisionChannel::Block if a.verdict == Verdict::Deny => HookResult::deny(reason()),
            DecisionChannel::Block | DecisionChannel::Continuation => HookResult::block(reason()),
            // An advisory event whose client answer is a top-level block (postTool) keeps the veto
            // as a block: its chain proceeds (and WARNs) but hands the reason to the model, and
            // Claude Code's top-level block decision carries it.
            DecisionChannel::Advisory if spec.answer == AnswerChannel::TopLevelBlock => HookResult::block(reason()),
            DecisionChannel::Advisory => {
                tracing::warn!(
                    hook = id,
                    "hook '{id}' vetoed {event}, which has no decision channel; proceeding: {}",
                    reason()
                );
                HookResult::allow()
            }
        },
    };
    if let Some(context) = a.context {
        let joined = match result.feedback.take() {
            Some(f) => format!("{f}\n{context}"),
            None => context,
        };
        result.feedback = Some(joined);
    }
    result.updated_input = a.updated_input;
    result.updated_output = a.updated_output;
    result.system_message = a.system_message;
    for text in [&mut result.feedback, &mut result.system_message].into_iter().flatten() {
        if let Cow::Owned(cut) = HookFeedback::clamp(text, HookFeedback::MAX_CHARS) {
            *text = cut;
        }
    }
    result.stop_reason = a.stop;
    result.passthrough = a.passthrough;
    result
}

fn failed(id: &str, event: HookEventType, fail_closed: bool, cause: String) -> HookResult {
    let spec = event.spec();
    if fail_closed && spec.on_failure != OnFailure::Report {
        let reason = format!("hook '{id}' failed closed: {cause}");
        tracing::warn!(hook = id, "{reason}");
        let result =
            if spec.decision == DecisionChannel::Deny { HookResult::deny(reason) } else { HookResult::block(reason) };
        return result.with_failure(cause);
    }
    tracing::warn!(hook = id, "hook '{id}' failed on {event} ({cause}); proceeding");
    HookResult::allow().with_failure(cause)
}

/// The `ExecutionHook` impl the three transports share (one shape, R-ACT): `id`, `source`, the
/// spec's timeout as the declared execution budget (R-ACT-SH-4, R-EXEC-4), and [`run`] around the
/// action's own `call(ctx) -> Reply`. The action type needs `id`, `source` and `spec` fields, and
/// the spec `timeout` and `fail_closed`.
///
/// The action's own deadline is the declared budget clamped to the executor's maximum, so it
/// always fires before the executor's net and `failClosed` applies to every timeout (REL-6); the
/// budget is reported unclamped, so the executor still WARNs about it.
macro_rules! transport_hook {
    ($action:ty) => {
        impl $action {
            fn budget(&self) -> std::time::Duration {
                self.spec.timeout.unwrap_or($crate::answer::DEFAULT_TIMEOUT)
            }

            fn deadline(&self) -> std::time::Duration {
                self.budget().min(hook_core::HookExecutionPolicy::MAX_DECLARED_BUDGET)
            }
        }

        impl hook_core::ExecutionHook for $action {
            fn id(&self) -> &str {
                &self.id
            }

            fn source(&self) -> &str {
                &self.source
            }

            fn execution_budget(&self) -> Option<std::time::Duration> {
                Some(self.budget())
            }

            fn execute<'a>(&'a self, ctx: &'a hook_core::HookContext) -> hook_core::HookFuture<'a> {
                Box::pin(async move {
                    let call = self.call(ctx);
                    Ok($crate::answer::run(&self.id, ctx, self.spec.fail_closed, self.deadline(), call).await)
                })
            }
        }
    };
}
pub(crate) use transport_hook;

/// The setters every transport spec shares: `with_timeout` (`timeout` seconds or `timeoutMs` in
/// hooks.json) and `with_fail_closed` (R-ACT-SH-4, R-CFG-4c).
macro_rules! spec_setters {
    ($spec:ty) => {
        impl $spec {
            /// Sets the timeout (`timeout` seconds or `timeoutMs` in hooks.json).
            pub fn with_timeout(mut self, timeout: std::time::Duration) -> Self {
                self.timeout = Some(timeout);
                self
            }

            /// Sets `failClosed`.
            pub fn with_fail_closed(mut self, fail_closed: bool) -> Self {
                self.fail_closed = fail_closed;
                self
            }
        }
    };
}
pub(crate) use spec_setters;

#[cfg(test)]
mod tests {
    use hook_core::{Decision, FlowControl};
    use serde_json::json;

    use super::*;

    type Axes = (Decision, FlowControl);

    fn on(event: HookEventType, v: Value) -> HookResult {
        let a = Answer::from_json(&v, event).expect("object");
        resolve("h", event, false, Reply::Answer(a))
    }

    fn axes(r: &HookResult) -> Axes {
        (r.decision, r.flow)
    }

    const PRE: HookEventType = HookEventType::PRE_TOOL;
    const PERM: HookEventType = HookEventType::PERMISSION_REQUEST;

    #[test]
    fn claude_code_output_forms_map_as_r_cc_2_says() {
        use Decision::{Allow, Ask, Deny};
        use FlowControl::{Block, Continue};
        #[rustfmt::skip]
        let cases: &[(HookEventType, Value, Axes, Option<&str>)] = &[
            (PRE, json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no"}}), (Deny, Continue), Some("no")),
            (PRE, json!({"hookSpecificOutput": {"permissionDecision": "ask", "permissionDecisionReason": "sure?"}}), (Ask, Continue), Some("sure?")),
            (PRE, json!({"hookSpecificOutput": {"permissionDecision": "allow"}}), (Allow, Continue), None),
            (PRE, json!({"decision": "approve"}), (Allow, Continue), None),
            (PRE, json!({"decision": "block", "reason": "old"}), (Deny, Continue), Some("old")),
            (PRE, json!({"decision": "deny", "reason": "seed"}), (Deny, Continue), Some("seed")),
            (HookEventType::PRE_COMPACT, json!({"decision": "block", "reason": "not now"}), (Allow, Block), Some("not now")),
            (HookEventType::POST_TOOL, json!({"decision": "block", "reason": "look again"}), (Allow, Block), Some("look again")),
            (HookEventType::ON_STOP, json!({"decision": "block", "reason": "keep going"}), (Allow, Block), Some("keep going")),
            (HookEventType::ON_STOP, json!({"continue": false, "stopReason": "done"}), (Allow, Continue), None),
            (PRE, json!({"hookSpecificOutput": {"permissionDecision": "defer", "permissionDecisionReason": "later"}}), (Decision::Defer, Continue), Some("later")),
            (PERM, json!({"hookSpecificOutput": {"decision": {"behavior": "deny", "message": "nope"}}}), (Deny, Continue), Some("nope")),
            (PERM, json!({"hookSpecificOutput": {"decision": {"behavior": "allow"}}}), (Allow, Continue), None),
            (PERM, json!({"continue": false, "stopReason": "halt"}), (Deny, Continue), Some("halt")),
            (HookEventType::ON_START, json!({"continue": false, "stopReason": "halt"}), (Allow, Block), Some("halt")),
            (PRE, json!({"continue": false, "stopReason": "halt", "hookSpecificOutput": {"permissionDecision": "allow"}}), (Allow, Block), Some("halt")),
            (PRE, json!({"hookSpecificOutput": {"additionalContext": "fyi"}}), (Allow, Continue), Some("fyi")),
            (HookEventType::ON_STOP, json!({"hookSpecificOutput": {"permissionDecision": "ask"}}), (Allow, Continue), None),
            (PRE, json!({"something": "else"}), (Allow, Continue), None),
        ];
        for (event, json, want, feedback) in cases {
            let r = on(*event, json.clone());
            assert_eq!((axes(&r), r.feedback.as_deref()), (*want, *feedback), "{event} {json}");
        }
    }

    #[test]
    fn updated_input_and_output_are_read_from_each_place() {
        let r =
            on(PRE, json!({"hookSpecificOutput": {"permissionDecision": "allow", "updatedInput": {"command": "ls"}}}));
        assert_eq!(r.updated_input, Some(json!({"command": "ls"})));
        let r = on(PERM, json!({"hookSpecificOutput": {"decision": {"behavior": "allow", "updatedInput": {"a": 1}}}}));
        assert_eq!(r.updated_input, Some(json!({"a": 1})));
        let r = on(PRE, json!({"decision": "allow", "updatedInput": {"b": 2}}));
        assert_eq!(r.updated_input, Some(json!({"b": 2})));
        let r = on(HookEventType::POST_TOOL, json!({"hookSpecificOutput": {"updatedToolOutput": {"stdout": "x"}}}));
        assert_eq!(r.updated_output, Some(json!({"stdout": "x"})));
        let r = on(HookEventType::POST_TOOL, json!({"hookSpecificOutput": {"updatedMCPToolOutput": [1]}}));
        assert_eq!(r.updated_output, Some(json!([1])));
    }

    #[test]
    fn system_message_is_reported_and_is_the_reason_only_of_a_reasonless_block() {
        let r = on(PRE, json!({"systemMessage": "for you", "hookSpecificOutput": {"permissionDecision": "deny"}}));
        assert_eq!((r.feedback.as_deref(), r.system_message.as_deref()), (Some("for you"), Some("for you")));
        let r = on(PRE, json!({"systemMessage": "for you", "decision": "deny", "reason": "why"}));
        assert_eq!((r.feedback.as_deref(), r.system_message.as_deref()), (Some("why"), Some("for you")));
        let r = on(PRE, json!({"systemMessage": "for you"}));
        assert_eq!((r.feedback, r.system_message.as_deref()), (None, Some("for you")));
    }

    #[test]
    fn a_veto_keeps_a_json_blocking_reason_and_otherwise_uses_stderr() {
        let json = Answer::from_json(&json!({"decision": "block", "reason": "json"}), HookEventType::PRE_COMPACT);
        assert_eq!(json.expect("object").veto("stderr").reason.as_deref(), Some("json"));
        let allow = Answer::from_json(&json!({"hookSpecificOutput": {"permissionDecision": "allow"}}), PRE);
        let vetoed = allow.expect("object").veto(" stderr \n");
        assert_eq!((vetoed.verdict, vetoed.reason.as_deref()), (Verdict::Block, Some("stderr")));
    }

    #[test]
    fn model_text_is_clamped_per_answer_and_exit_2_stderr_at_4000() {
        // R-CC-6: (answer, feedback cap, system message cap).
        let long = "é".repeat(3 * HookFeedback::MAX_CHARS);
        let context = Answer { context: Some(long.clone()), system_message: Some(long.clone()), ..Answer::default() };
        let denied =
            Answer { reason: Some(long.clone()), context: Some(long.clone()), ..Answer::with(Verdict::Deny, "") };
        let vetoed = Answer::default().veto(&long);
        let cases = [
            (context, HookFeedback::MAX_CHARS, Some(HookFeedback::MAX_CHARS)),
            (denied, HookFeedback::MAX_CHARS, None),
            (vetoed, MAX_REASON_CHARS, None),
        ];
        for (answer, cap, message_cap) in cases {
            let r = resolve("h", PRE, false, Reply::Answer(answer));
            let feedback = r.feedback.expect("feedback");
            assert_eq!(feedback.chars().count(), cap);
            assert!(feedback.starts_with("éé") && feedback.ends_with(&format!("[… cut at {cap} characters]")));
            assert_eq!(r.system_message.map(|m| m.chars().count()), message_cap);
        }
    }

    #[test]
    fn a_failure_is_allow_with_the_cause_unless_fail_closed_on_a_decision_event() {
        // R-CFG-4c: one line per (event, failClosed) → (axes, failure recorded).
        use Decision::{Allow, Deny};
        use FlowControl::{Block, Continue};
        #[rustfmt::skip]
        let cases = [
            (PRE, false, (Allow, Continue)),
            (PRE, true, (Allow, Block)),
            (HookEventType::ON_START, true, (Allow, Block)),
            (HookEventType::PRE_COMPACT, true, (Allow, Block)),
            (PERM, true, (Deny, Continue)),
            (HookEventType::POST_TOOL, true, (Allow, Continue)),
            (HookEventType::ON_SESSION_END, true, (Allow, Continue)),
        ];
        for (event, fail_closed, want) in cases {
            let r = resolve("h", event, fail_closed, Reply::Failed("timed out".into()));
            assert_eq!((axes(&r), r.failure.as_deref()), (want, Some("timed out")), "{event} {fail_closed}");
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_call_that_outlives_its_budget_is_a_timeout_failure() {
        let ctx = HookContext::new(PRE);
        let slow = async {
            tokio::time::sleep(Duration::from_secs(60)).await;
            Reply::Answer(Answer::with(Verdict::Deny, "too late"))
        };
        let r = run("h", &ctx, true, Duration::from_secs(2), slow).await;
        assert!(r.is_blocked());
        assert_eq!(r.failure.as_deref(), Some("timed out after 2s"));
    }
}
