//! One shell word after quote removal, and what the option readers and the table see of it.

/// One shell word after quote removal.
#[derive(Debug, Clone)]
pub struct Word {
    /// The word after quote removal; expansions stay as written (`$HOME`).
    pub text: String,
    /// False when the value depends on an expansion.
    pub known: bool,
    pub(crate) quoted: bool,
    /// Shaped like `NAME=value`.
    pub(crate) assignment: bool,
    pub(crate) glob: bool,
    /// An expansion in it may yield several words (unquoted, `"$@"`, brace expansion).
    pub(crate) splits: bool,
    /// The value is unknown but is one word ending in `/NAME` (`"$dir/node"`): as a command word it
    /// runs a program named NAME, and is read as a path to it (`walk.rs`).
    pub(crate) program_known: bool,
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

    /// Whether the word may stand for options: its value is unknown, or it is a glob that may
    /// expand to names starting with `-` (`rm -r *` with a file named `-f` is `rm -r -f …`).
    pub(crate) fn may_hold_options(&self) -> bool {
        !self.known
            || self.glob && !self.text.starts_with(|c: char| c.is_alphanumeric() || matches!(c, '.' | '/' | '_' | '~'))
    }
}

/// A word as the option reader sees it: a rule's words are all known, a command's may not be.
pub(crate) trait Text {
    fn text(&self) -> &str;
    fn known(&self) -> bool;
    /// Whether the word may stand for options (see [`Word::may_hold_options`]).
    fn may_hold_options(&self) -> bool;
}

impl Text for Word {
    fn text(&self) -> &str {
        &self.text
    }
    fn known(&self) -> bool {
        self.known
    }
    fn may_hold_options(&self) -> bool {
        Word::may_hold_options(self)
    }
}

impl Text for String {
    fn text(&self) -> &str {
        self
    }
    fn known(&self) -> bool {
        true
    }
    fn may_hold_options(&self) -> bool {
        false
    }
}

/// The last path component of a command name (`/usr/bin/git` → `git`).
pub fn basename(name: &str) -> &str {
    match name.bytes().rposition(|b| b == b'/') {
        Some(at) => &name[at + 1..],
        None => name,
    }
}
