//! Words every match of a regex contains, read from its syntax tree: a text holding none of them
//! cannot match, so the automaton is not built for it.
//!
//! An unanchored rule regex (`(?i:core\.editor)=…|--upload-pack…`) has no start literals, and
//! building its automaton was most of what a one-shot call cost: `git status` passed every
//! pre-check of the git-settings rule. The needles are compared with ASCII case folded on both
//! sides, so a case-insensitive group still gives words; the test only ever says "may match" more
//! often than the regex does.

use regex_syntax::hir::{Class, Hir, HirKind};

/// At most this many needles are kept: past that the test costs more than it saves.
const MAX_NEEDLES: usize = 64;

/// The needles of one regex; `None` inside when some match may contain none of them.
#[derive(Debug)]
pub(crate) struct Needles(Option<Vec<String>>);

impl Needles {
    pub(crate) fn of(hir: &Hir) -> Self {
        Needles(required(hir).filter(|set| set.len() <= MAX_NEEDLES && set.iter().all(|n| !n.is_empty())))
    }

    /// No needle at all: every text may match.
    pub(crate) fn none() -> Self {
        Needles(None)
    }

    /// False only when `text` holds none of the needles (ASCII case folded).
    pub(crate) fn may_match(&self, text: &str) -> bool {
        let Some(needles) = &self.0 else { return true };
        let folded = text.to_ascii_lowercase();
        needles.iter().any(|n| folded.contains(n.as_str()))
    }
}

/// The text `hir` always matches, case folded, when it matches only one (up to ASCII case).
fn exact(hir: &Hir) -> Option<String> {
    match hir.kind() {
        HirKind::Literal(lit) => std::str::from_utf8(&lit.0).ok().map(str::to_ascii_lowercase),
        HirKind::Class(class) => one_char(class).map(String::from),
        HirKind::Look(_) => Some(String::new()),
        HirKind::Capture(cap) => exact(&cap.sub),
        HirKind::Concat(subs) => subs.iter().map(exact).collect(),
        _ => None,
    }
}

/// The one character (up to ASCII case) a class matches: `[Gg]`.
fn one_char(class: &Class) -> Option<char> {
    let mut chars: Vec<char> = match class {
        Class::Unicode(c) => {
            let count: u32 = c.ranges().iter().map(|r| u32::from(r.end()) - u32::from(r.start()) + 1).sum();
            if count > 4 {
                return None;
            }
            c.ranges().iter().flat_map(|r| r.start()..=r.end()).collect()
        }
        Class::Bytes(c) => {
            let count: usize = c.ranges().iter().map(|r| usize::from(r.end() - r.start()) + 1).sum();
            if count > 4 {
                return None;
            }
            c.ranges().iter().flat_map(|r| r.start()..=r.end()).map(char::from).collect()
        }
    };
    chars.iter_mut().for_each(|c| *c = c.to_ascii_lowercase());
    chars.sort_unstable();
    chars.dedup();
    match chars.as_slice() {
        [c] if c.is_ascii() => Some(*c),
        _ => None,
    }
}

