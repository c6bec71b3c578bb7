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
//!    (`aimon-hooks <name>`, one variant of hook-cli's `ClientCommand` and one arm of its
//!    `client_call`): both call the one pipeline (hook-host's `answer_call`) with the variant. A
//!    dialect whose payload names no event takes it on the command line
//!    ([`Client::command_call`], [`Client::command_answer`]).
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
    /// Google Gemini CLI (`@google/gemini-cli`).
    Gemini,
    /// Qwen Code (`@qwen-code/qwen-code`).
    Qwen,
    /// OpenAI Codex CLI (`@openai/codex`).
    Codex,
    /// GitHub Copilot CLI (`@github/copilot`), both its dialects (PascalCase and camelCase).
    Copilot,
}

impl Client {
    /// Every client, in the order the docs list them.
    pub const ALL: &'static [Client] = &[Client::Claude, Client::Gemini, Client::Qwen, Client::Codex, Client::Copilot];

    /// Its name: the CLI subcommand (`aimon-hooks claude`) and the route (`/v1/claude`).
    pub fn name(self) -> &'static str {
        match self {
            Client::Claude => "claude",
            Client::Gemini => "gemini",
            Client::Qwen => "qwen",
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
            Client::Gemini => Some(crate::gemini::PROJECT_DIR_ENV),
            Client::Qwen => Some(crate::qwen::PROJECT_DIR_ENV),
            Client::Codex => None,
            Client::Copilot => Some(crate::copilot::PROJECT_DIR_ENV),
        }
    }

    /// Reads a payload as the client meant it (leniently: see [`crate::parse_payload`]); `source`
    /// says where it came from, for the error sentence.
    pub fn parse(self, bytes: &[u8], source: &str) -> Result<Map<String, Value>, Error> {
        match self {
            Client::Claude => crate::read::parse_payload(bytes, source),
            Client::Gemini => crate::gemini::parse(bytes, source),
            Client::Qwen => crate::qwen::parse(bytes, source),
            Client::Codex => crate::codex::parse(bytes, source),
            Client::Copilot => crate::copilot::parse(bytes, source),
        }
    }

    /// The bytes of a command hook's call as [`Client::parse`] reads them: `stdin` as it came,
    /// or, when the handler names its event on the command line because the payload names none
    /// (`named`: `aimon-hooks copilot --event preToolUse`, Copilot's camelCase dialect), `stdin`
    /// wrapped with that event, so that it travels with the payload (to `serve` too) and is found
    /// even when the payload cannot be read. Only Copilot's handlers name one; other clients'
    /// bytes are kept as they came.
    pub fn command_call(self, named: Option<&str>, stdin: &[u8]) -> Vec<u8> {
        match (self, named) {
            (Client::Copilot, Some(event)) => crate::copilot::camel_call(event, stdin),
            _ => stdin.to_vec(),
        }
    }

    /// The answer in the form the handler that made the call reads: for a call whose event was
    /// named on the command line (see [`Client::command_call`]), Copilot's camelCase form
    /// (top-level keys only); else `answer` as it is.
    pub fn command_answer(self, named: Option<&str>, answer: Answer) -> Answer {
        match (self, named) {
            (Client::Copilot, Some(_)) => crate::copilot::camel_answer(answer),
            _ => answer,
        }
    }

    /// The event named in bytes that could not be read (all of them, or the prefix that was read).
    pub fn sniff(self, bytes: &[u8]) -> Option<HookEventType> {
        match self {
            Client::Claude | Client::Qwen => crate::claude::sniff(bytes),
            Client::Gemini => crate::gemini::sniff(bytes),
            Client::Codex => crate::claude::sniff(bytes),
            Client::Copilot => crate::copilot::sniff(bytes),
        }
    }

    /// The event a payload names: `Ok(None)` for one we lack (nothing to do: answer silently),
    /// `Err` with the client's refusal when it names none (the call may be one that vetoes).
    pub fn event(self, payload: &Map<String, Value>) -> Result<Option<HookEventType>, Answer> {
        match self {
            // Gemini's payload names our event once parsed (`gemini::parse` renames it).
            Client::Claude | Client::Gemini | Client::Qwen => crate::claude::event(payload),
            Client::Codex => crate::codex::event(payload),
            Client::Copilot => crate::copilot::event(payload),
        }
    }

    /// The working directory a payload names (a hint for the project of the call).
    pub fn cwd(self, payload: &Map<String, Value>) -> Option<&Path> {
        match self {
            Client::Claude | Client::Gemini => crate::claude::cwd(payload),
            Client::Qwen => crate::qwen::cwd(payload),
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
            Client::Claude | Client::Qwen => crate::claude::context(event, payload, project),
            Client::Gemini => crate::gemini::context(event, payload, project),
            Client::Codex => crate::codex::context(event, payload, project),
            Client::Copilot => crate::copilot::context(event, payload, project),
        }
    }

    /// A session file of the client read back as its hook calls (`path`: the file, as the
    /// payloads name it; `text`: its contents); `None` for a client whose sessions are not read
    /// (only Claude Code's transcripts and Codex's rollouts are).
    pub fn read_session(self, path: &str, text: &str) -> Option<crate::Session> {
        match self {
            Client::Claude => Some(crate::claude::read_transcript(path, text)),
            Client::Codex => Some(crate::codex::read_rollout(path, text)),
            Client::Gemini | Client::Qwen | Client::Copilot => None,
        }
    }

    /// The answer to a call of `event`: the verdict's, or the refusal/report of a failure to
    /// evaluate it (`error`, a sentence), with `extras` added where the event's channels carry
    /// them. Never fails. The flag says whether the answer carries `extras.mail`.
    pub fn answer(self, event: HookEventType, outcome: Result<&EventVerdict, &str>, extras: &Extras) -> (Answer, bool) {
        match self {
            Client::Claude | Client::Qwen => crate::claude::answer(event, outcome, extras),
            Client::Gemini => crate::gemini::answer(event, outcome, extras),
            Client::Codex => crate::codex::answer(event, outcome, extras),
            Client::Copilot => crate::copilot::answer(event, outcome, extras),
        }
    }

    /// The answer to a call whose payload could not be read (or, with `None`, whose event could
    /// not): refused where the event can veto, in the client's explicit form.
    pub fn unreadable(self, event: Option<HookEventType>, error: &str) -> Answer {
        match self {
            Client::Claude | Client::Qwen => crate::claude::unreadable(event, error),
            Client::Gemini => crate::gemini::unreadable(event, error),
            Client::Codex => crate::codex::unreadable(event, error),
            Client::Copilot => crate::copilot::unreadable(event, error),
        }
    }
}

