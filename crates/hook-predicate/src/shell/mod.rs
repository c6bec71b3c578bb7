//! The shell-command analyser behind BashSubcommand (R-PRED-4).
//!
//! [`analyse`] walks a command string the way a POSIX/bash shell would split it into simple commands
//! — quoting and escapes, `&&`, `||`, `;`, `|`, `&`, newlines, `( … )`, `$( … )`, backticks, process
//! substitution, here-documents, redirections, comments — and returns every *view* a rule may be tested
//! against: each simple command as written, and again after each layer of leading `VAR=value`
//! assignments, reserved words (`if`, `then`, `do`, `!`, `{`, …) and wrappers (`env`, `sudo`, `nohup`,
//! `time`, `command`, `exec`, `xargs`, …) has been stripped, and again without the global options of
//! a known multi-command program (`git -C dir push` as `git push`, [`programs`]). `sh -c '…'`,
//! `bash -c '…'`, `eval …`, `watch …`, `find … -exec … ;`, `env -S '…'` and the command lines hidden
//! in arguments or on standard input ([`hidden`]: `trap`, `su -c`, `ssh`, `bash <<EOF`, …) are
//! analysed recursively; interpreter code is kept in [`Analysis::code`].
//!
//! Whatever the walk cannot pin down is reported rather than guessed: [`Analysis::uncertain`] for the
//! whole command (unbalanced quotes or parentheses, a stray `)`, nesting deeper than [`MAX_DEPTH`],
//! `$( … )` inside `${ … }` or `$(( … ))`, more work than the budget allows), and [`Word::known`] for
//! a word whose value depends on an expansion (`$VAR`, `${…}`, `$( … )`, backticks, brace expansion;
//! a glob in command position).
//!
//! **Every analysis is bounded.** The walk counts its work ([`Analysis::spend`]: bytes lexed, again
//! for each string analysed recursively, and the words and bytes of each view and simple command) against a
//! budget linear in the command's length ([`WORK_PER_BYTE`], [`BASE_WORK`], at most [`MAX_WORK`]); past it the rest is
//! skipped and the command is uncertain, so no input costs more than a fixed multiple of reading it.
//! The file model and its resolution have budgets of their own (`files.rs`, `resolve.rs`).

mod awk;
mod evaluated;
pub(crate) mod files;
mod git;
mod hidden;
mod lex;
mod model;
mod options;
mod programs;
pub(crate) mod read_only;
mod walk;

#[cfg(test)]
mod stance;

#[cfg(test)]
mod bash_agrees;

use lex::{End, Lexer};
pub(crate) use options::Spelling;

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// How deep `$( … )`, `( … )`, backticks and `sh -c` may nest before the analysis gives up (uncertain).
const MAX_DEPTH: usize = 32;

/// The work an analysis may do per byte of the command string ([`Analysis::spend`]): a plain 1 MB
/// command of short simple commands (`echo a; echo a; …`) needs about 17 per byte.
const WORK_PER_BYTE: usize = 32;

/// The work any command may do whatever its length (`sh -c` and `eval` read their strings again).
const BASE_WORK: usize = 1 << 20;

/// The most work any command may do, however long: about 370 kB of short simple commands, well
/// inside the 100 ms a command up to 1 MB may take (a denser one past it is uncertain, and a
/// deny holds). No command a person writes comes near it; a long here-document costs a unit a
/// byte or so.
const MAX_WORK: usize = 6 << 20;

/// The work counted for each simple command emitted, beyond its bytes and words.
pub(super) const COMMAND_WORK: usize = 64;

/// The work counted for each word of a view (copied, joined, tested), beyond its bytes.
pub(super) const WORD_WORK: usize = 32;

