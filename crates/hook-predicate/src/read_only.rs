//! `@read-only`: a call shown to only read (issue 40), and [`read_only`], the same answer for a
//! Bash command with the reason when it is not.

use std::fmt;

use crate::field::bash_command;
use crate::predicate::{Call, ToolInputPredicate, Verdict};
use hook_shell::{Refusal, read_only as judge};

/// The atom of the matcher language that names the predicate.
pub(crate) const ATOM: &str = "@read-only";

/// Why a Bash command is not shown read-only.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct NotReadOnly {
    /// What kind of reason: one of a few fixed sentences (`a program not modelled read-only`,
    /// `an option that writes or runs`, `writes a file`, …), for counting.
    pub category: &'static str,
    /// What in the command (`make`, `sort -o`, the file written), possibly empty.
    pub detail: String,
}

impl fmt::Display for NotReadOnly {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.detail.is_empty() {
            f.write_str(self.category)
        } else {
            write!(f, "{}: {}", self.category, self.detail)
        }
    }
}

/// Whether every simple command of the Bash `command` is modelled as only reading: no write (a
/// redirection to `/dev/null` aside), no delete, no network, no program the model does not know,
/// no interpreter code, nothing the analysis cannot see through. `Ok` holds the base names of the
/// programs it runs; anything uncertain is `Err`. Protected paths are not judged here (a Read
/// deny rule matches such a command, and deny wins over allow).
pub fn read_only(command: &str) -> Result<Vec<String>, NotReadOnly> {
    judge(command).map_err(|Refusal { category, detail }| NotReadOnly { category, detail })
}

/// `@read-only`: a Bash call whose command is shown read-only ([`read_only`]), or a call of the
/// reading file tools (Read, Grep, Glob). Uncertain when the command could not be analysed with
/// certainty (an allow rule does not fire; a deny rule does), no match otherwise.
#[derive(Debug)]
pub(crate) struct ReadOnlyCall;

/// The file tools that only read.
const READING_TOOLS: &[&str] = &["Read", "Grep", "Glob"];

impl ToolInputPredicate for ReadOnlyCall {
    fn verdict(&self, call: &Call<'_>) -> Verdict {
        if READING_TOOLS.contains(&call.tool_name) {
            return Verdict::from_bool(call.input.is_object());
        }
        if call.tool_name != "Bash" {
            return Verdict::NoMatch;
        }
        let command = match bash_command(call.input) {
            Ok(Some(command)) => command,
            Ok(None) => return Verdict::NoMatch,
            Err(_) => return Verdict::Uncertain,
        };
        match judge(command) {
            Ok(_) => Verdict::Match,
            Err(r) if r.category == hook_shell::UNCERTAIN => Verdict::Uncertain,
            Err(_) => Verdict::NoMatch,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::{PathAnchors, Verdict, parse};

    fn verdict(pattern: &str, tool: &str, input: serde_json::Value) -> Verdict {
        let p = parse(pattern, &PathAnchors::new("/project")).unwrap();
        p.verdict(&crate::Call::new(tool, &input))
    }

    #[test]
    fn the_atom_matches_read_only_bash_and_the_reading_file_tools_only() {
        let cases = [
            ("Bash", json!({"command": "git log --oneline -3"}), Verdict::Match),
            ("Bash", json!({"command": "ls"}), Verdict::Match),
            ("Bash", json!({"command": "rm -r x"}), Verdict::NoMatch),
            ("Bash", json!({"command": "git commit -m x"}), Verdict::NoMatch),
            ("Bash", json!({"command": "echo $x 'open"}), Verdict::Uncertain),
            // bash refuses the line: nothing runs, nothing to approve.
            ("Bash", json!({"command": "echo 'open"}), Verdict::NoMatch),
            ("Bash", json!({"command": 7}), Verdict::Uncertain),
            ("Bash", json!({"command": "ls", "shell": "fish"}), Verdict::Uncertain),
            ("Read", json!({"file_path": "a.txt"}), Verdict::Match),
            ("Grep", json!({"pattern": "x"}), Verdict::Match),
            ("Edit", json!({"file_path": "a.txt"}), Verdict::NoMatch),
            ("WebFetch", json!({"url": "https://example.com"}), Verdict::NoMatch),
        ];
        for (tool, input, expect) in cases {
            assert_eq!(verdict("@read-only", tool, input.clone()), expect, "{tool} {input}");
        }
    }

    #[test]
    fn the_atom_composes_like_any_other() {
        assert_eq!(verdict("Bash & @read-only", "Read", json!({"file_path": "a"})), Verdict::NoMatch);
        assert_eq!(verdict("Bash & @read-only", "Bash", json!({"command": "pwd"})), Verdict::Match);
        assert_eq!(verdict("(@read-only)", "Bash", json!({"command": "pwd"})), Verdict::Match);
        // Not the atom: a longer name is a regex on the tool name, as before.
        assert_eq!(verdict("@read-only-x", "Bash", json!({"command": "pwd"})), Verdict::NoMatch);
    }
}
