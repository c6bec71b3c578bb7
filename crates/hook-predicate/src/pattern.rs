//! A user regex with a cheap pre-check (R-PRED-6), compiled on first use (PERF-6).
//!
//! Most matcher regexes are anchored (`^git\s+push`, every path glob): a match must begin with one of
//! a few literal strings. Checking those with `starts_with` first skips the regex engine for almost
//! every non-matching text, which is what a tool call tested against many predicates mostly sees.
//!
//! Loading a pattern only parses it (the syntax check the regex engine would make, with the same
//! settings), which is what tells the user about a bad regex; building the matching automaton costs
//! ten times more and is deferred to the first text the pattern is tested against (with the start
//! literals, read from a second parse then, whose tree the automaton is built from), so a large
//! hooks.json loads fast and a hook that never sees its event never pays for its regex.

use std::sync::OnceLock;

use hook_shell::{Need, Verdict, View, with_analysis};

use crate::needles::Needles;

use regex_automata::meta;
use regex_syntax::hir::literal::{ExtractKind, Extractor};
use regex_syntax::hir::{Hir, Look};

/// The literals every match starts with, when the regex is anchored at the start of the text.
#[derive(Debug)]
pub(crate) struct StartLiterals(Option<Vec<Vec<u8>>>);

impl StartLiterals {
    /// `None` inside when the regex is unanchored or its prefixes are not a small finite set.
    pub(crate) fn of(re_src: &str) -> Self {
        match regex_syntax::ParserBuilder::new().utf8(false).build().parse(re_src) {
            Ok(hir) => Self::of_hir(&hir),
            Err(_) => StartLiterals(None),
        }
    }

    fn of_hir(hir: &Hir) -> Self {
        if !hir.properties().look_set_prefix().contains(Look::Start) {
            return StartLiterals(None);
        }
        let seq = Extractor::new().kind(ExtractKind::Prefix).extract(hir);
        let literals = seq
            .literals()
            .filter(|lits| !lits.is_empty() && lits.iter().all(|l| !l.as_bytes().is_empty()))
            .map(|lits| lits.iter().map(|l| l.as_bytes().to_vec()).collect());
        StartLiterals(literals)
    }

    /// The one literal every match starts with, known by whoever wrote the regex (`None` inside
    /// when it is empty: no pre-check).
    fn prefix(literal: &str) -> Self {
        StartLiterals((!literal.is_empty()).then(|| vec![literal.as_bytes().to_vec()]))
    }

    /// False only when no match can begin this text.
    pub(crate) fn may_match(&self, text: &[u8]) -> bool {
        self.0.as_ref().is_none_or(|lits| lits.iter().any(|l| text.starts_with(l)))
    }

    /// The first word of each literal (the programs an anchored command regex is about).
    fn first_words(&self) -> Option<impl Iterator<Item = &[u8]>> {
        self.0.as_ref().map(|lits| lits.iter().filter_map(|l| l.split(u8::is_ascii_whitespace).next()))
    }

    /// False only when no text that starts with `prefix` can match.
    fn may_match_text_starting_with(&self, prefix: &[u8]) -> bool {
        self.0.as_ref().is_none_or(|lits| lits.iter().any(|l| prefix.starts_with(l) || l.starts_with(prefix)))
    }
}

/// The longest text searched without the lazy DFA ([`Pattern::regex_for`]).
const SHORT: usize = 1024;

/// A user regex (Rust dialect), searched unanchored unless it anchors itself.
#[derive(Debug)]
pub(crate) struct Pattern {
    src: Box<str>,
    /// The automaton for texts up to [`SHORT`] bytes, built on first use; `None` when the engine
    /// refuses a regex whose syntax is valid (only its compiled-size limit does that).
    re: OnceLock<Option<meta::Regex>>,
    /// The automaton for longer texts (with the lazy DFA), built on first such text.
    re_long: OnceLock<Option<meta::Regex>>,
    /// The regex's syntax tree, parsed once for the start literals and both automata; `None` when
    /// it does not parse (a built-in regex never checked: it then matches every text).
    hir: OnceLock<Option<Hir>>,
    /// Read from the regex on first use too: loading only checks the syntax.
    start: OnceLock<StartLiterals>,
    /// Words every match contains, read when a text first passes the start literals.
    needles: OnceLock<Needles>,
    /// What the regex says when it is a rule's literal words (`git push` of `git push:*`): the
    /// text itself, or (`true`, a prefix rule) the text then a space and anything. Tested
    /// without compiling the regex.
    literal: Option<(Box<str>, bool)>,
}

