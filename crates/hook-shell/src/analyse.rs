//! The entry points: a command analysed (once per thread for many rules), and a rule's body split
//! into words.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use crate::FileModel;
use crate::analysis::Analysis;
use crate::lex::{End, Lexer};
use crate::walk::{Walk, analyse_into};
use crate::{argv, evaluated};

thread_local! {
    /// The last command analysed on this thread: one tool call is tested against many predicates.
    static LAST: RefCell<Option<Last>> = const { RefCell::new(None) };
}

/// How many rules that read a Bash command's file uses (Read and Edit rules) exist in this process.
/// While there are none, an analysis skips the file model ([`files`]), the largest part of its cost
/// that no Bash rule reads; one asked for by such a rule always has it.
static FILE_RULES: AtomicUsize = AtomicUsize::new(0);

/// The next file model's identity ([`FileModel::id`]).
static NEXT_MODEL: AtomicU64 = AtomicU64::new(1);

/// A rule that reads a Bash command's file uses, alive: the analyses made meanwhile record them.
#[derive(Debug)]
pub struct FileRuleToken(());

impl FileRuleToken {
    pub fn new() -> Self {
        FILE_RULES.fetch_add(1, Ordering::Relaxed);
        FileRuleToken(())
    }
}

impl Default for FileRuleToken {
    fn default() -> Self {
        FileRuleToken::new()
    }
}

impl Drop for FileRuleToken {
    fn drop(&mut self) {
        FILE_RULES.fetch_sub(1, Ordering::Relaxed);
    }
}

/// What a caller of [`with_analysis`] reads of the analysis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// The views, interpreter code and opaque words (Bash rules).
    Views,
    /// Those and the file model (Read and Edit rules).
    Files,
}

/// This thread's last analysis, under its command and the client's `TMPDIR` it was read with.
struct Last {
    text: String,
    tmpdir: Option<String>,
    analysis: Rc<Analysis>,
}

/// Analyses `cmd`, reusing this thread's previous analysis when the command is the same string (and
/// it has the file model, when `need` asks for it).
pub fn with_analysis<R>(cmd: &str, need: Need, f: impl FnOnce(&Analysis) -> R) -> R {
    let tmpdir = crate::environment::current();
    let cached = LAST.with(|last| match &*last.borrow() {
        Some(Last { text, tmpdir: seen, analysis })
            if text == cmd
                && *seen == tmpdir
                && analysis.whole == argv::whole()
                && (need == Need::Views || analysis.files_recorded) =>
        {
            Some(Rc::clone(analysis))
        }
        _ => None,
    });
    let analysis = cached.unwrap_or_else(|| {
        let files = need == Need::Files || FILE_RULES.load(Ordering::Relaxed) > 0;
        let fresh = Rc::new(analyse_with(cmd, files));
        LAST.with(|last| *last.borrow_mut() = Some(Last { text: cmd.to_owned(), tmpdir, analysis: Rc::clone(&fresh) }));
        fresh
    });
    f(&analysis)
}

/// Analyses one command string, with its file model.
#[cfg(test)]
pub(crate) fn analyse(cmd: &str) -> Analysis {
    analyse_with(cmd, true)
}

fn analyse_with(cmd: &str, files: bool) -> Analysis {
    let whole = argv::whole();
    let mut files_model = FileModel::default();
    files_model.whole = whole.then_some(cmd.len());
    files_model.id = NEXT_MODEL.fetch_add(1, Ordering::Relaxed);
    let mut out =
        Analysis { input_len: cmd.len(), files_recorded: files, whole, files: files_model, ..Analysis::default() };
    if refused_before_running(cmd) {
        return out;
    }
    analyse_into(cmd, 0, &mut out);
    if evaluated::evaluated_later(cmd) {
        out.uncertain = true;
        out.files.overflow = true;
    }
    out
}

/// Whether bash refuses the whole command line before running any of it: its first line opens a
/// quote that nothing closes, and everything before the quote is plain words, so the quote cannot
/// be anything else (escaped, in a comment, inside an expansion); `;`, `&` and `|` join commands.
/// bash reads a whole line before it runs a command on it, so `echo hi; echo 'x` runs nothing, as
/// does `echo "x`; dash and zsh also refuse the line. Anything less plain is left to the lexer, which is uncertain there.
fn refused_before_running(cmd: &str) -> bool {
    let bytes = cmd.as_bytes();
    for (at, &b) in bytes.iter().enumerate() {
        match b {
            b'\'' | b'"' => return !bytes[at + 1..].contains(&b),
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' => {}
            b' ' | b'\t' | b'.' | b'_' | b'/' | b'=' | b':' | b',' | b'+' | b'@' | b'%' | b'-' => {}
            b';' | b'&' | b'|' => {}
            _ => return false,
        }
    }
    false
}

