//! The shell-command analyser behind BashSubcommand (R-PRED-4).
//!
//! [`analyse`] walks a command string the way a POSIX/bash shell would split it into simple commands
//! — quoting and escapes, `&&`, `||`, `;`, `|`, `&`, newlines, `( … )`, `$( … )`, backticks, process
//! substitution, here-documents, redirections, comments — and returns every *view* a rule may be tested
//! against: each simple command as written, and again after each layer of leading `VAR=value`
//! assignments, reserved words (`if`, `then`, `do`, `!`, `{`, …) and wrappers (`env`, `sudo`, `nohup`,
//! `time`, `command`, `exec`, `xargs`, …) has been stripped. `sh -c '…'`, `bash -c '…'`, `eval …`,
//! `watch …`, `find … -exec … ;` and `env -S '…'` are analysed recursively.
//!
//! Whatever the walk cannot pin down is reported rather than guessed: [`Analysis::uncertain`] for the
//! whole command (unbalanced quotes or parentheses, a stray `)`, nesting deeper than [`MAX_DEPTH`],
//! `$( … )` inside `${ … }` or `$(( … ))`), and [`Word::known`] for a word whose value depends on an
//! expansion (`$VAR`, `${…}`, `$( … )`, backticks, brace expansion; a glob in command position).

use std::cell::RefCell;
use std::rc::Rc;

/// How deep `$( … )`, `( … )`, backticks and `sh -c` may nest before the analysis gives up (uncertain).
const MAX_DEPTH: usize = 32;
/// How many layers (assignment runs, reserved words, wrappers) one simple command may shed.
const MAX_LAYERS: usize = 16;

/// Reserved words that may open a command without being its name.
const RESERVED: &[&str] = &["!", "{", "}", "if", "then", "elif", "else", "fi", "do", "done", "while", "until"];
/// Shells whose `-c` argument is itself a command string.
const SHELLS: &[&str] = &["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash"];

/// The result of analysing one command string.
#[derive(Debug, Default)]
pub(crate) struct Analysis {
    /// The command could not be analysed with certainty; a subcommand rule matches it (R-PRED-4).
    pub(crate) uncertain: bool,
    /// Every view of every simple command, outermost first.
    pub(crate) views: Vec<View>,
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
}

thread_local! {
    /// The last command analysed on this thread: one tool call is tested against many predicates.
    static LAST: RefCell<Option<(String, Rc<Analysis>)>> = const { RefCell::new(None) };
}

/// Analyses `cmd`, reusing this thread's previous analysis when the command is the same string.
pub(crate) fn with_analysis<R>(cmd: &str, f: impl FnOnce(&Analysis) -> R) -> R {
    let cached = LAST.with(|last| match &*last.borrow() {
        Some((text, analysis)) if text == cmd => Some(Rc::clone(analysis)),
        _ => None,
    });
    let analysis = cached.unwrap_or_else(|| {
        let fresh = Rc::new(analyse(cmd));
        LAST.with(|last| *last.borrow_mut() = Some((cmd.to_owned(), Rc::clone(&fresh))));
        fresh
    });
    f(&analysis)
}

/// Analyses one command string.
pub(crate) fn analyse(cmd: &str) -> Analysis {
    let mut out = Analysis::default();
    analyse_into(cmd, 0, &mut out);
    out
}

/// Splits a permission-rule body into words the way the shell would (quotes removed, `*` kept).
/// `None` unless it is exactly one simple command with balanced quotes and no substitutions.
pub(crate) fn split_words(text: &str) -> Option<Vec<String>> {
    let mut out = Analysis::default();
    let (words, end) =
        Lexer { src: text.as_bytes(), pos: 0, depth: 0, heredocs: Vec::new(), out: &mut out }.simple_command(false);
    (end == End::Eof && !out.uncertain && out.views.is_empty()).then(|| words.into_iter().map(|w| w.text).collect())
}

fn analyse_into(cmd: &str, depth: usize, out: &mut Analysis) {
    if depth > MAX_DEPTH {
        out.uncertain = true;
        return;
    }
    let mut lexer = Lexer { src: cmd.as_bytes(), pos: 0, depth, heredocs: Vec::new(), out };
    lexer.list(false);
}

