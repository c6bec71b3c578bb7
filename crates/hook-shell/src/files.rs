//! The files a Bash command opens, for Read and Edit rules across tools (issue 23, classes 6–7).
//!
//! While the walk turns each simple command into views, it also hands it here ([`FileModel::command`],
//! the words left once assignments, reserved words and wrappers are stripped) together with every
//! redirection ([`FileModel::redirect`]). What is recorded, in command-line order:
//! - **file uses**: a redirection target (`<` reads; `>`, `>>`, `>|`, `&>` write; `<>` both) and the
//!   file arguments of the programs modelled in [`SPECS`] — which operands they read, which they
//!   write, which options take a file, whether an operand is the root of a recursive walk;
//! - **mentions**: every word of a program that is not modelled (and the scripts of `sed` and
//!   `awk`, which can open files of their own): a rule is uncertain when one of them names its path;
//! - the `cd` steps before each use (a relative path is tested from each of them and without them,
//!   since a subshell scopes `cd`), and the values of variables assigned earlier in the line
//!   (`F=.env; cat $F`, `export F=.env`), substituted into later words when known.
//!
//! A word whose value cannot be known (`$X`, `$(…)`) is [`Arg::Unknown`]; a glob word (`*`,
//! `.en?`) is [`Arg::Glob`], tested against the rule by overlap. Programs known to open no file
//! named by their arguments (`echo`, `ls`, `test`, …) record nothing.

use crate::word::{Word, basename};

/// How many file uses, mentions and `cd` steps one command string may record; past that the
/// command is uncertain for every path rule.
const MAX_RECORDS: usize = 4096;

/// How many bytes the values of variables substituted into words may add up to in one command
/// string (`A=$A$A` doubles a value); past that the command is uncertain for every path rule.
const MAX_SUBSTITUTED: usize = 1 << 20;

/// Whether a use reads, writes, or both.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Access {
    pub read: bool,
    pub write: bool,
}

pub(crate) const READ: Access = Access { read: true, write: false };
pub(crate) const WRITE: Access = Access { read: false, write: true };
pub(crate) const BOTH: Access = Access { read: true, write: true };

/// A file argument's value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Arg {
    /// Known text (a path as written: relative, absolute or `~/…`).
    Known(String),
    /// A glob the shell expands (`*.env`, `.en?`).
    Glob(String),
    /// A value only known at run time (`$X`, `$(…)`).
    Unknown,
}

/// How far a use reaches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// The file itself.
    File,
    /// Everything below the path, hidden files included (`grep -r`, `rm -r`, `cp -r`).
    Tree,
    /// A search rooted at the path as the Grep tool's (`rg`, `ag`: hidden files skipped, so only
    /// a rule on a whole directory is covered by the root alone).
    Search,
}

/// One `cd` step: its argument, or unknown (`cd $DIR`, `cd -`, `popd`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    Known(String),
    Unknown,
}

/// A file the command opens.
#[derive(Debug, Clone)]
pub struct FileUse {
    pub access: Access,
    pub reach: Reach,
    pub arg: Arg,
    /// How many of [`FileModel::cds`] were taken earlier in the line.
    pub cds: usize,
}

/// What one command string opens and names (see the module docs).
#[derive(Debug, Default)]
pub struct FileModel {
    pub uses: Vec<FileUse>,
    /// Words of unmodelled programs and of `sed`/`awk` scripts, each followed by a NUL (no shell
    /// word holds one): one buffer rather than a string each ([`FileModel::mentions`]).
    mentions: String,
    /// The same, for programs the read-only column shows writing nothing: they may read a file
    /// a word names, never write one ([`FileModel::mentions_written`]).
    read_mentions: String,
    mention_count: usize,
    /// More was recorded than `MAX_RECORDS`, or substituted than `MAX_SUBSTITUTED`.
    pub overflow: bool,
    /// The bytes substituted so far ([`MAX_SUBSTITUTED`]).
    substituted: std::cell::Cell<usize>,
    /// The variables assigned so far: their last value, `None` when unknown.
    vars: std::collections::HashMap<String, Option<String>>,
    /// Every `cd` step of the line, in order (each use names how many came before it).
    pub cds: Vec<Step>,
    /// This model's identity, unique in the process: a caller that resolves the uses against a
    /// directory may keep its resolution under it (one command is tested against many rules).
    pub(crate) id: u64,
    /// For an exec's whole argv ([`crate::WholeArgv`]), its length: no cap on the records, and
    /// their resolution's budget grows with it.
    pub whole: Option<usize>,
}