/// The result of analysing one command string.
#[derive(Debug, Default)]
pub(crate) struct Analysis {
    /// The command could not be analysed with certainty; a subcommand rule matches it (R-PRED-4).
    pub(crate) uncertain: bool,
    /// Every view of every simple command, outermost first.
    pub(crate) views: Vec<View>,
    /// Interpreter code (`python -c '…'`, `perl -e '…'`, a here-document fed to `node`): a rule about
    /// another program matches when the code names it (R-PRED-4c).
    pub(crate) code: Vec<String>,
    /// The arguments of programs the model does not know (`shell/model.rs`), joined by spaces: a
    /// Bash rule about a program they name is uncertain for the command.
    pub(crate) opaque: Vec<String>,
    /// The length of the command string analysed (the view and work budgets grow with it).
    input_len: usize,
    /// The work done so far ([`Analysis::spend`]).
    work: usize,
    /// An exec's whole argv ([`crate::WholeArgv`]): the budget has no cap.
    whole: bool,
    /// The files the command reads and writes, for Read and Edit rules ([`files`]); empty unless
    /// `files_recorded`.
    pub(crate) files: files::FileModel,
    /// Whether the walk recorded [`Analysis::files`] (see [`with_analysis`]).
    files_recorded: bool,
    /// git aliases set earlier in the command line (`git.rs`).
    git: git::Learned,
    /// A redirection's target has a value only known at run time (`< $x`, which bash may open as
    /// a connection: `/dev/tcp/…`): read by `read_only.rs`.
    pub(crate) unknown_redirect: bool,
}

/// One simple command as a rule sees it: its words after some prefix was stripped.
#[derive(Debug)]
pub(crate) struct View {
    pub(crate) words: Vec<Word>,
    /// The words joined by single spaces (what regexes and word rules are tested against).
    pub(crate) text: String,
    /// The command that actually runs (every assignment, reserved word and wrapper stripped).
    pub(crate) innermost: bool,
    /// A wrapper such as `xargs` appends arguments nobody can see.
    pub(crate) more_args: bool,
}

impl View {
    /// Whether some word of this view has a value the analysis cannot know. An assignment-shaped
    /// word (`TS=$(date)`) does not count: whatever it expands to still starts with `NAME=`.
    pub(crate) fn has_unknown(&self) -> bool {
        self.more_args || self.words.iter().any(|w| !w.known && !w.assignment)
    }

    /// The start of `text` that is certain: the words before the first word of unknown value.
    pub(crate) fn known_prefix(&self) -> &str {
        let known = self.words.iter().take_while(|w| w.known).count();
        let len = self.words[..known].iter().map(|w| w.text.len() + 1).sum::<usize>().saturating_sub(1);
        &self.text[..len]
    }
}

/// One shell word after quote removal.
#[derive(Debug, Clone)]
pub(crate) struct Word {
    /// The word after quote removal; expansions stay as written (`$HOME`).
    pub(crate) text: String,
    /// False when the value depends on an expansion.
    pub(crate) known: bool,
    quoted: bool,
    assignment: bool,
    glob: bool,
    /// An expansion in it may yield several words (unquoted, `"$@"`, brace expansion).
    splits: bool,
    /// The value is unknown but is one word ending in `/NAME` (`"$dir/node"`): as a command word it
    /// runs a program named NAME, and is read as a path to it (`walk.rs`).
    program_known: bool,
}

impl Word {
    /// A word the analysis makes up (an operator inside `[[ … ]]`, an arithmetic command, a git
    /// alias's expansion).
    pub(crate) fn literal(text: &str) -> Word {
        Word {
            text: text.to_owned(),
            known: true,
            quoted: false,
            assignment: false,
            glob: false,
            splits: false,
            program_known: false,
        }
    }
}

thread_local! {
    /// The last command analysed on this thread: one tool call is tested against many predicates.
    static LAST: RefCell<Option<(String, Rc<Analysis>)>> = const { RefCell::new(None) };
}

/// How many rules that read a Bash command's file uses (Read and Edit rules) exist in this process.
/// While there are none, an analysis skips the file model ([`files`]), the largest part of its cost
/// that no Bash rule reads; one asked for by such a rule always has it.
static FILE_RULES: AtomicUsize = AtomicUsize::new(0);

/// A rule that reads a Bash command's file uses, alive: the analyses made meanwhile record them.
#[derive(Debug)]
pub(crate) struct FileRuleToken(());

