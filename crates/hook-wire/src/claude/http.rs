//! The `http` handler form of a reply: what Claude Code reads from a 2xx response body.
//!
//! Claude Code treats a non-2xx answer, plain text or a refused connection as a non-blocking
//! error, and an http hook cannot veto through a status code. So every answer is a 200: JSON
//! answers as they are, a command-form veto (exit 2) as the JSON refusal of its event, and
//! everything else (silence, a report on an event that cannot refuse) as an empty body.

use hook_core::{AnswerChannel, HookEventType};
use serde_json::{Value, json};

use super::keys::{Key, Word};
use super::reply::Reply;

/// The response body for `answer` to a call of `event`; `None` is an empty body. A call whose
/// event could not be read (`event` is `None`) can only be refused with a top-level block, which
/// Claude Code reads as a deny on a tool call too.
pub(crate) fn http_body(event: Option<HookEventType>, answer: &Reply) -> Option<Value> {
    let Some(event) = event else {
        return match answer {
            Reply::Stderr(2, reason) => Some(json!({Key::DECISION: Word::BLOCK, Key::REASON: reason})),
            _ => None,
        };
    };
    match answer {
        Reply::Silent | Reply::Stderr(0 | 1, _) => None,
        Reply::Json(value) => Some(value.clone()),
        Reply::Line(path) => Some(json!({
            Key::HOOK_SPECIFIC_OUTPUT: {Key::HOOK_EVENT_NAME: event.payload_name(), Key::WORKTREE_PATH: path}
        })),
        Reply::Stderr(_, reason) if event.spec().answer == AnswerChannel::PermissionDecision => Some(json!({
            Key::HOOK_SPECIFIC_OUTPUT: {
                Key::HOOK_EVENT_NAME: event.payload_name(),
                Key::PERMISSION_DECISION: Word::DENY,
                Key::PERMISSION_DECISION_REASON: reason,
            }
        })),
        Reply::Stderr(_, reason) => Some(json!({Key::DECISION: Word::BLOCK, Key::REASON: reason})),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_veto_becomes_the_json_refusal_of_its_event_and_a_report_an_empty_body() {
        let veto = Reply::Stderr(2, "bad config".to_owned());
        let body = http_body(Some(HookEventType::PRE_TOOL), &veto).expect("a refusal");
        assert_eq!(body["hookSpecificOutput"]["permissionDecision"], "deny");
        assert_eq!(body["hookSpecificOutput"]["permissionDecisionReason"], "bad config");
        let body = http_body(Some(HookEventType::PRE_COMPACT), &veto).expect("a refusal");
        assert_eq!(body, json!({"decision": "block", "reason": "bad config"}));
        assert_eq!(http_body(Some(HookEventType::POST_TOOL), &Reply::Stderr(1, "x".to_owned())), None);
        assert_eq!(http_body(Some(HookEventType::ON_STOP), &Reply::Silent), None);
        let json = Reply::Json(json!({"systemMessage": "hi"}));
        assert_eq!(http_body(Some(HookEventType::ON_STOP), &json), Some(json!({"systemMessage": "hi"})));
        let path = http_body(Some(HookEventType::WORKTREE_CREATE), &Reply::Line("/w/t".to_owned())).expect("a path");
        assert_eq!(path["hookSpecificOutput"]["worktreePath"], "/w/t");
        let no_event = http_body(None, &veto).expect("a refusal without an event");
        assert_eq!(no_event, json!({"decision": "block", "reason": "bad config"}));
        assert_eq!(http_body(None, &Reply::Silent), None);
    }
}
