//! The client seam: one variant per agent client whose hook wire we speak.
//!
//! # Adding a client
//!
//! 1. Write its wire as one module beside `claude/` (payload keys, the event a payload names,
//!    payload → [`HookContext`] with its tool names mapped onto the matchers' vocabulary and its
//!    own name kept as `client_tool_name`, verdict → [`Answer`], its refusal of what it cannot
//!    read, its settings for `init`), and spell its keys nowhere else.
//! 2. Add a variant here and one arm to each method below (the compiler lists them).
//! 3. Add its route (`POST /v1/<name>`, one line in hook-server's router) and its subcommand
//!    (`aimon-hooks <name>`, one line in hook-cli's command enum): both call the one pipeline
//!    (hook-host's `answer_call`) with the variant.
//!
//! Everything else (the project, the engine, trust, dispatch, rewake mail) is the pipeline's and
//! the events table's, the same for every client.

use std::path::Path;

use hook_core::{EventVerdict, HookContext, HookEventType};
use serde_json::{Map, Value};

use crate::answer::{Answer, Extras};
use crate::error::Error;

/// An agent client: which wire a hook call speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Client {
    /// Claude Code (`@anthropic-ai/claude-code`).
    Claude,
    /// OpenAI Codex CLI (`@openai/codex`).
    Codex,
    /// GitHub Copilot CLI (`@github/copilot`), its PascalCase dialect.
    Copilot,
}

impl Client {
    /// Every client, in the order the docs list them.
    pub const ALL: &'static [Client] = &[Client::Claude, Client::Codex, Client::Copilot];

    /// Its name: the CLI subcommand (`aimon-hooks claude`) and the route (`/v1/claude`).
    pub fn name(self) -> &'static str {
        match self {
            Client::Claude => "claude",
            Client::Codex => "codex",
            Client::Copilot => "copilot",
        }
    }

    /// The client whose name is `name`.
    pub fn named(name: &str) -> Option<Client> {
        Client::ALL.iter().copied().find(|c| c.name() == name)
    }

    /// The environment variable in which the client tells a command hook its project directory
    /// (sent to the daemon as a header by a forwarding command); `None` where it sets none (the
    /// payload's `cwd` names the project).
    pub fn project_dir_env(self) -> Option<&'static str> {
        match self {
            Client::Claude => Some(crate::claude::PROJECT_DIR_ENV),
            Client::Codex => None,
            Client::Copilot => Some(crate::copilot::PROJECT_DIR_ENV),
        }
    }

    /// Reads a payload as the client meant it (leniently: see [`crate::parse_payload`]); `source`
    /// says where it came from, for the error sentence.
    pub fn parse(self, bytes: &[u8], source: &str) -> Result<Map<String, Value>, Error> {
        match self {
            Client::Claude | Client::Codex | Client::Copilot => crate::read::parse_payload(bytes, source),
        }
    }

    /// The event named in bytes that could not be read (all of them, or the prefix that was read).
    pub fn sniff(self, bytes: &[u8]) -> Option<HookEventType> {
        match self {
            Client::Claude | Client::Codex | Client::Copilot => crate::claude::sniff(bytes),
        }
    }

    /// The event a payload names: `Ok(None)` for one we lack (nothing to do: answer silently),
    /// `Err` with the client's refusal when it names none (the call may be one that vetoes).
    pub fn event(self, payload: &Map<String, Value>) -> Result<Option<HookEventType>, Answer> {
        match self {
            Client::Claude => crate::claude::event(payload),
            Client::Codex => crate::codex::event(payload),
            Client::Copilot => crate::copilot::event(payload),
        }
    }

    /// The working directory a payload names (a hint for the project of the call).
    pub fn cwd(self, payload: &Map<String, Value>) -> Option<&Path> {
        match self {
            Client::Claude => crate::claude::cwd(payload),
            Client::Codex => crate::codex::cwd(payload),
            Client::Copilot => crate::copilot::cwd(payload),
        }
    }

    /// The context of a call of `event` in `project`.
    pub fn context(
        self,
        event: HookEventType,
        payload: Map<String, Value>,
        project: &Path,
    ) -> Result<HookContext, Error> {
        match self {
            Client::Claude => crate::claude::context(event, payload, project),
            Client::Codex => crate::codex::context(event, payload, project),
            Client::Copilot => crate::copilot::context(event, payload, project),
        }
    }

    /// The answer to a call of `event`: the verdict's, or the refusal/report of a failure to
    /// evaluate it (`error`, a sentence), with `extras` added where the event's channels carry
    /// them. Never fails. The flag says whether the answer carries `extras.mail`.
    pub fn answer(self, event: HookEventType, outcome: Result<&EventVerdict, &str>, extras: &Extras) -> (Answer, bool) {
        match self {
            Client::Claude => crate::claude::answer(event, outcome, extras),
            Client::Codex => crate::codex::answer(event, outcome, extras),
            Client::Copilot => crate::copilot::answer(event, outcome, extras),
        }
    }

    /// The answer to a call whose payload could not be read (or, with `None`, whose event could
    /// not): refused where the event can veto, in the client's explicit form.
    pub fn unreadable(self, event: Option<HookEventType>, error: &str) -> Answer {
        match self {
            Client::Claude => crate::claude::unreadable(event, error),
            Client::Codex => crate::codex::unreadable(event, error),
            Client::Copilot => crate::copilot::unreadable(event, error),
        }
    }
}

impl std::fmt::Display for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