impl FileModel {
    /// This model's identity, unique in the process (a cache of its resolution is kept under it).
    pub fn id(&self) -> u64 {
        self.id
    }

    /// A redirection `op` (`<`, `>>`, `&>`, `<>`, `>&`, …) to `target`.
    pub(crate) fn redirect(&mut self, op: &[u8], target: &Word) {
        let access = match op {
            b"<" => READ,
            b"<>" => BOTH,
            b">" | b">>" | b">|" | b"&>" | b"&>>" => WRITE,
            // `>&2`, `<&-`: a descriptor; `>&file` is `&>file`.
            b">&" if !target.text.bytes().all(|b| b.is_ascii_digit() || b == b'-') => WRITE,
            _ => return,
        };
        let arg = self.value(target);
        self.push(access, Reach::File, arg);
    }

    /// One simple command: `words[..at]` its assignments and wrappers, `words[at..]` what runs;
    /// `appended`: what a wrapper (`xargs`) appends, when it does: arguments nobody can see
    /// ([`Arg::Unknown`]) or paths a glob describes.
    pub(crate) fn command(&mut self, words: &[Word], at: usize, appended: Option<Arg>) {
        if self.overflow {
            return; // Every path rule is uncertain already.
        }
        for w in words[..at.min(words.len())].iter().filter(|w| w.assignment) {
            self.assign(w);
        }
        let Some(rest) = words.get(at..).filter(|r| !r.is_empty()) else { return };
        let program = &rest[0];
        if !program.known {
            self.mention_all(rest);
            return;
        }
        let name = basename(&program.text);
        match name {
            "cd" | "pushd" => {
                let step = match rest.iter().skip(1).find(|w| !w.known || !w.text.starts_with('-') || w.text == "-") {
                    None => Step::Known("~".to_owned()),
                    Some(w) if w.text == "-" => Step::Unknown,
                    Some(w) => match self.value(w) {
                        Arg::Known(dir) => Step::Known(dir),
                        Arg::Glob(_) | Arg::Unknown => Step::Unknown,
                    },
                };
                self.step(step);
            }
            "popd" => self.step(Step::Unknown),
            "export" | "declare" | "typeset" | "local" | "readonly" => {
                rest[1..].iter().filter(|w| w.assignment).for_each(|w| self.assign(w));
            }
            "dd" => {
                for w in &rest[1..] {
                    let access = if w.text.starts_with("if=") {
                        READ
                    } else if w.text.starts_with("of=") {
                        WRITE
                    } else {
                        continue;
                    };
                    let arg = self.value_after(w, 3);
                    self.push(access, Reach::File, arg);
                }
            }
            "tar" | "bsdtar" => self.tar(rest),
            "find" => self.find(rest),
            _ if INERT.binary_search(&name).is_ok() => {}
            _ => match spec(name) {
                Some(spec) => self.modelled(spec, rest, appended),
                None => {
                    // The program is executed, not written: a path in command position is read
                    // (an interpreter reads its script); a bare name is looked up on PATH.
                    if program.text.contains('/') {
                        self.push_word(READ, Reach::File, program);
                    }
                    // `git log -- .env` may read what it names; a program the read-only column
                    // shows writing nothing (`git --git-dir=.git config core.editor`) writes none.
                    let read = crate::column::writes_nothing(rest, appended.is_some());
                    let before = self.mentions.len();
                    self.mention_all(&rest[1..]);
                    if read && !self.overflow {
                        let words = self.mentions.split_off(before);
                        self.read_mentions.push_str(&words);
                    }
                }
            },
        }
    }

