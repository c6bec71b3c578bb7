//! One agent call, from the payload's bytes to the client's answer — the one pipeline behind
//! `aimon-hooks <client>` in-process and `serve`'s `POST /v1/<client>`:
//!
//! payload (the client's wire) → project → engine (the [`Host`]'s, with its trust gate) →
//! dispatch → trust notice → session mail → answer (the client's wire).
//!
//! What differs between the two front ends is only where the engine comes from: a one-shot
//! command loads the tiers for the call, the daemon keeps an engine per project (and its slots,
//! metrics and rewake service). [`Host`] is that difference; the flow is written once here.

use std::future::Future;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use hook_core::{EventVerdict, HookContext, HookEventType, HookRegistry};
use hook_rewake::RewakeStore;
use hook_wire::{Answer, Client, Extras, ProjectHints};

use crate::error::Error;
use crate::mail::{TakenMail, take_mail};

/// Where a call's hooks come from and how they run.
pub trait Host: Sync {
    /// One project's loaded hooks.
    type Project: Send + Sync;

    /// The home directory: its `.aimon/` is the person's own tier, and the walk from a payload's
    /// `cwd` up to a project root stops below it.
    fn home(&self) -> Option<&Path>;

    /// The hooks of the project at `dir`, ready to answer `event`, or the sentence saying why its
    /// configuration cannot answer (refused through the client's channel where the event can
    /// refuse).
    fn open(&self, dir: &Path, event: HookEventType) -> Result<Self::Project, String>;

    /// The registry `project`'s hooks are in.
    fn registry<'a>(&'a self, project: &'a Self::Project) -> &'a Arc<HookRegistry>;

    /// Whether any hook of the project, on any event, was withheld as untrusted.
    fn any_withheld(&self, project: &Self::Project) -> bool;

    /// The words that tell the person how to trust `project` (`run 'aimon-hooks trust …'`).
    fn trust_command(&self, project: &Self::Project) -> String;

    /// Dispatches `ctx` on `project`'s hooks, with the host's rewake service.
    fn dispatch(&self, project: &Self::Project, ctx: &HookContext) -> impl Future<Output = EventVerdict> + Send;

    /// The store of the session mailboxes, `None` when there is none (yet).
    fn mailbox(&self) -> Result<Option<Arc<dyn RewakeStore>>, Error>;
}

/// Where a call says its project is, beyond its payload.
#[derive(Debug, Clone, Copy)]
pub struct CallHints<'a> {
    /// Named explicitly (`serve`'s `project` query parameter).
    pub explicit: Option<&'a Path>,
    /// The client's project directory (`CLAUDE_PROJECT_DIR`: the environment of a command hook, a
    /// header of an http hook).
    pub client_project_dir: Option<&'a Path>,
    /// Relative paths, and a call without any hint, are taken against this directory.
    pub base: &'a Path,
    /// The client runs the call's command under the exec-time guard ([`HookContext::guarded`]).
    pub guarded: bool,
}

/// An answered call.
#[derive(Debug)]
pub struct Answered {
    /// The event, when the payload named one we know.
    pub event: Option<HookEventType>,
    /// The client's answer.
    pub answer: Answer,
    /// The session mail the answer carries: acknowledge it once the answer is written.
    pub mail: Option<TakenMail>,
}

impl Answered {
    fn new(event: Option<HookEventType>, answer: Answer) -> Self {
        Answered { event, answer, mail: None }
    }
}

/// The answer to a call whose payload could not be read at all (too large, a read that failed):
/// refused where the event named in `bytes` (what was read of them) can veto.
pub fn unreadable_call(client: Client, bytes: &[u8], error: &str) -> Answered {
    let event = client.sniff(bytes);
    Answered::new(event, client.unreadable(event, error))
}

/// The project directory of a call: absolute, without `.` components.
pub fn call_project(client_hints: &CallHints<'_>, cwd: Option<&Path>, home: Option<&Path>) -> PathBuf {
    let hints =
        ProjectHints { explicit: client_hints.explicit, client_project_dir: client_hints.client_project_dir, cwd };
    let dir = hook_wire::project_dir(&hints, client_hints.base, home);
    dir.components().filter(|c| !matches!(c, Component::CurDir)).collect()
}

/// Answers one call of `client` whose payload is `bytes` (from `source`, for error sentences).
/// Never fails: every failure is answered in the client's terms.
pub async fn answer_call<H: Host>(
    host: &H,
    client: Client,
    bytes: &[u8],
    source: &str,
    hints: CallHints<'_>,
) -> Answered {
    let payload = match client.parse(bytes, source) {
        Ok(payload) => payload,
        Err(e) => return unreadable_call(client, bytes, &e.to_string()),
    };
    let event = match client.event(&payload) {
        Ok(Some(event)) => event,
        Ok(None) => return Answered::new(None, Answer::default()),
        Err(refusal) => return Answered::new(None, refusal),
    };
    let dir = call_project(&hints, client.cwd(&payload), host.home());
    let project = match host.open(&dir, event) {
        Ok(project) => project,
        Err(error) => return Answered::new(Some(event), client.answer(event, Err(&error), &Extras::default()).0),
    };
    let ctx = match client.context(event, payload, &dir) {
        Ok(ctx) => ctx.with_client(client.name()).with_guard(hints.guarded),
        Err(e) => return Answered::new(Some(event), client.unreadable(Some(event), &e.to_string())),
    };
    let verdict = host.dispatch(&project, &ctx).await;
    let mut extras = Extras::default();
    if tells_untrusted(host.registry(&project), &ctx, || host.any_withheld(&project)) {
        extras.untrusted = Some((dir.clone(), host.trust_command(&project)));
    }
    let taken = session_mail(host, &ctx);
    extras.mail = taken.as_ref().map(TakenMail::text);
    let (answer, carried) = client.answer(event, Ok(&verdict), &extras);
    Answered { event: Some(event), answer, mail: taken.filter(|_| carried) }
}

/// Whether the person should hear about untrusted hooks on this call: a withheld hook would have
/// run for `ctx`, or the event tells it whenever the project has withheld hooks at all.
fn tells_untrusted(registry: &HookRegistry, ctx: &HookContext, any_withheld: impl FnOnce() -> bool) -> bool {
    registry.hooks(ctx.event).iter().any(|h| h.withheld() && h.would_match(ctx))
        || (ctx.event.spec().tells_untrusted && any_withheld())
}

/// The mail of `ctx`'s session, taken when its event carries mail; a store that cannot be read
/// is a WARN: the answer goes out without mail.
fn session_mail<H: Host>(host: &H, ctx: &HookContext) -> Option<TakenMail> {
    ctx.event.spec().mail?;
    ctx.session_id.as_ref()?;
    let taken = host.mailbox().and_then(|store| match store {
        Some(store) => take_mail(&store, ctx),
        None => Ok(None),
    });
    taken.unwrap_or_else(|err| {
        tracing::warn!("hooks: cannot read the session mailbox: {err}");
        None
    })
}

/// Whether any hook of `registry`, on any event, was withheld as untrusted.
pub fn registry_withholds(registry: &HookRegistry) -> bool {
    HookEventType::ALL.iter().any(|e| registry.hooks(*e).iter().any(|h| h.withheld()))
}
