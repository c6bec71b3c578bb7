//! One call, evaluated: the policy, the dispatch, Claude Code's answer and how it is printed.
//!
//! `aimon-hooks run`/`claude` in-process and the daemon's routes all come through here, so their
//! answers are the same bytes. This is the one place that turns a verdict (or a failure) into
//! hook-claude's [`Answer`].

use std::path::Path;
use std::sync::Arc;

use hook_claude::Answer;
use hook_core::{
    CancellationToken, DecisionChannel, EventVerdict, ExecutionMode, ExecutionReport, HookContext, HookEngine,
    HookEventType, HookExecutionPolicy, HookRegistry, HookResult,
};
use serde_json::{Map, Value};

/// The policy `run`'s flags select (R-CLI-1).
pub fn policy(stop_on_blocked: bool, fail_closed: bool, parallel: bool) -> HookExecutionPolicy {
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

/// Dispatches `ctx` on `registry` with `policy`.
pub async fn evaluate(registry: &Arc<HookRegistry>, ctx: &HookContext, policy: HookExecutionPolicy) -> EventVerdict {
    HookEngine::new(registry.clone()).with_policy(policy).run_event(ctx, &CancellationToken::new()).await
}

/// The event a Claude Code payload names: `Ok(None)` for an event we lack (nothing to do), `Err`
/// with the refusal (exit 2) when it names none: the call may be one that vetoes.
pub fn claude_event(payload: &Map<String, Value>) -> Result<Option<HookEventType>, Answer> {
    let Some(name) = payload.get("hook_event_name").and_then(Value::as_str) else {
        return Err(claude_unreadable(None, "the payload has no \"hook_event_name\" string"));
    };
    match HookEventType::resolve(name) {
        Ok(event) => Ok(Some(event)),
        Err(_) => {
            tracing::debug!("hooks: Claude Code event '{name}' has no AIMON counterpart; nothing to do");
            Ok(None)
        }
    }
}

/// The context of a Claude Code call: the payload's, plus what Claude Code implies.
pub fn claude_context(
    event: HookEventType,
    payload: Map<String, Value>,
    project: &Path,
) -> Result<HookContext, hook_claude::Error> {
    let mut ctx = hook_claude::payload_context(event, payload, project)?;
    if event == HookEventType::POST_TOOL {
        // Claude Code fires PostToolUse only after a tool succeeded (failures are PostToolUseFailure).
        if let Some(tool) = ctx.tool.as_mut() {
            tool.result_status.get_or_insert_with(|| "success".to_owned());
        }
    }
    Ok(ctx)
}

/// Claude Code's answer: the verdict's, or the refusal/report for a failure to evaluate (`error`
/// is a sentence).
pub fn claude_answer(event: HookEventType, outcome: Result<&EventVerdict, &str>) -> Answer {
    match outcome {
        Ok(verdict) => hook_claude::answer(verdict),
        Err(error) => hook_claude::on_error(event, &format!("aimon-hooks: {error}")),
    }
}

/// Claude Code's answer to a call whose payload (or, with `None`, whose event) could not be read:
/// refused where the event can veto, with `error` (a sentence) as the reason.
pub fn claude_unreadable(event: Option<HookEventType>, error: &str) -> Answer {
    hook_claude::unreadable(event, &format!("aimon-hooks: {error}"))
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

/// Where printed text goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    /// Standard output.
    Stdout,
    /// Standard error.
    Stderr,
}

impl Stream {
    /// `stdout` or `stderr`, as sent in the `X-Aimon-Stream` header.
    pub fn as_str(self) -> &'static str {
        match self {
            Stream::Stdout => "stdout",
            Stream::Stderr => "stderr",
        }
    }

    /// The stream a header value names.
    pub fn parse(text: &str) -> Option<Stream> {
        match text {
            "stdout" => Some(Stream::Stdout),
            "stderr" => Some(Stream::Stderr),
            _ => None,
        }
    }
}

