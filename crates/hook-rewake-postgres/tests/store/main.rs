//! Specs of hook-rewake-postgres, against a real PostgreSQL server (a throwaway cluster from the
//! system's binaries, or `AIMON_TEST_PG_URL`). Table of contents:
//!
//! - `contract`: the store contract of hook-rewake's memory and SQLite stores, on PostgreSQL —
//!   leases and takeover, finish by the owner, advance and change cursor, project-scoped removal,
//!   batch insert all-or-nothing, mailboxes taken atomically and acknowledged, mail expiry;
//!   migrations idempotent and safe for concurrent starters.
//! - `shared`: two stores as two processes would use them — 10,000 envelopes leased
//!   concurrently, each (id, attempt) once; mail put through one is taken through the other;
//!   an insert on one wakes the other (LISTEN/NOTIFY).
//! - `outage`: the server restarted under load — calls during the outage fail with a sentence,
//!   both stores reconnect, nothing is lost; the LISTEN connection comes back by itself.
//!
//! The multi-process kill -9 test is `tests/processes.rs` (its own binary: it re-executes
//! itself as the workers).

mod contract;
mod outage;
mod shared;
#[path = "../support/mod.rs"]
mod support;
