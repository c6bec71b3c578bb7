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
//! - [`PromptAction`] (`prompt`) and [`AgentAction`] (`agent`): a question to the model the
//!   person configured ([`ModelEndpoint`]: the Anthropic Messages API or an OpenAI-compatible
//!   Chat Completions API, the key read from a named environment variable), answered
//!   `{ok, reason}`; an agent hook may first read the project with Read, Grep and Glob, each path
//!   asked of the project's read rules ([`ReadGate`]).
//!
//! [`HookProcessGroups`] lists the process groups of the command hooks running in this process, so a
//! process told to go away can kill them all (R-CLI-11).
//!
//! [`render_template`] is the `${tool_input.X}` / `${env.X}` / `${context.X}` renderer (R-ACT-TPL);
//! it applies to http and mcp only, never to a shell command. Every transport ends in the same
//! internal reply (an answer, or "no usable decision" with its cause), mapped once onto the event's
//! decision channel; `failClosed` turns a missing decision into a block on decision events (R-CFG-4c).
//!
//! The transports share one internal shape: `shell/`, `http/`, `mcp/`, `prompt/` each hold `spec.rs`
//! (the public spec), `transport.rs` (the only code that talks to the outside) and `mod.rs` (the
//! action or actions; `prompt/` adds `verdict.rs`, the `{ok, reason}` answer, and `tools.rs`, the
//! agent's tools). All rmcp use sits in `mcp/transport.rs`.
//!
//! A command hook registered like any other hook: it gets the call as JSON on stdin and as
//! `AIMON_*` variables, and exit 2 vetoes with its stderr as the reason.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! use std::sync::Arc;
//! use hook_actions::{ShellAction, ShellSpec};
//! use hook_core::{CancellationToken, HookContext, HookEngine, HookEventType, HookRegistry, PreToolOutcome, ToolCall};
//! use serde_json::json;
//!
//! let spec = ShellSpec::new(r#"[ "$AIMON_TOOL_NAME" != Bash ] || { echo "no shell here" >&2; exit 2; }"#);
//! let registry = Arc::new(HookRegistry::new());
//! registry.register(HookEventType::PRE_TOOL, Arc::new(ShellAction::new("command@project#0", "project#0", spec)));
//! let engine = HookEngine::new(registry);
//! let call = |tool: &str| HookContext::new(HookEventType::PRE_TOOL).with_tool(ToolCall::new(tool, json!({})));
//!
//! match engine.pre_tool(&call("Bash"), &CancellationToken::new()).await.outcome {
//!     PreToolOutcome::Cancelled { reason, .. } => assert_eq!(reason, "no shell here"),
//!     other => panic!("not vetoed: {other:?}"),
//! }
//! let read = engine.pre_tool(&call("Read"), &CancellationToken::new()).await.outcome;
//! assert!(matches!(read, PreToolOutcome::Proceed { .. }), "{read:?}");
//! # }
//! ```
//!
//! Must not depend on notify, serde-saphyr or rusqlite, nor on any workspace crate but hook-core
//! and hook-wire (whose Claude Code output keys the answer parser reads).
//! Tests: unit tests next to the code; `tests/shell.rs`, `tests/http.rs` (real processes, a real
//! server on 127.0.0.1) and `tests/mcp.rs` (an rmcp server as child process and over HTTP);
//! `benches/actions.rs` measures hook overhead against a direct spawn and a bare reqwest call.
#![warn(missing_docs)]

mod answer;
mod deny;
mod error;
mod http;
mod mcp;
mod payload;
mod prompt;
mod shell;
mod template;

pub use crate::{
    answer::{DEFAULT_TIMEOUT, MAX_REASON_CHARS},
    deny::{DenyAction, DenySpec},
    error::Error,
    http::{HttpAction, HttpBody, HttpSpec},
    mcp::{McpAction, McpServers, McpSpec},
    prompt::{
        AGENT_MAX_TURNS, AGENT_TIMEOUT, AgentAction, AgentScope, AgentSpec, ModelApi, ModelEndpoint, PROMPT_TIMEOUT,
        PromptAction, PromptSpec, ReadGate,
    },
    shell::{HookProcessGroups, ShellAction, ShellSpec},
    template::render_template,
};
