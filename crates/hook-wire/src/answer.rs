//! The client-neutral answer: what a command hook prints and exits with, and what an http hook's
//! response body holds. Each client's wire module fills it in its own form.

use std::path::PathBuf;

use serde_json::Value;

/// A client's answer to one hook call, in both forms a client can read it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Answer {
    /// What a command hook prints on stdout (exact bytes, final newline included; empty: nothing).
    pub stdout: String,
    /// What a command hook prints on stderr (exact bytes, final newline included).
    pub stderr: String,
    /// A command hook's exit code.
    pub exit: u8,
    /// The body of an http hook's response (always a 200); `None`: an empty body.
    pub http: Option<Value>,
}

impl Answer {
    /// Nothing to say: exit 0, no output, an empty body.
    pub fn is_silent(&self) -> bool {
        self.stdout.is_empty() && self.stderr.is_empty() && self.exit == 0 && self.http.is_none()
    }
}

/// What the pipeline adds to a verdict's answer besides the verdict itself.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Extras {
    /// The project's untrusted hooks were skipped (or would have run) on this call: the project
    /// and the command that trusts it (e.g. `run 'aimon-hooks trust --project DIR'`).
    pub untrusted: Option<(PathBuf, String)>,
    /// The session's rewake mail, joined into one text, for an event whose channel carries it.
    pub mail: Option<String>,
}

/// The sentence telling the person that `project`'s hooks were skipped and how to trust them.
pub(crate) fn trust_notice(project: &std::path::Path, trust_command: &str) -> String {
    format!(
        "aimon-hooks: the hooks of {} are not trusted, so their command, http, mcp, prompt and agent handlers were skipped; review them, then {trust_command} to trust them",
        project.display()
    )
}
