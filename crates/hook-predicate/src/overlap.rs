//! Glob against glob: could two path patterns select a common path? Used where a tool's input is
//! itself a pattern (Grep's `glob`, Glob's `pattern`, `cat *.env`) and a rule's glob must be tested
//! against it. Every doubt answers yes: a class `[…]` is any character, a component too long to
//! compare or with nested braces is `*`, and `*` also matches a leading `.`.

use std::path::{Component, Path};

/// Longer patterns (atoms or components) are not compared: they overlap.
const MAX_LEN: usize = 256;
/// At most this many alternatives from brace expansion; more make the component `*`.
const MAX_ALTERNATIVES: usize = 64;

/// One path component of a pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Comp {
    /// `**`: any number of components.
    AnyDepth,
    /// One component, any of these alternatives (brace expansion).
    One(Vec<Vec<Atom>>),
}

/// One character of a component pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Atom {
    Char(char),
    /// `?` or a class `[…]`.
    Any,
    /// `*`.
    Star,
}

impl Comp {
    /// The component's text when it is one literal name.
    pub(crate) fn literal(&self) -> Option<String> {
        match self {
            Comp::One(alts) if alts.len() == 1 => {
                alts[0].iter().map(|a| if let Atom::Char(c) = a { Some(*c) } else { None }).collect()
            }
            _ => None,
        }
    }

    fn literal_of(text: &str) -> Comp {
        Comp::One(vec![text.chars().map(Atom::Char).collect()])
    }
}

/// The components of a literal absolute path.
pub(crate) fn literal_comps(path: &Path) -> Vec<Comp> {
    path.components()
        .filter_map(|c| match c {
            Component::Normal(name) => Some(Comp::literal_of(&name.to_string_lossy())),
            _ => None,
        })
        .collect()
}

/// The components of an absolute glob (gitignore style: `**` is any depth, `\` escapes).
pub(crate) fn glob_comps(glob: &str) -> Vec<Comp> {
    glob.split('/')
        .filter(|part| !part.is_empty())
        .map(|part| if part == "**" { Comp::AnyDepth } else { Comp::One(alternatives(part)) })
        .collect()
}

/// A component's brace alternatives, each parsed into atoms.
fn alternatives(part: &str) -> Vec<Vec<Atom>> {
    let mut out = Vec::new();
    if !expand(part, &mut out) {
        return vec![vec![Atom::Star]];
    }
    out.iter().map(|alt| atoms(alt)).collect()
}

/// Expands `{a,b}` groups into `out`; false when they nest or are too many.
fn expand(part: &str, out: &mut Vec<String>) -> bool {
    let Some(open) = unescaped(part, '{') else {
        out.push(part.to_owned());
        return out.len() <= MAX_ALTERNATIVES;
    };
    let Some(close) = unescaped(&part[open..], '}').map(|c| open + c) else {
        out.push(part.to_owned());
        return out.len() <= MAX_ALTERNATIVES;
    };
    let inner = &part[open + 1..close];
    if inner.contains('{') {
        return false;
    }
    inner.split(',').all(|alt| expand(&format!("{}{alt}{}", &part[..open], &part[close + 1..]), out))
}

fn unescaped(text: &str, wanted: char) -> Option<usize> {
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            _ if c == wanted => return Some(i),
            _ => {}
        }
    }
    None
}

fn atoms(text: &str) -> Vec<Atom> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        i += 1;
        match c {
            '\\' => {
                out.push(Atom::Char(chars.get(i).copied().unwrap_or('\\')));
                i += 1;
            }
            '*' if out.last() == Some(&Atom::Star) => {}
            '*' => out.push(Atom::Star),
            '?' => out.push(Atom::Any),
            // A class is any one character (a doubt answers yes); without its `]` it is a `[`.
            '[' => match chars.get(i + 1..).and_then(|rest| rest.iter().position(|&c| c == ']')) {
                Some(end) => {
                    out.push(Atom::Any);
                    i += end + 2;
                }
                None => out.push(Atom::Char('[')),
            },
            _ => out.push(Atom::Char(c)),
        }
    }
    out
}

