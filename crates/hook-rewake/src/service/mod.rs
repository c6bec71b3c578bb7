//! The `RewakeService` contract and the default service on tokio timers (R-RW-2/3/5/6/7/8/9).
//!
//! One driver task owns one `sleep_until` on the earliest deadline of ONE timer structure
//! (PERF-7); scheduling only takes a lock and, when the new deadline is the earliest, wakes the
//! driver. Deadlines are tokio instants derived from wall-clock instants through a clock
//! anchored at start, so a paused tokio clock drives cron, expiry and leases deterministically.
//! With a store, every fire is leased first and finished after the listener's future completes
//! (R-RW-9, see [`crate::RewakeStore`]).

mod fire;
mod slot;
mod state;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;
use std::future::Future;
use std::hash::{BuildHasher, Hasher, RandomState};
use std::path::Path;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::time::Duration;

use chrono::{DateTime, Utc};
use hook_core::{HookExecutionPolicy, RewakeRequest, RewakeSink, RewakeTrigger};
use tokio::runtime::Handle;
use tokio::sync::Notify;
use tokio::time::Instant;

use self::state::{Clock, State, context_key};
use crate::cron::CronSchedule;
use crate::envelope::{Envelope, Fire};
use crate::error::Error;
use crate::quota::{NoopQuota, RewakeQuotaManager};
use crate::store::RewakeStore;

/// Schedules, cancels and resolves rewake envelopes (R-RW-2/3/7).
pub trait RewakeService: Send + Sync + fmt::Debug {
    /// Stamps `envelope` (scheduled, next-fire and expiry instants) and schedules it. Returns its
    /// id, or `Ok(None)` when the context's quota is full: the envelope is dropped with a WARN
    /// (R-RW-6). Errors: a duplicate id, an attempt outside `1..=max_attempts`, a cron
    /// expression or zone that does not parse or never fires, instants out of range, a store failure.
    fn schedule(&self, envelope: Envelope) -> Result<Option<String>, Error>;
    /// Schedules many envelopes with one store transaction (PERF-7). All are checked first: one
    /// rejected envelope rejects the batch and nothing is scheduled. Quota drops are `None`.
    fn schedule_batch(&self, envelopes: Vec<Envelope>) -> Result<Vec<Option<String>>, Error>;
    /// Cancels one envelope; `true` if it was pending.
    fn cancel(&self, envelope_id: &str) -> bool;
    /// Cancels every envelope of hook `hook_id` in project `project_dir` (hot reload, R-HOT-8).
    /// Hook ids repeat across projects, so the project scopes it (R-RW-4b); `None` matches
    /// envelopes without a project. Returns how many.
    fn cancel_by_hook_id(&self, project_dir: Option<&Path>, hook_id: &str) -> usize;
    /// Fires every pending event envelope whose trigger is `(kind, key)`, with `payload` merged
    /// over the envelope's (caller wins); returns how many fired.
    fn resolve(&self, kind: &str, key: &str, payload: BTreeMap<String, String>) -> usize;
    /// The pending envelopes (in flight included), earliest scheduled first.
    fn pending(&self) -> Vec<Envelope>;
}

/// The future a fire listener returns.
pub type FireFuture = Pin<Box<dyn Future<Output = ()> + Send + 'static>>;

/// Receives fires; the service spawns each returned future and finishes the envelope (deletes
/// or advances it in the store) when it completes (R-RW-4/9).
pub trait RewakeFireListener: Send + Sync + fmt::Debug {
    /// Handles one fire.
    fn on_fire(self: Arc<Self>, fire: Fire) -> FireFuture;

    /// The execution budget of the hook `envelope` re-invokes: its fire lease lasts this plus
    /// 5 s grace plus 30 s (the store's lease span). Default: the executor's default timeout.
    fn budget(&self, envelope: &Envelope) -> Duration {
        let _ = envelope;
        HookExecutionPolicy::DEFAULT_TIMEOUT
    }
}

fn already_pending(id: &str) -> Error {
    Error::Rejected(format!("envelope '{id}' is already pending"))
}

