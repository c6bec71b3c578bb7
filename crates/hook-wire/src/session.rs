//! Recorded sessions: a client's own record of a session (Claude Code's transcripts, Codex's
//! rollouts), read back as the hook calls the client made or would have made, each with the
//! payload the client sends its hooks. `aimon-hooks replay` runs them through
//! [`crate::Client::context`] like any live call, so a recorded call and a live one cannot be read
//! differently.
//!
//! Each client's reader sits in its module (`claude::transcript`, `codex::rollout`) and reads
//! text: where the files are is the caller's.

use hook_core::HookEventType;
use serde_json::{Map, Value};

use crate::claude::PayloadKey;

/// The key of a prompt's text (UserPromptSubmit).
pub(crate) const PROMPT: &str = "prompt";

/// A session file read back: its calls in order, and the lines that could not be read.
#[derive(Debug, Default)]
pub struct Session {
    /// The calls, in the order the client made them.
    pub calls: Vec<RecordedCall>,
    /// The lines that could not be read: (1-based line number, why).
    pub unreadable: Vec<(usize, String)>,
}

/// One hook call of a recorded session.
#[derive(Debug, Clone)]
pub struct RecordedCall {
    /// The line of the session file that recorded it (1-based).
    pub line: usize,
    /// The line's timestamp (RFC 3339), when it has one.
    pub time: Option<String>,
    /// The event the client fires for it.
    pub event: HookEventType,
    /// The hook payload the client sends for it, in the client's own keys and tool names.
    pub payload: Map<String, Value>,
    /// What became of the call in the session.
    pub happened: Happened,
}

/// What became of a call in a recorded session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Happened {
    /// It went on (the tool ran, the prompt was taken, the turn ended).
    Ran,
    /// The call was refused (by a hook or a person), with the text the model was shown.
    Denied(String),
    /// No result was recorded (the session ended first).
    Unknown,
}

impl RecordedCall {
    /// The tool's name, as the client sends it (a tool event's).
    pub fn tool_name(&self) -> Option<&str> {
        self.payload.get(PayloadKey::TOOL_NAME).and_then(Value::as_str)
    }

    /// What the call was about: the tool's input, else the prompt.
    pub fn input(&self) -> Option<&Value> {
        self.payload.get(PayloadKey::TOOL_INPUT).or_else(|| self.payload.get(PROMPT))
    }

    /// The session it belongs to.
    pub fn session(&self) -> Option<&str> {
        self.payload.get(PayloadKey::SESSION_ID).and_then(Value::as_str)
    }
}

impl Session {
    pub(crate) fn bad(&mut self, line: usize, error: impl Into<String>) {
        self.unreadable.push((line, error.into()));
    }
}

/// A call of `event` recorded on `line` at `time`, with `fields` and the keys every call carries.
pub(crate) fn call(
    line: usize,
    time: Option<&Value>,
    event: HookEventType,
    fields: Map<String, Value>,
) -> RecordedCall {
    RecordedCall {
        line,
        time: time.and_then(Value::as_str).map(str::to_owned),
        event,
        payload: fields,
        happened: Happened::Ran,
    }
}

/// A payload's fields from pairs.
pub(crate) fn fields<const N: usize>(pairs: [(&str, Value); N]) -> Map<String, Value> {
    pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
}
