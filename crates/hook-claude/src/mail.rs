//! Session mail → Claude Code's answer (R-RW-11): which events can carry it, and how.

use hook_core::HookEventType;
use serde_json::{Map, Value};

use crate::answer::Answer;
use crate::keys::{Key, Word};

/// How an event's answer reaches the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MailChannel {
    /// The event-specific additional context.
    Context,
    /// A top-level block decision with the mail as its reason: the agent keeps working instead of
    /// stopping.
    Continuation,
}

/// The model-context channel of `event`, if its answer has one; `None` = mail waits for another
/// call. The one place that says which events deliver mail: a new event gets one arm here.
pub fn mail_channel(event: HookEventType) -> Option<MailChannel> {
    match event {
        HookEventType::POST_TOOL | HookEventType::ON_SESSION_START => Some(MailChannel::Context),
        HookEventType::ON_STOP => Some(MailChannel::Continuation),
        _ => None,
    }
}

/// `answer` with `mail` (already joined into one text) merged in on `event`'s channel: appended
/// to an existing additional context or block reason, else added. Returns the answer and
/// whether it carries the mail (an event without a channel, or an error answer on stderr, does
/// not: the caller must not acknowledge the mail then).
pub fn with_mail(answer: Answer, event: HookEventType, mail: &str) -> (Answer, bool) {
    let Some(channel) = mail_channel(event) else { return (answer, false) };
    let mut out = match answer {
        Answer::Silent => Map::new(),
        Answer::Json(Value::Object(out)) => out,
        other => return (other, false),
    };
    match channel {
        MailChannel::Context => {
            let specific = out.entry(Key::HOOK_SPECIFIC_OUTPUT).or_insert_with(|| Value::Object(Map::new()));
            let Value::Object(specific) = specific else { return (Answer::Json(Value::Object(out)), false) };
            specific.entry(Key::HOOK_EVENT_NAME).or_insert_with(|| event.payload_name().into());
            append(specific, Key::ADDITIONAL_CONTEXT, mail);
        }
        MailChannel::Continuation => {
            out.insert(Key::DECISION.into(), Word::BLOCK.into());
            append(&mut out, Key::REASON, mail);
        }
    }
    (Answer::Json(Value::Object(out)), true)
}

fn append(map: &mut Map<String, Value>, key: &str, text: &str) {
    let joined = match map.get(key).and_then(Value::as_str) {
        Some(before) if !before.is_empty() => format!("{before}\n\n{text}"),
        _ => text.to_owned(),
    };
    map.insert(key.into(), joined.into());
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn mail_goes_where_each_event_lets_the_model_read_it() {
        let cases = [
            (
                HookEventType::POST_TOOL,
                Answer::Silent,
                Some(
                    json!({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "CI is green"}}),
                ),
            ),
            (
                HookEventType::ON_SESSION_START,
                Answer::Silent,
                Some(
                    json!({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "CI is green"}}),
                ),
            ),
            (HookEventType::ON_STOP, Answer::Silent, Some(json!({"decision": "block", "reason": "CI is green"}))),
            (
                HookEventType::POST_TOOL,
                Answer::Json(
                    json!({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "lint ok"}}),
                ),
                Some(
                    json!({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "lint ok\n\nCI is green"}}),
                ),
            ),
            (
                HookEventType::ON_STOP,
                Answer::Json(json!({"systemMessage": "hi"})),
                Some(json!({"systemMessage": "hi", "decision": "block", "reason": "CI is green"})),
            ),
            (HookEventType::PRE_TOOL, Answer::Silent, None),
            (HookEventType::POST_TOOL, Answer::Stderr(1, "broken".into()), None),
        ];
        for (event, answer, expected) in cases {
            let (out, carried) = with_mail(answer, event, "CI is green");
            assert_eq!(carried, expected.is_some(), "{event}");
            if let Some(expected) = expected {
                assert_eq!(out, Answer::Json(expected), "{event}");
            }
        }
    }
}
