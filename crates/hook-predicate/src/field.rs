//! Input-field tests: `Tool(field=regex)` and `input.<path>~regex` (R-PRED-3).

use crate::pattern::Pattern;
use serde_json::Value;

use crate::bash::regex_matches_command;
use crate::predicate::{Call, ToolInputPredicate, Verdict};

/// A dotted path into the tool input; a numeric segment also indexes an array (`edits.0.old_string`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FieldPath(Vec<String>);

impl FieldPath {
    pub(crate) fn new(segments: Vec<String>) -> Self {
        FieldPath(segments)
    }

    pub(crate) fn is_command(&self) -> bool {
        self.0.len() == 1 && self.0[0] == "command"
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
/// value as its compact JSON text (`600`, `true`, `null`, `["a","b"]`). A missing field never matches.
/// On the Bash tool, `command` is tested whole and per subcommand (R-PRED-4).
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
        Verdict::from_bool(match self.path.lookup(call.input) {
            Some(Value::String(s)) if call.tool_name == "Bash" && self.path.is_command() => {
                return regex_matches_command(&self.re, s);
            }
            Some(Value::String(s)) => self.re.is_match(s),
            Some(Value::Bool(b)) => self.re.is_match(if *b { "true" } else { "false" }),
            Some(Value::Null) => self.re.is_match("null"),
            Some(other) => self.re.is_match(&other.to_string()),
            None => false,
        })
    }
}