    fn modelled(&mut self, spec: &Spec, words: &[Word], appended: Option<Arg>) {
        let mut operands: Vec<&Word> = Vec::new();
        let (mut tree, mut in_place, mut supplied, mut target) = (false, false, false, None);
        let mut i = 1;
        while let Some(w) = words.get(i) {
            i += 1;
            let t = w.text.as_str();
            if !w.known || !t.starts_with('-') || t == "-" {
                operands.push(w);
                continue;
            }
            if t == "--" {
                operands.extend(&words[i..]);
                break;
            }
            if let Some(long) = t.strip_prefix("--") {
                let (option, attached) = match long.split_once('=') {
                    Some((o, v)) => (o, Some(v)),
                    None => (long, None),
                };
                let option = &t[..option.len() + 2];
                tree |= spec.tree.contains(&option);
                in_place |= spec.in_place.contains(&option);
                supplied |= spec.supplies.contains(&option);
                let file = spec.files.iter().find(|(o, _)| *o == option).map(|(_, a)| *a);
                let takes = file.is_some() || spec.with_value.contains(&option);
                let value = match attached {
                    Some(v) => Some(Value::Text(v)),
                    None if takes => {
                        i += 1;
                        words.get(i - 1).map(Value::Word)
                    }
                    None => None,
                };
                match (file, value) {
                    (Some(access), Some(v)) if option == "--target-directory" => target = Some((access, v)),
                    (Some(access), Some(v)) => self.push_value(access, Reach::File, v),
                    (None, Some(Value::Text(v))) if !takes => self.mention(v),
                    _ => {}
                }
                continue;
            }
            // A cluster of short options: `-rn`, `-n5`, `-fFILE`.
            for (k, c) in t.char_indices().skip(1) {
                let short = |list: &[&str]| list.iter().any(|o| o.len() == 2 && o[1..].starts_with(c));
                tree |= short(spec.tree);
                supplied |= short(spec.supplies);
                if short(spec.in_place) {
                    in_place = true;
                    break; // `sed -i.bak`: the rest is a suffix.
                }
                let file = spec.files.iter().find(|(o, _)| o.len() == 2 && o[1..].starts_with(c)).map(|(_, a)| *a);
                if file.is_none() && !short(spec.with_value) {
                    continue;
                }
                let rest = &t[k + c.len_utf8()..];
                let value = if rest.is_empty() {
                    i += 1;
                    words.get(i - 1).map(Value::Word)
                } else {
                    Some(Value::Text(rest))
                };
                match (file, value) {
                    // Only `cp`, `install`, `mv` and `ln` have a file-valued `-t`: the target directory.
                    (Some(access), Some(v)) if c == 't' => target = Some((access, v)),
                    (Some(access), Some(v)) => self.push_value(access, Reach::File, v),
                    _ => {}
                }
                break;
            }
        }
        if spec.first != First::File && !supplied && !operands.is_empty() {
            let script = operands.remove(0);
            if spec.first == First::Script {
                self.mention(&script.text);
            }
        }
        if spec.first == First::Script && script_may_open_files(words) {
            // sed's `w file`, awk's `print > "file"`: their scripts open files of their own.
            self.mention_all(words);
        }
        if spec.awk_assignments {
            operands.retain(|w| !w.assignment);
        }
        let reach = if spec.search {
            Reach::Search
        } else if tree {
            Reach::Tree
        } else {
            Reach::File
        };
        if spec.search && operands.is_empty() {
            self.push(READ, reach, Arg::Known(".".to_owned()));
        }
        if let Some(arg) = appended {
            // `xargs cat`: the operands nobody can see, or the paths `find … -print0` lists.
            self.push(spec.operands.access(in_place), reach, arg);
        }
        match spec.operands {
            Operands::Each(access) => {
                let access = if in_place { BOTH } else { access };
                for w in operands {
                    self.push_word(access, reach, w);
                }
            }
            Operands::InOut => {
                let mut it = operands.into_iter();
                if let Some(w) = it.next() {
                    self.push_word(READ, Reach::File, w);
                }
                if let Some(w) = it.next() {
                    self.push_word(WRITE, Reach::File, w);
                }
            }
            Operands::Source => {
                if let Some((script, args)) = operands.split_first() {
                    self.push_word(READ, Reach::File, script);
                    args.iter().for_each(|w| self.mention(&w.text));
                }
            }
            Operands::Copy(source) => {
                let dest = match target {
                    Some((_, v)) => Some(self.value_of(v)),
                    None => operands.pop().map(|w| self.value(w)),
                };
                let dest_reach = if tree { Reach::Tree } else { Reach::File };
                // A source that is moved (`mv`, `ln`'s are read as both) goes whole: a directory
                // takes every file below it along.
                let reach = if source == BOTH { Reach::Tree } else { reach };
                for w in operands {
                    let src = self.value(w);
                    if let Some(dest) = &dest {
                        // `cp /tmp/.env .` writes `./.env`.
                        let into = match (dest, &src) {
                            (Arg::Known(d), Arg::Known(s)) => Arg::Known(format!("{d}/{}", basename(s))),
                            (Arg::Known(d), Arg::Glob(s)) => Arg::Glob(format!("{d}/{}", basename(s))),
                            (Arg::Known(d), Arg::Unknown) => Arg::Glob(format!("{}/*", globset::escape(d))),
                            _ => Arg::Unknown,
                        };
                        self.push(WRITE, dest_reach, into);
                    }
                    self.push(source, reach, src);
                }
                if let Some(dest) = dest {
                    self.push(if source == READ { WRITE } else { BOTH }, dest_reach, dest);
                }
            }
        }
    }