/// How a simple command ended.
#[derive(Debug, PartialEq, Eq)]
enum End {
    Separator,
    Close,
    Eof,
}

#[derive(Debug)]
struct Heredoc {
    delimiter: Vec<u8>,
    strip_tabs: bool,
    expands: bool,
}

/// A word being read: bytes plus what was seen while reading them.
#[derive(Debug, Default)]
struct WordBuf {
    text: Vec<u8>,
    known: bool,
    quoted: bool,
    assignment: bool,
    glob: bool,
    brace_at: Option<usize>,
    bracket_at: Option<usize>,
}

#[derive(Debug)]
struct Lexer<'a, 'o> {
    src: &'a [u8],
    pos: usize,
    depth: usize,
    heredocs: Vec<Heredoc>,
    out: &'o mut Analysis,
}

impl Lexer<'_, '_> {
    fn peek(&self) -> Option<u8> {
        self.src.get(self.pos).copied()
    }

    fn peek_at(&self, n: usize) -> Option<u8> {
        self.src.get(self.pos + n).copied()
    }

    fn uncertain(&mut self) {
        self.out.uncertain = true;
    }

    /// Reads commands until the closing `)` (when `in_parens`) or the end of input.
    fn list(&mut self, in_parens: bool) {
        loop {
            let (words, end) = self.simple_command(in_parens);
            self.emit(words);
            match end {
                End::Separator => {}
                End::Close => return,
                End::Eof => {
                    if in_parens {
                        self.uncertain();
                    }
                    return;
                }
            }
        }
    }

    /// Runs `list` one level deeper, or gives up (uncertain, rest of input skipped) past `MAX_DEPTH`.
    fn nested_list(&mut self) {
        if self.depth >= MAX_DEPTH {
            self.uncertain();
            self.pos = self.src.len();
            return;
        }
        self.depth += 1;
        self.list(true);
        self.depth -= 1;
    }

    fn skip_blanks(&mut self) {
        loop {
            match (self.peek(), self.peek_at(1)) {
                (Some(b' ' | b'\t' | b'\r'), _) => self.pos += 1,
                (Some(b'\\'), Some(b'\n')) => self.pos += 2,
                _ => return,
            }
        }
    }

    fn simple_command(&mut self, in_parens: bool) -> (Vec<Word>, End) {
        let mut words: Vec<Word> = Vec::new();
        loop {
            self.skip_blanks();
            let Some(c) = self.peek() else { return (words, End::Eof) };
            match c {
                b'\n' => {
                    self.pos += 1;
                    self.read_heredocs();
                    return (words, End::Separator);
                }
                b'&' if self.peek_at(1) == Some(b'>') => self.redirection(),
                b';' | b'&' | b'|' => {
                    self.pos += 1;
                    if matches!(self.peek(), Some(b';' | b'&' | b'|')) {
                        self.pos += 1;
                    }
                    return (words, End::Separator);
                }
                b')' => {
                    self.pos += 1;
                    if in_parens {
                        return (words, End::Close);
                    }
                    self.uncertain();
                    return (words, End::Separator);
                }
                b'(' => {
                    self.pos += 1;
                    if words.is_empty() {
                        self.nested_list();
                        continue;
                    }
                    self.skip_blanks();
                    if self.peek() == Some(b')') {
                        // `name()` defines a function: its body follows as ordinary commands.
                        self.pos += 1;
                        words.clear();
                    } else {
                        self.uncertain();
                        self.nested_list();
                    }
                }
                b'#' => {
                    while self.peek().is_some_and(|c| c != b'\n') {
                        self.pos += 1;
                    }
                }
                b'<' | b'>' if self.peek_at(1) != Some(b'(') => self.redirection(),
                _ => {
                    let start = self.pos;
                    let word = self.word();
                    if self.pos == start {
                        // Unreachable by construction (every byte that ends a word is handled above);
                        // kept so that a future change cannot turn into an endless loop.
                        self.pos += 1;
                        self.uncertain();
                        continue;
                    }
                    let io_number = !word.quoted && word.text.bytes().all(|b| b.is_ascii_digit());
                    if io_number && matches!(self.peek(), Some(b'<' | b'>')) {
                        continue;
                    }
                    words.push(word);
                }
            }
        }
    }

