//! What a `prompt` or `agent` handler declares, and the model endpoint the person configures.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// Claude Code's default deadline of a `prompt` hook.
pub const PROMPT_TIMEOUT: Duration = Duration::from_secs(30);
/// Claude Code's default deadline of an `agent` hook.
pub const AGENT_TIMEOUT: Duration = Duration::from_secs(60);
/// The turns an `agent` hook may take when it declares none (Claude Code's 50).
pub const AGENT_MAX_TURNS: u32 = 50;

/// The wire API of a model endpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ModelApi {
    /// The Anthropic Messages API: `POST {baseUrl}/v1/messages`, key in `x-api-key`.
    Anthropic,
    /// An OpenAI-compatible Chat Completions API: `POST {baseUrl}/chat/completions`, key as a
    /// bearer token.
    Openai,
}

impl ModelApi {
    /// The base URL when none is configured.
    pub fn default_base_url(self) -> &'static str {
        match self {
            ModelApi::Anthropic => "https://api.anthropic.com",
            ModelApi::Openai => "https://api.openai.com/v1",
        }
    }

    /// The key variable when none is configured.
    pub fn default_key_env(self) -> &'static str {
        match self {
            ModelApi::Anthropic => "ANTHROPIC_API_KEY",
            ModelApi::Openai => "OPENAI_API_KEY",
        }
    }
}

/// Where `prompt` and `agent` hooks send their question: the top-level `model` of the person's
/// own `~/.aimon/hooks.json`. The key is never written down: `keyEnv` names the environment
/// variable holding it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[non_exhaustive]
pub struct ModelEndpoint {
    /// `anthropic` or `openai`.
    pub api: ModelApi,
    /// The API's base URL; the API's public one by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
    /// The model a hook without its own `model` asks.
    #[schemars(pattern(r"\S"))]
    pub model: String,
    /// The environment variable holding the key (`ANTHROPIC_API_KEY` or `OPENAI_API_KEY` by
    /// default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key_env: Option<String>,
}

impl ModelEndpoint {
    /// An endpoint of `api` asking `model`, at the API's public URL, the key in its usual variable.
    pub fn new(api: ModelApi, model: impl Into<String>) -> Self {
        ModelEndpoint { api, base_url: None, model: model.into(), key_env: None }
    }

    /// Sets the base URL.
    pub fn with_base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = Some(url.into());
        self
    }

    /// Sets the key variable.
    pub fn with_key_env(mut self, name: impl Into<String>) -> Self {
        self.key_env = Some(name.into());
        self
    }

    pub(crate) fn url(&self) -> String {
        let base = self.base_url.as_deref().unwrap_or(self.api.default_base_url()).trim_end_matches('/');
        match self.api {
            ModelApi::Anthropic => format!("{base}/v1/messages"),
            ModelApi::Openai => format!("{base}/chat/completions"),
        }
    }

    pub(crate) fn key_env(&self) -> &str {
        self.key_env.as_deref().unwrap_or(self.api.default_key_env())
    }
}

/// Whether the project's own rules let an `agent` hook's tool read a path: `Some(reason)` when a
/// rule refuses `Read` of it. Given the tool name and its input (`{"file_path": …}`).
pub type ReadGate = Arc<dyn Fn(&str, &serde_json::Value) -> Option<String> + Send + Sync>;

/// A `prompt` hook: one question to the model, `$ARGUMENTS` standing for the hook's input JSON.
///
/// Its serde and schema form is the `prompt` handler's own fields in hooks.json; `timeout` and
/// `failClosed` are the handler's common fields, which hook-config owns.
#[derive(Debug, Clone, PartialEq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct PromptSpec {
    /// The question; `$ARGUMENTS` is the hook input JSON (appended when absent), `\$` a literal `$`.
    #[schemars(pattern(r"\S"))]
    pub prompt: String,
    /// The model to ask instead of the endpoint's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// `ok: false` blocks with the reason handed to the agent instead of ending its turn.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub continue_on_block: bool,
    /// The hook's deadline; `None` = [`PROMPT_TIMEOUT`].
    #[serde(skip)]
    pub timeout: Option<Duration>,
    /// Block on decision events when the model gives no usable answer.
    #[serde(skip)]
    pub fail_closed: bool,
}

impl PromptSpec {
    /// A prompt hook asking `prompt` of the endpoint's model.
    pub fn new(prompt: impl Into<String>) -> Self {
        PromptSpec { prompt: prompt.into(), model: None, continue_on_block: false, timeout: None, fail_closed: false }
    }

    /// Sets the model.
    pub fn with_model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// Sets `continueOnBlock`.
    pub fn with_continue_on_block(mut self, on: bool) -> Self {
        self.continue_on_block = on;
        self
    }
}

crate::answer::spec_setters!(PromptSpec);

/// An `agent` hook: the model may read the project (Read, Grep, Glob) for up to `maxTurns` turns
/// before it answers `{ok, reason}`; `ok: false` blocks as a prompt hook with `continueOnBlock`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct AgentSpec {
    /// The task; `$ARGUMENTS` as for a prompt hook.
    #[schemars(pattern(r"\S"))]
    pub prompt: String,
    /// The model to ask instead of the endpoint's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The most model turns; [`AGENT_MAX_TURNS`] by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub max_turns: Option<u32>,
    /// The hook's deadline; `None` = [`AGENT_TIMEOUT`].
    #[serde(skip)]
    pub timeout: Option<Duration>,
    /// Block on decision events when the model gives no usable answer.
    #[serde(skip)]
    pub fail_closed: bool,
}

impl AgentSpec {
    /// An agent hook with task `prompt`.
    pub fn new(prompt: impl Into<String>) -> Self {
        AgentSpec { prompt: prompt.into(), model: None, max_turns: None, timeout: None, fail_closed: false }
    }

    /// Sets the model.
    pub fn with_model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// Sets `maxTurns`.
    pub fn with_max_turns(mut self, turns: u32) -> Self {
        self.max_turns = Some(turns);
        self
    }
}

crate::answer::spec_setters!(AgentSpec);

/// What an agent hook may read: the project root and the project's read rules.
#[derive(Clone)]
pub struct AgentScope {
    pub(crate) root: PathBuf,
    pub(crate) gate: ReadGate,
}

impl AgentScope {
    /// Reads under `root` only, each path first asked of `gate`.
    pub fn new(root: impl Into<PathBuf>, gate: ReadGate) -> Self {
        AgentScope { root: root.into(), gate }
    }
}

impl std::fmt::Debug for AgentScope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentScope").field("root", &self.root).finish_non_exhaustive()
    }
}
