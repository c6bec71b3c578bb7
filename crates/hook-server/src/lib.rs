//! `hook-server`: the `aimon-hooks serve` daemon as a library — one long-running hook engine for
//! every project of a person, reachable over HTTP.
//!
//! - [`HookService`]: per-project engines loaded on first use (the project of a call comes from
//!   the `project` parameter, the `X-Claude-Project-Dir` header or the payload's `cwd`, through
//!   hook-claude's one derivation), kept current by hook-config's hot reload (tiers) and a stamp
//!   check of `mcp.json`, evicted least-recently-used past 64; MCP sessions stay open between
//!   calls; hook work is bounded per project and in all, excess waits. [`HookService::router`]
//!   gives the routes (`/v1/run/{event}`, `/v1/claude`, `/v1/claude/ack`, `/v1/health`,
//!   `/v1/hooks`, `/metrics`,
//!   `/v1/stream`: rewake fires as server-sent events)
//!   with their limits as layers, so an embedder can mount them in its own server.
//! - [`serve`]: the daemon — a Unix socket (mode 0600) and optional loopback TCP behind the bearer
//!   token of [`ensure_token`], slow clients cut off, graceful shutdown on [`ShutdownSignals`];
//!   rewake on the store of `--store` (a shared PostgreSQL store with the `postgres` feature,
//!   waited for when it is down at start).
//! - [`forward_claude`]: the `claude` command's client for the socket; an answer carrying session
//!   mail comes with a [`MailReceipt`] to redeem once it is printed.
//! - [`RunOutput`], [`Printed`] and the functions of `evaluate`: how `run` and `claude` answer,
//!   shared with the CLI so the daemon's bytes are the command's bytes; [`with_trust_notice`]:
//!   what both say when a repository's hooks are not trusted.
//!
//! Metrics use `prometheus-client` (docs/decisions.md says why). Layer 5: above hook-config and
//! hook-skill, below hook-cli; the crates below must not pull axum, tower-http or
//! prometheus-client. Tests: unit tests next to the code; `tests/` drive a real daemon over its
//! socket and TCP; `benches/` holds the load benchmark and the soak test.

mod auth;
mod client;
mod delivery;
mod error;
mod evaluate;
mod listen;
mod metrics;
mod output;
mod projects;
mod routes;
mod store;
mod stream;
mod trust_notice;

pub use crate::{
    client::{CONNECT_TIMEOUT, Forwarded, MailReceipt, forward_claude, forward_claude_blocking},
    delivery::MAIL_HEADER,
    error::Error,
    evaluate::{
        Printed, Stream, claude_answer, claude_context, claude_event, claude_unreadable, evaluate, policy,
        unreadable_verdict,
    },
    listen::{DEFAULT_LISTEN, ServeOptions, ShutdownSignals, default_socket, ensure_token, serve, token_path},
    output::{RunOutput, exit_code},
    projects::config_error_sentence,
    routes::{
        BODY_LIMIT, EXIT_HEADER, FORM_HEADER, HookService, PROJECT_HEADER, STREAM_HEADER, ServiceOptions, hook_row,
    },
    trust_notice::{tells_untrusted, with_trust_notice},
};
