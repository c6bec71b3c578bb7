//! The fire listener (R-RW-4/5): re-hydrate the context, re-invoke only the originating hook,
//! chain its follow-ups.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, OnceLock, PoisonError, RwLock, Weak};
use std::time::Duration;

use hook_core::{
    CancellationToken, ExecutionHook, HookContext, HookExecutionPolicy, HookExecutor, HookRegistry, HookRun,
    RewakeInvocation, RewakeSpec,
};

use crate::envelope::{Envelope, Fire};
use crate::service::{FireFuture, RewakeFireListener, RewakeService};
use crate::store::{Mail, RewakeStore};

/// An agent runtime that can take a rewake fire for one of its contexts.
pub trait RewakeRuntime: Send + Sync + fmt::Debug {
    /// The context to re-invoke the hook with, rebuilt from the envelope's snapshot (live
    /// session state may be refreshed here). `None` = this runtime cannot re-dispatch: the fire
    /// is dropped with a WARN.
    fn rehydrate(&self, snapshot: &HookContext) -> Option<HookContext>;

    /// Receives the re-invoked hook's outcome (for example the final allow/deny after an
    /// approval arrived). The default ignores it.
    fn deliver(&self, fire: &Fire, run: &HookRun) {
        let _ = (fire, run);
    }
}

/// Live agent runtimes by `HookContext::context_id`; a runtime registers its context while it
/// runs and unregisters it when it ends (a later fire then drops with a WARN).
///
/// A host whose agents cannot be re-entered (a daemon serving Claude Code sessions) sets a
/// fallback ([`RuntimeRegistry::set_fallback`], e.g. [`MailboxRuntime`]): it takes every fire
/// whose context is not registered, rebuilding the context from the envelope (R-RW-4b).
/// Envelopes without a context id (engine-level events: onConfigReload, onSessionStart/End)
/// fire with their snapshot as a built-in context when no fallback is set (R-RW-12).
#[derive(Debug, Default)]
pub struct RuntimeRegistry {
    runtimes: RwLock<HashMap<String, Arc<dyn RewakeRuntime>>>,
    fallback: RwLock<Option<Arc<dyn RewakeRuntime>>>,
}

impl RuntimeRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers `runtime` for `context_id`; returns the runtime it replaced.
    pub fn register(
        &self,
        context_id: impl Into<String>,
        runtime: Arc<dyn RewakeRuntime>,
    ) -> Option<Arc<dyn RewakeRuntime>> {
        self.runtimes.write().unwrap_or_else(PoisonError::into_inner).insert(context_id.into(), runtime)
    }

    /// Unregisters `context_id`; `true` if it was registered.
    pub fn unregister(&self, context_id: &str) -> bool {
        self.runtimes.write().unwrap_or_else(PoisonError::into_inner).remove(context_id).is_some()
    }

    /// The runtime of `context_id`.
    pub fn get(&self, context_id: &str) -> Option<Arc<dyn RewakeRuntime>> {
        self.runtimes.read().unwrap_or_else(PoisonError::into_inner).get(context_id).cloned()
    }

    /// Sets the runtime for fires whose context is not registered; returns the one it replaced.
    pub fn set_fallback(&self, runtime: Arc<dyn RewakeRuntime>) -> Option<Arc<dyn RewakeRuntime>> {
        self.fallback.write().unwrap_or_else(PoisonError::into_inner).replace(runtime)
    }

    /// The runtime a fire of `envelope` goes to: its registered context, else the fallback,
    /// else for an envelope without a context id the built-in snapshot runtime.
    fn runtime_for(&self, envelope: &Envelope) -> Option<Arc<dyn RewakeRuntime>> {
        let registered = envelope.context_id.as_deref().and_then(|id| self.get(id));
        let fallback = || self.fallback.read().unwrap_or_else(PoisonError::into_inner).clone();
        let builtin = || envelope.context_id.is_none().then(|| Arc::new(SnapshotRuntime) as Arc<dyn RewakeRuntime>);
        registered.or_else(fallback).or_else(builtin)
    }
}