/// Splits a permission-rule body into words the way the shell would (quotes removed, `*` kept).
/// `None` unless it is exactly one simple command with balanced quotes and no substitutions.
pub fn split_words(text: &str) -> Option<Vec<String>> {
    let mut out = Analysis::default();
    let (words, _, end) = Lexer::new(text, 0, &mut Walk::new(0, &mut out)).simple_command(false);
    (end == End::Eof && !out.uncertain && out.views.is_empty()).then(|| words.into_iter().map(|w| w.text).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether `cmd` is uncertain, and the texts of its innermost views.
    fn innermost_texts(cmd: &str) -> (bool, Vec<String>) {
        let a = analyse(cmd);
        (a.uncertain, a.views.iter().filter(|v| v.innermost).map(|v| v.text.clone()).collect())
    }

    #[test]
    fn compound_commands_expose_each_simple_command() {
        let cases: &[(&str, bool, &[&str])] = &[
            ("git push", false, &["git push"]),
            ("cd x && git push -f", false, &["cd x", "git push -f"]),
            ("a; b || c | d & e", false, &["a", "b", "c", "d", "e"]),
            ("FOO=1 BAR=2 git push", false, &["git push"]),
            ("sudo -u root env A=1 nohup git push", false, &["git push"]),
            ("(git push)", false, &["git push"]),
            ("echo $(git push)", false, &["git push", "echo $(git push)"]),
            ("echo `git push`", false, &["git push", "echo `git push`"]),
            ("bash -c 'git push'", false, &["bash -c git push", "git push"]),
            ("eval git push", false, &["eval git push", "git push"]),
            ("git push 2>&1 >/dev/null", false, &["git push"]),
            ("echo \"unterminated", false, &[]),
            ("git push; echo 'unterminated", false, &[]),
            ("git push\necho 'unterminated", true, &["git push", "echo unterminated"]),
            ("echo ${x:-'}'} ; git push -f ; echo '${w:-'}", false, &["echo ${x:-'}'}", "git push -f", "echo ${w:-}"]),
            ("echo \"${x:-'}'}\" ; git push -f", true, &["echo ${x:-'}'}", "git push -f"]),
            ("echo \\'x; git push", false, &["echo 'x", "git push"]),
            ("/usr/bin/git push", false, &["/usr/bin/git push", "git push"]),
            ("cat <<'EOF'\ndon't\nEOF\ngit push", false, &["cat", "git push"]),
            ("if true; then git push; fi", false, &["true", "git push", "fi"]),
            ("f() { git push; }", false, &["git push", "}"]),
            ("xargs -n1 git push", false, &["git push"]),
            ("echo ${x:-$(git push)}", false, &["git push", "echo ${x:-$(git push)}"]),
        ];
        for (cmd, uncertain, views) in cases {
            let (u, got) = innermost_texts(cmd);
            assert_eq!((u, got.iter().map(String::as_str).collect::<Vec<_>>()), (*uncertain, views.to_vec()), "{cmd}");
        }
    }

    #[test]
    fn a_file_rule_after_a_bash_rule_on_the_same_command_still_sees_its_file_uses() {
        for cmd in ["cat .env && git push", "echo x > .env", "F=.env; grep KEY $F", "unknown-tool .env"] {
            let full = analyse(cmd);
            // The memo may hold an analysis without the file model (no file rule alive then).
            with_analysis(cmd, Need::Views, |a| assert_eq!(a.views.len(), full.views.len(), "{cmd}"));
            with_analysis(cmd, Need::Files, |a| {
                assert!(a.files_recorded, "{cmd}");
                assert_eq!(a.files.uses.len(), full.files.uses.len(), "{cmd}");
                assert!(a.files.mentions().eq(full.files.mentions()), "{cmd}");
            });
        }
        assert!(!analyse_with("cat .env", false).files_recorded);
        assert!(analyse_with("cat .env", false).files.uses.is_empty());
    }

    #[test]
    fn deep_nesting_is_uncertain_and_does_not_overflow() {
        let deep = format!("{}git push{}", "$(".repeat(10_000), ")".repeat(10_000));
        assert!(analyse(&deep).uncertain);
        let deep_ticks = "(".repeat(100_000);
        assert!(analyse(&deep_ticks).uncertain);
    }

    #[test]
    fn ansi_c_quotes_are_decoded() {
        let a = analyse("$'\\x67it' push");
        assert_eq!(a.views[0].text, "git push");
        assert!(a.views[0].words.iter().all(|w| w.known));
    }

    #[test]
    fn expansions_make_a_word_unknown_but_quotes_do_not() {
        let a = analyse("g\"i\"t 'push' $X {a,b}");
        let known: Vec<bool> = a.views[0].words.iter().map(|w| w.known).collect();
        assert_eq!(known, [true, true, false, false]);
    }
}
