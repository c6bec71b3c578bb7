//! BashSubcommand: rules on the subcommands of Bash's `command` argument (R-PRED-2, R-PRED-4).

use crate::field::bash_command;
use crate::pattern::{self, Pattern};
use crate::predicate::{Call, ToolInputPredicate, Verdict};
use hook_shell::{self as shell, View};

/// What a BashSubcommand rule looks for in a command.
#[derive(Debug)]
pub(crate) enum CommandRule {
    /// `Bash(command=re)`: the regex, searched in the whole command and in every subcommand view.
    Regex(Pattern),
    /// `Bash(git push:*)`, `Bash(git push *)`, `Bash(npm test)`: a word pattern on every subcommand view.
    Words(WordRule),
}

/// Matches the Bash tool when its `command` argument satisfies the rule; a command that is not a
/// string, or text a shell other than a POSIX one reads, is uncertain.
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
    fn verdict(&self, call: &Call<'_>) -> Verdict {
        if call.tool_name != "Bash" {
            return Verdict::NoMatch;
        }
        let command = match bash_command(call.input) {
            Ok(Some(command)) => command,
            Ok(None) => return Verdict::NoMatch,
            Err(unsure) => return unsure,
        };
        match &self.rule {
            CommandRule::Regex(re) => re.verdict_on_command(command),
            CommandRule::Words(rule) => shell::with_analysis(command, shell::Need::Views, |a| {
                let views = a.views.iter().fold(Verdict::NoMatch, |acc, v| acc.or(rule.matches_view(v)));
                if views != Verdict::NoMatch {
                    views
                } else if a.uncertain || a.code.iter().chain(&a.opaque).any(|code| rule.mentioned_in(code)) {
                    Verdict::Uncertain
                } else {
                    Verdict::NoMatch
                }
            }),
        }
    }
}

/// The regex of a rule's words (each escaped, `*` a wildcard), over words joined by single spaces;
/// with `prefix`, more words may follow.
fn rule_regex(words: &[String], prefix: bool) -> String {
    if words.is_empty() {
        return String::from("(?s)^.*$");
    }
    let pattern: Vec<String> =
        words.iter().map(|w| w.split('*').map(regex::escape).collect::<Vec<_>>().join(".*")).collect();
    format!("(?s)^{}{}$", pattern.join(" "), if prefix { "(?: .*)?" } else { "" })
}

/// A permission-rule word pattern: literal words, `*` wildcards, and the prefix forms `… :*` / `… *`.
#[derive(Debug)]
pub(crate) struct WordRule {
    /// The literal words before the first wildcard (what an unknown word is checked against).
    head: Vec<String>,
    /// The whole rule, anchored, over words joined by single spaces.
    re: Pattern,
    /// The rule read as program, subcommand, options and operands, which other spellings of the
    /// same options match (`rm -fr` for `rm -rf:*`); `None` when it has no such reading.
    spelling: Option<shell::Spelling>,
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
        let spelling = shell::Spelling::new(&words, prefix);
        let re = rule_regex(&words, prefix);
        // Every match starts with the rule's text up to its first wildcard.
        let joined = words.join(" ");
        let re = Pattern::written(&re, joined.split('*').next().unwrap_or_default());
        let re = if words.is_empty() || joined.contains('*') { re } else { re.literally(&joined, prefix) };
        let head = words.into_iter().take_while(|w| !w.contains('*')).collect();
        Ok(WordRule { head, re, spelling })
    }

    /// Whether interpreter code names the program this rule is about (any code, for a rule that
    /// starts with a wildcard).
    fn mentioned_in(&self, code: &str) -> bool {
        self.head.first().is_none_or(|program| pattern::names(code, shell::basename(program)))
    }

    fn matches_view(&self, view: &View) -> Verdict {
        if self.re.is_match(&view.text) {
            return Verdict::Match;
        }
        if let Some(verdict) = self.spelling.as_ref().and_then(|s| s.verdict(&view.words, view.more_args)) {
            return verdict;
        }
        if view.innermost && view.has_unknown() {
            // A word of unknown value: match unless a known word already contradicts the rule.
            for (i, literal) in self.head.iter().enumerate() {
                match view.words.get(i) {
                    None => return if view.more_args { Verdict::Uncertain } else { Verdict::NoMatch },
                    Some(w) if !w.known => return Verdict::Uncertain,
                    Some(w) if w.text != *literal => return Verdict::NoMatch,
                    Some(_) => {}
                }
            }
            return Verdict::Uncertain;
        }
        Verdict::NoMatch
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        /// The rule's own start literal (its text up to the first wildcard) only ever skips the regex
        /// for texts the regex would not match.
        #[test]
        fn a_rules_start_literal_never_changes_what_its_regex_matches(
            body in "(git|npm|rm|ls|g\\*t|\"a b\"|\\*|-rf|p\\*sh|\\.)( (git|push|run|-f|\\*|x\\*y|\\(|\\$)){0,3}(:\\*| \\*)?",
            text in "(git|npm|rm|ls|gat|a b|-rf|push|psh|\\.)?( ?(git|push|run|-f|xzy|\\(|\\$|a b|\\.)){0,4}",
        ) {
            let Ok(rule) = WordRule::new(&body) else { return Ok(()) };
            let full = regex::Regex::new(rule.re.source()).expect("the rule's regex compiles");
            prop_assert_eq!(rule.re.is_match(&text), full.is_match(&text), "{} on {:?}", body, text);
        }
    }

    #[test]
    fn a_rule_without_wildcards_matches_as_text_and_never_compiles_its_regex() {
        let cases = [
            ("git push:*", "git push", true),
            ("git push:*", "git push origin main", true),
            ("git push:*", "git pushx", false),
            ("git push:*", "git push\nrm -rf /", false),
            ("git push", "git push origin", false),
            ("git push", "git push", true),
            ("\"a b\" c:*", "a b c d", true),
        ];
        for (body, text, want) in cases {
            let rule = WordRule::new(body).expect(body);
            let full = regex::Regex::new(rule.re.source()).expect("the rule's regex compiles");
            assert_eq!((rule.re.is_match(text), full.is_match(text)), (want, want), "{body} on {text:?}");
            assert!(rule.re.compiled().is_none(), "{body}: matched without the regex");
        }
    }

    #[test]
    fn a_rules_start_literal_is_its_text_up_to_the_first_wildcard() {
        let cases = [
            ("git push:*", "git push", vec!["git push", "git push origin main"], vec!["git pull", "echo git push"]),
            ("npm run te*t", "npm run te", vec!["npm run test", "npm run text"], vec!["npm run build"]),
            ("*", "", vec!["anything at all"], vec![]),
            ("rm -rf *", "rm -rf", vec!["rm -rf /", "rm -rf"], vec!["rm -r /"]),
        ];
        for (body, literal, yes, no) in cases {
            let rule = WordRule::new(body).expect(body);
            for text in yes {
                assert!(rule.re.is_match(text) && text.starts_with(literal), "{body} on {text}");
            }
            for text in no {
                assert!(!rule.re.is_match(text), "{body} on {text}");
            }
        }
    }
}
