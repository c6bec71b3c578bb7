//! Firing under leases (R-RW-9): the driver, lease → listener → finish, loading and syncing
//! rows from the store (takeover of expired leases, overdue envelopes).

use std::sync::{Arc, Weak};
use std::time::Duration;

use chrono::{DateTime, TimeDelta, Utc};
use hook_core::RewakeTrigger;
use tokio::sync::Notify;
use tokio::time::Instant;

use super::DefaultRewakeService;
use super::slot::warn_expired;
use super::state::State;
use crate::cron::CronSchedule;
use crate::envelope::{Envelope, Fire};
use crate::error::Error;
use crate::store::{Lease, LeaseOutcome, StoredEnvelope, lease_span};

/// After a store error the envelope is tried again this much later.
const RETRY: Duration = Duration::from_secs(5);

pub(super) async fn drive(service: Weak<DefaultRewakeService>, wake: Arc<Notify>) {
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

/// Reads what other processes wrote to the store: every `every`, and whenever the store's wake
/// signal is raised (R-RW-12). Ends once `closed` is notified (the service was dropped).
pub(super) async fn watch(
    service: Weak<DefaultRewakeService>,
    every: Option<Duration>,
    signal: Option<Arc<Notify>>,
    closed: Arc<Notify>,
) {
    loop {
        let tick = async {
            match every {
                Some(every) => tokio::time::sleep(every).await,
                None => std::future::pending().await,
            }
        };
        let woken = async {
            match &signal {
                Some(signal) => signal.notified().await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            () = closed.notified() => return,
            () = tick => {}
            () = woken => {}
        }
        let Some(service) = service.upgrade() else { return };
        if let Err(err) = service.sync() {
            tracing::warn!("rewake: could not read new envelopes from the store: {err}");
        }
    }
}

fn later(t: DateTime<Utc>, d: Duration) -> DateTime<Utc> {
    TimeDelta::from_std(d).ok().and_then(|d| t.checked_add_signed(d)).unwrap_or(DateTime::<Utc>::MAX_UTC)
}

impl DefaultRewakeService {
    /// Fires what is due; returns the next deadline (`None`: nothing armed, or fires held).
    pub(super) fn fire_due(&self) -> Option<Instant> {
        let mut fires = Vec::new();
        let mut state = self.state();
        if state.held {
            return None;
        }
        let now_instant = Instant::now();
        let now = self.now();
        while let Some(popped) = state.pop_due(now_instant) {
            let Some(id) = popped else { continue };
            let Some(slot) = state.get(&id) else { continue };
            if slot.in_flight {
                continue;
            }
            let due = slot.timer_instant().unwrap_or(now);
            if due > now {
                let deadline = self.clock.deadline(due);
                state.arm(&id, deadline);
                continue;
            }
            if slot.awaits_resolve() || slot.expires_at().is_none_or(|t| t < now) {
                if let Some(slot) = state.take(&id) {
                    slot.warn_expired();
                    self.store_remove(&id);
                }
                continue;
            }
            let envelope = slot.envelope();
            if self.lease(&mut state, &envelope, now, false) {
                fires.push(Fire::new(envelope, now));
            }
        }
        let next = state.next_deadline();
        drop(state);
        self.deliver(fires);
        next
    }

    /// Takes the lease on `envelope`'s current attempt and marks its slot in flight; `false`
    /// means do not fire (the slot is re-armed, replaced or dropped as the store says). With
    /// `write_body` the slot and the store row become `envelope` in the same step (a resolved
    /// event); without it `envelope` is what the slot holds.
    pub(super) fn lease(&self, state: &mut State, envelope: &Envelope, now: DateTime<Utc>, write_body: bool) -> bool {
        let id = envelope.id.as_str();
        let outcome = match &self.store {
            None => Ok(LeaseOutcome::Taken),
            Some(store) => {
                let lease = Lease::new(self.owner.as_str(), later(now, lease_span(self.listener.budget(envelope))));
                store.lease(id, envelope.attempt, &lease, now, write_body.then_some(envelope))
            }
        };
        match outcome {
            Ok(LeaseOutcome::Taken) => {
                if write_body {
                    state.set(envelope.clone());
                }
                if let Some(slot) = state.get_mut(id) {
                    slot.in_flight = true;
                }
                true
            }
            Ok(LeaseOutcome::Held(until)) => {
                tracing::debug!(envelope = id, "rewake: envelope is being fired elsewhere; checking again at {until}");
                state.arm(id, self.clock.deadline(until));
                false
            }
            Ok(LeaseOutcome::Moved(row)) => {
                tracing::debug!(envelope = id, "rewake: envelope was fired elsewhere and moved on");
                state.take(id);
                self.adopt(state, *row, now);
                false
            }
            Ok(LeaseOutcome::Gone) => {
                tracing::debug!(envelope = id, "rewake: envelope already fired or cancelled elsewhere");
                state.take(id);
                false
            }
            Err(err) => {
                tracing::warn!(envelope = id, "rewake: could not lease envelope '{id}' in the store, retrying: {err}");
                state.arm(id, self.clock.deadline(later(now, RETRY)));
                false
            }
        }
    }

    /// Hands fires to the listener; each fire's task finishes its envelope when the listener's
    /// future completes. A service dropped meanwhile leaves the lease to expire (re-fire).
    pub(super) fn deliver(&self, fires: Vec<Fire>) {
        for fire in fires {
            let service = self.this.clone();
            let listener = self.listener.clone();
            self.runtime.spawn(async move {
                let (id, attempt) = (fire.envelope.id.clone(), fire.envelope.attempt);
                listener.on_fire(fire).await;
                if let Some(service) = service.upgrade() {
                    service.finish(&id, attempt);
                }
            });
        }
    }

    /// Ends fire `attempt` of `id`: a cron envelope advances to its next fire, anything else
    /// leaves the table and the store.
    pub(super) fn finish(&self, id: &str, attempt: u32) {
        let now = self.now();
        let mut state = self.state();
        let Some(slot) = state.get(id) else { return };
        if !slot.in_flight || slot.attempt() != attempt {
            return;
        }
        let next = slot.cron.as_deref().and_then(|cron| next_cron(&slot.envelope(), cron, now));
        let finished = match &self.store {
            None => Ok(true),
            Some(store) => store.finish(id, attempt, &self.owner, next.as_ref()),
        };
        match (finished, next) {
            (Ok(true), Some(next)) => {
                let deadline = self.clock.deadline(next.next_fire_at.unwrap_or(now));
                state.set(next);
                if let Some(slot) = state.get_mut(id) {
                    slot.in_flight = false;
                }
                if state.arm(id, deadline) {
                    self.wake.notify_one();
                }
            }
            (Ok(true), None) => {
                state.take(id);
            }
            (Ok(false), _) => {
                tracing::debug!(
                    envelope = id,
                    "rewake: lease of envelope '{id}' was taken over; the new owner finishes"
                );
                state.take(id);
            }
            (Err(err), _) => {
                tracing::warn!(
                    envelope = id,
                    "rewake: could not finish envelope '{id}' in the store; it fires again when its lease expires: {err}"
                );
                if let Some(slot) = state.get_mut(id) {
                    slot.in_flight = false;
                }
                let until = later(now, lease_span(Duration::ZERO));
                if state.arm(id, self.clock.deadline(until)) {
                    self.wake.notify_one();
                }
            }
        }
    }

    /// Takes a stored row into the table: expired rows are discarded with a WARN, a row under
    /// a live lease of another owner is armed at the lease's expiry (takeover), the rest at
    /// their own instant (overdue ones fire at once). Returns whether it was armed earliest.
    pub(super) fn adopt(&self, state: &mut State, row: StoredEnvelope, now: DateTime<Utc>) -> bool {
        let StoredEnvelope { envelope, lease, .. } = row;
        if let Some(existing) = state.get(envelope.id.as_str())
            && (existing.in_flight || existing.attempt() >= envelope.attempt)
        {
            return false;
        }
        if envelope.expires_at.is_none_or(|t| t < now) {
            warn_expired(&envelope.id, &envelope.hook_id, envelope.expires_at);
            self.store_remove(&envelope.id);
            return false;
        }
        let cron = match &envelope.trigger {
            RewakeTrigger::Cron { expr, zone } => match CronSchedule::parse(expr, zone) {
                Ok(cron) => Some(cron),
                Err(err) => {
                    tracing::warn!(envelope = %envelope.id, "rewake: dropping stored envelope '{}': {err}", envelope.id);
                    self.store_remove(&envelope.id);
                    return false;
                }
            },
            _ => None,
        };
        state.take(&envelope.id);
        let (position, due) = state.insert(envelope, cron);
        let mut at = due.unwrap_or(now);
        if let Some(lease) = lease.filter(|l| l.until > now && l.owner != self.owner) {
            at = at.max(lease.until);
        }
        state.arm_at(position, self.clock.deadline(at))
    }

    /// Loads the whole store (start).
    pub(super) fn reload(&self) -> Result<(), Error> {
        let Some(store) = &self.store else { return Ok(()) };
        let snapshot = store.load()?;
        let now = self.now();
        let mut state = self.state();
        state.cursor = snapshot.cursor;
        for row in snapshot.envelopes {
            self.adopt(&mut state, row, now);
        }
        Ok(())
    }

    /// Reads rows written to the store since the last look (envelopes enqueued by one-shot
    /// processes, cron envelopes advanced elsewhere) and arms them; returns how many were new
    /// or newer than the table's. Without a store, `Ok(0)`.
    pub fn sync(&self) -> Result<usize, Error> {
        let Some(store) = &self.store else { return Ok(0) };
        let cursor = self.state().cursor;
        let snapshot = store.changes_since(cursor)?;
        let now = self.now();
        let mut state = self.state();
        state.cursor = state.cursor.max(snapshot.cursor);
        let mut adopted = 0;
        let mut wake = false;
        for row in snapshot.envelopes {
            let known = state.get(row.envelope.id.as_str()).map(|s| s.attempt());
            if known.is_some_and(|attempt| attempt >= row.envelope.attempt) {
                continue;
            }
            wake |= self.adopt(&mut state, row, now);
            adopted += 1;
        }
        drop(state);
        if wake {
            self.wake.notify_one();
        }
        Ok(adopted)
    }
}

/// The cron envelope's next fire after `fired` finished at `now`, if within its attempts and
/// expiry.
fn next_cron(fired: &Envelope, cron: &CronSchedule, now: DateTime<Utc>) -> Option<Envelope> {
    let due = fired.next_fire_at.unwrap_or(now);
    let next_at = cron.next_after(due.max(now))?;
    let attempt = fired.attempt.checked_add(1)?;
    if attempt > fired.max_attempts || fired.expires_at.is_none_or(|t| next_at > t) {
        return None;
    }
    let mut next = fired.clone();
    next.attempt = attempt;
    next.next_fire_at = Some(next_at);
    Some(next)
}
