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
//! ```no_run
//! # fn wire() -> Result<(), hook_rewake::Error> {
//! use std::sync::Arc;
//! use hook_rewake_postgres::PgStore;
//! let store = Arc::new(PgStore::connect("postgres://aimon@db.internal/aimon")?);
//! // DefaultRewakeService::builder(listener).store(store).start()?
//! # let _ = store; Ok(()) }
//! ```
//!
//! Only this crate compiles a PostgreSQL client (`check-layers` forbids it everywhere else).
//! Its errors are hook-rewake's [`hook_rewake::Error`]: every failure crosses the store trait as
//! `Error::Store`. The tests start a throwaway cluster from the system's PostgreSQL binaries
//! (`tests/support`); `benches/fires.rs` measures fires/s with two stores.

mod bridge;
mod health;
mod listen;
mod schema;
mod store;

pub use crate::store::PgStore;