/// Whether two sequences with "any number of" elements may match a common sequence, the other
/// elements compared by `same`: the product automaton's reachability, errs on yes past [`MAX_LEN`].
fn sequences_overlap<T>(a: &[T], b: &[T], many: impl Fn(&T) -> bool, same: impl Fn(&T, &T) -> bool) -> bool {
    let (n, m) = (a.len(), b.len());
    if n > MAX_LEN || m > MAX_LEN {
        return true;
    }
    let width = m + 1;
    let mut seen = vec![false; (n + 1) * width];
    let mut stack = vec![(0, 0)];
    while let Some((i, j)) = stack.pop() {
        if std::mem::replace(&mut seen[i * width + j], true) {
            continue;
        }
        if i == n && j == m {
            return true;
        }
        let (x, y) = (a.get(i), b.get(j));
        if x.is_some_and(&many) {
            stack.push((i + 1, j));
            if j < m {
                stack.push((i, j + 1));
            }
        }
        if y.is_some_and(&many) {
            stack.push((i, j + 1));
            if i < n {
                stack.push((i + 1, j));
            }
        }
        if let (Some(x), Some(y)) = (x, y)
            && !many(x)
            && !many(y)
            && same(x, y)
        {
            stack.push((i + 1, j + 1));
        }
    }
    false
}

fn atoms_overlap(a: &[Atom], b: &[Atom]) -> bool {
    sequences_overlap(
        a,
        b,
        |x| *x == Atom::Star,
        |x, y| match (x, y) {
            (Atom::Char(p), Atom::Char(q)) => p == q,
            _ => true,
        },
    )
}

/// Whether two one-component patterns may name the same file.
pub(crate) fn comp_overlap(a: &Comp, b: &Comp) -> bool {
    match (a, b) {
        (Comp::One(xs), Comp::One(ys)) => xs.iter().any(|x| ys.iter().any(|y| atoms_overlap(x, y))),
        _ => true,
    }
}

/// Whether the literal name `text` matches the one-component pattern, without allocating (the
/// classic backtracking to the last `*`).
fn literal_matches(text: &str, pattern: &Comp) -> bool {
    let Comp::One(alts) = pattern else { return true };
    let text: &[u8] = text.as_bytes();
    alts.iter().any(|atoms| {
        let (mut t, mut p) = (0, 0);
        let mut star: Option<(usize, usize)> = None;
        while t < text.len() {
            let char_len = text[t..].iter().skip(1).take_while(|&&b| b & 0xC0 == 0x80).count() + 1;
            let here = std::str::from_utf8(&text[t..t + char_len]).ok().and_then(|c| c.chars().next());
            match atoms.get(p) {
                Some(Atom::Star) => {
                    star = Some((p, t));
                    p += 1;
                    continue;
                }
                Some(Atom::Any) => {
                    p += 1;
                    t += char_len;
                    continue;
                }
                Some(Atom::Char(c)) if Some(*c) == here => {
                    p += 1;
                    t += char_len;
                    continue;
                }
                _ => {}
            }
            match star {
                Some((sp, st)) => {
                    let skip = text[st..].iter().skip(1).take_while(|&&b| b & 0xC0 == 0x80).count() + 1;
                    star = Some((sp, st + skip));
                    p = sp + 1;
                    t = st + skip;
                }
                None => return false,
            }
        }
        atoms[p.min(atoms.len())..].iter().all(|a| *a == Atom::Star)
    })
}

/// Whether two absolute path patterns may select a common path.
pub(crate) fn overlap(a: &[Comp], b: &[Comp]) -> bool {
    sequences_overlap(a, b, |c| *c == Comp::AnyDepth, comp_overlap)
}

/// What text counts as naming a rule's path (a mention in an unmodelled command).
#[derive(Debug, Clone)]
pub(crate) enum NameTest {
    /// The rule's literal file name (`.env`) or the literal directory of a `dir/**` rule (`.ssh`).
    Literal(String),
    /// A file-name pattern (`*.env`): a token of the text whose last component it may match.
    Pattern(Comp),
    /// Nothing literal to look for (`//**`): any text names it.
    Any,
}