impl Pattern {
    /// A regex on a Bash command: the whole command, then each subcommand view. A command that cannot be
    /// analysed with certainty matches (R-PRED-4); so does one whose innermost command has a word of
    /// unknown value, unless its certain start already rules the regex out (`cd $DIR` never matches
    /// `^rm`; `rm $FLAGS /` may). Interpreter code (`python -c '…'`) matches when it names a program the
    /// regex can start with (R-PRED-4c).
    pub(crate) fn verdict_on_command(&self, command: &str) -> Verdict {
        let re = self;
        let unsure = |v: &View| v.innermost && v.has_unknown() && re.may_match_text_starting_with(v.known_prefix());
        if re.is_match(command) {
            return Verdict::Match;
        }
        with_analysis(command, Need::Views, |a| {
            if a.views.iter().any(|v| re.is_match(&v.text)) {
                Verdict::Match
            } else if a.uncertain
                || a.views.iter().any(unsure)
                || a.code.iter().chain(&a.opaque).any(|code| re.mentioned_in(code))
            {
                Verdict::Uncertain
            } else {
                Verdict::NoMatch
            }
        })
    }

    /// Checks the syntax now, as `regex::Regex::new` would (same parser settings, same message).
    pub(crate) fn new(re_src: &str) -> Result<Self, regex::Error> {
        check_syntax(re_src)?;
        Ok(Self::unchecked(re_src))
    }

    /// A regex whose syntax was checked elsewhere ([`crate::parse_built_in`]); one that does not
    /// compile after all matches every text.
    pub(crate) fn unchecked(re_src: &str) -> Self {
        Pattern {
            src: re_src.into(),
            re: OnceLock::new(),
            re_long: OnceLock::new(),
            hir: OnceLock::new(),
            start: OnceLock::new(),
            needles: OnceLock::new(),
            literal: None,
        }
    }

    /// A regex this crate writes itself from escaped text (valid by construction, so not checked)
    /// whose every match starts with `prefix`: nothing is parsed until a text passes that prefix.
    pub(crate) fn written(re_src: &str, prefix: &str) -> Self {
        Pattern { start: OnceLock::from(StartLiterals::prefix(prefix)), ..Self::unchecked(re_src) }
    }

    /// This written regex is `(?s)^TEXT$`, or `(?s)^TEXT(?: .*)?$` when `prefix`, for a `text`
    /// with no wildcard: it is matched as text. A rule's regex is otherwise compiled for the one
    /// call that reaches it — most of what a one-shot deny cost above an allow
    /// (`cargo bench -p hook-cli --bench deny_path`).
    pub(crate) fn literally(mut self, text: &str, prefix: bool) -> Self {
        self.literal = Some((text.into(), prefix));
        self
    }

    /// The automaton, if it was built.
    #[cfg(test)]
    pub(crate) fn compiled(&self) -> Option<&meta::Regex> {
        self.re.get().or(self.re_long.get()).and_then(Option::as_ref)
    }

    /// The regex as written.
    #[cfg(test)]
    pub(crate) fn source(&self) -> &str {
        &self.src
    }

    /// The start literals, read on first use (the syntax was checked by [`Pattern::new`]).
    fn start(&self) -> &StartLiterals {
        self.start.get_or_init(|| self.hir().map_or(StartLiterals(None), StartLiterals::of_hir))
    }

    /// Past the start literals: whether the text holds a needle, then the automaton's answer.
    fn may_hold(&self, text: &str) -> bool {
        let needles = self.needles.get_or_init(|| self.hir().map_or_else(Needles::none, Needles::of));
        needles.may_match(text) && self.regex_for(text).is_none_or(|re| re.is_match(text))
    }

    /// The syntax tree, with the engine's own parser settings.
    fn hir(&self) -> Option<&Hir> {
        self.hir.get_or_init(|| regex_syntax::Parser::new().parse(&self.src).ok()).as_ref()
    }

    /// Whether the regex finds a match in `text`. A regex too big for the engine matches every text:
    /// a gate that cannot test its pattern runs its hook rather than let the call through unseen.
    pub(crate) fn is_match(&self, text: &str) -> bool {
        if let Some((literal, prefix)) = &self.literal {
            return match text.strip_prefix(&**literal) {
                Some(rest) => rest.is_empty() || (*prefix && rest.starts_with(' ')),
                None => false,
            };
        }
        self.start().may_match(text.as_bytes()) && self.may_hold(text)
    }

