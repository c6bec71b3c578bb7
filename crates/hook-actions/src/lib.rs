//! `hook-actions`: the four declarative actions of the aimon hook system, each an
//! [`hook_core::ExecutionHook`] a Rust embedder can register on its own.
//!
//! - [`ShellAction`] (`command`): `sh -c` verbatim in its own process group; context goes out of
//!   band (one-line JSON on stdin, `AIMON_*` env, both from one map); exit codes and Claude Code
//!   JSON stdout decide (R-ACT-SH, R-CC-1/2/4).
//! - [`HttpAction`] (`http`): one process-wide reqwest client; headers and body rendered by the
//!   template renderer; bounded response (R-ACT-HTTP).
//! - [`McpAction`] (`mcp`): a tool on a server of [`McpServers`] (Claude Code `.mcp.json` shape,
//!   stdio or streamable HTTP, `${VAR}` expanded), sessions opened lazily, reused, restarted after
//!   a crash or two unanswered calls in a row (R-ACT-MCP, REL-5).
//! - [`DenyAction`] (`deny`): an immediate denial (R-ACT-DENY-1).
//!
//! [`HookProcessGroups`] lists the process groups of the command hooks running in this process, so a
//! process told to go away can kill them all (R-CLI-11).
//!
//! [`render_template`] is the `${tool_input.X}` / `${env.X}` / `${context.X}` renderer (R-ACT-TPL);
//! it applies to http and mcp only, never to a shell command. Every transport ends in the same
//! internal reply (an answer, or "no usable decision" with its cause), mapped once onto the event's
//! decision channel; `failClosed` turns a missing decision into a block on decision events (R-CFG-4c).
//!
//! The three transports share one internal shape: `shell/`, `http/`, `mcp/` each hold `spec.rs`
//! (the public spec), `transport.rs` (the only code that talks to the outside) and `mod.rs` (the
//! action). All rmcp use sits in `mcp/transport.rs`.
//!
//! Must not depend on notify, serde-saphyr or rusqlite, nor on any workspace crate but hook-core
//! and hook-wire (whose Claude Code output keys the answer parser reads).
//! Tests: unit tests next to the code; `tests/shell.rs`, `tests/http.rs` (real processes, a real
//! server on 127.0.0.1) and `tests/mcp.rs` (an rmcp server as child process and over HTTP);
//! `benches/actions.rs` measures hook overhead against a direct spawn and a bare reqwest call.

mod answer;
mod deny;
mod error;
mod http;
mod mcp;
mod payload;
mod shell;
mod template;

pub use crate::{
    answer::{DEFAULT_TIMEOUT, MAX_REASON_CHARS},
    deny::{DenyAction, DenySpec},
    error::Error,
    http::{HttpAction, HttpBody, HttpSpec},
    mcp::{McpAction, McpServers, McpSpec},
    shell::{HookProcessGroups, ShellAction, ShellSpec},
    template::render_template,
};