    /// Reads a redirection operator and its target; both are dropped from the command's words.
    fn redirection(&mut self) {
        let rest = &self.src[self.pos..];
        let (len, heredoc) = if rest.starts_with(b"<<<") {
            (3, None)
        } else if rest.starts_with(b"<<-") {
            (3, Some(true))
        } else if rest.starts_with(b"<<") {
            (2, Some(false))
        } else if rest.starts_with(b"&>>") {
            (3, None)
        } else if [&b">>"[..], b">&", b">|", b"<&", b"<>", b"&>"].iter().any(|op| rest.starts_with(op)) {
            (2, None)
        } else {
            (1, None)
        };
        self.pos += len;
        self.skip_blanks();
        if self.peek().is_none_or(|c| matches!(c, b'\n' | b';' | b'&' | b'|' | b'(' | b')' | b'<' | b'>')) {
            self.uncertain();
            return;
        }
        let target = self.word();
        if let Some(strip_tabs) = heredoc {
            self.heredocs.push(Heredoc { delimiter: target.text.into_bytes(), strip_tabs, expands: !target.quoted });
        }
    }

    /// Skips the bodies of the here-documents opened on the line that just ended.
    fn read_heredocs(&mut self) {
        for doc in std::mem::take(&mut self.heredocs) {
            loop {
                if self.pos >= self.src.len() {
                    break;
                }
                let end =
                    self.src[self.pos..].iter().position(|&c| c == b'\n').map_or(self.src.len(), |i| self.pos + i);
                let line = &self.src[self.pos..end];
                self.pos = (end + 1).min(self.src.len());
                let line =
                    if doc.strip_tabs { &line[line.iter().take_while(|&&c| c == b'\t').count()..] } else { line };
                if line == doc.delimiter.as_slice() {
                    break;
                }
                if doc.expands && (line.windows(2).any(|w| w == b"$(") || line.contains(&b'`')) {
                    self.uncertain();
                }
            }
        }
    }

    fn word(&mut self) -> Word {
        let start = self.pos;
        let mut w = WordBuf { known: true, ..WordBuf::default() };
        while let Some(c) = self.peek() {
            match c {
                b' ' | b'\t' | b'\r' | b'\n' | b';' | b'&' | b'|' | b')' => break,
                b'<' | b'>' if self.pos == start && self.peek_at(1) == Some(b'(') => {
                    self.pos += 2;
                    self.nested_list();
                    w.known = false;
                    w.text.extend_from_slice(&self.src[start..self.pos]);
                }
                b'<' | b'>' => break,
                b'(' if w.assignment && w.text.last() == Some(&b'=') => {
                    // `name=( … )`: an array assignment.
                    self.pos += 1;
                    self.nested_list();
                    w.text.extend_from_slice(b"( )");
                }
                b'(' => break,
                b'\\' => match self.peek_at(1) {
                    Some(b'\n') => self.pos += 2,
                    Some(_) => {
                        self.pos += 1;
                        w.quoted = true;
                        self.take_char(&mut w.text);
                    }
                    None => {
                        self.pos += 1;
                        w.text.push(b'\\');
                    }
                },
                b'\'' => {
                    w.quoted = true;
                    self.single_quoted(&mut w.text);
                }
                b'"' => {
                    w.quoted = true;
                    self.double_quoted(&mut w);
                }
                b'$' => self.dollar(&mut w),
                b'`' => self.backtick(&mut w),
                b'=' => {
                    self.pos += 1;
                    if !w.quoted && !w.assignment && is_assignment_name(&w.text) {
                        w.assignment = true;
                    }
                    w.text.push(b'=');
                }
                b'{' => {
                    self.pos += 1;
                    w.brace_at = Some(w.text.len());
                    w.text.push(b'{');
                }
                b'}' => {
                    self.pos += 1;
                    if let Some(at) = w.brace_at.take() {
                        let inner = &w.text[at..];
                        if inner.contains(&b',') || inner.windows(2).any(|p| p == b"..") {
                            w.known = false;
                        }
                    }
                    w.text.push(b'}');
                }
                b'*' | b'?' => {
                    self.pos += 1;
                    w.glob = true;
                    w.text.push(c);
                }
                b'[' => {
                    self.pos += 1;
                    w.bracket_at = Some(w.text.len());
                    w.text.push(b'[');
                }
                b']' => {
                    self.pos += 1;
                    // `[abc]` is a pattern; `[` and `[[` alone are the test commands.
                    w.glob |= w.bracket_at.take().is_some_and(|at| w.text.len() > at + 1);
                    w.text.push(b']');
                }
                _ => self.take_char(&mut w.text),
            }
        }
        Word {
            text: String::from_utf8_lossy(&w.text).into_owned(),
            known: w.known,
            quoted: w.quoted,
            assignment: w.assignment,
            glob: w.glob,
        }
    }

