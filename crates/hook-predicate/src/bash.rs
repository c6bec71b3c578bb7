//! BashSubcommand: rules on the subcommands of Bash's `command` argument (R-PRED-2, R-PRED-4).

use crate::pattern::Pattern;
use serde_json::Value;

use crate::predicate::ToolInputPredicate;
use crate::shell::{self, View};

/// What a BashSubcommand rule looks for in a command.
#[derive(Debug)]
pub(crate) enum CommandRule {
    /// `Bash(command=re)`: the regex, searched in the whole command and in every subcommand view.
    Regex(Pattern),
    /// `Bash(git push:*)`, `Bash(git push *)`, `Bash(npm test)`: a word pattern on every subcommand view.
    Words(WordRule),
}

/// Matches the Bash tool when its `command` argument satisfies the rule.
#[derive(Debug)]
pub(crate) struct BashSubcommand {
    rule: CommandRule,
}

impl BashSubcommand {
    pub(crate) fn new(rule: CommandRule) -> Self {
        BashSubcommand { rule }
    }
}

impl ToolInputPredicate for BashSubcommand {
    fn test(&self, tool_name: &str, input: &Value) -> bool {
        if tool_name != "Bash" {
            return false;
        }
        let Some(command) = input.get("command").and_then(Value::as_str) else { return false };
        match &self.rule {
            CommandRule::Regex(re) => regex_matches_command(re, command),
            CommandRule::Words(rule) => shell::with_analysis(command, |a| {
                a.uncertain
                    || a.views.iter().any(|v| rule.matches_view(v))
                    || a.code.iter().any(|code| rule.mentioned_in(code))
            }),
        }
    }
}

/// A regex on a Bash command: the whole command, then each subcommand view. A command that cannot be
/// analysed with certainty matches (R-PRED-4); so does one whose innermost command has a word of
/// unknown value, unless its certain start already rules the regex out (`cd $DIR` never matches
/// `^rm`; `rm $FLAGS /` may). Interpreter code (`python -c '…'`) matches when it names a program the
/// regex can start with (R-PRED-4c).
pub(crate) fn regex_matches_command(re: &Pattern, command: &str) -> bool {
    let unsure = |v: &View| v.innermost && v.has_unknown() && re.may_match_text_starting_with(v.known_prefix());
    re.is_match(command)
        || shell::with_analysis(command, |a| {
            a.uncertain
                || a.views.iter().any(|v| unsure(v) || re.is_match(&v.text))
                || a.code.iter().any(|code| re.mentioned_in(code))
        })
}

/// Whether `name` occurs in `code` as a word of its own (`git` in `os.system('git push')`, not in
/// `digital`).
pub(crate) fn names(code: &str, name: &str) -> bool {
    let word = |c: char| c.is_alphanumeric() || matches!(c, '_' | '-');
    !name.is_empty()
        && code.match_indices(name).any(|(at, _)| {
            !code[..at].chars().next_back().is_some_and(word)
                && !code[at + name.len()..].chars().next().is_some_and(word)
        })
}

/// A permission-rule word pattern: literal words, `*` wildcards, and the prefix forms `… :*` / `… *`.
#[derive(Debug)]
pub(crate) struct WordRule {
    /// The literal words before the first wildcard (what an unknown word is checked against).
    head: Vec<String>,
    /// The whole rule, anchored, over words joined by single spaces.
    re: Pattern,
}

impl WordRule {
    /// Reads a rule body such as `git push:*`. The body is split into words like a shell command
    /// (quotes removed); it must be a single simple command.
    pub(crate) fn new(body: &str) -> Result<Self, String> {
        let mut words = shell::split_words(body).ok_or("a Bash rule holds one simple command")?;
        let mut prefix = false;
        if let Some(last) = words.last_mut() {
            if let Some(stripped) = last.strip_suffix(":*") {
                *last = stripped.to_owned();
                prefix = true;
            } else if last == "*" && words.len() > 1 {
                words.pop();
                prefix = true;
            }
        }
        words.retain(|w| !w.is_empty());
        let re = if words.is_empty() {
            String::from("(?s)^.*$")
        } else {
            let pattern: Vec<String> =
                words.iter().map(|w| w.split('*').map(regex::escape).collect::<Vec<_>>().join(".*")).collect();
            format!("(?s)^{}{}$", pattern.join(" "), if prefix { "(?: .*)?" } else { "" })
        };
        let re = Pattern::new(&re).map_err(|e| e.to_string())?;
        let head = words.into_iter().take_while(|w| !w.contains('*')).collect();
        Ok(WordRule { head, re })
    }

    /// Whether interpreter code names the program this rule is about (any code, for a rule that
    /// starts with a wildcard).
    fn mentioned_in(&self, code: &str) -> bool {
        self.head.first().is_none_or(|program| names(code, shell::basename(program)))
    }

    fn matches_view(&self, view: &View) -> bool {
        if view.innermost && view.has_unknown() {
            // A word of unknown value: match unless a known word already contradicts the rule.
            for (i, literal) in self.head.iter().enumerate() {
                match view.words.get(i) {
                    None => return view.more_args,
                    Some(w) if !w.known => return true,
                    Some(w) if w.text != *literal => return false,
                    Some(_) => {}
                }
            }
            return true;
        }
        self.re.is_match(&view.text)
    }
}
