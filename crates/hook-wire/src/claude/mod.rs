//! Claude Code's hook wire, all of it: the payload a hook call carries (its keys, the event it
//! names, the context it gives), the answer Claude Code reads (JSON on stdout, an exit code with
//! stderr, an `http` hook's response body), where rewake mail and the trust notice go in it, the
//! settings `init claude` edits, the keys a command or http hook answers with (read by
//! hook-actions through [`Key`] and [`Word`]), and its transcripts read back as hook calls
//! (`transcript`, for `replay`).
//!
//! [`crate::Client::Claude`] calls into it; nothing outside this module spells a Claude Code key.

mod event;
mod fields;
mod http;
mod keys;
mod mail;
mod reply;
mod settings;
mod transcript;

use std::path::Path;

use hook_core::{EventVerdict, HookContext, HookEventType};
use serde_json::{Map, Value};

use self::reply::Reply;
pub use self::{
    fields::{PayloadKey, TOOL_INPUT_PREFIX, context_scalars, context_structure, template_scalar},
    keys::{Key, Word},
    settings::{
        ALLOWED_ENV_VARS, SHELL_PREFIX, add_routes, command_route, guard_prefix, http_route, is_route, prefix_guards,
        remove_routes, remove_shell_prefix, routed_events, set_shell_prefix,
    },
    transcript::transcript_dir,
};
use crate::answer::{Answer, Extras, trust_notice};
use crate::error::Error;

/// The environment variable naming the project of a command hook's call.
pub(crate) const PROJECT_DIR_ENV: &str = "CLAUDE_PROJECT_DIR";

pub(crate) use self::event::{sniff_event as sniff, sniff_name};
pub(crate) use self::fields::payload_context;
pub(crate) use self::settings::command_route_for;
pub(crate) use self::transcript::read as read_transcript;

/// The event `payload` names; `Err` is the refusal of a payload that names none.
pub(crate) fn event(payload: &Map<String, Value>) -> Result<Option<HookEventType>, Answer> {
    event::event(payload).map_err(|reply| render(None, reply))
}

/// The working directory the payload names.
pub(crate) fn cwd(payload: &Map<String, Value>) -> Option<&Path> {
    payload.get(PayloadKey::CWD).and_then(Value::as_str).map(Path::new)
}

/// The context of a call: the payload's, plus what Claude Code implies by firing the event (a
/// PostToolUse comes only after a tool succeeded).
pub(crate) fn context(event: HookEventType, payload: Map<String, Value>, project: &Path) -> Result<HookContext, Error> {
    let mut ctx = payload_context(event, payload, project)?;
    if let (Some(tool), Some(implied)) = (ctx.tool.as_mut(), event.spec().tool_result) {
        tool.result_status.get_or_insert_with(|| implied.to_owned());
    }
    Ok(ctx)
}

/// The answer to a call of `event`: the verdict's, or the refusal/report of a failure to
/// evaluate (`error`, a sentence); with the trust notice and the mail of `extras`. The flag says
/// whether the answer carries the mail (the caller acknowledges it only then).
pub(crate) fn answer(event: HookEventType, outcome: Result<&EventVerdict, &str>, extras: &Extras) -> (Answer, bool) {
    let mut reply = match outcome {
        Ok(verdict) => reply::reply(verdict),
        Err(error) => reply::on_error(event, &format!("aimon-hooks: {error}")),
    };
    if let Some((project, command)) = &extras.untrusted {
        reply = with_system_message(reply, &trust_notice(project, command));
    }
    let mut carried = false;
    if let Some(mail) = &extras.mail {
        (reply, carried) = mail::with_mail(reply, event, mail);
    }
    (render(Some(event), reply), carried)
}

/// The answer to a call whose payload (or, with `None`, whose event) could not be read.
pub(crate) fn unreadable(event: Option<HookEventType>, error: &str) -> Answer {
    render(event, reply::unreadable(event, &format!("aimon-hooks: {error}")))
}

/// `reply` with `message` for the person: below an earlier system message; replies that are not
/// JSON stay as they are.
fn with_system_message(reply: Reply, message: &str) -> Reply {
    match reply {
        Reply::Silent => {
            let mut out = Map::new();
            out.insert(Key::SYSTEM_MESSAGE.into(), message.into());
            Reply::Json(Value::Object(out))
        }
        Reply::Json(Value::Object(mut out)) => {
            let joined = match out.get(Key::SYSTEM_MESSAGE).and_then(Value::as_str) {
                Some(earlier) => format!("{earlier}\n{message}"),
                None => message.to_owned(),
            };
            out.insert(Key::SYSTEM_MESSAGE.into(), joined.into());
            Reply::Json(Value::Object(out))
        }
        other => other,
    }
}

/// Both forms of `reply`: what the `claude` command prints, and an `http` hook's response body.
fn render(event: Option<HookEventType>, reply: Reply) -> Answer {
    let http = http::http_body(event, &reply);
    match reply {
        Reply::Silent => Answer { http, ..Answer::default() },
        Reply::Json(value) => Answer { stdout: format!("{value}\n"), http, ..Answer::default() },
        Reply::Line(line) => Answer { stdout: format!("{line}\n"), http, ..Answer::default() },
        Reply::Stderr(exit, message) => Answer { stderr: format!("{message}\n"), exit, http, ..Answer::default() },
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn each_reply_prints_as_the_claude_command_always_printed_it() {
        let cases = [
            (Reply::Silent, "", "", 0),
            (Reply::Json(json!({"a": 1})), "{\"a\":1}\n", "", 0),
            (Reply::Stderr(2, "no".to_owned()), "", "no\n", 2),
            (Reply::Line("/w/tree".to_owned()), "/w/tree\n", "", 0),
        ];
        for (reply, stdout, stderr, exit) in cases {
            let answer = render(Some(HookEventType::ON_STOP), reply);
            assert_eq!((answer.stdout.as_str(), answer.stderr.as_str(), answer.exit), (stdout, stderr, exit));
        }
    }

    #[test]
    fn the_trust_notice_goes_below_an_earlier_system_message_and_never_into_a_refusal() {
        let untrusted = Extras { untrusted: Some(("/p".into(), "run 'x'".to_owned())), mail: None };
        let notice = trust_notice(Path::new("/p"), "run 'x'");
        let verdict = EventVerdict::from_report(HookEventType::ON_SESSION_START, hook_core::ExecutionReport::default());
        let (answer, _) = answer(HookEventType::ON_SESSION_START, Ok(&verdict), &untrusted);
        assert_eq!(answer.http, Some(json!({"systemMessage": notice})));
        let joined = with_system_message(Reply::Json(json!({"systemMessage": "hi"})), &notice);
        assert_eq!(joined, Reply::Json(json!({"systemMessage": format!("hi\n{notice}")})));
        let refusal = Reply::Stderr(2, "no".to_owned());
        assert_eq!(with_system_message(refusal.clone(), &notice), refusal);
    }
}