    /// `tar`: the archive (`-f`) and the members are read and written alike (`c` reads the members
    /// and writes the archive, `x` the other way round); extraction may also write anything below
    /// the directory it extracts into, which is only a glob there.
    fn tar(&mut self, words: &[Word]) {
        let mut extracts = false;
        let mut dir = None;
        let mut i = 1;
        while let Some(w) = words.get(i) {
            i += 1;
            let t = w.text.as_str();
            let cluster = if i == 2 && w.known && !t.starts_with('-') { Some(t) } else { t.strip_prefix('-') };
            match cluster.filter(|c| w.known && !c.starts_with('-')) {
                Some(c) => {
                    extracts |= c.contains('x');
                    if c.contains('C') {
                        dir = words.get(i).map(|d| self.value(d));
                    }
                    if c.contains('f') || c.contains('C') {
                        if let Some(archive) = words.get(i).filter(|_| c.contains('f')) {
                            self.push_word(BOTH, Reach::File, archive);
                        }
                        i += 1;
                    }
                }
                None if t.starts_with("--file=") => {
                    let arg = self.value_after(w, 7);
                    self.push(BOTH, Reach::File, arg);
                }
                None if t.starts_with("--directory=") => dir = Some(self.value_after(w, 12)),
                None if t == "--extract" || t == "--get" => extracts = true,
                None if t.starts_with("--") => {}
                None => self.push_word(BOTH, Reach::Tree, w),
            }
        }
        if extracts {
            let into = match dir.unwrap_or(Arg::Known(".".to_owned())) {
                Arg::Known(d) => Arg::Glob(format!("{}/**", globset::escape(&d))),
                _ => Arg::Unknown,
            };
            self.push(WRITE, Reach::File, into);
        }
    }

    fn assign(&mut self, w: &Word) {
        let Some((name, _)) = w.text.split_once('=') else { return };
        let value = match self.value_after(w, name.len() + 1) {
            Arg::Known(v) if !name.ends_with('+') => Some(v),
            _ => None,
        };
        let name = name.trim_end_matches('+');
        if self.vars.len() >= self.max_records() && !self.vars.contains_key(name) {
            self.overflow = true;
            return;
        }
        self.vars.insert(name.to_owned(), value);
    }

    pub(crate) fn push_word(&mut self, access: Access, reach: Reach, w: &Word) {
        if is_pipe(w) {
            return;
        }
        let arg = self.value(w);
        self.push(access, reach, arg);
    }

    fn push_value(&mut self, access: Access, reach: Reach, v: Value<'_>) {
        if matches!(v, Value::Word(w) if is_pipe(w)) {
            return;
        }
        let arg = self.value_of(v);
        self.push(access, reach, arg);
    }

    fn step(&mut self, step: Step) {
        if self.records() >= self.max_records() || self.substituted.get() > MAX_SUBSTITUTED {
            self.overflow = true;
            return;
        }
        self.cds.push(step);
    }

