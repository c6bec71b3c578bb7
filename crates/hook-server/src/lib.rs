//! `hook-server`: the `aimon-hooks serve` daemon as a library — one long-running hook engine for
//! every project of a person, reachable over HTTP. HTTP only: what a call means and how it is
//! answered is hook-host's pipeline and hook-wire's client modules.
//!
//! - [`HookService`]: per-project engines loaded on first use, kept current by hook-config's hot
//!   reload (tiers) and a stamp check of `mcp.json` and the trust store, evicted
//!   least-recently-used past 64; MCP sessions stay open between calls; hook work is bounded per
//!   project and in all, excess waits. It is the daemon's [`hook_host::Host`]: `POST /v1/<client>`
//!   runs [`hook_host::answer_call`] on it. [`HookService::router`] gives the routes
//!   (`/v1/run/{event}`, `/v1/<client>` and `/v1/<client>/ack` for each [`hook_wire::Client`],
//!   `/v1/health`, `/v1/hooks`, `/metrics`, `/v1/stream`: rewake fires as server-sent events)
//!   with their limits as layers, so an embedder can mount them in its own server.
//! - [`serve`]: the daemon — a Unix socket (mode 0600) and optional loopback TCP behind the bearer
//!   token of [`ensure_token`], slow clients cut off, graceful shutdown on [`ShutdownSignals`]
//!   (last, every command hook of the process still running is killed: hook-actions'
//!   `HookProcessGroups`); rewake on the store of `--store` (a shared PostgreSQL store with the `postgres` feature,
//!   waited for when it is down at start).
//! - [`forward`]: the forwarding client of `aimon-hooks <client>` for the socket: first the daemon
//!   proves on the connection that it is the person's own (its peer credentials, an HMAC of a
//!   fresh nonce under the token, its home and mode: [`Forwarded::Unproven`] otherwise, within
//!   [`PROOF_TIMEOUT`]), then the payload's bytes as read (the daemon reads them once); an answer
//!   carrying session mail comes with a [`MailReceipt`] to redeem once it is printed.
//!
//! Metrics use `prometheus-client` (docs/decisions.md says why). Layer 5: above hook-host,
//! hook-config and hook-actions, below hook-cli; the crates below must not pull axum, tower-http
//! or prometheus-client. Tests: unit tests next to the code; `tests/` run the daemon in process
//! (warm MCP sessions, mail, shutdown); hook-cli's `tests/cli/serve.rs` drives the binary's
//! daemon over its socket and TCP; `benches/` holds the load benchmark.
//!
//! Mounting the routes in an app of your own, behind your own authentication (the runnable
//! version is `examples/embed-server`):
//!
//! ```no_run
//! # #[tokio::main] async fn main() -> std::io::Result<()> {
//! use axum::{Router, extract::Request, http::StatusCode, middleware::{self, Next}, response::Response};
//! use hook_server::{HookService, ServiceOptions};
//!
//! async fn api_key(request: Request, next: Next) -> Result<Response, StatusCode> {
//!     match request.headers().get("x-api-key") {
//!         Some(key) if key == "secret" => Ok(next.run(request).await),
//!         _ => Err(StatusCode::UNAUTHORIZED),
//!     }
//! }
//!
//! let hooks = HookService::new(ServiceOptions::new(std::env::var_os("HOME").map(Into::into), std::env::current_dir()?));
//! let app = Router::new().nest("/hooks", hooks.router().layer(middleware::from_fn(api_key)));
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
//! axum::serve(listener, app).await
//! # }
//! ```
#![warn(missing_docs)]

mod auth;
mod client;
mod delivery;
mod error;
mod form;
mod listen;
mod metrics;
mod projects;
mod proof;
mod routes;
mod store;
mod token;

pub use crate::{
    client::{CONNECT_TIMEOUT, ForwardHints, Forwarded, MailReceipt, PROOF_TIMEOUT, forward, forward_blocking},
    delivery::MAIL_HEADER,
    error::Error,
    listen::{DEFAULT_LISTEN, ServeOptions, ShutdownSignals, default_socket, serve},
    routes::{
        BASE_HEADER, BODY_LIMIT, EXIT_HEADER, FORM_HEADER, HookService, PROJECT_HEADER, ServiceOptions, hook_row,
    },
    token::{ensure_token, token_path},
};