/// A lease owner id unique across processes and machines: pid, start instant, random bits.
fn owner_id(start: DateTime<Utc>) -> String {
    let random = RandomState::new().build_hasher().finish();
    format!("rw-{:x}-{:x}-{random:016x}", std::process::id(), start.timestamp_micros())
}

/// Configures and starts a [`DefaultRewakeService`].
#[derive(Debug)]
pub struct RewakeServiceBuilder {
    listener: Arc<dyn RewakeFireListener>,
    store: Option<Arc<dyn RewakeStore>>,
    quota: Arc<dyn RewakeQuotaManager>,
    clock_start: Option<DateTime<Utc>>,
    wait_for_ready: bool,
    poll: Option<Duration>,
}

impl RewakeServiceBuilder {
    /// Writes envelopes through to `store`, leases every fire in it and reloads it on start
    /// (R-RW-9). Without a store the service keeps envelopes in memory only.
    pub fn store(mut self, store: Arc<dyn RewakeStore>) -> Self {
        self.store = Some(store);
        self
    }

    /// Installs a quota manager (default: unlimited, R-RW-6).
    pub fn quota(mut self, quota: Arc<dyn RewakeQuotaManager>) -> Self {
        self.quota = quota;
        self
    }

    /// Pretends the wall clock reads `wall` at start (tests and replays; default `Utc::now()`).
    pub fn clock_start(mut self, wall: DateTime<Utc>) -> Self {
        self.clock_start = Some(wall);
        self
    }

    /// Holds every fire (including envelopes overdue at start) until
    /// [`DefaultRewakeService::ready`] is called: for hosts that register their runtimes
    /// after the service starts (R-RW-9). Default: fire at once.
    pub fn wait_for_ready(mut self) -> Self {
        self.wait_for_ready = true;
        self
    }

    /// Looks for rows other processes wrote to the store every `every` (R-RW-12: one-shot
    /// processes enqueue, the daemon fires). Independently, a store with a
    /// [`RewakeStore::wake_signal`] (SQLite, PostgreSQL) is read as soon as it raises it, so
    /// `every` is only the fallback. Default: at start, on the wake signal and on
    /// [`DefaultRewakeService::sync`].
    pub fn poll_store(mut self, every: Duration) -> Self {
        self.poll = Some(every);
        self
    }

    /// Starts the service inside the current tokio runtime: loads the store, discards expired
    /// envelopes with a WARN, arms the rest (what became due while down, and fires whose owner
    /// died mid-fire once their lease expired, fire at once or on `ready`) and spawns the
    /// driver. The driver stops when the last handle is dropped.
    pub fn start(self) -> Result<Arc<DefaultRewakeService>, Error> {
        let runtime = Handle::try_current().map_err(|_| Error::NoRuntime)?;
        let wall = self.clock_start.unwrap_or_else(Utc::now);
        let clock = Clock { wall, at: Instant::now() };
        let mut state = State::default();
        state.held = self.wait_for_ready;
        let service = Arc::new_cyclic(|this| DefaultRewakeService {
            this: this.clone(),
            state: Mutex::new(state),
            wake: Arc::new(Notify::new()),
            closed: Arc::new(Notify::new()),
            clock,
            owner: owner_id(Utc::now()),
            store: self.store,
            quota: self.quota,
            listener: self.listener,
            runtime,
        });
        service.reload()?;
        service.runtime.spawn(fire::drive(Arc::downgrade(&service), service.wake.clone()));
        let signal = service.store.as_ref().and_then(|store| store.wake_signal());
        if self.poll.is_some() || signal.is_some() {
            let watch = fire::watch(Arc::downgrade(&service), self.poll, signal, service.closed.clone());
            service.runtime.spawn(watch);
        }
        Ok(service)
    }
}

/// The default service: one timer structure, delay / cron / event triggers, quota, optional
/// durable store with fire leases (R-RW-3/6/8/9, PERF-7).
pub struct DefaultRewakeService {
    this: Weak<DefaultRewakeService>,
    state: Mutex<State>,
    wake: Arc<Notify>,
    /// Notified once when the service is dropped (ends the store watch).
    closed: Arc<Notify>,
    clock: Clock,
    owner: String,
    store: Option<Arc<dyn RewakeStore>>,
    quota: Arc<dyn RewakeQuotaManager>,
    listener: Arc<dyn RewakeFireListener>,
    runtime: Handle,
}