    pub(crate) fn push(&mut self, access: Access, reach: Reach, arg: Arg) {
        if self.records() >= self.max_records() || self.substituted.get() > MAX_SUBSTITUTED {
            self.overflow = true;
            return;
        }
        self.uses.push(FileUse { access, reach, arg, cds: self.cds.len() });
    }

    fn mention(&mut self, text: &str) {
        if self.records() >= self.max_records() || self.substituted.get() > MAX_SUBSTITUTED {
            self.overflow = true;
            return;
        }
        self.mentions.push_str(text);
        self.mentions.push('\0');
        self.mention_count += 1;
    }

    /// Each word's value (its text when unknown), as a mention.
    pub(crate) fn mention_all(&mut self, words: &[Word]) {
        for w in words {
            match self.substitute_unknown(w) {
                Some(value) => self.mention(&value),
                None => self.mention(&w.text),
            }
        }
    }

    /// The words of unmodelled programs and of `sed`/`awk` scripts, with the values of variables
    /// assigned earlier in the line substituted where known.
    pub fn mentions(&self) -> impl Iterator<Item = &str> {
        self.mentions.split_terminator('\0').chain(self.read_mentions.split_terminator('\0'))
    }

    /// The mentions of programs that may write a file their words name (an Edit rule's doubts).
    pub fn mentions_written(&self) -> impl Iterator<Item = &str> {
        self.mentions.split_terminator('\0')
    }

    /// [`MAX_RECORDS`], or no cap for an exec's whole argv.
    fn max_records(&self) -> usize {
        if self.whole.is_some() { usize::MAX } else { MAX_RECORDS }
    }

    fn records(&self) -> usize {
        self.uses.len() + self.mention_count + self.cds.len()
    }

    fn value_of(&self, v: Value<'_>) -> Arg {
        match v {
            Value::Word(w) => self.value(w),
            Value::Text(t) => Arg::Known(t.to_owned()),
        }
    }

    /// An unknown word's value with the variables assigned earlier in the line substituted, when
    /// that makes it known; `None` for a known word (its text is its value) or one that stays unknown.
    fn substitute_unknown(&self, w: &Word) -> Option<String> {
        if w.known { None } else { self.substitute(&w.text) }
    }

    /// A word's value, with the variables assigned earlier in the line substituted.
    fn value(&self, w: &Word) -> Arg {
        self.value_after(w, 0)
    }

    /// The value of the word's text from byte `from` on (`of=` stripped, `NAME=` stripped).
    fn value_after(&self, w: &Word, from: usize) -> Arg {
        let text = w.text.get(from..).unwrap_or_default();
        if w.known {
            return if w.glob { Arg::Glob(text.to_owned()) } else { Arg::Known(text.to_owned()) };
        }
        match self.substitute(text) {
            Some(value) if value.contains(['*', '?', '[']) => Arg::Glob(value),
            Some(value) => Arg::Known(value),
            None => Arg::Unknown,
        }
    }

    /// `$NAME` and `${NAME}` replaced by known values; `None` for any other expansion, an unknown
    /// variable, or past [`MAX_SUBSTITUTED`] (the next record then overflows).
    fn substitute(&self, text: &str) -> Option<String> {
        if self.vars.is_empty() || !text.contains('$') || text.contains('`') {
            return None; // Unknown for another reason (brace expansion, a backtick).
        }
        let mut out = String::new();
        let mut rest = text;
        while let Some(at) = rest.find('$') {
            out.push_str(&rest[..at]);
            let after = &rest[at + 1..];
            let (name, tail) = match after.strip_prefix('{') {
                Some(braced) => {
                    let end = braced.find('}')?;
                    (&braced[..end], &braced[end + 1..])
                }
                None => {
                    let end = after.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(after.len());
                    (&after[..end], &after[end..])
                }
            };
            let valid = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
            if !valid {
                return None;
            }
            let value = self.vars.get(name)?.as_deref()?;
            let total = self.substituted.get().saturating_add(value.len());
            self.substituted.set(total);
            if total > MAX_SUBSTITUTED {
                return None;
            }
            out.push_str(value);
            rest = tail;
        }
        out.push_str(rest);
        Some(out)
    }
}

