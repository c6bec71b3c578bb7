//! Specs of hook-rewake. Table of contents:
//!
//! - `service`: each trigger under tokio's paused clock (delay, event with payload merge, cron),
//!   expiry, quota, cancel by id and by hook id, schedule-time rejections (R-RW-2/3/5/6/7/8).
//! - `lease`: fire leases under the paused clock — held until the hook finishes, taken over
//!   after a dead owner's lease expires with the same (id, attempt), never while live; overdue
//!   envelopes wait for `ready`; polling picks up one-shot processes' envelopes; cancel by hook
//!   id per project (R-RW-9/12, R-RW-4b).
//! - `listener`: the full path through `HookEngine` → `RewakeSink` → fire → re-invocation of
//!   only the originating hook: chaining bounds, cron never chaining, re-dispatch on every
//!   rewake-capable event, vanished contexts and hooks, unbound service, the seed's example 6
//!   (R-RW-1/4/5).
//! - `contract`: the store contract on every store — leases and takeover, finish by the owner,
//!   project-scoped removal, batch insert, change cursor, mailboxes; the SQLite migration.
//! - `mailbox`: engine-level envelopes fire with a built-in context; a fallback
//!   `MailboxRuntime` mails a fire's feedback or block to its session (R-RW-4b/11/11b/12).
//! - `cron_table`: next fire times for expressions × zones × start instants, DST transitions in
//!   America/New_York and Europe/Berlin, Asia/Seoul, DOM/DOW union (R-CFG-RW-4/5).
//! - `store`: restart from the SQLite and memory stores (due fires once, expired discarded,
//!   never twice), two services sharing one store (R-RW-9/10).
//!
//! The SIGKILL crash test is `tests/crash.rs` (its own binary: it re-executes itself as the child).

mod contract;
mod cron_table;
mod lease;
mod listener;
mod mailbox;
mod service;
mod store;
mod support;
