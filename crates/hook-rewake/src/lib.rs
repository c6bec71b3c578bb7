//! `hook-rewake`: deferred re-invocation ("async rewake") of the aimon hook system (R-RW).
//!
//! A hook asks to be invoked again later by returning a [`hook_core::RewakeSpec`]; the engine
//! hands the first one to a [`hook_core::RewakeSink`], which [`DefaultRewakeService`]
//! implements. Main types:
//!
//! - [`Envelope`] (one pending rewake; carries project, session, event and payload so another
//!   process can fire it, R-RW-4b) and the [`RewakeService`] contract: schedule (one or a
//!   batch), cancel by id or by hook id within a project, `resolve(type, key, payload)`, list
//!   pending (R-RW-2/3/7);
//! - [`DefaultRewakeService`]: ONE timer structure and one driver task for every pending
//!   envelope (PERF-7), delay, event and cron triggers (croner, IANA zones, DOM/DOW union),
//!   expiry, [`RewakeQuotaManager`] quotas and an optional durable [`RewakeStore`]. With a store
//!   every fire takes a [`Lease`] on (id, attempt) and only a finished fire deletes or advances
//!   the envelope, so a killed process's fires are taken over after the lease expires
//!   (at-least-once, R-RW-9); overdue envelopes can wait for [`DefaultRewakeService::ready`];
//!   [`DefaultRewakeService::sync`], the store's [`RewakeStore::wake_signal`] (SQLite: a watcher
//!   of the file's data version, every 20 ms) and `poll_store` pick up envelopes other
//!   processes enqueued (R-RW-12);
//! - [`RewakeStore`]: envelopes with leases plus session mailboxes ([`Mail`], R-RW-11/11b), in
//!   [`MemoryStore`] and [`SqliteStore`] (versioned schema, migrated on open);
//! - [`DefaultRewakeFireListener`]: re-hydrates the context from a [`RuntimeRegistry`] (a
//!   registered runtime, else its fallback such as [`MailboxRuntime`], else for engine-level
//!   envelopes the snapshot itself), re-invokes only the originating hook with `ctx.rewake`
//!   set and chains follow-ups (R-RW-4/5); [`DefaultRewakeFireListener::fire`] also returns the
//!   hook's run (for a host's stream of fires);
//! - the config-time parsers [`parse_duration`], [`validate_cron`], [`validate_zone`] and
//!   [`CronSchedule`] (R-CFG-RW-3/4/5).
//!
//! A hook asks to be run again in five minutes; on that rewake it has news, and with no live
//! agent to wake the news goes to the session's mailbox (paused clock, in-memory store):
//!
//! ```
//! # #[tokio::main(flavor = "current_thread", start_paused = true)]
//! # async fn main() -> Result<(), hook_rewake::Error> {
//! use std::{sync::Arc, time::Duration};
//! use hook_core::{CancellationToken, FnHook, HookContext, HookEngine, HookEventType, HookRegistry, HookResult};
//! use hook_core::{RewakeSpec, RewakeTrigger, ToolCall};
//! use hook_rewake::{DefaultRewakeFireListener, DefaultRewakeService, MailboxRuntime, MemoryStore};
//! use hook_rewake::{RewakeService, RewakeStore, RuntimeRegistry};
//!
//! let hooks = Arc::new(HookRegistry::new());
//! hooks.register(HookEventType::POST_TOOL, FnHook::new("watch-ci", |ctx: HookContext| async move {
//!     Ok(match ctx.rewake {
//!         None => HookResult::allow().with_rewake(
//!             RewakeSpec::new(RewakeTrigger::Delay(Duration::from_secs(300)), "look at CI").with_max_attempts(1),
//!         ),
//!         Some(_) => HookResult::allow().with_feedback("CI is green"),
//!     })
//! }));
//! let store = Arc::new(MemoryStore::new());
//! let runtimes = Arc::new(RuntimeRegistry::new());
//! runtimes.set_fallback(Arc::new(MailboxRuntime::new(store.clone())));
//! let listener = Arc::new(DefaultRewakeFireListener::new(hooks.clone(), runtimes));
//! let service = DefaultRewakeService::builder(listener.clone()).store(store.clone()).start()?;
//! assert!(listener.bind_service(&service));
//! let engine = HookEngine::new(hooks).with_rewake(service.clone());
//!
//! let mut ctx = HookContext::new(HookEventType::POST_TOOL)
//!     .with_tool(ToolCall::new("Bash", serde_json::json!({"command": "git push"})));
//! ctx.session_id = Some("session-1".into());
//! engine.post_tool(&ctx, &CancellationToken::new()).await;
//! assert_eq!(service.pending().len(), 1, "scheduled, the turn not held");
//! assert_eq!(store.mail_depth()?, 0);
//!
//! tokio::time::sleep(Duration::from_secs(301)).await;
//! assert!(service.pending().is_empty(), "fired once and finished");
//! assert_eq!(store.mail_depth()?, 1, "the rewoken hook's feedback waits in the mailbox");
//! # Ok(()) }
//! ```
//!
//! Wiring a daemon, with a durable store shared with other processes:
//!
//! ```no_run
//! # async fn wire() -> Result<(), hook_rewake::Error> {
//! use std::sync::Arc;
//! use std::time::Duration;
//! use hook_core::{HookEngine, HookRegistry};
//! use hook_rewake::{DefaultRewakeFireListener, DefaultRewakeService, MailboxRuntime, RuntimeRegistry, SqliteStore};
//! let hooks = Arc::new(HookRegistry::new());
//! let store = Arc::new(SqliteStore::open("rewake.db")?);
//! let runtimes = Arc::new(RuntimeRegistry::new());
//! runtimes.set_fallback(Arc::new(MailboxRuntime::new(store.clone())));
//! let listener = Arc::new(DefaultRewakeFireListener::new(hooks.clone(), runtimes.clone()));
//! let service = DefaultRewakeService::builder(listener.clone())
//!     .store(store)
//!     .wait_for_ready()
//!     .poll_store(Duration::from_secs(1))
//!     .start()?;
//! listener.bind_service(&service);
//! let engine = HookEngine::new(hooks).with_rewake(service.clone());
//! service.ready();
//! # let _ = engine; Ok(()) }
//! ```
//!
//! Depends on hook-core only among workspace crates; must not pull reqwest, rmcp, notify or
//! serde-saphyr. Unit tests sit next to the parsers; `tests/rewake` holds the store contract,
//! lease, mailbox, service and listener specs (paused clock) and the cron table; `tests/crash.rs`
//! and `tests/crash_in_flight.rs` kill -9 real processes; `benches/rewake.rs` measures
//! 1,000,000 pending envelopes, the SQLite batch persist rate and fire lateness.
#![warn(missing_docs)]

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
    store::{Lease, LeaseOutcome, Mail, MemoryStore, RewakeStore, SqliteStore, StoreSnapshot, StoredEnvelope},
};

/// What a [`RewakeStore`] implementation outside this crate needs to store rows the way
/// [`SqliteStore`] does (hook-rewake-postgres uses it): the envelope and mail encodings, their
/// decoders, and the stored forms of a time and a project. An embedder never needs it.
pub mod store_support {
    pub use crate::store::{
        decode_mailbox, decode_stored, encode_envelope, encode_mail, stored_micros, stored_project,
    };
}