impl NameTest {
    /// The test for a rule with these components.
    pub(crate) fn of(comps: &[Comp]) -> NameTest {
        let last = comps.iter().rposition(|c| *c != Comp::AnyDepth).map(|i| &comps[i]);
        match last {
            Some(c) => c.literal().map_or_else(|| NameTest::Pattern(c.clone()), NameTest::Literal),
            None => NameTest::Any,
        }
    }

    /// Whether `text` names the path (the literal name standing on its own, not inside a longer name).
    pub(crate) fn named_in(&self, text: &str) -> bool {
        let name_char = |c: char| c.is_alphanumeric() || matches!(c, '_' | '-');
        match self {
            NameTest::Any => !text.is_empty(),
            NameTest::Literal(name) => {
                !name.is_empty()
                    && text.match_indices(name.as_str()).any(|(at, _)| {
                        !text[..at].chars().next_back().is_some_and(|c| name_char(c) || c == '.')
                            && !text[at + name.len()..].chars().next().is_some_and(name_char)
                    })
            }
            NameTest::Pattern(pattern) => text
                .split(|c: char| c.is_whitespace() || "'\"`;|&<>(){}=:$,".contains(c))
                .filter_map(|token| token.rsplit('/').next().filter(|t| !t.is_empty()))
                .any(|token| literal_matches(token, pattern)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_globs_overlap_when_some_path_matches_both() {
        let cases: &[(&str, &str, bool)] = &[
            ("/p/.env", "/p/**/.env", true),
            ("/p/.env", "/p/**/*.env", true),
            ("/p/.env", "/p/**/*.rs", false),
            ("/p/.env", "/p/.en?", true),
            ("/p/.env", "/p/*", true),
            ("/p/.env", "/p/src/**/*", false),
            ("/h/.ssh/**", "/h/*.txt", false),
            ("/h/.ssh/**", "/h/**/id_*", true),
            ("/h/.ssh/**", "/h/*/id_rsa", true),
            ("/p/**/*.env", "/p/a/b/x.e*", true),
            ("/p/**/*.env", "/p/a/b/x.rs", false),
            ("/p/.env", "/p/*.{ts,tsx}", false),
            ("/p/.env", "/p/*.{ts,env}", true),
            ("/p/.env", "/p/[.]env", true),
            ("/p/a*b*c", "/p/*x*", true),
            ("/p/abc", "/p/a*d", false),
        ];
        for (a, b, expected) in cases {
            assert_eq!(overlap(&glob_comps(a), &glob_comps(b)), *expected, "{a} vs {b}");
            assert_eq!(overlap(&glob_comps(b), &glob_comps(a)), *expected, "{b} vs {a}");
        }
    }

    #[test]
    fn a_rule_is_named_by_its_file_name_standing_on_its_own() {
        let cases: &[(&str, &str, bool)] = &[
            ("/p/.env", "./.env", true),
            ("/p/.env", "open('.env')", true),
            ("/p/.env", ".env.local", true),
            ("/p/.env", "process.env.HOME", false),
            ("/p/.env", ".envrc", false),
            ("/h/.ssh/**", "~/.ssh/id_rsa", true),
            ("/h/.ssh/**", "ssh host", false),
            ("/p/**/*.env", "prod.env", true),
            ("/p/**/*.env", "src/main.rs", false),
            ("/p/**/a*b?c", "xaXbYc", false),
            ("/p/**/a*b?c", "aXXbYc", true),
            ("/p/**/a*b?c", "abbbzc", true),
            ("/p/**/*é", "café", true),
        ];
        for (rule, text, expected) in cases {
            assert_eq!(NameTest::of(&glob_comps(rule)).named_in(text), *expected, "{rule} in {text}");
        }
    }

    #[test]
    fn absurd_patterns_are_taken_to_overlap_rather_than_compared() {
        let long = format!("/p/{}", "a*".repeat(1000));
        assert!(overlap(&glob_comps("/p/.env"), &glob_comps(&long)));
        let nested = "/p/{a,{b,c}}";
        assert!(overlap(&glob_comps("/p/.env"), &glob_comps(nested)));
    }
}
