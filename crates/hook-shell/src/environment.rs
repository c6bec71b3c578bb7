//! What the client's own environment says of `$TMPDIR`: the one variable whose value a command
//! reads from the environment that the analysis takes as known. A client hands its environment
//! to the commands it runs and to its hooks alike, so while a [`ClientTmpdir`] lives, `$TMPDIR`,
//! `${TMPDIR}` and `${TMPDIR:-…}` in a command analysed on this thread read as its value, as bash
//! would expand them (`rm -rf $TMPDIR/build` removes a directory in the temporary one).
//!
//! Only where the command cannot have changed the variable first: the value is kept only when it
//! is an absolute path of plain characters other than `/`, and a command is read with it only
//! when its text names `TMPDIR` nowhere but in those expansions and holds no builtin that may
//! assign a variable by a computed name (`export`, `declare`, `read`, `printf -v`, `unset`,
//! `eval`, `source` or `.`, arithmetic, `IFS`). A word that climbs with `..` after the expansion
//! stays unknown (the client's value and the commands' may differ in depth).

use std::cell::RefCell;
use std::marker::PhantomData;

thread_local! {
    static TMPDIR: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// While alive, `$TMPDIR` in the commands analysed on this thread reads as the client's value.
///
/// ```
/// let _scope = hook_shell::ClientTmpdir::enter(Some("/tmp/user"));
/// // `rm -rf $TMPDIR/build` now reads as `rm -rf /tmp/user/build`
/// ```
#[derive(Debug)]
pub struct ClientTmpdir {
    previous: Option<String>,
    /// Tied to the thread whose analyses it changes.
    _thread: PhantomData<*const ()>,
}

impl ClientTmpdir {
    /// Starts the scope with the client's `TMPDIR` (`None`: unset; a value that is not an
    /// absolute path of plain characters, or is `/`, is taken as unknown).
    pub fn enter(value: Option<&str>) -> Self {
        let kept = value.filter(|v| usable(v)).map(str::to_owned);
        ClientTmpdir { previous: TMPDIR.with(|t| t.replace(kept)), _thread: PhantomData }
    }
}

impl Drop for ClientTmpdir {
    fn drop(&mut self) {
        TMPDIR.with(|t| *t.borrow_mut() = self.previous.take());
    }
}

/// The value this thread's scope holds, for the analysis cache's key.
pub(crate) fn current() -> Option<String> {
    TMPDIR.with(|t| t.borrow().clone())
}

fn usable(value: &str) -> bool {
    let value = value.trim_end_matches('/');
    value.starts_with('/')
        && !value.split('/').any(|part| part == "..")
        && value.chars().all(|c| c.is_ascii_alphanumeric() || "._/-+".contains(c))
}

/// Builtins that may assign a variable whose name they compute, or run text as commands of this
/// shell.
const ASSIGNING: &[&str] = &[
    "alias",
    "declare",
    "enable",
    "eval",
    "export",
    "getopts",
    "let",
    "local",
    "mapfile",
    "printf",
    "read",
    "readarray",
    "readonly",
    "source",
    "typeset",
    "unset",
];

/// The client's `TMPDIR` for a lexer of `src`, when the command cannot have changed it.
pub(crate) fn tmpdir_for(src: &str) -> Option<String> {
    let value = current()?;
    let named_only_as_expansion = src.match_indices("TMPDIR").all(|(at, _)| {
        let before = &src[..at];
        before.ends_with('$') || before.ends_with("${")
    });
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    let names_builtin = ASSIGNING.iter().any(|b| {
        src.match_indices(b).any(|(at, _)| {
            !src[..at].chars().next_back().is_some_and(word) && !src[at + b.len()..].chars().next().is_some_and(word)
        })
    });
    let dot_command = src.match_indices('.').any(|(at, _)| {
        let before = src[..at].chars().next_back();
        let after = src[at + 1..].chars().next();
        before.is_none_or(|c| c.is_whitespace() || ";&|(".contains(c)) && after.is_none_or(char::is_whitespace)
    });
    let unsafe_text =
        !named_only_as_expansion || names_builtin || dot_command || src.contains("((") || src.contains("IFS");
    (!unsafe_text).then_some(value)
}

/// Whether the rest of a word, from `rest` on, climbs with `..` (the word's end is a blank or an
/// operator).
pub(crate) fn climbs(rest: &[u8]) -> bool {
    let end = rest.iter().position(|b| b.is_ascii_whitespace() || b";&|()<>".contains(b)).unwrap_or(rest.len());
    rest[..end].windows(2).any(|w| w == b"..")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_value_is_read_only_where_the_command_cannot_have_changed_it() {
        let _scope = ClientTmpdir::enter(Some("/tmp/u"));
        let cases = [
            ("rm -rf $TMPDIR/build", true),
            ("rm -rf ${TMPDIR:-/tmp}/build && ls", true),
            ("cat ./readme.md; rm -rf \"$TMPDIR/x\"", true),
            ("TMPDIR=/ rm -rf $TMPDIR", false),
            ("export TMPDIR=/; rm -rf $TMPDIR", false),
            ("v=TMP; export ${v}DIR=/; rm -rf $TMPDIR/x", false),
            ("v=TMP; printf -v ${v}DIR /; rm -rf $TMPDIR/x", false),
            ("unset ${v}DIR; rm -rf $TMPDIR/home", false),
            (". ./env.sh; rm -rf $TMPDIR/x", false),
            ("source env.sh; rm -rf $TMPDIR/x", false),
            (": $(( ${v}DIR = 5 )); rm -rf $TMPDIR/x", false),
            ("IFS=/; rm -rf $TMPDIR/x", false),
            ("for TMPDIR in /; do rm -rf $TMPDIR; done", false),
        ];
        for (src, known) in cases {
            assert_eq!(tmpdir_for(src).is_some(), known, "{src}");
        }
    }

    #[test]
    fn only_an_absolute_plain_value_other_than_the_root_is_kept() {
        for (value, kept) in [
            ("/tmp/u", true),
            ("/var/folders/x_y/T/", true),
            ("/", false),
            ("tmp", false),
            ("/tmp/a b", false),
            ("/tmp/../home", false),
        ] {
            let _scope = ClientTmpdir::enter(Some(value));
            assert_eq!(current().is_some(), kept, "{value}");
        }
        let _unset = ClientTmpdir::enter(None);
        assert_eq!(current(), None);
    }

    /// The innermost view's text, and whether each of its words is known.
    fn innermost(src: &str) -> (String, bool) {
        crate::with_analysis(src, crate::Need::Views, |a| {
            let v = a.views.iter().rev().find(|v| v.innermost).expect("a view");
            (v.text.clone(), !v.has_unknown())
        })
    }

    #[test]
    fn an_expansion_of_the_clients_tmpdir_reads_as_its_value_and_nothing_else_does() {
        assert!(!innermost("rm -rf $TMPDIR/build").1, "no scope: unknown");
        let _scope = ClientTmpdir::enter(Some("/tmp/u"));
        assert_eq!(innermost("rm -rf $TMPDIR/build"), ("rm -rf /tmp/u/build".to_owned(), true));
        assert_eq!(innermost("rm -rf \"${TMPDIR}/b c\""), ("rm -rf /tmp/u/b c".to_owned(), true));
        assert_eq!(innermost("rm -rf ${TMPDIR:-/tmp}/x"), ("rm -rf /tmp/u/x".to_owned(), true));
        assert!(!innermost("rm -rf $TMPDIR/../x").1, "a climbing word stays unknown");
        assert!(!innermost("rm -rf ${TMPDIR%/}/x").1, "another expansion stays unknown");
        assert!(!innermost("rm -rf $TMPDIRX").1, "another variable stays unknown");
        assert!(!innermost("export TMPDIR=/; rm -rf $TMPDIR").1, "an assignment before it");
    }

    #[test]
    fn a_word_climbing_after_the_expansion_is_seen() {
        assert!(climbs(b"/../x rest"));
        assert!(!climbs(b"/build ../x"));
        assert!(!climbs(b"/a.b;cd .."));
    }
}
