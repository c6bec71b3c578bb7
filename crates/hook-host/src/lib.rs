//! `hook-host`: what every host process of the hooks shares — the one-shot commands (`run`,
//! `claude`) and the `serve` daemon: the agent-call pipeline and the rewake plumbing
//! (R-RW-11/11b/12, R-SRV-4).
//!
//! - [`answer_call`]: one agent call, payload bytes → the client's [`hook_wire::Answer`]: the
//!   client's wire reads the payload and its event, the project is derived, the [`Host`] opens
//!   its engine (with its trust gate) and dispatches, the trust notice and the session's mail go
//!   in (which events carry them is the events table's), the client's wire writes the answer.
//!   [`Host`] is all that differs between a one-shot command (tiers loaded per call) and the
//!   daemon (cached per-project engines, slots, receipts for mail);
//! - [`answer_run`]: `run`'s pipeline, payload bytes → verdict, the same from the command and
//!   from `POST /v1/run/{event}` ([`RunHost`] is where each gets its engine): the payload is read
//!   as `aimon-hooks claude` reads it ([`hook_wire::Client::Claude`]), so `run` decides on the
//!   context `claude` builds;
//! - [`RunOutput`], [`run_policy`], [`exit_code`], [`unreadable_verdict`]: `run`'s answer, the
//!   same from both;
//! - [`StoreLocation`]: which store a process uses: the URL in `AIMON_REWAKE_STORE`
//!   (`sqlite:PATH`, `postgres://…`), else `~/.aimon/rewake.db` (R-RW-11b). PostgreSQL stores
//!   open with the cargo feature `postgres` (hook-rewake-postgres); without it such a URL is an
//!   error naming the feature;
//! - [`EnqueueSink`]: a [`hook_core::RewakeSink`] for one-shot processes: envelopes are stamped
//!   and written to the store for `serve` to fire, with one WARN per process saying so (R-RW-12);
//! - [`take_mail`] / [`TakenMail::ack`]: a session's mail, taken atomically on an event whose
//!   events-table row has a mail channel and deleted once the answer carrying it is written;
//! - [`FireHost`]: the daemon's service on the store (leases, `wait_for_ready`, store polling),
//!   one listener over every project's registry, the [`hook_rewake::MailboxRuntime`] fallback
//!   (a fire whose process is gone mails its answer) and a broadcast of fires (`GET /v1/stream`).
//!
//! Depends on hook-core, hook-rewake and hook-wire (and hook-rewake-postgres with `postgres`);
//! knows nothing of configuration files (a [`Host`] brings the engine) or the network. Tests:
//! unit tests next to the code, `tests/host.rs` (a fire reaching the next call of its session,
//! through the pipeline, in process).
//!
//! Picking and opening a process's rewake store, and taking a session's mail from it:
//!
//! ```
//! use hook_core::{HookContext, HookEventType};
//! use hook_host::{StoreLocation, take_mail};
//!
//! let home = tempfile::tempdir()?;
//! // No `AIMON_REWAKE_STORE`: the SQLite file under the home directory.
//! let location = StoreLocation::select(None, Some(home.path()))?;
//! assert!(matches!(&location, StoreLocation::Sqlite(path) if path.ends_with(".aimon/rewake.db")));
//! let store = location.open()?;
//! let mut ctx = HookContext::new(HookEventType::ON_START);
//! ctx.session_id = Some("s1".to_owned());
//! assert!(take_mail(&store, &ctx)?.is_none(), "nothing was mailed to s1");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![warn(missing_docs)]

mod enqueue;
mod error;
mod fire_host;
mod mail;
mod pipeline;
mod run;
mod store;

pub use crate::{
    enqueue::EnqueueSink,
    error::Error,
    fire_host::{FireEvent, FireHost, ProjectRegistries},
    mail::{MAIL_CLAIM, TakenMail, take_mail},
    pipeline::{Answered, CallHints, Host, answer_call, call_project, registry_withholds, unreadable_call},
    run::{RunHost, RunOutput, answer_run, exit_code, run_policy, unreadable_verdict},
    store::{STORE_ENV, StoreLocation},
};
