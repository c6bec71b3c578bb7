//! Shared fixtures: a recording fire listener, contexts, envelopes and the start instant.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use hook_core::{HookContext, HookEventType, RewakeSpec, RewakeTrigger};
use hook_rewake::{Envelope, Fire, FireFuture, RewakeFireListener};
use tokio::sync::mpsc;

/// The wall-clock instant every paused-clock test starts at (a Sunday).
pub(crate) fn t0() -> DateTime<Utc> {
    at("2026-03-01T00:00:00Z")
}

pub(crate) fn at(rfc3339: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(rfc3339).expect("test instant").with_timezone(&Utc)
}

/// A listener that records every fire, in order.
#[derive(Debug)]
pub(crate) struct Recorder {
    tx: mpsc::UnboundedSender<Fire>,
}

impl RewakeFireListener for Recorder {
    fn on_fire(self: Arc<Self>, fire: Fire) -> FireFuture {
        self.tx.send(fire).expect("test receiver alive");
        Box::pin(async {})
    }
}

pub(crate) fn recorder() -> (Arc<Recorder>, mpsc::UnboundedReceiver<Fire>) {
    let (tx, rx) = mpsc::unbounded_channel();
    (Arc::new(Recorder { tx }), rx)
}

/// Everything received so far, without waiting.
pub(crate) fn drain(rx: &mut mpsc::UnboundedReceiver<Fire>) -> Vec<Fire> {
    let mut fires = Vec::new();
    while let Ok(fire) = rx.try_recv() {
        fires.push(fire);
    }
    fires
}

pub(crate) fn ctx(event: HookEventType, context_id: &str) -> HookContext {
    let mut ctx = HookContext::new(event);
    ctx.context_id = Some(context_id.to_owned());
    ctx.session_id = Some("session-1".to_owned());
    ctx
}

pub(crate) fn delay(d: Duration) -> RewakeTrigger {
    RewakeTrigger::Delay(d)
}

pub(crate) fn cron(expr: &str, zone: &str) -> RewakeTrigger {
    RewakeTrigger::Cron { expr: expr.to_owned(), zone: zone.to_owned() }
}

pub(crate) fn event(kind: &str, key: &str) -> RewakeTrigger {
    RewakeTrigger::Event { kind: kind.to_owned(), key: key.to_owned() }
}

pub(crate) fn spec(trigger: RewakeTrigger, timeout: Duration, max_attempts: u32) -> RewakeSpec {
    RewakeSpec::new(trigger, "test reason").with_timeout(timeout).with_max_attempts(max_attempts)
}

/// A preTool envelope of `hook_id` in `context_id`, attempt 1.
pub(crate) fn envelope(hook_id: &str, context_id: &str, spec: RewakeSpec) -> Envelope {
    Envelope::new(hook_id, ctx(HookEventType::PRE_TOOL, context_id), spec, 1)
}

pub(crate) fn payload(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
}

pub(crate) const MIN: Duration = Duration::from_secs(60);
pub(crate) const HOUR: Duration = Duration::from_secs(3600);
