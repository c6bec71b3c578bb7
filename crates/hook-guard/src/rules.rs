//! The rules an exec is checked against: the effective `deny` hooks on PreToolUse whose matcher
//! (and `if`) take a Bash call, asked about the exec read as one simple command.

use std::path::Path;
use std::sync::Arc;

use hook_config::{DeclarativeHook, HandlerAction};
use hook_core::{AnswerChannel, ExecutionHook, HookContext, HookEventType, MatchSubject, ToolCall};
use serde_json::json;

use crate::identity::Identities;

/// One deny rule: the hook and what it says.
#[derive(Debug)]
struct Rule {
    hook: Arc<DeclarativeHook>,
    reason: String,
}

/// Why an exec is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Denial {
    /// The hook's source (`project#0`).
    pub(crate) source: String,
    /// The hook's reason.
    pub(crate) reason: String,
}

/// The effective deny rules of the tiers.
#[derive(Debug, Default)]
pub(crate) struct Rules {
    rules: Vec<Rule>,
    /// Whether a rule may read the working directory (see [`may_read_paths`]).
    reads_cwd: bool,
    /// What the programs the rules name are on this machine (found on the guard's `PATH`).
    identities: Identities,
    /// The command's mount namespace hides the Read rules' paths ([`crate::Guard::with_files`]): an exec
    /// is refused by such a rule only where its argv names a protected path.
    pub(crate) hidden_by_kernel: bool,
}

impl Rules {
    /// The `deny` hooks among `hooks` of the events that decide a tool call's permission
    /// (PreToolUse, PermissionRequest: a tool-matched event whose answer is a permission), so a
    /// denied tool call is a denied exec (a hook built from an untrusted file counts:
    /// a restricting hook is never withheld; a rule in audit mode is only tried, and is not one).
    /// Command, http and mcp hooks are not rules here:
    /// they answer at parse time, and running one per exec is not what an exec can wait for.
    pub(crate) fn new<'a>(hooks: impl IntoIterator<Item = &'a (HookEventType, Arc<DeclarativeHook>)>) -> Self {
        let rules = hooks
            .into_iter()
            .filter(|(event, _)| {
                let spec = event.spec();
                spec.matcher == MatchSubject::Tool
                    && matches!(spec.answer, AnswerChannel::PermissionDecision | AnswerChannel::PermissionBehavior)
            })
            .filter_map(|(_, hook)| match &hook.handler().action {
                // A rule being tried (`"mode": "audit"`) is logged at parse time, not enforced.
                HandlerAction::Deny(spec) if !hook.audited() => {
                    Some(Rule { hook: hook.clone(), reason: spec.reason.clone() })
                }
                _ => None,
            })
            .collect::<Vec<Rule>>();
        let reads_cwd = rules.iter().any(|r| may_read_paths(r.hook.matcher()));
        let identities = match rules.is_empty() {
            true => Identities::default(),
            false => {
                let mut programs: Vec<String> = rules.iter().flat_map(|r| programs_named(r.hook.matcher())).collect();
                programs.sort();
                programs.dedup();
                Identities::resolve(&programs, std::env::var_os("PATH").as_deref())
            }
        };
        Rules { rules, reads_cwd, identities, hidden_by_kernel: false }
    }

    /// What the programs the rules name are (empty without rules).
    pub(crate) fn identities(&self) -> &Identities {
        &self.identities
    }

    /// Whether the working directory can change a verdict: a path rule (`Read(.env)`,
    /// `Edit(src/**)`: they cover the files a Bash command reads or writes, relative to its
    /// directory) is among the rules.
    pub(crate) fn reads_cwd(&self) -> bool {
        self.reads_cwd
    }

    /// Whether there are no rules at all.
    pub(crate) fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// The first rule that a Bash call of `command` (one simple command, its words quoted) run in
    /// `cwd` would meet. An uncertain match is a match. The command is an exec's argv, which the
    /// kernel bounds: it is read to its end, however long ([`hook_predicate::WholeArgv`]).
    pub(crate) fn check(&self, command: &str, cwd: Option<&Path>) -> Option<Denial> {
        self.first(command, cwd, |hook, ctx| hook.would_match(ctx))
    }

    /// The first rule that a Bash call of `script` (a shell's `-c` script, whole) run in `cwd`
    /// certainly meets. An uncertain match is none here: each program the script runs is an exec
    /// checked on its own; only what no single exec shows (a pipe into a shell) needs the whole.
    pub(crate) fn check_script(&self, script: &str, cwd: Option<&Path>) -> Option<Denial> {
        self.first(script, cwd, |hook, ctx| hook.would_match_certainly(ctx))
    }

    fn first(
        &self,
        command: &str,
        cwd: Option<&Path>,
        meets: impl Fn(&DeclarativeHook, &HookContext) -> bool,
    ) -> Option<Denial> {
        if self.rules.is_empty() {
            return None;
        }
        let _whole = hook_predicate::WholeArgv::enter();
        let mut ctx = HookContext::new(HookEventType::PRE_TOOL)
            .with_tool(ToolCall::new("Bash", json!({ "command": command })))
            .with_guard(self.hidden_by_kernel);
        ctx.cwd = cwd.map(Path::to_path_buf);
        self.rules
            .iter()
            .find(|r| meets(&r.hook, &ctx))
            .map(|r| Denial { source: r.hook.source().to_owned(), reason: r.reason.clone() })
    }
}