impl Client {
    /// The settings file `init <client>` edits, relative to the home directory (user) or the
    /// project (`--project`); `None` for Claude Code, whose `init claude` has its own options.
    pub fn settings_file(self) -> Option<&'static str> {
        match self {
            Client::Claude | Client::Codex | Client::Copilot => None,
            Client::Gemini => Some(crate::gemini::SETTINGS_FILE),
            Client::Qwen => Some(crate::qwen::SETTINGS_FILE),
        }
    }

    /// The events `init <client>` routes, in the client's names: those the events table routes
    /// on init that the client fires.
    pub fn init_events(self) -> Vec<&'static str> {
        let ours = crate::claude::routed_events(&[]);
        match self {
            Client::Claude => ours,
            Client::Gemini => crate::gemini::init_events(&ours),
            Client::Qwen => crate::qwen::init_events(&ours),
            Client::Codex => crate::codex::ROUTED_EVENTS.to_vec(),
            Client::Copilot => ours,
        }
    }

    /// Routes the client's events to `binary <client>` in its parsed settings (our earlier entries
    /// replaced, everything else kept), or removes the routes.
    pub fn edit_settings(self, settings: &mut Value, binary: &str, remove: bool) -> Result<(), Error> {
        let route = crate::claude::command_route_for(binary, self.name());
        if remove {
            crate::claude::remove_routes(settings, &route)
        } else {
            crate::claude::add_routes(settings, &self.init_events(), &route)
        }
    }
}

impl std::fmt::Display for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