/// A word that is a process substitution (`<(ls)`, `>(sort)`): bash passes a pipe (`/dev/fd/63`),
/// not a file, and the command behind it is analysed as one of the line's. Whatever follows it in
/// the word makes a path through the pipe, which the kernel refuses (ENOTDIR).
fn is_pipe(w: &Word) -> bool {
    !w.known && (w.text.starts_with("<(") || w.text.starts_with(">("))
}

/// An option's value: the next word, or text attached to the option.
#[derive(Clone, Copy)]
enum Value<'w> {
    Word(&'w Word),
    Text(&'w str),
}

/// Whether a `sed` or `awk` command's script could hold a command that opens a file or runs one:
/// sed's `w`, `W`, `r`, `R` and `e`, awk's redirections, pipes, `getline` and `system`. The script is
/// each `-e`/`--expression` value, else the first operand; errs on yes (any such letter or sign).
fn script_may_open_files(words: &[Word]) -> bool {
    let awk = words.first().is_some_and(|w| super::basename(&w.text).contains("awk"));
    let opens = |w: &Word| {
        !w.known
            || if awk {
                w.text.contains(['>', '<', '|']) || w.text.contains("getline") || w.text.contains("system")
            } else {
                w.text.contains(['w', 'W', 'r', 'R', 'e'])
            }
    };
    let mut scripts = Vec::new();
    let mut i = 1;
    while let Some(w) = words.get(i) {
        match w.text.as_str() {
            "-e" | "--expression" => {
                scripts.extend(words.get(i + 1));
                i += 2;
            }
            "-f" | "--file" | "-F" | "-v" | "--field-separator" | "--assign" => i += 2,
            t if !awk && t.starts_with("-e") || t.starts_with("--expression=") => {
                // An attached script: judged as a whole word (it holds `e` of `-e` itself).
                let rest = t.split_once('=').map_or(&t[2..], |(_, v)| v);
                if !w.known || rest.contains(['w', 'W', 'r', 'R', 'e']) {
                    return true;
                }
                i += 1;
            }
            t if t.starts_with('-') && t.len() > 1 => i += 1,
            _ => {
                if scripts.is_empty() {
                    scripts.push(w);
                }
                break;
            }
        }
    }
    scripts.is_empty() || scripts.into_iter().any(opens)
}

/// What a program's first operand is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum First {
    /// A file like the others.
    File,
    /// A pattern, mode or owner (`grep KEY`, `chmod 600`), unless an option in `supplies` gave it.
    Pattern,
    /// A script that can open files of its own (`sed`, `awk`), unless an option gave it.
    Script,
}

/// What a program does with its operands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Operands {
    /// Each operand, the same way.
    Each(Access),
    /// The first is read, the second written (`uniq in out`, `xxd in out`).
    InOut,
    /// The first is read, the rest are arguments (`source script args`).
    Source,
    /// The sources (with this access) go to the last operand, or to `-t DIR` (`cp`, `mv`, `ln`).
    Copy(Access),
}

impl Operands {
    fn access(self, in_place: bool) -> Access {
        match self {
            Operands::Each(a) if !in_place => a,
            Operands::Each(_) => BOTH,
            Operands::InOut | Operands::Source => READ,
            Operands::Copy(_) => BOTH,
        }
    }
}

/// One modelled program's file grammar.
struct Spec {
    names: &'static [&'static str],
    first: First,
    operands: Operands,
    /// Options whose value is a file, and what is done to it.
    files: &'static [(&'static str, Access)],
    /// Options that take a value that is not a file (`-n 5`).
    with_value: &'static [&'static str],
    /// Options that give the pattern or script, so that the first operand is a file.
    supplies: &'static [&'static str],
    /// Options that make the operands roots of a recursive walk.
    tree: &'static [&'static str],
    /// Options that make a reader write its operands too (`sed -i`).
    in_place: &'static [&'static str],
    /// The operands are search roots (`.` without any), as the Grep tool's `path`.
    search: bool,
    /// `awk`'s `var=value` operands are assignments, not files.
    awk_assignments: bool,
}

