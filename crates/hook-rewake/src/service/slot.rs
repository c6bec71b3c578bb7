//! One pending envelope in the service's table, in compact form (PERF-7).
//!
//! What differs per envelope (id, attempt, delay, timeout, the three instants, timer, cron)
//! is kept inline; the rest (hook id, event, context, reason, payload, a non-delay trigger)
//! is interned: envelopes that share it share one `Arc`. The full [`Envelope`] is rebuilt
//! when it fires or is listed.

use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use hashbrown::HashSet;
use hook_core::{HookContext, HookEventType, RewakeTrigger};
use tokio::time::Instant;

use crate::cron::CronSchedule;
use crate::envelope::Envelope;

/// The parts of an envelope many envelopes have in common.
#[derive(PartialEq)]
struct Shared {
    hook_id: String,
    context_id: Option<String>,
    event: HookEventType,
    /// A delay trigger is kept as `Delay(ZERO)`; its duration lives in the slot.
    trigger: RewakeTrigger,
    payload: BTreeMap<String, String>,
    reason: String,
    context: HookContext,
}

// `HookContext` holds JSON values, whose numbers are never NaN: equality is reflexive.
impl Eq for Shared {}

/// Hashes a subset of the fields (equal values still hash equally); equality checks all.
impl Hash for Shared {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.hook_id.hash(state);
        self.context_id.hash(state);
        self.trigger.hash(state);
        self.payload.hash(state);
        self.reason.hash(state);
        self.context.session_id.hash(state);
        self.context.project_dir.hash(state);
    }
}

/// Hands out one `Arc` per distinct [`Shared`]; entries no slot uses any more are swept when
/// the set has doubled since the last sweep.
#[derive(Default)]
pub(super) struct Interner {
    set: HashSet<Arc<Shared>>,
    sweep_at: usize,
}

impl Interner {
    fn intern(&mut self, shared: Shared) -> Arc<Shared> {
        if let Some(found) = self.set.get(&shared) {
            return found.clone();
        }
        if self.set.len() >= self.sweep_at {
            self.set.retain(|s| Arc::strong_count(s) > 1);
            self.sweep_at = (self.set.len() * 2).max(1024);
        }
        let shared = Arc::new(shared);
        self.set.insert(shared.clone());
        shared
    }
}

pub(super) struct Slot {
    pub(super) id: Box<str>,
    body: Body,
    pub(super) cron: Option<Box<CronSchedule>>,
    pub(super) timer: Option<TimerKey>,
    /// Leased and handed to the listener; the slot waits for `finish`.
    pub(super) in_flight: bool,
}

/// The per-envelope fields next to the interned ones.
struct Body {
    shared: Arc<Shared>,
    delay: Duration,
    timeout: Duration,
    scheduled_at: Option<DateTime<Utc>>,
    next_fire_at: Option<DateTime<Utc>>,
    expires_at: Option<DateTime<Utc>>,
    attempt: u32,
    max_attempts: u32,
}

impl Body {
    fn new(interner: &mut Interner, envelope: Envelope) -> (String, Body) {
        let Envelope {
            id,
            hook_id,
            context_id,
            event,
            trigger,
            attempt,
            max_attempts,
            timeout,
            scheduled_at,
            next_fire_at,
            expires_at,
            payload,
            reason,
            context,
        } = envelope;
        let (trigger, delay) = match trigger {
            RewakeTrigger::Delay(delay) => (RewakeTrigger::Delay(Duration::ZERO), delay),
            other => (other, Duration::ZERO),
        };
        let shared = interner.intern(Shared { hook_id, context_id, event, trigger, payload, reason, context });
        let body = Body { shared, delay, timeout, scheduled_at, next_fire_at, expires_at, attempt, max_attempts };
        (id, body)
    }
}

impl Slot {
    pub(super) fn new(interner: &mut Interner, envelope: Envelope, cron: Option<CronSchedule>) -> Self {
        let (id, body) = Body::new(interner, envelope);
        Slot { id: id.into_boxed_str(), body, cron: cron.map(Box::new), timer: None, in_flight: false }
    }

    /// Makes the slot hold `envelope` (same id; its timer, cron and flight state stay).
    pub(super) fn set(&mut self, interner: &mut Interner, envelope: Envelope) {
        self.body = Body::new(interner, envelope).1;
    }

    /// The full envelope.
    pub(super) fn envelope(&self) -> Envelope {
        let shared = &*self.body.shared;
        let trigger = match &shared.trigger {
            RewakeTrigger::Delay(_) => RewakeTrigger::Delay(self.body.delay),
            other => other.clone(),
        };
        Envelope {
            id: self.id.to_string(),
            hook_id: shared.hook_id.clone(),
            context_id: shared.context_id.clone(),
            event: shared.event,
            trigger,
            attempt: self.body.attempt,
            max_attempts: self.body.max_attempts,
            timeout: self.body.timeout,
            scheduled_at: self.body.scheduled_at,
            next_fire_at: self.body.next_fire_at,
            expires_at: self.body.expires_at,
            payload: shared.payload.clone(),
            reason: shared.reason.clone(),
            context: shared.context.clone(),
        }
    }

    pub(super) fn attempt(&self) -> u32 {
        self.body.attempt
    }

    pub(super) fn hook_id(&self) -> &str {
        &self.body.shared.hook_id
    }

    pub(super) fn project_dir(&self) -> Option<&Path> {
        self.body.shared.context.project_dir.as_deref()
    }

    pub(super) fn context_key(&self) -> &str {
        self.body.shared.context_id.as_deref().unwrap_or("")
    }

    pub(super) fn scheduled_at(&self) -> Option<DateTime<Utc>> {
        self.body.scheduled_at
    }

    pub(super) fn next_fire_at(&self) -> Option<DateTime<Utc>> {
        self.body.next_fire_at
    }

    pub(super) fn expires_at(&self) -> Option<DateTime<Utc>> {
        self.body.expires_at
    }

    pub(super) fn trigger(&self) -> &RewakeTrigger {
        &self.body.shared.trigger
    }

    /// The instant the timer is for: the next fire, or for an event trigger that has not been
    /// resolved, its expiry.
    pub(super) fn timer_instant(&self) -> Option<DateTime<Utc>> {
        match self.trigger() {
            RewakeTrigger::Event { .. } => self.body.next_fire_at.or(self.body.expires_at),
            _ => self.body.next_fire_at,
        }
    }

    /// An event envelope waiting for `resolve` (not yet resolved).
    pub(super) fn awaits_resolve(&self) -> bool {
        matches!(self.trigger(), RewakeTrigger::Event { .. }) && self.body.next_fire_at.is_none()
    }

    pub(super) fn warn_expired(&self) {
        warn_expired(&self.id, self.hook_id(), self.body.expires_at);
    }
}

/// A slot's place in the timer heap: its deadline and a sequence number that keeps keys unique.
pub(super) type TimerKey = (Instant, u64);

/// The WARN of an envelope that expired before it could fire.
pub(super) fn warn_expired(id: &str, hook_id: &str, expires_at: Option<DateTime<Utc>>) {
    tracing::warn!(
        envelope = %id,
        hook = %hook_id,
        "rewake: envelope '{id}' of hook '{hook_id}' expired at {}; fire discarded",
        expires_at.map(|t| t.to_rfc3339()).unwrap_or_default()
    );
}
