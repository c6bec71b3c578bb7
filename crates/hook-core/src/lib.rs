//! `hook-core`: the engine of the aimon hook system.
//!
//! A hook is code that runs at a fixed point of an agent's loop and answers with a
//! [`HookResult`]: two independent axes ([`Decision`], [`FlowControl`]) plus side channels
//! (updated input/output, feedback for the model, rewake specs). This crate owns:
//!
//! - the events table ([`HookEventType`], [`EventSpec`]): every event, one declaration each;
//!   every other layer iterates it (R-EVT, R-LAYER-4);
//! - the context a hook sees ([`HookContext`]) and the [`ExecutionHook`] trait;
//! - the registry ([`HookRegistry`]): five operations, atomic snapshots, managed groups (R-REG);
//! - the executor and its policy ([`HookExecutor`], [`HookExecutionPolicy`], R-EXEC);
//! - feedback collection and rendering ([`HookFeedback`], R-RES-5);
//! - the call-site chains an agent loop calls ([`HookEngine`], R-CHAIN);
//! - the [`RewakeSpec`] value type and the [`RewakeSink`] a rewake service implements.
//!
//! It knows nothing about files, JSON configuration, processes or the network: it must not
//! depend on reqwest, rmcp, notify, croner, globset, serde-saphyr or rusqlite (`cargo xtask
//! check-layers` enforces this). Unit tests sit next to the code; `tests/` holds the chain and
//! executor specs; `benches/dispatch.rs` measures dispatch overhead.
//!
//! An agent loop registers hooks and asks the pre-tool chain before every tool call:
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! use hook_core::{CancellationToken, FnHook, HookContext, HookEngine, HookEventType, HookRegistry};
//! use hook_core::{HookResult, PreToolOutcome, ToolCall};
//! use serde_json::json;
//! use std::sync::Arc;
//!
//! let registry = Arc::new(HookRegistry::new());
//! registry.register(HookEventType::PRE_TOOL, FnHook::new("no-curl", |ctx: HookContext| async move {
//!     let curl = ctx.tool.as_ref().is_some_and(|t| t.input["command"].as_str() == Some("curl"));
//!     Ok(if curl { HookResult::deny("no network") } else { HookResult::allow() })
//! }));
//! let engine = HookEngine::new(registry);
//! let ctx = HookContext::new(HookEventType::PRE_TOOL).with_tool(ToolCall::new("Bash", json!({"command": "curl"})));
//! match engine.pre_tool(&ctx, &CancellationToken::new()).await.outcome {
//!     PreToolOutcome::Cancelled { reason, .. } => assert_eq!(reason, "no network"),
//!     other => panic!("not denied: {other:?}"),
//! }
//! # }
//! ```
#![deny(missing_docs)]

mod chains;
mod context;
mod error;
mod events;
mod executor;
mod feedback;
mod hook;
mod layout;
mod policy;
mod registry;
mod result;
mod rewake;

pub use crate::{
    chains::{
        BLOCKED_REASON, Chained, CompactTrigger, DEFAULT_CONTINUATION_CAP, EventVerdict, HookEngine, PermissionOutcome,
        PostToolOutcome, PreCompactOutcome, PreToolOutcome, StopOutcome, Verdict,
    },
    context::{HookContext, RewakeInvocation, ToolCall},
    error::Error,
    events::{
        AnswerChannel, DecisionChannel, EventNameError, EventSpec, FeedbackRoute, HandlerKind, HookEventType,
        MailChannel, MatchSubject, OnFailure, UNSUPPORTED_EVENT_NAMES,
    },
    executor::{ExecutionReport, HookExecutor, HookRun, INTERRUPTED_REASON},
    feedback::{FEEDBACK_REMINDER_KEY, HookFeedback},
    hook::{ExecutionHook, FnHook, HookFuture},
    layout::AimonDir,
    policy::{ExecutionMode, HookExecutionPolicy, OnException},
    registry::{HookRegistry, RegistrySnapshot},
    result::{Decision, FlowControl, HookResult},
    rewake::{RewakeRequest, RewakeSink, RewakeSpec, RewakeTrigger},
};
pub use tokio_util::sync::CancellationToken;