    /// Copies one (possibly multi-byte) character.
    fn take_char(&mut self, text: &mut Vec<u8>) {
        let len = self.src[self.pos..].iter().skip(1).take_while(|&&b| b & 0xC0 == 0x80).count() + 1;
        text.extend_from_slice(&self.src[self.pos..self.pos + len]);
        self.pos += len;
    }

    fn single_quoted(&mut self, text: &mut Vec<u8>) {
        self.pos += 1;
        match self.src[self.pos..].iter().position(|&c| c == b'\'') {
            Some(i) => {
                text.extend_from_slice(&self.src[self.pos..self.pos + i]);
                self.pos += i + 1;
            }
            None => {
                self.uncertain();
                text.extend_from_slice(&self.src[self.pos..]);
                self.pos = self.src.len();
            }
        }
    }

    fn double_quoted(&mut self, w: &mut WordBuf) {
        self.pos += 1;
        loop {
            let Some(c) = self.peek() else {
                self.uncertain();
                return;
            };
            match c {
                b'"' => {
                    self.pos += 1;
                    return;
                }
                b'\\' => match self.peek_at(1) {
                    Some(b'\n') => self.pos += 2,
                    Some(e @ (b'$' | b'`' | b'"' | b'\\')) => {
                        self.pos += 2;
                        w.text.push(e);
                    }
                    _ => {
                        self.pos += 1;
                        w.text.push(b'\\');
                    }
                },
                b'$' => self.dollar(w),
                b'`' => self.backtick(w),
                _ => self.take_char(&mut w.text),
            }
        }
    }

