//! `hook-rewake`: deferred re-invocation ("async rewake") of the aimon hook system (R-RW).
//!
//! A hook asks to be invoked again later by returning a [`hook_core::RewakeSpec`]; the engine
//! hands the first one to a [`hook_core::RewakeSink`], which [`DefaultRewakeService`]
//! implements. Main types:
//!
//! - [`Envelope`] (one pending rewake) and the [`RewakeService`] contract: schedule, cancel by
//!   id or hook id, `resolve(type, key, payload)`, list pending (R-RW-2/3/7);
//! - [`DefaultRewakeService`]: tokio timers with delay, event and cron triggers (croner, IANA
//!   zones, DOM/DOW union), expiry, [`RewakeQuotaManager`] quotas and an optional durable
//!   [`RewakeStore`] ([`SqliteStore`], [`MemoryStore`]) reloaded on start (R-RW-6/8/9);
//! - [`DefaultRewakeFireListener`]: re-hydrates the context from a [`RuntimeRegistry`],
//!   re-invokes only the originating hook and chains follow-ups (R-RW-4/5);
//! - the config-time parsers [`parse_duration`], [`validate_cron`], [`validate_zone`] and
//!   [`CronSchedule`] (R-CFG-RW-3/4/5).
//!
//! Wiring:
//!
//! ```no_run
//! # async fn wire() -> Result<(), hook_rewake::Error> {
//! use std::sync::Arc;
//! use hook_core::{HookEngine, HookRegistry};
//! use hook_rewake::{DefaultRewakeFireListener, DefaultRewakeService, RuntimeRegistry, SqliteStore};
//! let hooks = Arc::new(HookRegistry::new());
//! let runtimes = Arc::new(RuntimeRegistry::new());
//! let listener = Arc::new(DefaultRewakeFireListener::new(hooks.clone(), runtimes.clone()));
//! let service = DefaultRewakeService::builder(listener.clone())
//!     .store(Arc::new(SqliteStore::open("rewake.db")?))
//!     .start()?;
//! listener.bind_service(&service);
//! let engine = HookEngine::new(hooks).with_rewake(service.clone());
//! # let _ = engine; Ok(()) }
//! ```
//!
//! Depends on hook-core only among workspace crates; must not pull reqwest, rmcp, notify or
//! serde-saphyr. Unit tests sit next to the parsers; `tests/` holds the service and listener
//! specs (paused clock), the cron table and the SIGKILL crash test; `benches/rewake.rs` measures
//! scheduling 100,000 envelopes and fire lateness.

mod cron;
mod duration;
mod envelope;
mod error;
mod listener;
mod quota;
mod service;
mod store;

pub use crate::{
    cron::{CronSchedule, validate_cron, validate_zone},
    duration::parse_duration,
    envelope::{Envelope, Fire},
    error::Error,
    listener::{DefaultRewakeFireListener, MailboxRuntime, RewakeRuntime, RuntimeRegistry},
    quota::{DefaultRewakeQuotaManager, NoopQuota, RewakeQuotaManager},
    service::{DefaultRewakeService, FireFuture, RewakeFireListener, RewakeService, RewakeServiceBuilder},
    store::{
        Lease, LeaseOutcome, Mail, MemoryStore, RewakeStore, SqliteStore, StoreSnapshot, StoredEnvelope, lease_span,
    },
};