impl FileRuleToken {
    pub(crate) fn new() -> Self {
        FILE_RULES.fetch_add(1, Ordering::Relaxed);
        FileRuleToken(())
    }
}

impl Drop for FileRuleToken {
    fn drop(&mut self) {
        FILE_RULES.fetch_sub(1, Ordering::Relaxed);
    }
}

/// What a caller of [`with_analysis`] reads of the analysis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Need {
    /// The views, interpreter code and opaque words (Bash rules).
    Views,
    /// Those and the file model (Read and Edit rules).
    Files,
}

/// Analyses `cmd`, reusing this thread's previous analysis when the command is the same string (and
/// it has the file model, when `need` asks for it).
pub(crate) fn with_analysis<R>(cmd: &str, need: Need, f: impl FnOnce(&Analysis) -> R) -> R {
    let cached = LAST.with(|last| match &*last.borrow() {
        Some((text, analysis))
            if text == cmd
                && analysis.whole == crate::argv::whole()
                && (need == Need::Views || analysis.files_recorded) =>
        {
            Some(Rc::clone(analysis))
        }
        _ => None,
    });
    let analysis = cached.unwrap_or_else(|| {
        let files = need == Need::Files || FILE_RULES.load(Ordering::Relaxed) > 0;
        let fresh = Rc::new(analyse_with(cmd, files));
        LAST.with(|last| *last.borrow_mut() = Some((cmd.to_owned(), Rc::clone(&fresh))));
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
    let whole = crate::argv::whole();
    let mut files_model = files::FileModel::default();
    files_model.whole = whole.then_some(cmd.len());
    let mut out =
        Analysis { input_len: cmd.len(), files_recorded: files, whole, files: files_model, ..Analysis::default() };
    analyse_into(cmd, 0, &mut out);
    if evaluated::evaluated_later(cmd) {
        out.uncertain = true;
        out.files.overflow = true;
    }
    out
}

/// Splits a permission-rule body into words the way the shell would (quotes removed, `*` kept).
/// `None` unless it is exactly one simple command with balanced quotes and no substitutions.
pub(crate) fn split_words(text: &str) -> Option<Vec<String>> {
    let mut out = Analysis::default();
    let (words, _, end) = Lexer::new(text, 0, &mut out).simple_command(false);
    (end == End::Eof && !out.uncertain && out.views.is_empty()).then(|| words.into_iter().map(|w| w.text).collect())
}

impl Analysis {
    /// Counts `units` of work: false once past the budget ([`Analysis::budget`]), and then the command is uncertain for every rule, a path rule
    /// included (the file uses of the part not read are not known).
    pub(super) fn spend(&mut self, units: usize) -> bool {
        self.work = self.work.saturating_add(units);
        let within = self.work <= self.budget();
        if !within {
            self.uncertain = true;
            self.files.overflow = true;
        }
        within
    }

    /// Whether the budget is spent: the walk then skips the rest of the input.
    pub(super) fn exhausted(&self) -> bool {
        self.work > self.budget()
    }

    /// [`WORK_PER_BYTE`] per byte of the command plus [`BASE_WORK`], at most [`MAX_WORK`] (no
    /// cap for an exec's whole argv: [`crate::WholeArgv`]).
    fn budget(&self) -> usize {
        let linear = self.input_len.saturating_mul(WORK_PER_BYTE).saturating_add(BASE_WORK);
        if self.whole { linear } else { linear.min(MAX_WORK) }
    }
}

fn analyse_into(cmd: &str, depth: usize, out: &mut Analysis) {
    if depth > MAX_DEPTH || !out.spend(cmd.len()) {
        out.uncertain = true;
        return;
    }
    let mut lexer = Lexer::new(cmd, depth, out);
    lexer.list(false);
    lexer.flush_deferred(true);
}

/// The last path component of a command name (`/usr/bin/git` → `git`).
pub(crate) fn basename(name: &str) -> &str {
    match name.bytes().rposition(|b| b == b'/') {
        Some(at) => &name[at + 1..],
        None => name,
    }
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
            ("echo \"unterminated", true, &["echo unterminated"]),
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
