//! `hook-wire`: the hook wire of each agent client, one module per client, behind one seam.
//!
//! An agent client runs a hook with a payload and reads its answer from stdout, stderr and the
//! exit code (a command hook) or a response body (an http hook). Each client's module holds both
//! directions of its contract; [`Client`] is the seam the one pipeline (hook-host) calls:
//!
//! - [`Client`]: one variant per client (`claude`, `gemini`, `qwen`, `codex`, `copilot`), with `parse`, `sniff`, `event`, `cwd`,
//!   `context`, `answer` and `unreadable`; its doc says how to add a client;
//! - [`Answer`]: the client-neutral answer (stdout, stderr, exit code, http body); [`Extras`]:
//!   what the pipeline adds (the trust notice, rewake mail);
//! - [`codex`]: OpenAI Codex CLI's wire (Claude Code's, with the safe readings of the answers
//!   Codex refuses, its `apply_patch` read as the `Edit`/`Write` of the paths the patch names,
//!   and the trusted hashes `init codex` writes);
//! - [`copilot`]: GitHub Copilot CLI's two wires: PascalCase (Claude Code's, with the decision
//!   also at the top level) and camelCase (its own, whose payload names no event), and its hooks
//!   file for `init copilot`;
//! - [`claude`]: Claude Code's wire, all of it, including its settings editing for `init claude`
//!   and the output keys ([`claude::Key`], [`claude::Word`]) hook-actions reads a hook's answer
//!   with;
//! - shared by every client: [`parse_payload`] (lenient JSON: lone surrogates, any depth, bytes
//!   that are not UTF-8), [`project_dir`] (which project a call belongs to) and the reading of a
//!   client's tool call in the matcher vocabulary (each client's module has one table of its
//!   tools and of the arguments the matchers read under another key);
//! - [`Session`]: a client's recorded session (Claude Code's transcripts, Codex's rollouts) read
//!   back as the hook calls it made, each with the payload the client sends
//!   ([`Client::read_session`]), for `replay` to run through [`Client::context`] as a live call;
//! - [`routing_files`]: every client settings file that routes hooks (what `init` writes and what
//!   self-protection keeps out of the agent's reach), with the paths `init` writes named once.
//!
//! Which events carry mail, a trust notice or a route on `init` is the events table's
//! (hook-core); this crate only spells it in each client's keys. It knows nothing about files
//! beyond walking up to a project root, nothing about configuration, processes or the network.
//! Tests sit next to the code.
//!
//! One call from Claude Code, through the seam: read the payload, find its event and context,
//! let the engine decide, and answer in Claude Code's words.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! use std::{path::Path, sync::Arc};
//! use hook_core::{CancellationToken, FnHook, HookContext, HookEngine, HookEventType, HookRegistry, HookResult};
//! use hook_wire::{Client, Extras};
//!
//! let client = Client::named("claude").expect("a client");
//! let bytes = br#"{"hook_event_name": "PreToolUse", "session_id": "s1", "cwd": "/work/app",
//!                  "tool_name": "Bash", "tool_input": {"command": "git push --force"}}"#;
//! let payload = client.parse(bytes, "stdin").expect("valid JSON");
//! let event = client.event(&payload).expect("names an event").expect("one we handle");
//! assert_eq!(event, HookEventType::PRE_TOOL);
//! assert_eq!(client.cwd(&payload), Some(Path::new("/work/app")));
//! let ctx = client.context(event, payload, Path::new("/work/app")).expect("a context");
//! assert_eq!(ctx.tool.as_ref().map(|t| t.name.as_str()), Some("Bash"));
//!
//! let registry = Arc::new(HookRegistry::new());
//! registry.register(HookEventType::PRE_TOOL, FnHook::new("no-force", |_: HookContext| async {
//!     Ok(HookResult::deny("force pushes are reviewed"))
//! }));
//! let verdict = HookEngine::new(registry).run_event(&ctx, &CancellationToken::new()).await;
//!
//! let (answer, carried_mail) = client.answer(event, Ok(&verdict), &Extras::default());
//! assert!(!carried_mail);
//! assert_eq!(answer.exit, 0, "the decision is in the JSON on stdout");
//! let json: serde_json::Value = serde_json::from_str(&answer.stdout).expect("JSON");
//! assert_eq!(json["hookSpecificOutput"]["permissionDecision"], "deny");
//! assert_eq!(json["hookSpecificOutput"]["permissionDecisionReason"], "force pushes are reviewed");
//! # }
//! ```
#![warn(missing_docs)]

mod answer;
pub mod claude;
mod client;
pub mod codex;
pub mod copilot;
mod error;
mod gemini;
mod project;
mod qwen;
mod read;
mod routing;
mod session;
mod tool_args;

pub use crate::{
    answer::{Answer, Extras},
    client::Client,
    error::Error,
    project::{ProjectHints, project_dir},
    read::{MAX_DEPTH, parse_payload, payload_reads},
    routing::{
        CLAUDE_LOCAL_SETTINGS, CLAUDE_SETTINGS, CODEX_CONFIG, CODEX_DIR, CODEX_HOOKS, COPILOT_HOOKS, codex_home,
        routing_files,
    },
    session::{Happened, RecordedCall, Session},
};
