//! The daemon's fire host (R-RW-9/11, R-SRV-4): the service on the shared store, one listener
//! over every project's registry, session mailboxes for fires whose process is gone, and a
//! broadcast of fires.

use std::fmt;
use std::path::Path;
use std::sync::{Arc, OnceLock, Weak};
use std::time::Duration;

use hook_core::{HookExecutionPolicy, HookRegistry, HookRun};
use hook_rewake::{
    DefaultRewakeFireListener, DefaultRewakeService, Envelope, Fire, FireFuture, MailboxRuntime, RewakeFireListener,
    RewakeStore, RuntimeRegistry,
};
use tokio::sync::broadcast;

use crate::error::Error;

/// The hooks of a project (the envelope's project directory; `None` for envelopes without one),
/// or `None` when the project is unknown or no longer loads: the fire is dropped with a WARN.
pub type ProjectRegistries = Arc<dyn Fn(Option<&Path>) -> Option<Arc<HookRegistry>> + Send + Sync>;

/// How many fires a slow stream subscriber may lag behind before it misses some.
const FIRE_BACKLOG: usize = 1024;

/// One fire as its subscribers see it: the fire and what its hook did.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct FireEvent {
    /// The envelope that fired, its payload and the instant.
    pub fire: Fire,
    /// The re-invoked hook's run; `None` when the fire was dropped (its project has no hooks
    /// loaded, the hook is gone, or its event cannot be re-dispatched — each with a WARN).
    pub run: Option<HookRun>,
}

impl FireEvent {
    /// The event of `fire`, whose hook run is `run`.
    pub fn new(fire: Fire, run: Option<HookRun>) -> Self {
        FireEvent { fire, run }
    }
}

/// A running rewake service for a host that serves many projects and sessions.
///
/// Built by [`FireHost::start`] inside a tokio runtime. Fires are held until [`FireHost::ready`]
/// (call it once `registries` can answer), so envelopes overdue at start fire then (R-RW-9).
/// The store is polled for envelopes one-shot processes enqueued (R-RW-12). A fire re-invokes
/// its hook from the project's registry; its answer goes to the session's mailbox unless a live
/// runtime registered the envelope's context in [`FireHost::runtimes`].
#[derive(Debug)]
pub struct FireHost {
    service: Arc<DefaultRewakeService>,
    runtimes: Arc<RuntimeRegistry>,
    fires: broadcast::Sender<FireEvent>,
}

impl FireHost {
    /// Starts the service on `store`, polling it every `poll`, firing hooks from `registries`.
    pub fn start(store: Arc<dyn RewakeStore>, registries: ProjectRegistries, poll: Duration) -> Result<Self, Error> {
        let runtimes = Arc::new(RuntimeRegistry::new());
        runtimes.set_fallback(Arc::new(MailboxRuntime::new(store.clone())));
        let (fires, _) = broadcast::channel(FIRE_BACKLOG);
        let listener = Arc::new(ProjectListener {
            registries,
            runtimes: runtimes.clone(),
            service: OnceLock::new(),
            fires: fires.clone(),
        });
        let service =
            DefaultRewakeService::builder(listener.clone()).store(store).wait_for_ready().poll_store(poll).start()?;
        let _ = listener.service.set(Arc::downgrade(&service));
        Ok(FireHost { service, runtimes, fires })
    }

    /// Releases the fires held since start: what is due fires now.
    pub fn ready(&self) {
        self.service.ready();
    }

    /// The service: schedule, cancel (also by hook id within a project), resolve, pending.
    pub fn service(&self) -> &Arc<DefaultRewakeService> {
        &self.service
    }

    /// Live runtimes by context id (an embedder's agents); the mailbox takes the rest.
    pub fn runtimes(&self) -> &Arc<RuntimeRegistry> {
        &self.runtimes
    }

    /// Every fire from now on, sent once its hook has run (for `GET /v1/stream`). Sending never
    /// waits for a subscriber: one that falls more than 1,024 fires behind misses the oldest and
    /// is told how many ([`broadcast::error::RecvError::Lagged`]).
    pub fn subscribe(&self) -> broadcast::Receiver<FireEvent> {
        self.fires.subscribe()
    }
}

/// Fires each envelope through a [`DefaultRewakeFireListener`] over its project's registry.
struct ProjectListener {
    registries: ProjectRegistries,
    runtimes: Arc<RuntimeRegistry>,
    service: OnceLock<Weak<DefaultRewakeService>>,
    fires: broadcast::Sender<FireEvent>,
}

impl fmt::Debug for ProjectListener {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ProjectListener").field("subscribers", &self.fires.receiver_count()).finish_non_exhaustive()
    }
}

impl ProjectListener {
    fn listener_for(&self, envelope: &Envelope) -> Option<Arc<DefaultRewakeFireListener>> {
        let hooks = (self.registries)(envelope.project_dir())?;
        let listener = Arc::new(DefaultRewakeFireListener::new(hooks, self.runtimes.clone()));
        if let Some(service) = self.service.get().and_then(Weak::upgrade) {
            listener.bind_service(&service);
        }
        Some(listener)
    }
}

impl RewakeFireListener for ProjectListener {
    fn on_fire(self: Arc<Self>, fire: Fire) -> FireFuture {
        Box::pin(async move {
            let envelope = &fire.envelope;
            let run = match self.listener_for(envelope) {
                Some(listener) => listener.fire(fire.clone()).await,
                None => {
                    tracing::warn!(
                        hook = %envelope.hook_id,
                        "rewake: project '{}' has no hooks loaded; fire of hook '{}' dropped",
                        envelope.project_dir().map(|p| p.display().to_string()).unwrap_or_default(),
                        envelope.hook_id
                    );
                    None
                }
            };
            let _ = self.fires.send(FireEvent { fire, run });
        })
    }

    fn budget(&self, envelope: &Envelope) -> Duration {
        self.listener_for(envelope).map_or(HookExecutionPolicy::DEFAULT_TIMEOUT, |l| l.budget(envelope))
    }
}