/// Words of which every match of `hir` contains at least one (case folded); `None` when none
/// is known.
fn required(hir: &Hir) -> Option<Vec<String>> {
    if let Some(text) = exact(hir) {
        return (!text.is_empty()).then(|| vec![text]);
    }
    match hir.kind() {
        HirKind::Capture(cap) => required(&cap.sub),
        HirKind::Repetition(rep) if rep.min >= 1 => required(&rep.sub),
        HirKind::Alternation(subs) => {
            let mut all = Vec::new();
            for sub in subs {
                all.extend(required(sub)?);
            }
            all.sort();
            all.dedup();
            Some(all)
        }
        HirKind::Concat(subs) => {
            // Runs of exact parts are words of their own; any other part may give a set. The set
            // whose shortest word is longest is the sharpest test.
            let mut candidates: Vec<Vec<String>> = Vec::new();
            let mut run = String::new();
            for sub in subs {
                match exact(sub) {
                    Some(text) => run.push_str(&text),
                    None => {
                        if !run.is_empty() {
                            candidates.push(vec![std::mem::take(&mut run)]);
                        }
                        candidates.extend(required(sub));
                    }
                }
            }
            if !run.is_empty() {
                candidates.push(vec![run]);
            }
            candidates.into_iter().filter(|set| set.len() <= MAX_NEEDLES).max_by_key(|set| {
                let shortest = set.iter().map(String::len).min().unwrap_or(0);
                (shortest, usize::MAX - set.len())
            })
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// Small regexes over a few words, with the constructs that make or break a needle.
    fn regex() -> impl Strategy<Value = String> {
        let leaf = prop::sample::select(vec![
            "git", "GIT_", "core\\.", "=", "-c", "a", "sk", "\\s", "\\b", "[ab]", ".", "", "^", "$",
        ])
        .prop_map(str::to_owned);
        leaf.prop_recursive(4, 24, 3, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 1..4).prop_map(|v| v.concat()),
                prop::collection::vec(inner.clone(), 2..4).prop_map(|v| format!("(?:{})", v.join("|"))),
                inner.clone().prop_map(|r| format!("(?i:{r})")),
                inner.clone().prop_map(|r| format!("(?i-u:{r})")),
                (inner, prop::sample::select(vec!["+", "*", "?", "{2}"])).prop_map(|(r, q)| format!("(?:{r}){q}")),
            ]
        })
    }

    proptest! {
        #[test]
        fn a_text_the_needles_rule_out_never_matches(re in regex(), text in "[gitGIT_core.=c -askSK\u{212A}\u{17F}\t]{0,24}") {
            let Ok(hir) = regex_syntax::Parser::new().parse(&re) else { return Ok(()) };
            let Ok(full) = regex::Regex::new(&re) else { return Ok(()) };
            if !Needles::of(&hir).may_match(&text) {
                prop_assert!(!full.is_match(&text), "{} matches {:?}", re, text);
            }
        }
    }

    fn needles(re: &str) -> Option<Vec<String>> {
        Needles::of(&regex_syntax::Parser::new().parse(re).expect("parses")).0
    }

    #[test]
    fn the_needles_are_the_words_every_match_contains() {
        let cases: &[(&str, Option<&[&str]>)] = &[
            (r"^git\s+push", Some(&["push"])),
            (r"(?i:core\.editor)=\S", Some(&["core.editor="])),
            (r"(?i-u:GIT_EDITOR|VISUAL)=", Some(&["git_editor", "visual"])),
            (
                r"\s--config-env[=\s]|\s(?:--upload-pack|--exec)(?:[=\s]|$)",
                Some(&["--config-env", "--exec", "--upload-pack"]),
            ),
            (r"a\bb", Some(&["ab"])),
            (r"(?:ab)+c", Some(&["ab"])),
            (r"x*", None),
            (r"a|\w+", None),
            (r"[a-z]+", None),
            // Unicode case folding gives `k` a third form (U+212A): no word spans it.
            (r"(?i)kill", Some(&["ill"])),
        ];
        for (re, want) in cases {
            let want = want.map(|w| w.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>());
            assert_eq!(needles(re), want, "{re}");
        }
    }

    #[test]
    fn a_text_without_a_needle_cannot_match_and_one_with_a_needle_may() {
        let cases = [
            (r"(?i:core\.(?:pager|editor))=", "git -c CORE.Pager=less log", true),
            (r"(?i:core\.(?:pager|editor))=", "git status", false),
            (r"(?:^|\s)GIT_SSH=", "GIT_SSH=x git fetch", true),
            (r"(?:^|\s)GIT_SSH=", "git fetch", false),
        ];
        for (re, text, want) in cases {
            let hir = regex_syntax::Parser::new().parse(re).expect("parses");
            assert_eq!(Needles::of(&hir).may_match(text), want, "{re} on {text}");
            if !want {
                assert!(!regex::Regex::new(re).expect("compiles").is_match(text), "{re} on {text}");
            }
        }
    }
}
