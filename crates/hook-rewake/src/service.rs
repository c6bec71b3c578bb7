//! The `RewakeService` contract and the default service on tokio timers (R-RW-2/3/5/6/7/8/9).
//!
//! One driver task owns one `sleep_until` on the earliest deadline of a timer queue; scheduling
//! only takes a lock and, when the new deadline is the earliest, wakes the driver. Deadlines are
//! tokio instants derived from wall-clock instants through a [`Clock`] anchored at start, so a
//! paused tokio clock drives cron and expiry deterministically.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::time::Duration;

use chrono::{DateTime, TimeDelta, Utc};
use hook_core::{RewakeRequest, RewakeSink, RewakeTrigger};
use tokio::runtime::Handle;
use tokio::sync::Notify;
use tokio::time::Instant;

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
    /// Cancels one envelope; `true` if it was pending.
    fn cancel(&self, envelope_id: &str) -> bool;
    /// Cancels every envelope of a hook (hot reload, R-HOT-8); returns how many.
    fn cancel_by_hook_id(&self, hook_id: &str) -> usize;
    /// Fires every pending event envelope whose trigger is `(kind, key)`, with `payload` merged
    /// over the envelope's (caller wins); returns how many fired.
    fn resolve(&self, kind: &str, key: &str, payload: BTreeMap<String, String>) -> usize;
    /// The pending envelopes, earliest scheduled first.
    fn pending(&self) -> Vec<Envelope>;
}

/// The future a fire listener returns.
pub type FireFuture = Pin<Box<dyn Future<Output = ()> + Send + 'static>>;

/// Receives fires; the service spawns each returned future (R-RW-4).
pub trait RewakeFireListener: Send + Sync + fmt::Debug {
    /// Handles one fire.
    fn on_fire(self: Arc<Self>, fire: Fire) -> FireFuture;
}

/// Wall time that advances with tokio's clock: `wall` at `at`. Under a paused tokio clock,
/// wall time advances only when tokio time does.
#[derive(Clone, Copy, Debug)]
struct Clock {
    wall: DateTime<Utc>,
    at: Instant,
}

/// Deadlines further out are re-armed when reached (tokio's wheel spans about two years).
const FARTHEST_TIMER: Duration = Duration::from_secs(365 * 24 * 3600);

impl Clock {
    fn now(&self) -> DateTime<Utc> {
        TimeDelta::from_std(self.at.elapsed())
            .ok()
            .and_then(|d| self.wall.checked_add_signed(d))
            .unwrap_or(DateTime::<Utc>::MAX_UTC)
    }

    fn deadline(&self, wall: DateTime<Utc>) -> Instant {
        let offset = (wall - self.wall).to_std().unwrap_or(Duration::ZERO);
        let now_offset = self.at.elapsed();
        self.at + offset.min(now_offset + FARTHEST_TIMER)
    }
}

fn add(t: DateTime<Utc>, d: Duration) -> Result<DateTime<Utc>, Error> {
    TimeDelta::from_std(d)
        .ok()
        .and_then(|d| t.checked_add_signed(d))
        .ok_or_else(|| Error::Rejected(format!("duration {d:?} is out of range")))
}

type TimerKey = (Instant, u64);

/// Boxed parts keep the map's entries small: resizing the table moves pointers, not envelopes.
struct Slot {
    envelope: Box<Envelope>,
    cron: Option<Box<CronSchedule>>,
    timer: Option<TimerKey>,
}

#[derive(Default)]
struct State {
    slots: HashMap<String, Slot>,
    timers: BTreeMap<TimerKey, String>,
    per_context: HashMap<String, usize>,
    sequence: u64,
}

impl State {
    fn arm(&mut self, id: &str, deadline: Instant) -> bool {
        self.sequence += 1;
        let key = (deadline, self.sequence);
        let earliest = self.timers.first_key_value().is_none_or(|(first, _)| key < *first);
        self.timers.insert(key, id.to_owned());
        if let Some(slot) = self.slots.get_mut(id) {
            slot.timer = Some(key);
        }
        earliest
    }

    fn insert(&mut self, slot: Slot) {
        let key = context_key(&slot.envelope);
        match self.per_context.get_mut(key) {
            Some(n) => *n += 1,
            None => {
                self.per_context.insert(key.to_owned(), 1);
            }
        }
        self.slots.insert(slot.envelope.id.clone(), slot);
    }