    /// `$…`: substitutions are analysed as subcommands; every expansion makes the word unknown.
    fn dollar(&mut self, w: &mut WordBuf) {
        let start = self.pos;
        match self.peek_at(1) {
            Some(b'(') if self.peek_at(2) == Some(b'(') => {
                self.pos += 3;
                self.skip_balanced(b'(', b')', 2);
                w.known = false;
            }
            Some(b'(') => {
                self.pos += 2;
                self.nested_list();
                w.known = false;
            }
            Some(b'{') => {
                self.pos += 2;
                self.skip_balanced(b'{', b'}', 1);
                w.known = false;
            }
            Some(b'\'') => {
                self.pos += 1;
                w.quoted = true;
                self.ansi_c_quoted(&mut w.text);
                return;
            }
            Some(b'"') => {
                self.pos += 1;
                w.quoted = true;
                self.double_quoted(w);
                return;
            }
            Some(c) if c.is_ascii_alphabetic() || c == b'_' => {
                self.pos += 1;
                while self.peek().is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_') {
                    self.pos += 1;
                }
                w.known = false;
            }
            Some(c) if c.is_ascii_digit() || b"@*#?$!-".contains(&c) => {
                self.pos += 2;
                w.known = false;
            }
            _ => self.pos += 1,
        }
        w.text.extend_from_slice(&self.src[start..self.pos]);
    }

    /// Skips to the closing bracket of `${ … }` or `$(( … ))`; a command substitution inside is not
    /// analysed, so it makes the whole command uncertain.
    fn skip_balanced(&mut self, open: u8, close: u8, mut depth: usize) {
        while let Some(c) = self.peek() {
            self.pos += 1;
            match c {
                b'\\' => self.pos = (self.pos + 1).min(self.src.len()),
                b'`' => self.uncertain(),
                b'$' if self.peek() == Some(b'(') => self.uncertain(),
                _ if c == open => depth += 1,
                _ if c == close => {
                    depth -= 1;
                    if depth == 0 {
                        return;
                    }
                }
                _ => {}
            }
        }
        self.uncertain();
    }

    /// `` `…` ``: the body (with `\``, `\\` and `\$` unescaped) is analysed as a command of its own.
    fn backtick(&mut self, w: &mut WordBuf) {
        let start = self.pos;
        self.pos += 1;
        let mut body = Vec::new();
        loop {
            match (self.peek(), self.peek_at(1)) {
                (None, _) => {
                    self.uncertain();
                    break;
                }
                (Some(b'`'), _) => {
                    self.pos += 1;
                    break;
                }
                (Some(b'\\'), Some(e @ (b'`' | b'\\' | b'$'))) => {
                    body.push(e);
                    self.pos += 2;
                }
                (Some(c), _) => {
                    body.push(c);
                    self.pos += 1;
                }
            }
        }
        analyse_into(&String::from_utf8_lossy(&body), self.depth + 1, self.out);
        w.known = false;
        w.text.extend_from_slice(&self.src[start..self.pos]);
    }

    /// `$'…'`: decodes the escapes bash decodes, so `$'\x67it'` is seen as `git`.
    fn ansi_c_quoted(&mut self, text: &mut Vec<u8>) {
        self.pos += 1;
        loop {
            let Some(c) = self.peek() else {
                self.uncertain();
                return;
            };
            self.pos += 1;
            match c {
                b'\'' => return,
                b'\\' => self.ansi_c_escape(text),
                _ => text.push(c),
            }
        }
    }

    fn ansi_c_escape(&mut self, text: &mut Vec<u8>) {
        let Some(e) = self.peek() else {
            text.push(b'\\');
            return;
        };
        self.pos += 1;
        let simple = match e {
            b'a' => Some(0x07),
            b'b' => Some(0x08),
            b'e' | b'E' => Some(0x1b),
            b'f' => Some(0x0c),
            b'n' => Some(b'\n'),
            b'r' => Some(b'\r'),
            b't' => Some(b'\t'),
            b'v' => Some(0x0b),
            b'\\' | b'\'' | b'"' | b'?' => Some(e),
            _ => None,
        };
        if let Some(byte) = simple {
            text.push(byte);
            return;
        }
        match e {
            b'0'..=b'7' => {
                let mut value = u32::from(e - b'0');
                for _ in 0..2 {
                    match self.peek() {
                        Some(d @ b'0'..=b'7') => {
                            value = value * 8 + u32::from(d - b'0');
                            self.pos += 1;
                        }
                        _ => break,
                    }
                }
                text.push((value & 0xff) as u8);
            }
            b'x' | b'u' | b'U' => {
                let max = match e {
                    b'x' => 2,
                    b'u' => 4,
                    _ => 8,
                };
                let mut value = 0u32;
                let mut digits = 0;
                while digits < max {
                    let Some(d) = self.peek().and_then(|d| char::from(d).to_digit(16)) else { break };
                    value = value.wrapping_mul(16).wrapping_add(d);
                    self.pos += 1;
                    digits += 1;
                }
                if digits == 0 {
                    text.extend_from_slice(&[b'\\', e]);
                } else if e == b'x' {
                    text.push((value & 0xff) as u8);
                } else {
                    let ch = char::from_u32(value).unwrap_or(char::REPLACEMENT_CHARACTER);
                    text.extend_from_slice(ch.encode_utf8(&mut [0; 4]).as_bytes());
                }
            }
            b'c' => match self.peek() {
                Some(x) => {
                    self.pos += 1;
                    text.push(x & 0x1f);
                }
                None => text.extend_from_slice(b"\\c"),
            },
            _ => text.extend_from_slice(&[b'\\', e]),
        }
    }

    /// Turns one simple command into views, stripping one layer at a time.
    fn emit(&mut self, words: Vec<Word>) {
        let mut at = 0;
        let mut more_args = false;
        let mut layers = 0;
        let mut innermost_from = None;
        loop {
            let before = self.out.views.len();
            push_view(&mut self.out.views, &words[at..], more_args);
            if self.out.views.len() > before {
                innermost_from = Some(before);
            }
            let Some(word) = words.get(at) else { break };
            let next = if word.assignment {
                at + words[at..].iter().take_while(|w| w.assignment).count()
            } else if !word.quoted && RESERVED.contains(&word.text.as_str()) {
                at + 1
            } else {
                match self.unwrap(&words, at) {
                    Some((next, appends)) if next > at => {
                        more_args |= appends;
                        next
                    }
                    _ => break,
                }
            };
            if layers == MAX_LAYERS {
                self.uncertain();
                break;
            }
            layers += 1;
            at = next;
        }
        if let Some(from) = innermost_from {
            for view in &mut self.out.views[from..] {
                view.innermost = true;
            }
        }
        if let Some(rest) = words.get(at..).filter(|rest| !rest.is_empty()) {
            self.recurse_into_strings(rest);
        }
    }

    /// When `words[at]` is a wrapper, where the wrapped command starts, and whether the wrapper appends
    /// arguments of its own (`xargs`).
    fn unwrap(&mut self, words: &[Word], at: usize) -> Option<(usize, bool)> {
        let word = &words[at];
        if !word.known {
            return None;
        }
        let (next, appends) = match basename(&word.text) {
            "env" => {
                let mut i = at + 1;
                while let Some(w) = words.get(i) {
                    match w.text.as_str() {
                        "--" => {
                            i += 1;
                            break;
                        }
                        "-u" | "-C" | "-P" | "--unset" | "--chdir" => i += 2,
                        "-S" | "--split-string" => {
                            self.recurse_into_word(words.get(i + 1));
                            return None;
                        }
                        t if t.starts_with('-') || t.contains('=') => i += 1,
                        _ => break,
                    }
                }
                (i, false)
            }
            "sudo" => (skip_options(words, at, &["-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-T", "-U"]), false),
            "doas" => (skip_options(words, at, &["-u", "-C"]), false),
            "nohup" | "setsid" | "builtin" | "command" | "chronic" | "unbuffer" | "coproc" => {
                (skip_options(words, at, &[]), false)
            }
            "time" => (skip_options(words, at, &["-f", "-o", "--format", "--output"]), false),
            "exec" => (skip_options(words, at, &["-a"]), false),
            "nice" => (skip_options(words, at, &["-n", "--adjustment"]), false),
            "ionice" => (skip_options(words, at, &["-c", "-n", "-p", "-P", "-u", "--class", "--classdata"]), false),
            "stdbuf" => (skip_options(words, at, &["-i", "-o", "-e", "--input", "--output", "--error"]), false),
            "timeout" => (skip_options(words, at, &["-s", "-k", "--signal", "--kill-after"]) + 1, false),
            "xargs" => {
                let flags =
                    ["-I", "-L", "-n", "-P", "-s", "-d", "-E", "-a", "--max-args", "--max-procs", "--delimiter"];
                (skip_options(words, at, &flags), true)
            }
            _ => return None,
        };
        // An option that wants an argument may be the last word: never point past the end.
        Some((next.min(words.len()), appends))
    }

    /// `sh -c '…'`, `bash -lc '…'`, `eval …`, `watch …` and `find … -exec … ;`: the command inside
    /// is analysed as well. A shell that reads its commands from standard input (`… | bash`,
    /// `bash <<EOF`, `sh -s`) makes the command uncertain.
    fn recurse_into_strings(&mut self, words: &[Word]) {
        match basename(&words[0].text) {
            name if SHELLS.contains(&name) => {
                let (mut saw_c, mut saw_s) = (false, false);
                let mut i = 1;
                while let Some(w) = words.get(i) {
                    let t = w.text.as_str();
                    if t == "-o" || t == "+o" {
                        i += 2;
                    } else if t == "--" {
                        i += 1;
                        break;
                    } else if t.len() > 1 && (t.starts_with('-') || t.starts_with('+')) {
                        if !t.starts_with("--") {
                            saw_c |= t.contains('c');
                            saw_s |= t.contains('s');
                        }
                        i += 1;
                    } else {
                        break;
                    }
                }
                match words.get(i) {
                    Some(w) if saw_c => self.recurse_into_word(Some(w)),
                    // A script file: its contents are not part of the command.
                    Some(_) if !saw_s => {}
                    _ => self.uncertain(),
                }
            }
            "eval" => self.analyse_joined(&words[1..]),
            "watch" => self.analyse_joined(&words[skip_options(words, 0, &["-n", "--interval"]).min(words.len())..]),
            "find" => {
                let mut i = 1;
                while i < words.len() {
                    if matches!(words[i].text.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir") {
                        let start = i + 1;
                        let end = words[start..]
                            .iter()
                            .position(|w| w.text == ";" || w.text == "+")
                            .map_or(words.len(), |p| start + p);
                        self.emit_nested(words[start..end].to_vec());
                        i = end;
                    }
                    i += 1;
                }
            }
            _ => {}
        }
    }

    /// The words joined by spaces, analysed as a command (what `eval` and `watch` run).
    fn analyse_joined(&mut self, words: &[Word]) {
        if words.iter().any(|w| !w.known) {
            self.uncertain();
            return;
        }
        let joined: Vec<&str> = words.iter().map(|w| w.text.as_str()).collect();
        analyse_into(&joined.join(" "), self.depth + 1, self.out);
    }

    /// Emits a command found inside another command's arguments, one level deeper.
    fn emit_nested(&mut self, words: Vec<Word>) {
        if self.depth >= MAX_DEPTH {
            self.uncertain();
            return;
        }
        self.depth += 1;
        self.emit(words);
        self.depth -= 1;
    }

    fn recurse_into_word(&mut self, word: Option<&Word>) {
        match word {
            Some(w) if w.known => analyse_into(&w.text, self.depth + 1, self.out),
            _ => self.uncertain(),
        }
    }
}

