//! What an agent's client is told when a repository's hooks are not trusted: one sentence in
//! Claude Code's system message, said by `claude` in-process and by the daemon alike.

use std::path::Path;

use hook_claude::{Answer, Key};
use hook_core::{ExecutionHook, HookContext, HookEventType, HookRegistry};
use serde_json::{Value, json};

/// Whether the person should hear about untrusted hooks on this call: a withheld hook would
/// have run for `ctx`, or this is SessionStart and the project has withheld hooks at all.
pub fn tells_untrusted<'h>(
    ctx: &HookContext,
    hooks_of_event: impl IntoIterator<Item = &'h dyn ExecutionHook>,
    any_withheld: impl FnOnce() -> bool,
) -> bool {
    hooks_of_event.into_iter().any(|h| h.withheld() && h.would_match(ctx))
        || (ctx.event == HookEventType::ON_SESSION_START && any_withheld())
}

/// [`tells_untrusted`] for the hooks of a registry.
pub(crate) fn registry_tells_untrusted(registry: &HookRegistry, ctx: &HookContext) -> bool {
    let hooks = registry.hooks(ctx.event);
    tells_untrusted(ctx, hooks.iter().map(|h| h.as_ref()), || {
        HookEventType::ALL.iter().any(|e| registry.hooks(*e).iter().any(|h| h.withheld()))
    })
}

/// `answer` with a system message saying that the hooks of `project` were skipped and how to
/// trust them (`trust_command`, e.g. "run 'aimon-hooks trust --project DIR'"). An earlier
/// system message is kept above it; answers that are not JSON stay as they are.
pub fn with_trust_notice(answer: Answer, project: &Path, trust_command: &str) -> Answer {
    let notice = format!(
        "aimon-hooks: the hooks of {} are not trusted, so their command, http and mcp handlers were skipped; review them, then {trust_command} to trust them",
        project.display()
    );
    match answer {
        Answer::Silent => Answer::Json(json!({Key::SYSTEM_MESSAGE: notice})),
        Answer::Json(Value::Object(mut out)) => {
            let message = match out.get(Key::SYSTEM_MESSAGE).and_then(Value::as_str) {
                Some(earlier) => format!("{earlier}\n{notice}"),
                None => notice,
            };
            out.insert(Key::SYSTEM_MESSAGE.into(), message.into());
            Answer::Json(Value::Object(out))
        }
        other => other,
    }
}