/// What `aimon-hooks claude` prints and its exit code: the command form of an [`Answer`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Printed {
    /// The stream `text` goes to.
    pub stream: Stream,
    /// The exact bytes to print (with their final newline; empty for a silent answer).
    pub text: String,
    /// The process exit code.
    pub exit: u8,
}

impl Printed {
    /// The command form of `answer`.
    pub fn new(answer: Answer) -> Self {
        match answer {
            Answer::Silent => Printed { stream: Stream::Stdout, text: String::new(), exit: 0 },
            Answer::Json(value) => Printed { stream: Stream::Stdout, text: format!("{value}\n"), exit: 0 },
            Answer::Line(line) => Printed { stream: Stream::Stdout, text: format!("{line}\n"), exit: 0 },
            Answer::Stderr(exit, message) => Printed { stream: Stream::Stderr, text: format!("{message}\n"), exit },
        }
    }

    /// Writes the text to its stream and returns the exit code.
    pub fn emit(&self) -> u8 {
        if let Err(e) = self.write() {
            tracing::debug!("hooks: cannot write the answer: {e}");
        }
        self.exit
    }

    /// Writes and flushes the text to its stream; `Ok` once it is written (session mail it
    /// carries may then be acknowledged).
    pub fn write(&self) -> std::io::Result<()> {
        fn put(mut out: impl std::io::Write, text: &str) -> std::io::Result<()> {
            out.write_all(text.as_bytes())?;
            out.flush()
        }
        match self.stream {
            Stream::Stdout => put(std::io::stdout().lock(), &self.text),
            Stream::Stderr => put(std::io::stderr().lock(), &self.text),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hook_core::Verdict;
    use serde_json::json;

    #[test]
    fn an_unreadable_payload_is_a_deny_of_run_where_the_event_can_veto() {
        let verdict = unreadable_verdict(HookEventType::PRE_TOOL, "not JSON").expect("preTool can veto");
        assert_eq!((verdict.outcome, verdict.reason.as_deref()), (Verdict::Denied, Some("aimon-hooks: not JSON")));
        assert_eq!(crate::output::exit_code(verdict.outcome), 2);
        let blocked = unreadable_verdict(HookEventType::USER_PROMPT_SUBMIT, "x").expect("a block channel");
        assert_eq!(crate::output::exit_code(blocked.outcome), 2);
        assert!(unreadable_verdict(HookEventType::POST_TOOL, "x").is_none());
        assert!(unreadable_verdict(HookEventType::ON_STOP, "x").is_none(), "a failure never keeps the agent working");
    }

    #[test]
    fn each_answer_prints_as_the_claude_command_always_printed_it() {
        let cases = [
            (Answer::Silent, Stream::Stdout, "", 0),
            (Answer::Json(json!({"a": 1})), Stream::Stdout, "{\"a\":1}\n", 0),
            (Answer::Stderr(2, "no".to_owned()), Stream::Stderr, "no\n", 2),
            (Answer::Line("/w/tree".to_owned()), Stream::Stdout, "/w/tree\n", 0),
        ];
        for (answer, stream, text, exit) in cases {
            assert_eq!(Printed::new(answer), Printed { stream, text: text.to_owned(), exit });
        }
    }

    #[test]
    fn a_payload_without_an_event_name_is_refused_and_an_unknown_one_is_silent() {
        let mut payload = Map::new();
        assert!(matches!(claude_event(&payload), Err(Answer::Stderr(2, _))), "a call that may veto is refused");
        payload.insert("hook_event_name".into(), 7.into());
        assert!(matches!(claude_event(&payload), Err(Answer::Stderr(2, _))));
        payload.insert("hook_event_name".into(), "NoSuchEvent".into());
        assert_eq!(claude_event(&payload), Ok(None));
        payload.insert("hook_event_name".into(), "PreToolUse".into());
        assert_eq!(claude_event(&payload), Ok(Some(HookEventType::PRE_TOOL)));
    }
}