    /// The automaton: `regex::Regex`'s engine and syntax, without the full DFA. A rule's regex
    /// is compiled for the one call that reaches it (a one-shot `claude` whose rule matches),
    /// and determinizing a dense DFA up front was most of what such a deny cost above an allow
    /// (`cargo bench -p hook-cli --bench deny_path`); the lazy DFA answers one call as fast. The
    /// full DFA is there at all only because tracing-subscriber's `env-filter` turns on
    /// regex-automata's `dfa-build` for the whole binary.
    ///
    /// A text up to [`SHORT`] bytes (nearly every command) is searched without the lazy DFA too:
    /// building one (and the reverse automaton it needs) cost more than a bounded backtracker or
    /// the PikeVM spends on such a text; a longer text gets the lazy DFA, linear whatever it holds.
    fn regex_for(&self, text: &str) -> Option<&meta::Regex> {
        let (cell, hybrid) = if text.len() <= SHORT { (&self.re, false) } else { (&self.re_long, true) };
        cell.get_or_init(|| {
            let config = meta::Config::new().dfa(false).hybrid(hybrid);
            meta::Regex::builder().configure(config).build_from_hir(self.hir()?).ok()
        })
        .as_ref()
    }

    /// Whether interpreter code names a program this regex is about: one its match can start with
    /// when it is anchored, or anything the regex finds in the code otherwise.
    pub(crate) fn mentioned_in(&self, code: &str) -> bool {
        match self.start().first_words() {
            Some(mut programs) => programs.any(|p| std::str::from_utf8(p).is_ok_and(|p| names(code, p))),
            None => self.may_hold(code),
        }
    }

    /// Whether some text that starts with `prefix` might match (the rest being unknown).
    pub(crate) fn may_match_text_starting_with(&self, prefix: &str) -> bool {
        self.start().may_match_text_starting_with(prefix.as_bytes())
    }
}

/// The engine's syntax check of `re_src`, with its message. Parsing has two steps: the syntax
/// tree, then its translation to the engine's form; the second refuses a regex only for a Unicode
/// class name it does not know (`\p{…}`, `\P{…}`) or for what flags (`(?-u)`, `(?i)`) ask of
/// the Unicode tables. A regex spelling neither is decided by the first step alone, which costs a
/// fraction of both: the loader checks every matcher of a file this way.
fn check_syntax(re_src: &str) -> Result<(), regex::Error> {
    let translation_can_refuse = re_src.contains("\\p") || re_src.contains("\\P") || re_src.contains("(?");
    let checked = if translation_can_refuse {
        regex_syntax::Parser::new().parse(re_src).map(drop)
    } else {
        regex_syntax::ast::parse::Parser::new().parse(re_src).map(drop).map_err(regex_syntax::Error::from)
    };
    checked.map_err(|e| regex::Error::Syntax(e.to_string()))
}

