//! What an analysis finds: the views of each simple command, the code and opaque words, the
//! file model, and the work budget every analysis is held to.

use crate::FileModel;
use crate::word::Word;

/// How deep `$( … )`, `( … )`, backticks and `sh -c` may nest before the analysis gives up (uncertain).
pub(crate) const MAX_DEPTH: usize = 32;

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
pub(crate) const COMMAND_WORK: usize = 64;

/// The work counted for each word of a view (copied, joined, tested), beyond its bytes.
pub(crate) const WORD_WORK: usize = 32;

/// How many layers (assignment runs, reserved words, wrappers) one simple command may shed.
pub(crate) const MAX_LAYERS: usize = 16;

/// The result of analysing one command string.
#[derive(Debug, Default)]
pub struct Analysis {
    /// The command could not be analysed with certainty; a subcommand rule matches it (R-PRED-4).
    pub uncertain: bool,
    /// Every view of every simple command, outermost first.
    pub views: Vec<View>,
    /// Interpreter code (`python -c '…'`, `perl -e '…'`, a here-document fed to `node`): a rule about
    /// another program matches when the code names it (R-PRED-4c).
    pub code: Vec<String>,
    /// The arguments of programs the model does not know (`model.rs`), joined by spaces: a
    /// Bash rule about a program they name is uncertain for the command.
    pub opaque: Vec<String>,
    /// The length of the command string analysed (the view and work budgets grow with it).
    pub(crate) input_len: usize,
    /// The work done so far ([`Analysis::spend`]).
    pub(crate) work: usize,
    /// An exec's whole argv ([`crate::WholeArgv`]): the budget has no cap.
    pub(crate) whole: bool,
    /// The files the command reads and writes, for Read and Edit rules (`files.rs`); empty unless
    /// `files_recorded`.
    pub files: FileModel,
    /// Whether the walk recorded [`Analysis::files`] (see [`with_analysis`]).
    pub(crate) files_recorded: bool,
    /// git aliases set earlier in the command line (`git.rs`).
    pub(crate) git_aliases: Vec<(String, String)>,
    /// A redirection's target has a value only known at run time (`< $x`, which bash may open as
    /// a connection: `/dev/tcp/…`): read by `read_only.rs`.
    pub unknown_redirect: bool,
}

/// One simple command as a rule sees it: its words after some prefix was stripped.
#[derive(Debug)]
pub struct View {
    pub words: Vec<Word>,
    /// The words joined by single spaces (what regexes and word rules are tested against).
    pub text: String,
    /// The command that actually runs (every assignment, reserved word and wrapper stripped).
    pub innermost: bool,
    /// A wrapper such as `xargs` appends arguments nobody can see.
    pub more_args: bool,
}

impl View {
    /// Whether some word of this view has a value the analysis cannot know. An assignment-shaped
    /// word (`TS=$(date)`) does not count: whatever it expands to still starts with `NAME=`.
    pub fn has_unknown(&self) -> bool {
        self.more_args || self.words.iter().any(|w| !w.known && !w.assignment)
    }

    /// The start of `text` that is certain: the words before the first word of unknown value.
    pub fn known_prefix(&self) -> &str {
        let known = self.words.iter().take_while(|w| w.known).count();
        let len = self.words[..known].iter().map(|w| w.text.len() + 1).sum::<usize>().saturating_sub(1);
        &self.text[..len]
    }
}

impl Analysis {
    /// Counts `units` of work: false once past the budget ([`Analysis::budget`]), and then the command is uncertain for every rule, a path rule
    /// included (the file uses of the part not read are not known).
    pub(crate) fn spend(&mut self, units: usize) -> bool {
        self.work = self.work.saturating_add(units);
        let within = self.work <= self.budget();
        if !within {
            self.uncertain = true;
            self.files.overflow = true;
        }
        within
    }

    /// Whether the budget is spent: the walk then skips the rest of the input.
    pub(crate) fn exhausted(&self) -> bool {
        self.work > self.budget()
    }

    /// [`WORK_PER_BYTE`] per byte of the command plus [`BASE_WORK`], at most [`MAX_WORK`] (no
    /// cap for an exec's whole argv: [`crate::WholeArgv`]).
    fn budget(&self) -> usize {
        let linear = self.input_len.saturating_mul(WORK_PER_BYTE).saturating_add(BASE_WORK);
        if self.whole { linear } else { linear.min(MAX_WORK) }
    }
}