/// The built-in context of engine-level envelopes: the envelope's snapshot as it is.
#[derive(Debug)]
struct SnapshotRuntime;

impl RewakeRuntime for SnapshotRuntime {
    fn rehydrate(&self, snapshot: &HookContext) -> Option<HookContext> {
        Some(snapshot.clone())
    }
}

/// Delivery to agents that cannot be woken (R-RW-11): rebuilds the context from the envelope
/// and puts the re-invoked hook's feedback (or block reason) in the session's mailbox, keyed
/// by the envelope's `session_id`, for the session's next model-context hook call to take.
/// A run with nothing to say, or an envelope without a session, mails nothing.
#[derive(Debug)]
pub struct MailboxRuntime {
    store: Arc<dyn RewakeStore>,
    ttl: Duration,
}

impl MailboxRuntime {
    /// Mail into `store`, kept [`Mail::DEFAULT_TTL`] (24 h).
    pub fn new(store: Arc<dyn RewakeStore>) -> Self {
        MailboxRuntime { store, ttl: Mail::DEFAULT_TTL }
    }

    /// Keeps undelivered mail for `ttl` instead.
    pub fn with_ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl;
        self
    }
}

impl RewakeRuntime for MailboxRuntime {
    fn rehydrate(&self, snapshot: &HookContext) -> Option<HookContext> {
        Some(snapshot.clone())
    }

    fn deliver(&self, fire: &Fire, run: &HookRun) {
        let envelope = &fire.envelope;
        let Some(session) = envelope.session_id() else { return };
        let block = run.result.is_blocked();
        let Some(text) = run.result.feedback.as_deref().filter(|t| !t.trim().is_empty()) else { return };
        let mail = Mail::new(fire, session, text, block, fire.fired_at, self.ttl);
        if let Err(err) = self.store.put_mail(&mail) {
            tracing::warn!(
                hook = %envelope.hook_id,
                "rewake: could not put the answer of hook '{}' in the mailbox of session '{session}': {err}",
                envelope.hook_id
            );
        }
    }
}

/// The default listener: finds the originating hook by id in the registry, re-invokes it alone
/// under the executor's net with `ctx.rewake` set, and chains delay/event follow-ups with
/// `attempt + 1` up to `maxAttempts` (R-RW-4/5).
pub struct DefaultRewakeFireListener {
    hooks: Arc<HookRegistry>,
    runtimes: Arc<RuntimeRegistry>,
    policy: HookExecutionPolicy,
    service: OnceLock<Weak<dyn RewakeService>>,
}

impl fmt::Debug for DefaultRewakeFireListener {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DefaultRewakeFireListener")
            .field("policy", &self.policy)
            .field("bound", &self.service.get().is_some())
            .finish_non_exhaustive()
    }
}

impl DefaultRewakeFireListener {
    /// A listener over `hooks` and `runtimes` with the default execution policy.
    pub fn new(hooks: Arc<HookRegistry>, runtimes: Arc<RuntimeRegistry>) -> Self {
        DefaultRewakeFireListener { hooks, runtimes, policy: HookExecutionPolicy::default(), service: OnceLock::new() }
    }

    /// Uses another policy for re-invocations.
    pub fn with_policy(mut self, policy: HookExecutionPolicy) -> Self {
        self.policy = policy;
        self
    }

