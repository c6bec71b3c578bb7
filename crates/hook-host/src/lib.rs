//! `hook-host`: the rewake plumbing every host process shares — the one-shot commands (`run`,
//! `claude`) and the `serve` daemon (R-RW-11/11b/12, R-SRV-4).
//!
//! - [`StoreLocation`]: which store a process uses: the URL in `AIMON_REWAKE_STORE`
//!   (`sqlite:PATH`, `postgres://…`), else `~/.aimon/rewake.db` (R-RW-11b). PostgreSQL stores
//!   open with the cargo feature `postgres` (hook-rewake-postgres); without it such a URL is an
//!   error naming the feature;
//! - [`EnqueueSink`]: a [`hook_core::RewakeSink`] for one-shot processes: envelopes are stamped
//!   and written to the store for `serve` to fire, with one WARN per process saying so (R-RW-12);
//! - [`take_mail`] / [`TakenMail::ack`]: a session's mail, taken atomically on an event with a
//!   model-context channel and deleted once the answer carrying it is written (R-RW-11b);
//! - [`FireHost`]: the daemon's service on the store (leases, `wait_for_ready`, store polling),
//!   one listener over every project's registry, the [`hook_rewake::MailboxRuntime`] fallback
//!   (a fire whose process is gone mails its answer) and a broadcast of fires (`GET /v1/stream`).
//!
//! Which events carry mail, and how, is Claude Code's wire: [`hook_claude::mail_channel`].
//! Depends on hook-core, hook-rewake and hook-claude (and hook-rewake-postgres with `postgres`);
//! knows nothing of configuration files or the network. Tests: `tests/host.rs` (a fire reaching the next call of its session, in process).

mod enqueue;
mod error;
mod fire_host;
mod mail;
mod store;

pub use crate::{
    enqueue::EnqueueSink,
    error::Error,
    fire_host::{FireEvent, FireHost, ProjectRegistries},
    mail::{MAIL_CLAIM, TakenMail, answer_with_mail, take_mail},
    store::{STORE_ENV, StoreLocation},
};
