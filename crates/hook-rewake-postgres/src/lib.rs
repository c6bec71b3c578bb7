//! `hook-rewake-postgres`: the shared rewake store of the aimon hook system on PostgreSQL
//! (R-RW-10).
//!
//! [`PgStore`] implements [`hook_rewake::RewakeStore`] so that several daemons, on several
//! machines, share one rewake schedule and one session mailbox: a rewake asked on one machine
//! may fire on another, fires once per `(id, attempt)` while no process dies, and a dead
//! process's fires are taken over when their leases expire.
//!
//! - versioned schema migrations applied on connect (`rewake_schema_migrations`, under an
//!   advisory lock so concurrent starters are safe);
//! - leases by one conditional `UPDATE`, a commit-ordered change cursor, batch inserts in one
//!   transaction, the mailbox in the same database;
//! - `LISTEN/NOTIFY` on the `aimon_rewake` channel: [`hook_rewake::RewakeStore::wake_signal`]
//!   is raised when another process inserts or advances an envelope;
//! - a connection pool; calls during an outage fail with [`hook_rewake::Error::Store`] (at once,
//!   but for one probe a second; one WARN per outage), and the pool and the `LISTEN` connection
//!   reconnect by themselves.
//!
//! With a server (so `no_run` here): the store holds an envelope for every process that
//! connects to the same database, until it fires or is removed.
//!
//! ```no_run
//! # fn main() -> Result<(), hook_rewake::Error> {
//! use std::time::Duration;
//! use hook_core::{HookContext, HookEventType, RewakeSpec, RewakeTrigger};
//! use hook_rewake::{Envelope, RewakeStore};
//! use hook_rewake_postgres::PgStore;
//!
//! let store = PgStore::connect("postgres://aimon@db.internal/aimon")?;
//! let spec = RewakeSpec::new(RewakeTrigger::Delay(Duration::from_secs(60)), "look at CI again");
//! let mut envelope = Envelope::new("watch-ci", HookContext::new(HookEventType::POST_TOOL), spec, 1);
//! envelope.stamp(chrono::Utc::now())?;
//! store.insert(&envelope)?;
//! let stored = store.load()?;
//! assert!(stored.envelopes.iter().any(|row| row.envelope.id == envelope.id && row.lease.is_none()));
//! assert!(store.remove(&envelope.id)?);
//! // A service shares it like any store: DefaultRewakeService::builder(listener).store(Arc::new(store))
//! # Ok(()) }
//! ```
//!
//! Without one, connecting fails with the store's error rather than starting a service that
//! would lose its schedule:
//!
//! ```
//! use hook_rewake_postgres::PgStore;
//! // A port nobody listens on: bound, then let go.
//! let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
//! let err = PgStore::connect(&format!("postgres://aimon@127.0.0.1:{port}/aimon")).unwrap_err();
//! assert!(matches!(&err, hook_rewake::Error::Store(why) if why.contains("unreachable")), "{err:?}");
//! let err = PgStore::connect("not a url").unwrap_err();
//! assert!(matches!(&err, hook_rewake::Error::Store(why) if why.contains("invalid PostgreSQL URL")), "{err:?}");
//! ```
//!
//! Only this crate compiles a PostgreSQL client (`check-layers` forbids it everywhere else).
//! Its errors are hook-rewake's [`hook_rewake::Error`]: every failure crosses the store trait as
//! `Error::Store`. The tests start a throwaway cluster from the system's PostgreSQL binaries
//! (`tests/support`); `benches/fires.rs` measures fires/s with two stores.
#![warn(missing_docs)]

mod bridge;
mod error;
mod health;
mod listen;
mod schema;
mod store;

pub use crate::store::PgStore;