fn push_view(views: &mut Vec<View>, words: &[Word], more_args: bool) {
    let Some(first) = words.first() else { return };
    let mut owned = words.to_vec();
    if first.glob {
        owned[0].known = false;
    }
    let base = basename(&first.text);
    let twin = (first.known && base.len() < first.text.len() && !base.is_empty()).then(|| {
        let mut twin = owned.clone();
        twin[0].text = base.to_owned();
        twin
    });
    views.push(View { text: join(&owned), words: owned, innermost: false, more_args });
    if let Some(twin) = twin {
        views.push(View { text: join(&twin), words: twin, innermost: false, more_args });
    }
}

fn join(words: &[Word]) -> String {
    let mut text = String::with_capacity(words.iter().map(|w| w.text.len() + 1).sum());
    for (i, w) in words.iter().enumerate() {
        if i > 0 {
            text.push(' ');
        }
        text.push_str(&w.text);
    }
    text
}

/// The last path component of a command name (`/usr/bin/git` → `git`).
pub(crate) fn basename(name: &str) -> &str {
    name.rsplit('/').next().unwrap_or(name)
}

/// Skips a wrapper's options (`-x`, `--long`, and the separate argument of those in `with_arg`).
fn skip_options(words: &[Word], at: usize, with_arg: &[&str]) -> usize {
    let mut i = at + 1;
    while let Some(w) = words.get(i) {
        let t = w.text.as_str();
        if t == "--" {
            return i + 1;
        }
        if !t.starts_with('-') || t.len() == 1 {
            break;
        }
        i += if with_arg.contains(&t) { 2 } else { 1 };
    }
    i
}

/// `NAME` or `NAME+` before the `=` of an assignment.
fn is_assignment_name(text: &[u8]) -> bool {
    let name = text.strip_suffix(b"+").unwrap_or(text);
    name.first().is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_')
        && name.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_')
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
            ("echo ${x:-$(git push)}", true, &["echo ${x:-$(git push)}"]),
        ];
        for (cmd, uncertain, views) in cases {
            let (u, got) = innermost_texts(cmd);
            assert_eq!((u, got.iter().map(String::as_str).collect::<Vec<_>>()), (*uncertain, views.to_vec()), "{cmd}");
        }
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