impl fmt::Debug for DefaultRewakeService {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DefaultRewakeService")
            .field("pending", &self.state().len())
            .field("owner", &self.owner)
            .field("store", &self.store)
            .field("quota", &self.quota)
            .field("listener", &self.listener)
            .finish_non_exhaustive()
    }
}

impl Drop for DefaultRewakeService {
    fn drop(&mut self) {
        self.wake.notify_one();
        self.closed.notify_one();
    }
}

impl DefaultRewakeService {
    /// A builder delivering fires to `listener`.
    pub fn builder(listener: Arc<dyn RewakeFireListener>) -> RewakeServiceBuilder {
        RewakeServiceBuilder {
            listener,
            store: None,
            quota: Arc::new(NoopQuota),
            clock_start: None,
            wait_for_ready: false,
            poll: None,
        }
    }

    /// The service's wall clock (advances with tokio's clock).
    pub fn now(&self) -> DateTime<Utc> {
        self.clock.now()
    }

    /// This service's lease owner id (unique per process and start).
    pub fn owner(&self) -> &str {
        &self.owner
    }

    /// The store, if any (mailboxes live there too).
    pub fn store(&self) -> Option<&Arc<dyn RewakeStore>> {
        self.store.as_ref()
    }

    /// Releases fires held by [`RewakeServiceBuilder::wait_for_ready`]: what is due fires now.
    pub fn ready(&self) {
        self.state().held = false;
        self.wake.notify_one();
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn store_remove(&self, id: &str) {
        if let Some(store) = &self.store
            && let Err(err) = store.remove(id)
        {
            tracing::warn!(envelope = id, "rewake: could not remove envelope '{id}' from the store: {err}");
        }
    }

    /// `true` when the context's quota has no room for one more, counting `batch` (the
    /// envelopes already accepted per context in this batch); WARNs.
    fn over_quota(&self, state: &State, envelope: &Envelope, batch: &mut HashMap<String, usize>) -> bool {
        let context = context_key(envelope);
        let Some(cap) = self.quota.cap(context) else { return false };
        let extra = batch.entry(context.to_owned()).or_default();
        if state.pending_in(context) + *extra < cap {
            *extra += 1;
            return false;
        }
        tracing::warn!(
            hook = %envelope.hook_id,
            "rewake: quota of {cap} pending envelopes reached for context '{context}'; envelope of hook '{}' dropped",
            envelope.hook_id
        );
        true
    }

    /// Puts a stamped, admitted envelope in the table and arms its timer; `true` when it is now
    /// the earliest (wake the driver).
    fn arm_new(&self, state: &mut State, envelope: Envelope, cron: Option<CronSchedule>, now: DateTime<Utc>) -> bool {
        let (position, due) = state.insert(envelope, cron);
        state.arm_at(position, self.clock.deadline(due.unwrap_or(now)))
    }

    /// How many envelopes are pending (in flight included); cheap, for metrics.
    pub fn pending_count(&self) -> usize {
        self.state().len()
    }
}

impl RewakeService for DefaultRewakeService {
    fn schedule(&self, mut envelope: Envelope) -> Result<Option<String>, Error> {
        let now = self.now();
        let cron = envelope.stamp(now)?;
        let mut state = self.state();
        if state.contains(envelope.id.as_str()) {
            return Err(already_pending(&envelope.id));
        }
        if self.over_quota(&state, &envelope, &mut HashMap::new()) {
            return Ok(None);
        }
        if let Some(store) = &self.store {
            store.insert(&envelope)?;
        }
        let id = envelope.id.clone();
        let wake = self.arm_new(&mut state, envelope, cron, now);
        drop(state);
        if wake {
            self.wake.notify_one();
        }
        Ok(Some(id))
    }