    fn take(&mut self, id: &str) -> Option<Slot> {
        let slot = self.slots.remove(id)?;
        if let Some(key) = slot.timer {
            self.timers.remove(&key);
        }
        let key = context_key(&slot.envelope);
        if let Some(n) = self.per_context.get_mut(key) {
            *n -= 1;
            if *n == 0 {
                self.per_context.remove(key);
            }
        }
        Some(slot)
    }
}

fn context_key(envelope: &Envelope) -> &str {
    envelope.context_id.as_deref().unwrap_or("")
}

/// The instant the envelope's timer is for: expiry for event triggers, the next fire otherwise.
fn timer_instant(envelope: &Envelope) -> Option<DateTime<Utc>> {
    match envelope.trigger {
        RewakeTrigger::Event { .. } => envelope.expires_at,
        _ => envelope.next_fire_at,
    }
}

fn warn_expired(envelope: &Envelope) {
    tracing::warn!(
        envelope = %envelope.id,
        hook = %envelope.hook_id,
        "rewake: envelope '{}' of hook '{}' expired at {}; fire discarded",
        envelope.id,
        envelope.hook_id,
        envelope.expires_at.map(|t| t.to_rfc3339()).unwrap_or_default()
    );
}

/// Configures and starts a [`DefaultRewakeService`].
#[derive(Debug)]
pub struct RewakeServiceBuilder {
    listener: Arc<dyn RewakeFireListener>,
    store: Option<Arc<dyn RewakeStore>>,
    quota: Arc<dyn RewakeQuotaManager>,
    clock_start: Option<DateTime<Utc>>,
}

impl RewakeServiceBuilder {
    /// Writes envelopes through to `store` and reloads it on start (R-RW-9). Without a store
    /// the service keeps envelopes in memory only.
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

    /// Starts the service inside the current tokio runtime: loads the store, discards expired
    /// envelopes with a WARN, arms the rest (what became due while down fires at once) and
    /// spawns the driver. The driver stops when the last handle is dropped.
    pub fn start(self) -> Result<Arc<DefaultRewakeService>, Error> {
        let runtime = Handle::try_current().map_err(|_| Error::NoRuntime)?;
        let clock = Clock { wall: self.clock_start.unwrap_or_else(Utc::now), at: Instant::now() };
        let service = Arc::new(DefaultRewakeService {
            state: Mutex::new(State::default()),
            wake: Arc::new(Notify::new()),
            clock,
            store: self.store,
            quota: self.quota,
            listener: self.listener,
            runtime,
        });
        service.reload()?;
        let driver = Arc::downgrade(&service);
        let wake = service.wake.clone();
        service.runtime.spawn(drive(driver, wake));
        Ok(service)
    }
}

/// The default service: tokio timers, delay / cron / event triggers, quota, optional durable
/// store (R-RW-3/6/8/9).
pub struct DefaultRewakeService {
    state: Mutex<State>,
    wake: Arc<Notify>,
    clock: Clock,
    store: Option<Arc<dyn RewakeStore>>,
    quota: Arc<dyn RewakeQuotaManager>,
    listener: Arc<dyn RewakeFireListener>,
    runtime: Handle,
}

impl fmt::Debug for DefaultRewakeService {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DefaultRewakeService")
            .field("pending", &self.state().slots.len())
            .field("store", &self.store)
            .field("quota", &self.quota)
            .field("listener", &self.listener)
            .finish_non_exhaustive()
    }
}

impl Drop for DefaultRewakeService {
    fn drop(&mut self) {
        self.wake.notify_one();
    }
}

async fn drive(service: Weak<DefaultRewakeService>, wake: Arc<Notify>) {
    loop {
        let next = match service.upgrade() {
            Some(service) => service.fire_due(),
            None => return,
        };
        match next {
            Some(deadline) => {
                tokio::select! {
                    () = tokio::time::sleep_until(deadline) => {}
                    () = wake.notified() => {}
                }
            }
            None => wake.notified().await,
        }
    }
}

impl DefaultRewakeService {
    /// A builder delivering fires to `listener`.
    pub fn builder(listener: Arc<dyn RewakeFireListener>) -> RewakeServiceBuilder {
        RewakeServiceBuilder { listener, store: None, quota: Arc::new(NoopQuota), clock_start: None }
    }

