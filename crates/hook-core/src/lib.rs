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
