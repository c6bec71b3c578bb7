//! The service's in-memory table: one slot per pending envelope and ONE timer structure (a
//! deadline-ordered `BTreeMap`) that a single driver task sleeps on (PERF-7): no task, no
//! tokio timer per envelope.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, TimeDelta, Utc};
use hook_core::RewakeTrigger;
use tokio::time::Instant;

use crate::cron::CronSchedule;
use crate::envelope::Envelope;

/// Wall time that advances with tokio's clock: `wall` at `at`. Under a paused tokio clock,
/// wall time advances only when tokio time does.
#[derive(Clone, Copy, Debug)]
pub(super) struct Clock {
    pub(super) wall: DateTime<Utc>,
    pub(super) at: Instant,
}

/// Deadlines further out are re-armed when reached (tokio's wheel spans about two years).
const FARTHEST_TIMER: Duration = Duration::from_secs(365 * 24 * 3600);

impl Clock {
    pub(super) fn now(&self) -> DateTime<Utc> {
        TimeDelta::from_std(self.at.elapsed())
            .ok()
            .and_then(|d| self.wall.checked_add_signed(d))
            .unwrap_or(DateTime::<Utc>::MAX_UTC)
    }

    pub(super) fn deadline(&self, wall: DateTime<Utc>) -> Instant {
        let offset = (wall - self.wall).to_std().unwrap_or(Duration::ZERO);
        let now_offset = self.at.elapsed();
        self.at + offset.min(now_offset + FARTHEST_TIMER)
    }
}

pub(super) type TimerKey = (Instant, u64);

/// Boxed parts keep the map's entries small: resizing the table moves pointers, not envelopes.
pub(super) struct Slot {
    pub(super) envelope: Box<Envelope>,
    pub(super) cron: Option<Box<CronSchedule>>,
    pub(super) timer: Option<TimerKey>,
    /// Leased and handed to the listener; the slot waits for `finish`.
    pub(super) in_flight: bool,
}

impl Slot {
    pub(super) fn new(envelope: Envelope, cron: Option<CronSchedule>) -> Self {
        Slot { envelope: Box::new(envelope), cron: cron.map(Box::new), timer: None, in_flight: false }
    }
}

#[derive(Default)]
pub(super) struct State {
    /// Keyed by envelope id; the timer entries share the key's allocation.
    pub(super) slots: HashMap<Arc<str>, Slot>,
    pub(super) timers: BTreeMap<TimerKey, Arc<str>>,
    per_context: HashMap<String, usize>,
    sequence: u64,
    /// The store's change cursor this table is current to.
    pub(super) cursor: u64,
    /// Fires wait until the service is told the runtimes are ready.
    pub(super) held: bool,
}

impl State {
    /// (Re-)arms `id`'s timer at `deadline`; `true` if it is now the earliest (wake the driver).
    pub(super) fn arm(&mut self, id: &str, deadline: Instant) -> bool {
        let Some((key_id, _)) = self.slots.get_key_value(id) else { return false };
        let key_id = key_id.clone();
        let Some(slot) = self.slots.get_mut(id) else { return false };
        if let Some(old) = slot.timer.take() {
            self.timers.remove(&old);
        }
        self.sequence += 1;
        let key = (deadline, self.sequence);
        slot.timer = Some(key);
        let earliest = self.timers.first_key_value().is_none_or(|(first, _)| key < *first);
        self.timers.insert(key, key_id);
        earliest
    }

    pub(super) fn insert(&mut self, slot: Slot) {
        let key = context_key(&slot.envelope);
        match self.per_context.get_mut(key) {
            Some(n) => *n += 1,
            None => {
                self.per_context.insert(key.to_owned(), 1);
            }
        }
        self.slots.insert(Arc::from(slot.envelope.id.as_str()), slot);
    }

    pub(super) fn take(&mut self, id: &str) -> Option<Slot> {
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

    pub(super) fn pending_in(&self, context: &str) -> usize {
        self.per_context.get(context).copied().unwrap_or(0)
    }
}

pub(super) fn context_key(envelope: &Envelope) -> &str {
    envelope.context_id.as_deref().unwrap_or("")
}

/// The instant the envelope's timer is for: the next fire, or for an event trigger that has
/// not been resolved, its expiry.
pub(super) fn timer_instant(envelope: &Envelope) -> Option<DateTime<Utc>> {
    match envelope.trigger {
        RewakeTrigger::Event { .. } => envelope.next_fire_at.or(envelope.expires_at),
        _ => envelope.next_fire_at,
    }
}

/// An event envelope waiting for `resolve` (not yet resolved).
pub(super) fn awaits_resolve(envelope: &Envelope) -> bool {
    matches!(envelope.trigger, RewakeTrigger::Event { .. }) && envelope.next_fire_at.is_none()
}

pub(super) fn warn_expired(envelope: &Envelope) {
    tracing::warn!(
        envelope = %envelope.id,
        hook = %envelope.hook_id,
        "rewake: envelope '{}' of hook '{}' expired at {}; fire discarded",
        envelope.id,
        envelope.hook_id,
        envelope.expires_at.map(|t| t.to_rfc3339()).unwrap_or_default()
    );
}
