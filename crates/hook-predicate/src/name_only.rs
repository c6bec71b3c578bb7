//! NameOnly: the tool name (or event subject) alone (R-PRED-2).

use crate::pattern::Pattern;

use crate::predicate::{Call, ToolInputPredicate, Verdict};

/// Matches on the name: anything, a list of exact names, or an unanchored regex.
#[derive(Debug)]
pub(crate) enum NameOnly {
    Any,
    Exact(Vec<String>),
    Regex(Pattern),
}

impl ToolInputPredicate for NameOnly {
    fn verdict(&self, call: &Call<'_>) -> Verdict {
        let tool_name = call.tool_name;
        Verdict::from_bool(match self {
            NameOnly::Any => true,
            NameOnly::Exact(names) => names.iter().any(|n| n == tool_name),
            NameOnly::Regex(re) => re.is_match(tool_name),
        })
    }
}