    /// The service's wall clock (advances with tokio's clock).
    pub fn now(&self) -> DateTime<Utc> {
        self.clock.now()
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

    /// Loads the store: expired envelopes are discarded with a WARN, the rest armed.
    fn reload(&self) -> Result<(), Error> {
        let Some(store) = &self.store else { return Ok(()) };
        let now = self.now();
        let mut state = self.state();
        for envelope in store.load()?.envelopes.into_iter().map(|row| row.envelope) {
            if envelope.expires_at.is_none_or(|t| t < now) {
                warn_expired(&envelope);
                self.store_remove(&envelope.id);
                continue;
            }
            let cron = match &envelope.trigger {
                RewakeTrigger::Cron { expr, zone } => match CronSchedule::parse(expr, zone) {
                    Ok(cron) => Some(cron),
                    Err(err) => {
                        tracing::warn!(envelope = %envelope.id, "rewake: dropping stored envelope '{}': {err}", envelope.id);
                        self.store_remove(&envelope.id);
                        continue;
                    }
                },
                _ => None,
            };
            let deadline = self.clock.deadline(timer_instant(&envelope).unwrap_or(now));
            let id = envelope.id.clone();
            state.insert(Slot { envelope: Box::new(envelope), cron: cron.map(Box::new), timer: None });
            state.arm(&id, deadline);
        }
        Ok(())
    }

    /// Fires what is due; returns the next deadline.
    fn fire_due(&self) -> Option<Instant> {
        let mut fires = Vec::new();
        let mut state = self.state();
        let now_instant = Instant::now();
        let now = self.now();
        while let Some(entry) = state.timers.first_entry() {
            if entry.key().0 > now_instant {
                break;
            }
            let id = entry.remove();
            let Some(slot) = state.slots.get_mut(&id) else { continue };
            slot.timer = None;
            let due = timer_instant(&slot.envelope).unwrap_or(now);
            if due > now {
                let deadline = self.clock.deadline(due);
                state.arm(&id, deadline);
                continue;
            }
            let Some(slot) = state.take(&id) else { continue };
            let envelope = slot.envelope;
            if matches!(envelope.trigger, RewakeTrigger::Event { .. }) || envelope.expires_at.is_none_or(|t| t < now) {
                warn_expired(&envelope);
                self.store_remove(&id);
                continue;
            }
            let next = slot.cron.as_ref().and_then(|cron| {
                let next_at = cron.next_after(due.max(now))?;
                let attempt = envelope.attempt.checked_add(1)?;
                if attempt > envelope.max_attempts || envelope.expires_at.is_none_or(|t| next_at > t) {
                    return None;
                }
                let mut next = envelope.clone();
                next.attempt = attempt;
                next.next_fire_at = Some(next_at);
                Some(next)
            });
            if !self.claim(&envelope, next.as_deref()) {
                continue;
            }
            if let Some(next) = next {
                let deadline = self.clock.deadline(next.next_fire_at.unwrap_or(now));
                let next_id = next.id.clone();
                state.insert(Slot { envelope: next, cron: slot.cron, timer: None });
                state.arm(&next_id, deadline);
            }
            fires.push(Fire { payload: envelope.payload.clone(), envelope: *envelope, fired_at: now });
        }
        let next = state.timers.first_key_value().map(|(key, _)| key.0);
        drop(state);
        self.deliver(fires);
        next
    }

    /// Claims fire `envelope.attempt` in the store; `false` means do not fire.
    fn claim(&self, envelope: &Envelope, next: Option<&Envelope>) -> bool {
        let Some(store) = &self.store else { return true };
        let lease = crate::store::Lease::new(format!("rw-{}", std::process::id()), self.now() + TimeDelta::minutes(1));
        let claimed =
            store.lease(&envelope.id, envelope.attempt, &lease, self.now(), None).and_then(|outcome| match outcome {
                crate::store::LeaseOutcome::Taken => store.finish(&envelope.id, envelope.attempt, &lease.owner, next),
                _ => Ok(false),
            });
        match claimed {
            Ok(true) => true,
            Ok(false) => {
                tracing::debug!(envelope = %envelope.id, "rewake: envelope already fired or cancelled elsewhere");
                false
            }
            Err(err) => {
                tracing::warn!(
                    envelope = %envelope.id,
                    "rewake: could not claim envelope '{}' in the store, not firing it now: {err}",
                    envelope.id
                );
                false
            }
        }
    }

    fn deliver(&self, fires: Vec<Fire>) {
        for fire in fires {
            self.runtime.spawn(self.listener.clone().on_fire(fire));
        }
    }

    fn stamp(&self, envelope: &mut Envelope) -> Result<Option<CronSchedule>, Error> {
        if envelope.attempt == 0 || envelope.attempt > envelope.max_attempts {
            return Err(Error::Rejected(format!(
                "attempt {} is outside 1..={}",
                envelope.attempt, envelope.max_attempts
            )));
        }
        let now = self.now();
        envelope.scheduled_at = Some(now);
        envelope.expires_at = Some(add(now, envelope.timeout)?);
        let (next, cron) = match &envelope.trigger {
            RewakeTrigger::Delay(delay) => (Some(add(now, *delay)?), None),
            RewakeTrigger::Cron { expr, zone } => {
                let cron = CronSchedule::parse(expr, zone)?;
                let next = cron
                    .next_after(now)
                    .ok_or_else(|| Error::Rejected(format!("cron '{expr}' never fires after {now}")))?;
                (Some(next), Some(cron))
            }
            RewakeTrigger::Event { .. } => (None, None),
        };
        envelope.next_fire_at = next;
        Ok(cron)
    }
}

impl RewakeService for DefaultRewakeService {
    fn schedule(&self, mut envelope: Envelope) -> Result<Option<String>, Error> {
        let cron = self.stamp(&mut envelope)?;
        let mut state = self.state();
        if state.slots.contains_key(&envelope.id) {
            return Err(Error::Rejected(format!("envelope '{}' is already pending", envelope.id)));
        }
        let context = context_key(&envelope);
        if let Some(cap) = self.quota.cap(context)
            && state.per_context.get(context).copied().unwrap_or(0) >= cap
        {
            tracing::warn!(
                hook = %envelope.hook_id,
                "rewake: quota of {cap} pending envelopes reached for context '{context}'; envelope of hook '{}' dropped",
                envelope.hook_id
            );
            return Ok(None);
        }
        if let Some(store) = &self.store {
            store.insert(&envelope)?;
        }
        let id = envelope.id.clone();
        let deadline = self.clock.deadline(timer_instant(&envelope).unwrap_or_else(|| self.now()));
        state.insert(Slot { envelope: Box::new(envelope), cron: cron.map(Box::new), timer: None });
        if state.arm(&id, deadline) {
            self.wake.notify_one();
        }
        Ok(Some(id))
    }

