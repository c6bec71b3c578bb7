//! The envelope: one pending rewake (R-RW-2) and what a fire hands the listener.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use chrono::{DateTime, Utc};
use hook_core::{HookContext, HookEventType, RewakeSpec, RewakeTrigger};

use crate::cron::CronSchedule;
use crate::duration::add;
use crate::error::Error;

/// One pending rewake (R-RW-2).
///
/// Built with [`Envelope::new`]; the service stamps the three instants when it schedules it.
/// `attempt` is the number of the next fire: chained follow-ups of delay and event envelopes
/// start one higher than their parent (R-RW-5); a cron envelope counts its own fires.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Envelope {
    /// Unique id (`rw-…`), stable across restarts.
    pub id: String,
    /// The originating hook (the only hook a fire re-invokes, R-RW-4).
    pub hook_id: String,
    /// The agent-execution context to re-hydrate (`HookContext::context_id`).
    pub context_id: Option<String>,
    /// The event the hook ran on (and is re-dispatched on).
    pub event: HookEventType,
    /// When it fires.
    pub trigger: RewakeTrigger,
    /// Number of the next fire, from 1.
    pub attempt: u32,
    /// Cumulative fires allowed (R-CFG-RW-2).
    pub max_attempts: u32,
    /// Fires later than this after scheduling are discarded.
    pub timeout: Duration,
    /// When the service took it (stamped by `schedule`).
    pub scheduled_at: Option<DateTime<Utc>>,
    /// When the timer fires next; `None` for event triggers (they wait for `resolve`).
    pub next_fire_at: Option<DateTime<Utc>>,
    /// `scheduled_at + timeout`: a fire after it is discarded with a WARN.
    pub expires_at: Option<DateTime<Utc>>,
    /// Data handed back to the hook.
    pub payload: BTreeMap<String, String>,
    /// Human-readable reason.
    pub reason: String,
    /// The context the hook ran in: what a fire re-dispatches (its `rewake` is not kept).
    pub context: HookContext,
}

impl Envelope {
    /// The envelope for fire number `attempt` of `spec`, asked for by `hook_id` in `context`.
    pub fn new(hook_id: impl Into<String>, context: HookContext, spec: RewakeSpec, attempt: u32) -> Self {
        let mut context = context;
        context.rewake = None;
        Envelope {
            id: next_id(),
            hook_id: hook_id.into(),
            context_id: context.context_id.clone(),
            event: context.event,
            trigger: spec.trigger,
            attempt,
            max_attempts: spec.max_attempts,
            timeout: spec.timeout,
            scheduled_at: None,
            next_fire_at: None,
            expires_at: None,
            payload: spec.payload,
            reason: spec.reason,
            context,
        }
    }

    /// Stamps the scheduled, expiry and next-fire instants as of `now` and returns the parsed
    /// cron schedule of a cron trigger. [`crate::RewakeService::schedule`] does this; a one-shot
    /// process that writes straight into a [`crate::RewakeStore`] for another process to fire
    /// (R-RW-12) calls it before `insert`. Errors: an attempt outside `1..=max_attempts`, a cron
    /// expression or zone that does not parse or never fires, instants out of range.
    pub fn stamp(&mut self, now: DateTime<Utc>) -> Result<Option<CronSchedule>, Error> {
        if self.attempt == 0 || self.attempt > self.max_attempts {
            return Err(Error::Rejected(format!("attempt {} is outside 1..={}", self.attempt, self.max_attempts)));
        }
        self.scheduled_at = Some(now);
        self.expires_at = Some(add(now, self.timeout)?);
        let (next, cron) = match &self.trigger {
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
        self.next_fire_at = next;
        Ok(cron)
    }

    /// Whether the trigger repeats by itself (cron): such envelopes never chain (R-RW-5).
    pub fn is_cron(&self) -> bool {
        matches!(self.trigger, RewakeTrigger::Cron { .. })
    }

    /// The project the envelope belongs to (R-RW-4b): hook ids are unique only within it.
    pub fn project_dir(&self) -> Option<&Path> {
        self.context.project_dir.as_deref()
    }

    /// The session whose mailbox a fire's answer goes to (R-RW-4b/11).
    pub fn session_id(&self) -> Option<&str> {
        self.context.session_id.as_deref()
    }
}

/// What the service hands the fire listener.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Fire {
    /// The envelope as it was when it fired; `attempt` is this fire's number.
    pub envelope: Envelope,
    /// The envelope payload with a resolving caller's payload merged over it (caller wins).
    pub payload: BTreeMap<String, String>,
    /// When the service fired it (service clock).
    pub fired_at: DateTime<Utc>,
}

impl Fire {
    /// A fire of `envelope` at `fired_at` with the envelope's own payload.
    pub fn new(envelope: Envelope, fired_at: DateTime<Utc>) -> Self {
        Fire { payload: envelope.payload.clone(), envelope, fired_at }
    }
}

/// `rw-<unix µs>-<pid>-<sequence>`: unique within a process and across restarts and processes.
fn next_id() -> String {
    static SEQUENCE: AtomicU64 = AtomicU64::new(0);
    let n = SEQUENCE.fetch_add(1, Ordering::Relaxed);
    format!("rw-{:x}-{:x}-{n:x}", Utc::now().timestamp_micros(), std::process::id())
}