/// Whether `name` occurs in `code` as a word of its own (`git` in `os.system('git push')` and in
/// `/usr/bin/git`, not in `digital`, nor in `repos/o/r/git/trees`: a directory on a path is not
/// the program it runs).
pub(crate) fn names(code: &str, name: &str) -> bool {
    let word = |c: char| c.is_alphanumeric() || matches!(c, '_' | '-');
    !name.is_empty()
        && code.match_indices(name).any(|(at, _)| {
            let after = code[at + name.len()..].chars().next();
            !code[..at].chars().next_back().is_some_and(word) && !after.is_some_and(|c| word(c) || c == '/')
        })
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn a_program_is_named_as_a_word_or_a_paths_last_part_and_not_as_a_directory() {
        let cases = [
            ("os.system('git push')", true),
            ("/usr/bin/git push", true),
            ("run(['git'])", true),
            ("digital", false),
            ("gitk", false),
            ("repos/owner/repo/git/trees/main", false),
            ("cd git/ && ls", false),
            ("cd git/ && git log", true),
        ];
        for (code, named) in cases {
            assert_eq!(names(code, "git"), named, "{code}");
        }
    }

    /// The message of a syntax error, whichever way it was found.
    fn message(e: regex::Error) -> String {
        match e {
            regex::Error::Syntax(m) => m,
            other => other.to_string(),
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(5000))]

        #[test]
        fn the_syntax_check_accepts_and_refuses_exactly_what_the_full_parse_does_with_its_message(
            re in r"[a-z0-9 \\^$.|?*+()\[\]{},:=<>&~_-]{0,12}(\\[pPdDsSwWbBxuU0-9a-z])?[a-z0-9 \\^$.|?*+()\[\]{},:=<>&~_-]{0,12}"
        ) {
            let full = regex_syntax::Parser::new().parse(&re).map(drop).map_err(|e| e.to_string());
            prop_assert_eq!(check_syntax(&re).map_err(message), full);
        }
    }

    #[test]
    fn regexes_only_the_translation_refuses_are_still_refused() {
        for bad in [r"\p{NoSuchClass}", r"\P{Greek=x}", r"(?-u:\xFF)", r"(?-u)\W", r"[\p{Bogus}a]"] {
            let full = regex_syntax::Parser::new().parse(bad).expect_err(bad).to_string();
            assert_eq!(message(check_syntax(bad).expect_err(bad)), full, "{bad}");
        }
    }

    #[test]
    fn anchored_regexes_get_start_literals_and_others_do_not() {
        let cases: &[(&str, &[&str], &[&str])] = &[
            (r"^git\s+push", &["git push", "git\tpush -f"], &["echo git push", "gi"]),
            ("^(npm|yarn) test", &["npm test", "yarn test"], &["pnpm test"]),
            ("(?i)^rm", &["RM -rf", "rm"], &["xrm"]),
            ("push", &["git push", "push"], &["pull"]),
            ("^.*x", &["abcx"], &["abc"]),
        ];
        for (re, yes, no) in cases {
            let p = Pattern::new(re).expect("compiles");
            for text in *yes {
                assert!(p.is_match(text), "{re} should match {text}");
            }
            for text in *no {
                assert!(!p.is_match(text), "{re} should not match {text}");
            }
        }
        let rm = Pattern::new(r"^rm\s+-rf").expect("compiles");
        let prefixes = [("", true), ("r", true), ("rm", true), ("rm -f", true), ("cd", false), ("echo rm", false)];
        for (prefix, possible) in prefixes {
            assert_eq!(rm.may_match_text_starting_with(prefix), possible, "{prefix:?}");
        }
        assert!(Pattern::new("rm").expect("compiles").may_match_text_starting_with("cd"), "unanchored: anything");
        assert!(StartLiterals::of("^abc").0.is_some());
        assert!(StartLiterals::of("abc").0.is_none());
        assert!(StartLiterals::of("^.*").0.is_none());
    }

    #[test]
    fn the_literal_pre_check_is_read_when_the_pattern_is_first_tested() {
        let p = Pattern::new(r"^git\s+push").expect("compiles");
        assert!(p.start.get().is_none() && p.re.get().is_none(), "loading only checks the syntax");
        assert!(!p.is_match("cd x"));
        assert!(p.start.get().is_some());
        assert!(p.is_match("git push"));
    }

    #[test]
    fn a_bad_regex_is_refused_at_load_with_the_engines_own_message() {
        for bad in ["(", "a{2,1}", r"\p{NoSuchClass}", "[z-a]"] {
            let ours = Pattern::new(bad).expect_err(bad).to_string();
            let engine = regex::Regex::new(bad).expect_err(bad).to_string();
            assert_eq!(ours, engine, "{bad}");
        }
    }

    #[test]
    fn a_regex_too_big_for_the_engine_matches_every_text_so_its_hook_still_runs() {
        let huge = Pattern::new("^(a{1000}){1000}z").expect("the syntax is valid");
        assert!(regex::Regex::new("^(a{1000}){1000}z").is_err(), "the engine refuses it");
        assert!(huge.is_match(&format!("{}z", "a".repeat(5000))));
        assert!(!huge.is_match("bcd"), "the literal pre-check still applies");
    }

    #[test]
    fn an_unchecked_regex_that_does_not_parse_matches_every_text() {
        let broken = Pattern::unchecked("^git(");
        assert!(Pattern::new("^git(").is_err(), "the syntax is invalid");
        assert!(broken.is_match("ls") && broken.is_match(&"x".repeat(SHORT + 1)));
    }

    #[test]
    fn short_and_long_texts_get_the_same_answer_from_their_two_automata() {
        let p = Pattern::new(r"(?:^|[\s;&|])(?i:core\.editor)=\S").expect("compiles");
        for (text, want) in [("git -c core.Editor=vim commit", true), ("git commit", false)] {
            let long = format!("{}; {text}", "echo padding ".repeat(SHORT / 8));
            assert!(long.len() > SHORT);
            assert_eq!((p.is_match(text), p.is_match(&long)), (want, want), "{text}");
        }
        assert!(p.re.get().is_some() && p.re_long.get().is_some(), "each length used its own automaton");
    }
}