/// Whether `matcher` may hold a path rule: any `Name(` other than `Bash(` (a group's bare `(`
/// is not one). Errs on yes: a yes only costs reading the working directory.
fn may_read_paths(matcher: &str) -> bool {
    let bytes = matcher.as_bytes();
    bytes.iter().enumerate().filter(|(_, b)| **b == b'(').any(|(at, _)| {
        let start = bytes[..at].iter().rposition(|b| !(b.is_ascii_alphanumeric() || *b == b'_')).map_or(0, |p| p + 1);
        let name = &matcher[start..at];
        !name.is_empty() && name != "Bash"
    })
}

/// The programs a matcher's Bash patterns name: the first word of each `Bash(…)` (its basename),
/// unless it has a wildcard or is not a plain name (`Bash(git push:*)` names `git`).
fn programs_named(matcher: &str) -> Vec<String> {
    matcher
        .match_indices("Bash(")
        .filter(|(at, _)| !matcher[..*at].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_'))
        .filter_map(|(at, open)| {
            let rest = &matcher[at + open.len()..];
            let word = &rest[..rest.find([' ', ':', ')']).unwrap_or(rest.len())];
            let name = word.rsplit('/').next().unwrap_or(word);
            let plain = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '+');
            (!name.is_empty() && name.chars().all(plain)).then(|| name.to_owned())
        })
        .collect()
}

/// `words` as one shell command line: each word single-quoted unless it is plainly safe.
pub(crate) fn quote_line<S: AsRef<str>>(words: &[S]) -> String {
    let mut out = String::new();
    for (i, w) in words.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        quote_into(w.as_ref(), i == 0, &mut out);
    }
    out
}

/// Quotes `word`; a program name with `=` is quoted too, or the shell would read an assignment.
fn quote_into(word: &str, program: bool, out: &mut String) {
    let plain =
        |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/' | ',' | ':' | '@' | '%' | '+' | '=');
    if !word.is_empty() && word.chars().all(plain) && !(program && word.contains('=')) {
        out.push_str(word);
        return;
    }
    out.push('\'');
    for c in word.chars() {
        if c == '\'' {
            out.push_str("'\\''");
        } else {
            out.push(c);
        }
    }
    out.push('\'');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_matcher_may_read_paths_unless_each_of_its_calls_is_bash() {
        let cases: &[(&str, bool)] = &[
            ("Bash(git push:*)", false),
            ("Bash", false),
            ("Bash(rm -rf:*) || Bash(touch:*)", false),
            ("(Bash(rm:*) || Bash(mv:*)) && !Bash(ls:*)", false),
            ("Read(.env)", true),
            ("Bash(cat:*) || Edit(src/**)", true),
            ("Write(/etc/**)", true),
            ("mcp__fs__read(path=x)", true),
            ("Bash(command=x(y))", true),
        ];
        for (matcher, want) in cases {
            assert_eq!(may_read_paths(matcher), *want, "{matcher}");
        }
    }

    #[test]
    fn the_programs_a_matcher_names_are_the_first_words_of_its_bash_patterns() {
        let cases: &[(&str, &[&str])] = &[
            ("Bash(git push:*)", &["git"]),
            ("Bash(rm -rf:*) || Bash(/usr/bin/touch:*)", &["rm", "touch"]),
            ("Bash(git)", &["git"]),
            ("Bash", &[]),
            ("Bash(*push*)", &[]),
            ("Bash(gi* push:*)", &[]),
            ("Bash(command=x)", &[]),
            ("Read(.env) || MyBash(x)", &[]),
        ];
        for (matcher, want) in cases {
            assert_eq!(programs_named(matcher), *want, "{matcher}");
        }
    }

    #[test]
    fn a_word_is_quoted_unless_it_is_plainly_safe() {
        let cases: &[(&[&str], &str)] = &[
            (&["git", "push"], "git push"),
            (&["touch", "a b"], "touch 'a b'"),
            (&["echo", "it's"], "echo 'it'\\''s'"),
            (&["echo", ""], "echo ''"),
            (&["echo", "$(x)"], "echo '$(x)'"),
            (&["a=b"], "'a=b'"),
            (&["env", "a=b"], "env a=b"),
            (&["echo", "~"], "echo '~'"),
        ];
        for (words, line) in cases {
            assert_eq!(quote_line(words), *line);
        }
    }
}