const SPEC: Spec = Spec {
    names: &[],
    first: First::File,
    operands: Operands::Each(READ),
    files: &[],
    with_value: &[],
    supplies: &[],
    tree: &[],
    in_place: &[],
    search: false,
    awk_assignments: false,
};

/// Programs that open no file named by their arguments (they may print them, or stat them).
#[rustfmt::skip]
const INERT: &[&str] = &[
    ":", "[", "[[", "]]", "arch", "basename", "cal", "clear", "date", "df", "dirname", "du", "echo", "env", "esac",
    "exit", "expr", "false", "free", "getconf", "groups", "history", "hostname", "id", "jobs", "kill", "let",
    "locale", "ls", "nproc", "printenv", "printf", "ps", "pwd", "read", "readlink", "realpath", "return", "seq",
    "set", "shift", "sleep", "test", "tput", "tr", "true", "tty", "type", "ulimit", "umask", "uname", "unset",
    "uptime", "wait", "which", "whoami", "yes",
];

/// The spec of the program named `name`, if modelled.
fn spec(name: &str) -> Option<&'static Spec> {
    static BY_NAME: std::sync::OnceLock<Vec<(&str, &Spec)>> = std::sync::OnceLock::new();
    let by_name = BY_NAME.get_or_init(|| {
        let mut by_name: Vec<(&str, &Spec)> = SPECS.iter().flat_map(|s| s.names.iter().map(move |n| (*n, s))).collect();
        by_name.sort_unstable_by_key(|(n, _)| *n);
        by_name
    });
    by_name.binary_search_by_key(&name, |(n, _)| n).ok().map(|i| by_name[i].1)
}

