//! The `prompt` and `agent` actions: a question to a model the person configured, answered
//! `{ok, reason}`.

mod spec;
mod tools;
mod transport;
mod verdict;

use std::sync::Arc;
use std::time::Duration;

use hook_core::HookContext;

pub use self::spec::{
    AGENT_MAX_TURNS, AGENT_TIMEOUT, AgentScope, AgentSpec, ModelApi, ModelEndpoint, PROMPT_TIMEOUT, PromptSpec,
    ReadGate,
};
use self::transport::Message;
use crate::answer::{self, Reply};
use crate::payload::Payload;

/// Why a model hook without an endpoint fails.
const NO_ENDPOINT: &str = "no model endpoint: set 'model' in your own ~/.aimon/hooks.json";

/// A prompt hook: asks the endpoint's model the rendered prompt and maps its `{ok, reason}` per
/// event. An unreachable model, an answer that is not `{ok: bool}` or a timeout is "no usable
/// decision" (WARN and proceed, or block when `failClosed`).
#[derive(Debug, Clone)]
pub struct PromptAction {
    id: String,
    source: String,
    spec: PromptSpec,
    endpoint: Option<Arc<ModelEndpoint>>,
}

impl PromptAction {
    /// A prompt hook with `id`, registered from `source`, asking `endpoint` (`None`: every call
    /// fails, since no model is configured).
    pub fn new(
        id: impl Into<String>,
        source: impl Into<String>,
        spec: PromptSpec,
        endpoint: Option<Arc<ModelEndpoint>>,
    ) -> Self {
        PromptAction { id: id.into(), source: source.into(), spec, endpoint }
    }

    fn default_timeout() -> Duration {
        PROMPT_TIMEOUT
    }

    async fn call(&self, ctx: &HookContext) -> Reply {
        let Some(endpoint) = &self.endpoint else { return Reply::Failed(NO_ENDPOINT.to_owned()) };
        let question = question(&self.spec.prompt, ctx, &self.source);
        let model = self.spec.model.as_deref().unwrap_or(&endpoint.model);
        let turn = match transport::ask(endpoint, model, verdict::SYSTEM, &[Message::User(question)], &[]).await {
            Ok(turn) => turn,
            Err(cause) => return Reply::Failed(cause),
        };
        match verdict::read(&turn.text) {
            Ok(said) => Reply::Answer(verdict::answer(said, ctx.event, self.spec.continue_on_block)),
            Err(cause) => Reply::Failed(cause),
        }
    }
}

/// An agent hook: the model may call Read, Grep and Glob over the project (each path asked of
/// the project's read rules first) for up to `maxTurns` turns, then answers `{ok, reason}`,
/// mapped as a prompt hook's with `continueOnBlock`. Running out of turns or time, an unreachable
/// model or a garbage answer is "no usable decision".
#[derive(Debug, Clone)]
pub struct AgentAction {
    id: String,
    source: String,
    spec: AgentSpec,
    endpoint: Option<Arc<ModelEndpoint>>,
    scope: AgentScope,
}

impl AgentAction {
    /// An agent hook with `id`, registered from `source`, asking `endpoint`, reading in `scope`.
    pub fn new(
        id: impl Into<String>,
        source: impl Into<String>,
        spec: AgentSpec,
        endpoint: Option<Arc<ModelEndpoint>>,
        scope: AgentScope,
    ) -> Self {
        AgentAction { id: id.into(), source: source.into(), spec, endpoint, scope }
    }

    fn default_timeout() -> Duration {
        AGENT_TIMEOUT
    }

    async fn call(&self, ctx: &HookContext) -> Reply {
        let Some(endpoint) = &self.endpoint else { return Reply::Failed(NO_ENDPOINT.to_owned()) };
        let model = self.spec.model.as_deref().unwrap_or(&endpoint.model);
        let tools = tools::definitions();
        let mut messages = vec![Message::User(question(&self.spec.prompt, ctx, &self.source))];
        let turns = self.spec.max_turns.unwrap_or(AGENT_MAX_TURNS);
        for _ in 0..turns {
            let turn = match transport::ask(endpoint, model, verdict::SYSTEM, &messages, &tools).await {
                Ok(turn) => turn,
                Err(cause) => return Reply::Failed(cause),
            };
            if turn.calls.is_empty() {
                return match verdict::read(&turn.text) {
                    Ok(said) => Reply::Answer(verdict::answer(said, ctx.event, true)),
                    Err(cause) => Reply::Failed(cause),
                };
            }
            let results =
                turn.calls.iter().map(|c| (c.id.clone(), tools::run(&self.scope, &c.name, &c.input))).collect();
            messages.push(Message::Assistant { text: turn.text, calls: turn.calls });
            messages.push(Message::Results(results));
        }
        Reply::Failed(format!("the agent gave no answer in {turns} turns"))
    }
}

/// The hook's prompt with `$ARGUMENTS` standing for its input JSON.
fn question(prompt: &str, ctx: &HookContext, source: &str) -> String {
    let input = Payload::new(ctx, source).body();
    verdict::render(prompt, &String::from_utf8_lossy(&input))
}

/// The `ExecutionHook` of a model action: [`answer::run`] around `call`, under the handler's
/// timeout or the kind's default (Claude Code's 30 s for prompt, 60 s for agent).
macro_rules! model_hook {
    ($action:ty) => {
        impl $action {
            fn budget(&self) -> Duration {
                self.spec.timeout.unwrap_or_else(Self::default_timeout)
            }
        }

        impl hook_core::ExecutionHook for $action {
            fn id(&self) -> &str {
                &self.id
            }

            fn source(&self) -> &str {
                &self.source
            }

            fn execution_budget(&self) -> Option<Duration> {
                Some(self.budget())
            }

            fn execute<'a>(&'a self, ctx: &'a HookContext) -> hook_core::HookFuture<'a> {
                Box::pin(async move {
                    let deadline = self.budget().min(hook_core::HookExecutionPolicy::MAX_DECLARED_BUDGET);
                    Ok(answer::run(&self.id, ctx, self.spec.fail_closed, deadline, self.call(ctx)).await)
                })
            }
        }
    };
}

model_hook!(PromptAction);
model_hook!(AgentAction);
