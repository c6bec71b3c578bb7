//! OpenAI Codex CLI's hook wire. Codex speaks Claude Code's wire nearly word for word (snake_case
//! payload with `hook_event_name`, `tool_name: "Bash"`, `hookSpecificOutput.permissionDecision`,
//! exit 2 with a reason on stderr), so reading a payload is Claude Code's reading; what differs is
//! here:
//!
//! - answers Codex refuses: on PreToolUse it rejects `ask`, `continue: false`, `updatedInput`
//!   without `allow`, and a deny with an empty reason. The safe readings: `ask` → deny, the reason
//!   saying a person must approve the call; an updated input without an explicit allow → deny
//!   (running the original input would ignore the hook, running the rewritten one was not
//!   allowed); a stop → deny with the stop reason; every deny carries a non-empty reason;
//! - its file edits: the `apply_patch` tool is the matchers' `Edit` (or `Write` when the patch
//!   adds a file) of the paths the patch names (its `patch` module), in the context of a live
//!   call and of one read back from a rollout (its `rollout` module) alike;
//! - no project-directory variable (Codex sets none): the payload's `cwd` names the project;
//! - its settings: `hooks.json` (Claude Code's shape) and the trusted hashes in `config.toml`
//!   without which Codex runs no non-managed hook (its `settings` module).
//!
//! [`crate::Client::Codex`] calls into it.

mod patch;
mod rollout;
mod settings;

use std::path::Path;

use hook_core::{BLOCKED_REASON, EventVerdict, HookContext, HookEventType, Verdict};
use serde_json::{Map, Value};

pub(crate) use self::rollout::read as read_rollout;
pub use self::{
    rollout::rollout_cwd,
    settings::{ROUTED_EVENTS, command_route, trust_hash, trust_key, trusted_hashes},
};
use crate::answer::{Answer, Extras};
use crate::error::Error;

/// Reads a payload (Claude Code's reading).
pub(crate) fn parse(bytes: &[u8], source: &str) -> Result<Map<String, Value>, Error> {
    crate::read::parse_payload(bytes, source)
}

/// The event `payload` names (Codex's names are Claude Code's).
pub(crate) fn event(payload: &Map<String, Value>) -> Result<Option<HookEventType>, Answer> {
    crate::claude::event(payload)
}

/// The working directory the payload names.
pub(crate) fn cwd(payload: &Map<String, Value>) -> Option<&Path> {
    crate::claude::cwd(payload)
}

/// The context of a call: Codex's tool names for the shell are already `Bash`, and an
/// `apply_patch` call becomes the file tool it is (see the `patch` module), for a live call and a
/// recorded one (`rollout`) alike.
pub(crate) fn context(
    event: HookEventType,
    mut payload: Map<String, Value>,
    project: &Path,
) -> Result<HookContext, Error> {
    patch::rename_tool(&mut payload);
    crate::claude::context(event, payload, project)
}

/// The answer to a call of `event`: Claude Code's, after the safe readings of what Codex refuses.
pub(crate) fn answer(event: HookEventType, outcome: Result<&EventVerdict, &str>, extras: &Extras) -> (Answer, bool) {
    match outcome {
        Ok(verdict) => crate::claude::answer(event, Ok(&codex_verdict(verdict)), extras),
        Err(error) => crate::claude::answer(event, Err(error), extras),
    }
}

/// The answer to a call whose payload (or event) could not be read: Claude Code's (exit 2 with
/// the reason on a call that may veto).
pub(crate) fn unreadable(event: Option<HookEventType>, error: &str) -> Answer {
    crate::claude::unreadable(event, error)
}

/// `verdict` in the forms Codex accepts on PreToolUse (see the module doc); other events as they are.
pub(crate) fn codex_verdict(verdict: &EventVerdict) -> EventVerdict {
    let mut out = verdict.clone();
    // Only the events answered with a permission decision (PreToolUse among Codex's) can ask or
    // rewrite the call's input.
    if verdict.event.spec().answer != hook_core::AnswerChannel::PermissionDecision {
        return out;
    }
    let merged = &mut out.report.merged;
    let reason = verdict.reason.clone().filter(|r| !r.trim().is_empty());
    let deny = match verdict.outcome {
        Verdict::Denied | Verdict::Blocked => Some(reason.unwrap_or_else(|| BLOCKED_REASON.to_owned())),
        Verdict::Ask => Some(format!(
            "a person must approve this call and Codex cannot ask, so it is denied: {}",
            reason.unwrap_or_else(|| "a hook asked for approval".to_owned())
        )),
        Verdict::Proceed if merged.updated_input.is_some() && !merged.explicit_allow => Some(
            "a hook rewrote this call's input without allowing it, and Codex runs a rewritten call only when it is allowed, so it is denied"
                .to_owned(),
        ),
        Verdict::Proceed => merged.stop_reason.clone().map(|stop| format!("a hook stopped the session: {stop}")),
    };
    if let Some(reason) = deny {
        out.outcome = Verdict::Denied;
        out.reason = Some(reason);
        merged.updated_input = None;
    }
    merged.stop_reason = None;
    out
}

#[cfg(test)]
mod tests;