    fn cancel(&self, envelope_id: &str) -> bool {
        let taken = self.state().take(envelope_id).is_some();
        self.store_remove(envelope_id);
        taken
    }

    fn cancel_by_hook_id(&self, hook_id: &str) -> usize {
        let mut state = self.state();
        let ids: Vec<String> =
            state.slots.values().filter(|s| s.envelope.hook_id == hook_id).map(|s| s.envelope.id.clone()).collect();
        for id in &ids {
            state.take(id);
            self.store_remove(id);
        }
        ids.len()
    }

    fn resolve(&self, kind: &str, key: &str, payload: BTreeMap<String, String>) -> usize {
        let now = self.now();
        let mut state = self.state();
        let ids: Vec<String> = state
            .slots
            .values()
            .filter(
                |s| matches!(&s.envelope.trigger, RewakeTrigger::Event { kind: k, key: y } if k == kind && y == key),
            )
            .map(|s| s.envelope.id.clone())
            .collect();
        let mut fires = Vec::new();
        for id in ids {
            let Some(slot) = state.take(&id) else { continue };
            let envelope = slot.envelope;
            if envelope.expires_at.is_none_or(|t| t < now) {
                warn_expired(&envelope);
                self.store_remove(&id);
                continue;
            }
            if !self.claim(&envelope, None) {
                continue;
            }
            let mut merged = envelope.payload.clone();
            merged.extend(payload.iter().map(|(k, v)| (k.clone(), v.clone())));
            fires.push(Fire { envelope: *envelope, payload: merged, fired_at: now });
        }
        drop(state);
        let fired = fires.len();
        self.deliver(fires);
        fired
    }

    fn pending(&self) -> Vec<Envelope> {
        let mut pending: Vec<Envelope> = self.state().slots.values().map(|s| (*s.envelope).clone()).collect();
        pending.sort_by(|a, b| (a.scheduled_at, &a.id).cmp(&(b.scheduled_at, &b.id)));
        pending
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
