//! Session mail → Claude Code's answer (R-RW-11). Which events carry it, and through which kind
//! of channel, is the events table's ([`hook_core::EventSpec::mail`]); this module puts it under
//! Claude Code's keys: the additional context, or a stop's block reason.

use hook_core::{HookEventType, MailChannel};
use serde_json::{Map, Value};

use super::keys::{Key, Word};
use super::reply::Reply;

/// `answer` with `mail` (already joined into one text) merged in on `event`'s channel: appended
/// to an existing additional context or block reason, else added. Returns the answer and
/// whether it carries the mail (an event without a channel, or an error answer on stderr, does
/// not: the caller must not acknowledge the mail then).
pub(crate) fn with_mail(answer: Reply, event: HookEventType, mail: &str) -> (Reply, bool) {
    let Some(channel) = event.spec().mail else { return (answer, false) };
    let mut out = match answer {
        Reply::Silent => Map::new(),
        Reply::Json(Value::Object(out)) => out,
        other => return (other, false),
    };
    match channel {
        MailChannel::Context => {
            let specific = out.entry(Key::HOOK_SPECIFIC_OUTPUT).or_insert_with(|| Value::Object(Map::new()));
            let Value::Object(specific) = specific else { return (Reply::Json(Value::Object(out)), false) };
            specific.entry(Key::HOOK_EVENT_NAME).or_insert_with(|| event.payload_name().into());
            append(specific, Key::ADDITIONAL_CONTEXT, mail);
        }
        MailChannel::Continuation => {
            out.insert(Key::DECISION.into(), Word::BLOCK.into());
            append(&mut out, Key::REASON, mail);
        }
    }
    (Reply::Json(Value::Object(out)), true)
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
                Reply::Silent,
                Some(
                    json!({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "CI is green"}}),
                ),
            ),
            (
                HookEventType::ON_SESSION_START,
                Reply::Silent,
                Some(
                    json!({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "CI is green"}}),
                ),
            ),
            (HookEventType::ON_STOP, Reply::Silent, Some(json!({"decision": "block", "reason": "CI is green"}))),
            (
                HookEventType::POST_TOOL,
                Reply::Json(
                    json!({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "lint ok"}}),
                ),
                Some(
                    json!({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "lint ok\n\nCI is green"}}),
                ),
            ),
            (
                HookEventType::ON_STOP,
                Reply::Json(json!({"systemMessage": "hi"})),
                Some(json!({"systemMessage": "hi", "decision": "block", "reason": "CI is green"})),
            ),
            (
                HookEventType::USER_PROMPT_SUBMIT,
                Reply::Silent,
                Some(
                    json!({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "CI is green"}}),
                ),
            ),
            (
                HookEventType::POST_TOOL_FAILURE,
                Reply::Silent,
                Some(
                    json!({"hookSpecificOutput": {"hookEventName": "PostToolUseFailure", "additionalContext": "CI is green"}}),
                ),
            ),
            (HookEventType::PRE_TOOL, Reply::Silent, None),
            (HookEventType::POST_TOOL, Reply::Stderr(1, "broken".into()), None),
        ];
        for (event, answer, expected) in cases {
            let (out, carried) = with_mail(answer, event, "CI is green");
            assert_eq!(carried, expected.is_some(), "{event}");
            if let Some(expected) = expected {
                assert_eq!(out, Reply::Json(expected), "{event}");
            }
        }
    }
}
