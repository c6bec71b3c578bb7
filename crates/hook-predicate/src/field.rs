//! Input-field tests: `Tool(field=regex)` and `input.<path>~regex` (R-PRED-3), and how every
//! matcher reads a field that should hold a string.

use crate::pattern::Pattern;
use serde_json::Value;

use crate::predicate::{Call, ToolInputPredicate, Verdict};

/// The Bash tool's command.
pub(crate) const COMMAND_KEY: &str = "command";

/// On a Bash call: what reads the command's text when that is not certainly a POSIX shell
/// (hook-wire gives Copilot's `powershell` `"powershell"`, and text typed into a running program
/// `"input"`). Present with any value but `"bash"`, every rule on the command is uncertain: a deny
/// holds, an allow does not.
pub(crate) const SHELL_KEY: &str = "shell";

/// On a Bash call: the directory it runs in, relative to the call's `cwd` (hook-wire gives Gemini
/// CLI's and Qwen Code's `run_shell_command` its `directory`).
pub(crate) const DIR_KEY: &str = "cwd";

/// The input keys that carry a file tool's path, in the order they are looked up.
pub(crate) const PATH_KEYS: [&str; 3] = ["file_path", "notebook_path", "path"];

/// Grep's glob of the files it searches, and Glob's pattern.
pub(crate) const GREP_GLOB_KEY: &str = "glob";
pub(crate) const GLOB_PATTERN_KEY: &str = "pattern";

/// The input keys whose value is a string wherever a matcher reads them: a value of another type
/// (a number, an array, an object, `null`) cannot be shown harmless, so a rule reading it is
/// uncertain.
const STRING_KEYS: [&str; 7] =
    [COMMAND_KEY, DIR_KEY, PATH_KEYS[0], PATH_KEYS[1], PATH_KEYS[2], GREP_GLOB_KEY, GLOB_PATTERN_KEY];

/// One field of a tool input that should hold a string, as a matcher reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Text<'v> {
    /// Not in the input (or no input at all).
    Missing,
    /// A string.
    Str(&'v str),
    /// Something else, or an input that is not an object (`null` included: a tool call's input
    /// that is missing is an empty object): uncertain for every rule reading it.
    Wrong,
}

/// `input[key]` read as a string field.
pub(crate) fn text<'v>(input: &'v Value, key: &str) -> Text<'v> {
    let Value::Object(map) = input else { return Text::Wrong };
    match map.get(key) {
        None => Text::Missing,
        Some(Value::String(s)) => Text::Str(s),
        Some(_) => Text::Wrong,
    }
}

/// Whether a Bash call's text may be read by something other than a POSIX shell ([`SHELL_KEY`]).
pub(crate) fn foreign_shell(input: &Value) -> bool {
    input.get(SHELL_KEY).is_some_and(|shell| shell.as_str() != Some("bash"))
}

/// A Bash call's command: `Ok(None)` when it names none, `Err` with the verdict of every rule on
/// it when it cannot be read as a shell command (a value that is not a string, or a foreign shell).
pub(crate) fn bash_command(input: &Value) -> Result<Option<&str>, Verdict> {
    match text(input, COMMAND_KEY) {
        Text::Missing => Ok(None),
        Text::Wrong => Err(Verdict::Uncertain),
        Text::Str(_) if foreign_shell(input) => Err(Verdict::Uncertain),
        Text::Str(command) => Ok(Some(command)),
    }
}

/// A dotted path into the tool input; a numeric segment also indexes an array (`edits.0.old_string`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FieldPath(Vec<String>);

impl FieldPath {
    pub(crate) fn new(segments: Vec<String>) -> Self {
        FieldPath(segments)
    }

    pub(crate) fn is_command(&self) -> bool {
        self.0.len() == 1 && self.0[0] == COMMAND_KEY
    }

    /// Whether the field is one of [`STRING_KEYS`] at the input's top level.
    fn holds_a_string(&self) -> bool {
        matches!(self.0.as_slice(), [key] if STRING_KEYS.contains(&key.as_str()))
    }

    fn lookup<'v>(&self, input: &'v Value) -> Option<&'v Value> {
        self.0.iter().try_fold(input, |value, segment| match value {
            Value::Object(map) => map.get(segment),
            Value::Array(items) => segment.parse::<usize>().ok().and_then(|i| items.get(i)),
            _ => None,
        })
    }
}

/// The regex is searched (unanchored) in the field's value. A string is tested as it is; any other
/// value as its compact JSON text (`600`, `true`, `null`, `["a","b"]`), and, when it does not match
/// and the field should hold a string ([`STRING_KEYS`]), the test is uncertain. A missing field
/// never matches. On the Bash tool, `command` is tested whole and per subcommand (R-PRED-4).
#[derive(Debug)]
pub(crate) struct FieldMatch {
    path: FieldPath,
    re: Pattern,
}

impl FieldMatch {
    pub(crate) fn new(path: FieldPath, re: Pattern) -> Self {
        FieldMatch { path, re }
    }
}

impl ToolInputPredicate for FieldMatch {
    fn verdict(&self, call: &Call<'_>) -> Verdict {
        if call.tool_name == "Bash" && self.path.is_command() {
            return match bash_command(call.input) {
                Ok(Some(command)) => self.re.verdict_on_command(command),
                Ok(None) => Verdict::NoMatch,
                Err(unsure) => unsure,
            };
        }
        match self.path.lookup(call.input) {
            Some(Value::String(s)) => Verdict::from_bool(self.re.is_match(s)),
            Some(other) => {
                let shown = match other {
                    Value::Bool(b) => self.re.is_match(if *b { "true" } else { "false" }),
                    Value::Null => self.re.is_match("null"),
                    _ => self.re.is_match(&other.to_string()),
                };
                if shown {
                    Verdict::Match
                } else if self.path.holds_a_string() {
                    Verdict::Uncertain
                } else {
                    Verdict::NoMatch
                }
            }
            None => Verdict::NoMatch,
        }
    }
}
