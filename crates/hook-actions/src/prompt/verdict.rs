//! The question and the answer of a model hook: `$ARGUMENTS` in, `{ok, reason, impossible}` out,
//! mapped per event as Claude Code maps it.

use hook_core::{AnswerChannel, DecisionChannel, HookEventType};
use serde_json::Value;

use crate::answer::{Answer, Verdict};

/// What the model is told before the question.
pub(crate) const SYSTEM: &str = "You are a hook deciding whether an AI coding agent may go on. \
Answer with one JSON object and nothing else: {\"ok\": true} to let it go on, or \
{\"ok\": false, \"reason\": \"why, for the agent\"} to stop it. On a Stop or SubagentStop event, \
add \"impossible\": true when what is asked cannot be done, so the agent may stop anyway.";

/// `prompt` with every `$ARGUMENTS` replaced by `input` (appended after a blank line when there is
/// none) and `\$` read as a literal `$`.
pub(crate) fn render(prompt: &str, input: &str) -> String {
    const PLACEHOLDER: &str = "$ARGUMENTS";
    let mut out = String::with_capacity(prompt.len() + input.len());
    let mut placed = false;
    let mut rest = prompt;
    while let Some(i) = rest.find(['\\', '$']) {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        if let Some(after) = rest.strip_prefix("\\$") {
            out.push('$');
            rest = after;
        } else if let Some(after) = rest.strip_prefix(PLACEHOLDER) {
            out.push_str(input);
            placed = true;
            rest = after;
        } else {
            let c = rest.chars().next().unwrap_or_default();
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out.push_str(rest);
    if !placed {
        out.push_str("\n\n");
        out.push_str(input);
    }
    out
}

/// The model's verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Said {
    pub(crate) ok: bool,
    pub(crate) reason: Option<String>,
    pub(crate) impossible: bool,
}

/// Reads the model's text: one JSON object with a boolean `ok`, possibly inside a code fence or
/// after a line of prose. Anything else is `Err` (no usable decision).
pub(crate) fn read(text: &str) -> Result<Said, String> {
    let garbage = || {
        let shown: String = text.trim().chars().take(120).collect();
        format!("the model's answer is not {{\"ok\": true|false}}: {shown:?}")
    };
    let start = text.find('{').ok_or_else(garbage)?;
    let end = text.rfind('}').ok_or_else(garbage)?;
    let value: Value = text.get(start..=end).and_then(|t| serde_json::from_str(t).ok()).ok_or_else(garbage)?;
    let ok = value.get("ok").and_then(Value::as_bool).ok_or_else(garbage)?;
    let reason =
        value.get("reason").and_then(Value::as_str).map(str::trim).filter(|r| !r.is_empty()).map(str::to_owned);
    let impossible = value.get("impossible").and_then(Value::as_bool).unwrap_or(false);
    Ok(Said { ok, reason, impossible })
}

/// What a verdict does on `event` (Claude Code's meanings): `ok` passes; `ok: false` keeps a
/// Stop-like event's agent working unless `impossible`, denies a tool call with the reason handed
/// to the agent, does nothing on PermissionRequest, and elsewhere ends the turn (the reason shown
/// to the person), or, with `continue_on_block`, blocks with the reason handed to the agent.
pub(crate) fn answer(said: Said, event: HookEventType, continue_on_block: bool) -> Answer {
    if said.ok {
        return Answer::default();
    }
    let reason = said.reason.unwrap_or_else(|| "the hook's model said no".to_owned());
    let spec = event.spec();
    if spec.decision == DecisionChannel::Continuation {
        return if said.impossible { Answer::default() } else { Answer::with(Verdict::Block, reason) };
    }
    match spec.answer {
        AnswerChannel::PermissionDecision => return Answer::with(Verdict::Deny, reason),
        AnswerChannel::PermissionBehavior => {
            tracing::debug!("a model hook said no on {event}, where its answer has no effect");
            return Answer::default();
        }
        _ => {}
    }
    let stop = (!continue_on_block).then(|| reason.clone());
    Answer { stop, ..Answer::with(Verdict::Block, reason) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_are_substituted_appended_or_escaped_as_claude_code_does() {
        let cases = [
            ("Is $ARGUMENTS safe?", "Is {\"a\":1} safe?"),
            ("Check:", "Check:\n\n{\"a\":1}"),
            ("Cost \\$5, input $ARGUMENTS", "Cost $5, input {\"a\":1}"),
            ("literal \\$ARGUMENTS", "literal $ARGUMENTS\n\n{\"a\":1}"),
            ("$ARGUMENTS and $ARGUMENTS", "{\"a\":1} and {\"a\":1}"),
            ("a \\ b $HOME é", "a \\ b $HOME é\n\n{\"a\":1}"),
        ];
        for (prompt, want) in cases {
            assert_eq!(render(prompt, "{\"a\":1}"), want, "{prompt}");
        }
    }

    #[test]
    fn an_answer_is_one_object_with_a_boolean_ok_and_anything_else_is_garbage() {
        let said = |ok, reason: Option<&str>, impossible| Said { ok, reason: reason.map(str::to_owned), impossible };
        let cases = [
            ("{\"ok\": true}", Some(said(true, None, false))),
            ("```json\n{\"ok\": false, \"reason\": \"rm\"}\n```", Some(said(false, Some("rm"), false))),
            ("Sure. {\"ok\": false, \"reason\": \"x\", \"impossible\": true}", Some(said(false, Some("x"), true))),
            ("{\"ok\": \"no\"}", None),
            ("I think it is fine", None),
            ("{ok: true}", None),
            ("", None),
        ];
        for (text, want) in cases {
            assert_eq!(read(text).ok(), want, "{text}");
        }
    }

    #[test]
    fn ok_false_means_what_claude_code_says_on_each_event() {
        use HookEventType as E;
        let no = Said { ok: false, reason: Some("why".into()), impossible: false };
        let impossible = Said { impossible: true, ..no.clone() };
        let stop = |r: &str| Some(r.to_owned());
        #[rustfmt::skip]
        let cases = [
            (E::PRE_TOOL, no.clone(), false, Verdict::Deny, None),
            (E::PRE_TOOL, no.clone(), true, Verdict::Deny, None),
            (E::POST_TOOL, no.clone(), false, Verdict::Block, stop("why")),
            (E::POST_TOOL, no.clone(), true, Verdict::Block, None),
            (E::USER_PROMPT_SUBMIT, no.clone(), false, Verdict::Block, stop("why")),
            (E::ON_STOP, no.clone(), false, Verdict::Block, None),
            (E::ON_STOP, impossible.clone(), false, Verdict::Pass, None),
            (E::SUBAGENT_STOP, impossible, false, Verdict::Pass, None),
            (E::PERMISSION_REQUEST, no.clone(), false, Verdict::Pass, None),
            (E::TASK_COMPLETED, no, true, Verdict::Block, None),
        ];
        for (event, said, continue_on_block, verdict, stop) in cases {
            let a = answer(said, event, continue_on_block);
            assert_eq!((a.verdict, a.stop), (verdict, stop), "{event} {continue_on_block}");
        }
    }
}
