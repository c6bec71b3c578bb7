//! The shell analyser: a command line read the way bash reads it, for rules about what it runs
//! and what files it touches, below the matcher language (hook-predicate) and the exec-time guard
//! (hook-guard).
//!
//! [`with_analysis`] walks a command string the way a POSIX/bash shell would split it into simple
//! commands — quoting and escapes, `&&`, `||`, `;`, `|`, `&`, newlines, `( … )`, `$( … )`,
//! backticks, process substitution, here-documents, redirections, comments — and returns an
//! [`Analysis`]: every [`View`] a rule may be tested against (each simple command as written, and
//! again after each layer of leading `VAR=value` assignments, reserved words and wrappers — `env`,
//! `sudo`, `nohup`, `time`, `command`, `exec`, `xargs`, the dynamic loader, … — has been
//! stripped, and again without the global options of a known multi-command program: `git -C dir
//! push` as `git push`). `sh -c '…'`, `bash -c '…'`, `eval …`, `find … -exec … ;`, `env -S '…'`,
//! git's command-valued settings and aliases, awk programs and the command lines hidden in
//! arguments or on standard input (`trap`, `su -c`, `ssh`, `bash <<EOF`, …) are analysed
//! recursively; interpreter code is kept in [`Analysis::code`], and the files the command reads
//! and writes in a [`FileModel`]. [`read_only`] says whether a command is shown to change nothing.
//!
//! Main types: [`Analysis`], [`View`], [`Word`], [`FileModel`] and its [`FileUse`]s, [`Spelling`]
//! (a rule's words read by the program's option grammar), [`Verdict`], [`WholeArgv`], and the
//! program table in [`table`] that the matcher and the guard both read.
//!
//! Whatever the walk cannot pin down is reported rather than guessed: [`Analysis::uncertain`] for
//! the whole command (unbalanced quotes or parentheses, a stray `)`, nesting deeper than
//! `MAX_DEPTH`, text bash evaluates later — arithmetic subscripts, prompt expansion, startup files
//! —, what a wrapper appends where a command is read, more work than the budget allows), and
//! [`Word::known`] for a word whose value depends on an expansion. A first line of plain words
//! ending in a quote nothing closes is the one syntax error read as certain: bash refuses the
//! line before running any of it, so the analysis has no views.
//!
//! **Every analysis is bounded.** The walk counts its work (`Analysis::spend`) against a budget
//! linear in the command's length, with a cap unless a [`WholeArgv`] scope says the command is an
//! exec's argv; past it the rest is skipped and the command is uncertain. The file model has
//! budgets of its own (`files.rs`).
//!
//! ```
//! use hook_shell::{Need, with_analysis};
//!
//! let runs: Vec<String> = with_analysis("cd x && sudo -u me env A=1 git push -f", Need::Views, |a| {
//!     a.views.iter().filter(|v| v.innermost).map(|v| v.text.clone()).collect()
//! });
//! assert_eq!(runs, ["cd x", "git push -f"]);
//! ```
//!
//! What it must not know: rules, tool calls, payloads, paths of the project or the person's home
//! (resolving file uses against a directory is the matcher's job), the file system, clients.
//!
//! What a pipe carries is known where the command before it says: the paths `find … -print0`
//! lists (a glob, from its `-name` test) and the words `echo` prints, read by an `xargs` after it;
//! find's `{}` is that glob too.
//!
//! Inside the crate the modules go one way: `lex` reads text into simple commands and hands each
//! to a sink; `walk` (with `hidden`, `git` and `awk`, which extend it) owns the results; the
//! tables and readers of one program (`table`, `options`, `programs`, `model`, `sed`, `find`,
//! `program_file`) and the records (`word`, `files`) are below both.

mod analyse;
mod analysis;
mod argv;
mod awk;
mod column;
mod environment;
mod evaluated;
mod files;
mod find;
mod git;
mod hidden;
mod lex;
mod model;
mod options;
mod program_file;
mod programs;
mod read_only;
mod sed;
pub mod table;
mod verdict;
mod walk;
mod word;

#[cfg(test)]
mod bash_agrees;

pub use crate::analyse::{FileRuleToken, Need, split_words, with_analysis};
pub use crate::analysis::{Analysis, View};
pub use crate::argv::WholeArgv;
pub use crate::column::Refusal;
pub use crate::environment::ClientTmpdir;
pub use crate::files::{Access, Arg, FileModel, FileUse, Reach, Step};
pub use crate::options::Spelling;
pub use crate::read_only::{UNCERTAIN, read_only};
pub use crate::verdict::Verdict;
pub use crate::word::{Word, basename};