    /// Binds the service follow-ups are scheduled with (held weakly); `false` if one was
    /// already bound. Unbound, follow-ups are dropped with an INFO.
    pub fn bind_service<S: RewakeService + 'static>(&self, service: &Arc<S>) -> bool {
        let weak: Weak<S> = Arc::downgrade(service);
        self.service.set(weak).is_ok()
    }

    /// Fires `fire`: re-invokes its hook, delivers the run to the envelope's runtime and chains
    /// follow-ups. Returns the hook's run, or `None` when the fire was dropped (with a WARN
    /// saying why: no runtime, an event that cannot be re-dispatched, the hook is gone).
    pub async fn fire(&self, fire: Fire) -> Option<HookRun> {
        let envelope = &fire.envelope;
        let hook_id = envelope.hook_id.as_str();
        let Some(runtime) = self.runtimes.runtime_for(envelope) else {
            tracing::warn!(
                hook = hook_id,
                "rewake: context '{}' is no longer registered; fire of hook '{hook_id}' dropped",
                envelope.context_id.as_deref().unwrap_or_default()
            );
            return None;
        };
        if !envelope.event.spec().rewake {
            tracing::warn!(
                hook = hook_id,
                "rewake: event '{}' cannot be re-dispatched; fire of hook '{hook_id}' dropped",
                envelope.event
            );
            return None;
        }
        let Some(mut ctx) = runtime.rehydrate(&envelope.context) else {
            tracing::warn!(
                hook = hook_id,
                "rewake: context '{}' is not rewake-capable; fire of hook '{hook_id}' dropped",
                envelope.context_id.as_deref().unwrap_or_default()
            );
            return None;
        };
        let snapshot = self.hooks.snapshot();
        let Some(hook) = snapshot.hooks(envelope.event).find(|h| h.id() == hook_id) else {
            tracing::warn!(
                hook = hook_id,
                "rewake: hook '{hook_id}' is no longer registered on '{}'; fire dropped",
                envelope.event
            );
            return None;
        };
        ctx.event = envelope.event;
        ctx.context_id.clone_from(&envelope.context_id);
        ctx.rewake = Some(RewakeInvocation::new(
            envelope.id.clone(),
            envelope.attempt,
            fire.payload.clone(),
            envelope.reason.clone(),
        ));
        let hooks: [&Arc<dyn ExecutionHook>; 1] = [hook];
        let report = HookExecutor.execute(hooks, &ctx, &self.policy, &CancellationToken::new()).await;
        let Some(run) = report.runs.first() else {
            tracing::warn!(
                hook = hook_id,
                "rewake: hook '{hook_id}' does not match the re-hydrated context; fire dropped"
            );
            return None;
        };
        runtime.deliver(&fire, run);
        self.chain(envelope, &run.result.rewake_specs);
        report.runs.into_iter().next()
    }

    /// Schedules follow-ups (R-RW-5): never for cron envelopes; otherwise attempt + 1 while it
    /// stays within the spec's `maxAttempts`.
    fn chain(&self, fired: &Envelope, specs: &[RewakeSpec]) {
        if specs.is_empty() {
            return;
        }
        let hook_id = fired.hook_id.as_str();
        if fired.is_cron() {
            tracing::debug!(
                hook = hook_id,
                "rewake: cron envelope '{}' repeats by itself; follow-ups not chained",
                fired.id
            );
            return;
        }
        let next = fired.attempt.saturating_add(1);
        for spec in specs {
            if next > spec.max_attempts {
                tracing::warn!(
                    hook = hook_id,
                    "rewake: hook '{hook_id}' asked for attempt {next} but maxAttempts is {}; follow-up dropped",
                    spec.max_attempts
                );
                continue;
            }
            let Some(service) = self.service.get().and_then(Weak::upgrade) else {
                tracing::info!(
                    hook = hook_id,
                    "rewake: no RewakeService is bound to the listener; follow-up of hook '{hook_id}' dropped"
                );
                continue;
            };
            let follow_up = Envelope::new(hook_id, fired.context.clone(), spec.clone(), next);
            if let Err(err) = service.schedule(follow_up) {
                tracing::warn!(hook = hook_id, "rewake: could not schedule a follow-up for hook '{hook_id}': {err}");
            }
        }
    }
}

impl RewakeFireListener for DefaultRewakeFireListener {
    fn on_fire(self: Arc<Self>, fire: Fire) -> FireFuture {
        Box::pin(async move {
            self.fire(fire).await;
        })
    }

    /// The originating hook's declared budget, at least the policy's timeout (the hook is
    /// looked up by id on the envelope's event; a vanished hook gets the policy's timeout).
    fn budget(&self, envelope: &Envelope) -> Duration {
        let snapshot = self.hooks.snapshot();
        let declared =
            snapshot.hooks(envelope.event).find(|h| h.id() == envelope.hook_id).and_then(|h| h.execution_budget());
        declared.unwrap_or(self.policy.timeout).max(self.policy.timeout)
    }
}