#[rustfmt::skip]
const SPECS: &[Spec] = &[
    Spec { names: &["cat", "tac", "nl", "rev", "wc", "md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum",
        "sha512sum", "b2sum", "cksum", "sum", "base64", "base32", "basenc", "strings", "fold", "fmt", "expand",
        "unexpand", "column", "comm", "paste", "join", "file", "stat", "cmp", "zcat", "bzcat", "xzcat", "zless",
        "less", "more", "most", "view", "bat", "batcat", "od", "hexdump", "hd", "look", "shuf", "tsort", "pr"],
        files: &[("-o", BOTH), ("-O", BOTH), ("-f", READ)], ..SPEC },
    Spec { names: &["head", "tail"], with_value: &["-n", "-c", "--lines", "--bytes", "--pid", "-s"], ..SPEC },
    Spec { names: &["cut"], with_value: &["-d", "-f", "-b", "-c", "--delimiter", "--fields", "--bytes",
        "--characters", "--output-delimiter"], ..SPEC },
    Spec { names: &["sort"], with_value: &["-k", "-t", "-S", "-T", "--key", "--field-separator", "--buffer-size",
        "--temporary-directory", "--parallel"], files: &[("-o", WRITE), ("--output", WRITE),
        ("--files0-from", READ)], ..SPEC },
    Spec { names: &["uniq"], operands: Operands::InOut, with_value: &["-f", "-s", "-w"], ..SPEC },
    Spec { names: &["xxd"], operands: Operands::InOut, with_value: &["-c", "-g", "-l", "-s", "-o", "-n"], ..SPEC },
    Spec { names: &["diff", "diff3", "sdiff"], with_value: &["-U", "-C", "-L", "--label", "-I", "-x", "-F"],
        files: &[("-X", READ), ("--exclude-from", READ)], tree: &["-r", "--recursive"], ..SPEC },
    Spec { names: &["iconv"], with_value: &["-f", "-t", "--from-code", "--to-code"],
        files: &[("-o", WRITE), ("--output", WRITE)], ..SPEC },
    Spec { names: &["grep", "egrep", "fgrep", "zgrep"], first: First::Pattern,
        files: &[("-f", READ), ("--file", READ)], with_value: &["-e", "--regexp", "-m", "-A", "-B", "-C", "-d", "-D"],
        supplies: &["-e", "-f", "--regexp", "--file"], tree: &["-r", "-R", "--recursive", "--dereference-recursive"],
        ..SPEC },
    Spec { names: &["rg", "ag", "ack"], first: First::Pattern, search: true,
        files: &[("-f", READ), ("--file", READ), ("--ignore-file", READ)],
        with_value: &["-e", "--regexp", "-g", "--glob", "--iglob", "-t", "--type", "-T", "--type-not", "-m", "-A",
            "-B", "-C", "-j", "-M", "-r", "--replace", "-E", "--encoding", "--max-depth", "-d", "--pre", "--sort",
            "--sortr", "--type-add", "--colors", "--context-separator", "--path-separator", "--max-filesize", "-G"],
        supplies: &["-e", "-f", "--regexp", "--file", "--files", "--type-list"], ..SPEC },
    Spec { names: &["sed", "gsed"], first: First::Script, files: &[("-f", READ), ("--file", READ)],
        with_value: &["-e", "--expression", "-l", "--line-length"], supplies: &["-e", "-f", "--expression", "--file"],
        in_place: &["-i", "--in-place"], ..SPEC },
    Spec { names: &["awk", "gawk", "mawk", "nawk"], first: First::Script, awk_assignments: true,
        files: &[("-f", READ), ("--file", READ), ("-i", READ), ("--include", READ)],
        with_value: &["-v", "-F", "--assign", "--field-separator"], supplies: &["-f", "--file"], ..SPEC },
    Spec { names: &["source", "."], operands: Operands::Source, ..SPEC },
    Spec { names: &["tee"], operands: Operands::Each(WRITE), ..SPEC },
    // tree lists names under its directories (it reads no file's content) and writes `-o FILE`.
    Spec { names: &["tree"], files: &[("-o", WRITE)], with_value: &["-L", "-P", "-I", "-H", "-T", "--charset",
        "--filelimit", "--timefmt", "--sort"], ..SPEC },
    Spec { names: &["rm", "rmdir", "unlink", "shred", "mkdir", "mkfifo", "mknod"], operands: Operands::Each(WRITE),
        with_value: &["-m", "--mode", "-n", "-s", "--iterations", "--size"], tree: &["-r", "-R", "--recursive"],
        ..SPEC },
    Spec { names: &["touch", "truncate"], operands: Operands::Each(WRITE),
        files: &[("-r", READ), ("--reference", READ)], with_value: &["-d", "-t", "--date", "-s", "--size"], ..SPEC },
    Spec { names: &["chmod", "chown", "chgrp", "chattr", "setfacl"], first: First::Pattern,
        operands: Operands::Each(WRITE), files: &[("--reference", READ)], supplies: &["--reference"],
        tree: &["-R", "--recursive"], ..SPEC },
    Spec { names: &["dos2unix", "unix2dos", "vi", "vim", "nvim", "nano", "emacs", "ed", "ex", "pico", "micro",
        "code", "gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "zstd", "unzstd"], operands: Operands::Each(BOTH),
        ..SPEC },
    Spec { names: &["cp", "install"], operands: Operands::Copy(READ),
        files: &[("-t", WRITE), ("--target-directory", WRITE)],
        with_value: &["-S", "--suffix", "-m", "-o", "-g", "--mode", "--owner", "--group"],
        tree: &["-r", "-R", "-a", "--recursive", "--archive"], ..SPEC },
    Spec { names: &["mv", "ln", "link"], operands: Operands::Copy(BOTH),
        files: &[("-t", WRITE), ("--target-directory", WRITE)], with_value: &["-S", "--suffix"], ..SPEC },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_inert_list_is_sorted_and_each_program_has_one_spec() {
        assert!(INERT.windows(2).all(|w| w[0] < w[1]), "{:?}", INERT.windows(2).find(|w| w[0] >= w[1]));
        let mut names: Vec<&str> = SPECS.iter().flat_map(|s| s.names.iter().copied()).collect();
        let all = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), all, "a program has two specs");
        for s in SPECS {
            for name in s.names {
                assert!(spec(name).is_some_and(|found| found.names == s.names), "{name}");
                assert!(INERT.binary_search(name).is_err(), "{name} is both inert and modelled");
            }
        }
        assert!(spec("git").is_none());
    }
}
