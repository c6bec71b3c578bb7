//! The `RewakeSpec` value type (R-RW-1/2). Scheduling lives in `hook-rewake`.

use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

use crate::context::HookContext;

/// When a deferred re-invocation fires (R-RW-3).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum RewakeTrigger {
    /// Once, `delay` after scheduling.
    Delay(Duration),
    /// Repeatedly on a five-field cron expression in an IANA zone.
    Cron {
        /// The expression, validated by the config layer.
        expr: String,
        /// IANA zone id (`UTC`, `Asia/Seoul`).
        zone: String,
    },
    /// When `resolve(kind, key, payload)` arrives.
    Event {
        /// The event type.
        kind: String,
        /// The literal key.
        key: String,
    },
}

/// A request to invoke the same hook again later.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct RewakeSpec {
    /// When it fires.
    pub trigger: RewakeTrigger,
    /// Fires later than this after scheduling are discarded (default 1 h).
    pub timeout: Duration,
    /// Cumulative fires allowed (default 3, at least 1).
    pub max_attempts: u32,
    /// Data handed back to the hook.
    pub payload: BTreeMap<String, String>,
    /// Human-readable reason (required, non-blank).
    pub reason: String,
}

impl RewakeSpec {
    /// Default timeout (R-CFG-RW-2).
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(3600);
    /// Default attempt cap (R-CFG-RW-2).
    pub const DEFAULT_MAX_ATTEMPTS: u32 = 3;

    /// A spec with the defaults.
    pub fn new(trigger: RewakeTrigger, reason: impl Into<String>) -> Self {
        RewakeSpec {
            trigger,
            timeout: Self::DEFAULT_TIMEOUT,
            max_attempts: Self::DEFAULT_MAX_ATTEMPTS,
            payload: BTreeMap::new(),
            reason: reason.into(),
        }
    }

    /// Sets the timeout.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Sets the attempt cap.
    pub fn with_max_attempts(mut self, max_attempts: u32) -> Self {
        self.max_attempts = max_attempts;
        self
    }

    /// Sets the payload.
    pub fn with_payload(mut self, payload: BTreeMap<String, String>) -> Self {
        self.payload = payload;
        self
    }
}

/// A first scheduling request handed from a call-site chain to the rewake service.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct RewakeRequest {
    /// The hook that asked.
    pub hook_id: String,
    /// The context it ran in (its event is the envelope's event).
    pub context: HookContext,
    /// What it asked for.
    pub spec: RewakeSpec,
}

/// Where the chains send rewake specs; `hook-rewake`'s service implements it.
pub trait RewakeSink: Send + Sync + fmt::Debug {
    /// Schedules the first envelope for `request`. Never blocks the turn.
    fn schedule(&self, request: RewakeRequest);
}

impl RewakeRequest {
    /// A request from `hook_id`, fired in `context`, asking for `spec`.
    pub fn new(hook_id: impl Into<String>, context: HookContext, spec: RewakeSpec) -> Self {
        RewakeRequest { hook_id: hook_id.into(), context, spec }
    }
}
