//! Envelopes, mails and instants shared by the tests and the benchmark.

use std::path::PathBuf;
use std::time::Duration;

use chrono::{DateTime, TimeDelta, Utc};
use hook_core::{HookContext, HookEventType, RewakeSpec, RewakeTrigger};
use hook_rewake::{Envelope, Fire, Mail};

pub const MIN: Duration = Duration::from_secs(60);
pub const HOUR: Duration = Duration::from_secs(3600);

/// The instant the contract tests start at.
pub fn t0() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-03-01T00:00:00Z").expect("instant").with_timezone(&Utc)
}

pub fn plus(t: DateTime<Utc>, d: Duration) -> DateTime<Utc> {
    t + TimeDelta::from_std(d).expect("delta")
}

/// A preTool delay envelope of `hook` in project `project`, attempt 1 of `max_attempts`, due a
/// minute after `t0()`.
pub fn envelope_in(project: &str, hook: &str, max_attempts: u32) -> Envelope {
    let mut ctx = HookContext::new(HookEventType::PRE_TOOL);
    ctx.context_id = Some("c".to_owned());
    ctx.session_id = Some("session-1".to_owned());
    ctx.project_dir = Some(PathBuf::from(project));
    let spec =
        RewakeSpec::new(RewakeTrigger::Delay(MIN), "test reason").with_timeout(HOUR).with_max_attempts(max_attempts);
    let mut envelope = Envelope::new(hook, ctx, spec, 1);
    envelope.scheduled_at = Some(t0());
    envelope.next_fire_at = Some(plus(t0(), MIN));
    envelope.expires_at = Some(plus(t0(), HOUR));
    envelope
}

/// `envelope` as its next attempt (what a finished fire of a repeating envelope stores).
pub fn next_attempt(envelope: &Envelope) -> Envelope {
    let mut next = envelope.clone();
    next.attempt += 1;
    next.next_fire_at = Some(plus(t0(), HOUR));
    next
}

/// A mail for `session` written `minutes` after `t0()`.
pub fn mail(session: &str, text: &str, minutes: u64) -> Mail {
    let e = envelope_in("/p", &format!("h-{text}"), 1);
    let at = plus(t0(), Duration::from_secs(60 * minutes));
    Mail::new(&Fire::new(e, at), session, text, false, at, Mail::DEFAULT_TTL)
}
