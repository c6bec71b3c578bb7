//! The public trait, the call it looks at and its three-valued answer (R-PRED-1).

use std::path::Path;

use serde_json::Value;

pub(crate) use hook_shell::Verdict;

/// A compiled matcher: does this tool call (or event subject) match?
///
/// Tool events: the tool name and its input. Events without a tool (R-PRED-4b): the config layer
/// passes the event's match subject (e.g. `"manual"`, `"startup"`, an agent type) as `tool_name` and
/// `&serde_json::Value::Null` as input; name-only patterns then match that subject.
pub trait ToolInputPredicate: Send + Sync + std::fmt::Debug {
    /// Whether the call matches, and whether only because the analysis could not show otherwise.
    /// Never panics, whatever the input.
    fn verdict(&self, call: &Call<'_>) -> Verdict;

    /// Whether the call matches (an uncertain match is a match), with relative paths in the input
    /// taken from the project root. Never panics, whatever the input.
    fn test(&self, tool_name: &str, input: &Value) -> bool {
        self.verdict(&Call::new(tool_name, input)).matches()
    }
}

/// One tool call as a predicate sees it.
#[derive(Debug, Clone, Copy)]
pub struct Call<'a> {
    /// The tool's name in Claude Code's vocabulary (`Bash`, `Read`, `mcp__server__tool`, …), or the
    /// event's match subject.
    pub tool_name: &'a str,
    /// The tool input (`Value::Null` for an event without a tool).
    pub input: &'a Value,
    /// The directory the call runs in (the payload's `cwd`): relative paths in the input, and the
    /// paths a Bash command names, are taken from here. `None`: the project root.
    pub cwd: Option<&'a Path>,
    /// Whether the kernel hides the paths of the rule being tested from the command (the
    /// exec-time guard's mounts): a Read rule then matches a Bash command only where its text
    /// names a protected path, and leaves what it may reach by other names (a walk, a name
    /// known at run time, a glob) to the kernel.
    pub hidden_by_kernel: bool,
}

impl<'a> Call<'a> {
    /// A call without a working directory of its own.
    pub fn new(tool_name: &'a str, input: &'a Value) -> Self {
        Call { tool_name, input, cwd: None, hidden_by_kernel: false }
    }

    /// The same call, whose command runs where the kernel hides the rule's paths from it
    /// ([`Call::hidden_by_kernel`]).
    pub fn hidden_by_kernel(self, hidden: bool) -> Self {
        Call { hidden_by_kernel: hidden, ..self }
    }

    /// The same call run in `cwd`.
    pub fn in_dir(self, cwd: Option<&'a Path>) -> Self {
        Call { cwd, ..self }
    }
}

/// Several things one call does (the paths it touches, the directories it may run in), each
/// tested: a match when all of them match, no match when none does, else uncertain (a deny holds,
/// an allow does not). Nothing at all to test is uncertain: what the call does was not read.
pub(crate) fn of_each(verdicts: impl IntoIterator<Item = Verdict>) -> Verdict {
    let (mut any, mut all, mut some) = (false, true, false);
    for verdict in verdicts {
        any = true;
        all &= verdict == Verdict::Match;
        some |= verdict != Verdict::NoMatch;
    }
    match (any, all, some) {
        (false, _, _) => Verdict::Uncertain,
        (true, true, _) => Verdict::Match,
        (true, false, true) => Verdict::Uncertain,
        (true, false, false) => Verdict::NoMatch,
    }
}