    fn schedule_batch(&self, mut envelopes: Vec<Envelope>) -> Result<Vec<Option<String>>, Error> {
        let now = self.now();
        let crons = envelopes.iter_mut().map(|e| e.stamp(now)).collect::<Result<Vec<_>, _>>()?;
        let mut state = self.state();
        let mut accepted = Vec::with_capacity(envelopes.len());
        let mut accepted_crons = Vec::with_capacity(envelopes.len());
        let mut ids = Vec::with_capacity(envelopes.len());
        let mut batch_ids = HashSet::new();
        let mut per_context = HashMap::new();
        for (envelope, cron) in envelopes.into_iter().zip(crons) {
            if state.contains(envelope.id.as_str()) || !batch_ids.insert(envelope.id.clone()) {
                return Err(already_pending(&envelope.id));
            }
            if self.over_quota(&state, &envelope, &mut per_context) {
                ids.push(None);
                continue;
            }
            ids.push(Some(envelope.id.clone()));
            accepted.push(envelope);
            accepted_crons.push(cron);
        }
        if let Some(store) = &self.store {
            store.insert_batch(&accepted)?;
        }
        let mut wake = false;
        for (envelope, cron) in accepted.into_iter().zip(accepted_crons) {
            wake |= self.arm_new(&mut state, envelope, cron, now);
        }
        drop(state);
        if wake {
            self.wake.notify_one();
        }
        Ok(ids)
    }

    fn cancel(&self, envelope_id: &str) -> bool {
        let taken = self.state().take(envelope_id).is_some();
        self.store_remove(envelope_id);
        taken
    }

    fn cancel_by_hook_id(&self, project_dir: Option<&Path>, hook_id: &str) -> usize {
        let mut state = self.state();
        let mut ids: Vec<String> = state
            .iter()
            .filter(|s| s.hook_id() == hook_id && s.project_dir() == project_dir)
            .map(|s| s.id.to_string())
            .collect();
        for id in &ids {
            state.take(id);
        }
        if let Some(store) = &self.store {
            match store.remove_hook(project_dir, hook_id) {
                Ok(stored) => ids.extend(stored),
                Err(err) => {
                    tracing::warn!(
                        hook = hook_id,
                        "rewake: could not cancel envelopes of hook '{hook_id}' in the store: {err}"
                    )
                }
            }
        }
        ids.sort();
        ids.dedup();
        ids.len()
    }

    fn resolve(&self, kind: &str, key: &str, payload: BTreeMap<String, String>) -> usize {
        let now = self.now();
        let mut state = self.state();
        let ids: Vec<String> = state
            .iter()
            .filter(|s| !s.in_flight && s.next_fire_at().is_none())
            .filter(|s| matches!(s.trigger(), RewakeTrigger::Event { kind: k, key: y } if k == kind && y == key))
            .map(|s| s.id.to_string())
            .collect();
        let mut fires = Vec::new();
        for id in ids {
            let Some(slot) = state.get(id.as_str()) else { continue };
            if slot.expires_at().is_none_or(|t| t < now) {
                if let Some(slot) = state.take(&id) {
                    slot.warn_expired();
                    self.store_remove(&id);
                }
                continue;
            }
            let waiting = slot.envelope();
            let mut resolved = waiting.clone();
            resolved.payload.extend(payload.iter().map(|(k, v)| (k.clone(), v.clone())));
            resolved.next_fire_at = Some(now);
            if self.lease(&mut state, &resolved, now, true) {
                fires.push(Fire { payload: resolved.payload, envelope: waiting, fired_at: now });
            }
        }
        drop(state);
        let fired = fires.len();
        self.deliver(fires);
        fired
    }

    fn pending(&self) -> Vec<Envelope> {
        let state = self.state();
        let mut slots: Vec<_> = state.iter().collect();
        slots.sort_by(|a, b| (a.scheduled_at(), &a.id).cmp(&(b.scheduled_at(), &b.id)));
        slots.into_iter().map(|s| s.envelope()).collect()
    }
}

impl RewakeSink for DefaultRewakeService {
    /// Schedules the first envelope (attempt 1) of a hook's rewake spec; never blocks the turn.
    fn schedule(&self, request: RewakeRequest) {
        let hook_id = request.hook_id.clone();
        let envelope = Envelope::new(request.hook_id, request.context, request.spec, 1);
        if let Err(err) = RewakeService::schedule(self, envelope) {
            tracing::warn!(hook = %hook_id, "rewake: could not schedule an envelope for hook '{hook_id}': {err}");
        }
    }
}
