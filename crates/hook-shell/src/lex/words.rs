//! Reading one shell word: quotes and escapes, `$…` expansions, substitutions (whose command
//! strings go to the sink), ANSI-C quoting, and what the word's value can be known to be.

use super::{Lexer, Sink};
use crate::analysis::MAX_DEPTH;
use crate::model;
use crate::word::Word;

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
    /// Where the text after the last expansion starts (what follows it is literal).
    literal_from: usize,
    /// Some expansion is subject to field splitting or pathname expansion (unquoted), or may
    /// yield several words even quoted (`"$@"`, `"${a[@]}"`), or is a brace expansion.
    splits: bool,
}

impl<S: Sink> Lexer<'_, '_, S> {
    pub(super) fn word(&mut self) -> Word {
        let start = self.pos;
        let mut w = WordBuf { known: true, ..WordBuf::default() };
        while let Some(c) = self.peek() {
            match c {
                b' ' | b'\t' | b'\r' | b'\n' | 0 | b';' | b'&' | b'|' | b')' => break,
                b'<' | b'>' if self.pos == start && self.peek_at(1) == Some(b'(') => {
                    self.pos += 2;
                    self.nested_list();
                    w.known = false;
                    w.splits = true;
                    w.text.extend_from_slice(&self.src[start..self.pos]);
                }
                b'<' | b'>' => break,
                b'(' if w.assignment && w.text.last() == Some(&b'=') => {
                    // `name=( … )`: an array assignment; its elements are words, not commands.
                    self.pos += 1;
                    self.array_elements();
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
                b'$' => {
                    let before = w.literal_from;
                    self.dollar(&mut w, false);
                    w.splits |= w.literal_from != before;
                }
                b'`' => {
                    self.backtick(&mut w);
                    w.splits = true;
                }
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
                            w.splits = true;
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
        let program_known =
            !w.known && !w.splits && !w.glob && literal_base(&w.text[w.literal_from.min(w.text.len())..]);
        Word {
            // Valid UTF-8 (the input is a `str`, split at ASCII bytes) is taken as it is, not copied.
            text: String::from_utf8(w.text).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
            known: w.known,
            quoted: w.quoted,
            assignment: w.assignment,
            glob: w.glob,
            splits: w.splits,
            program_known,
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
                // `$'…'` and `$"…"` are not quotes inside double quotes.
                b'$' if matches!(self.peek_at(1), Some(b'\'' | b'"')) => {
                    self.pos += 1;
                    w.text.push(b'$');
                }
                b'$' => self.dollar(w, true),
                b'`' => self.backtick(w),
                _ => self.take_char(&mut w.text),
            }
        }
    }

    /// Appends the client's `TMPDIR` for an expansion of it just read, when this command is read
    /// with it and the word does not climb with `..` after it (`environment.rs`).
    fn client_tmpdir(&mut self, w: &mut WordBuf) -> bool {
        let Some(value) = self.tmpdir.as_deref() else { return false };
        if crate::environment::climbs(&self.src[self.pos..]) {
            return false;
        }
        w.text.extend_from_slice(value.as_bytes());
        true
    }

    /// `$…`: substitutions are analysed as subcommands; every expansion but the client's `TMPDIR`
    /// makes the word unknown.
    /// `in_double`: the `$` is inside double quotes.
    fn dollar(&mut self, w: &mut WordBuf, in_double: bool) {
        let start = self.pos;
        match self.peek_at(1) {
            Some(b'(') if self.peek_at(2) == Some(b'(') => {
                self.pos += 3;
                self.skip_balanced(b'(', b')', 2, in_double);
                w.known = false;
            }
            Some(b'(') => {
                self.pos += 2;
                self.nested_list();
                // `$(echo ls)` is the word `ls`: the substitution is replaced by what it prints.
                let body = self.src.get(start + 2..self.pos.saturating_sub(1)).unwrap_or_default();
                if let Some(printed) = std::str::from_utf8(body).ok().and_then(model::printed_word) {
                    w.text.extend_from_slice(printed.as_bytes());
                    return;
                }
                w.known = false;
            }
            Some(b'{') => {
                let plain =
                    [&b"TMPDIR}"[..], b"TMPDIR:-", b"TMPDIR-"].iter().any(|p| self.src[start + 2..].starts_with(p));
                self.pos += 2;
                self.skip_balanced(b'{', b'}', 1, in_double);
                if plain && self.client_tmpdir(w) {
                    return;
                }
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
                if &self.src[start + 1..self.pos] == b"TMPDIR" && self.client_tmpdir(w) {
                    return;
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
        if !w.known {
            w.literal_from = w.text.len();
            // `"$@"`, `"${a[@]}"`, `"${!p@}"`, `"${@:2}"`: several words even when quoted.
            w.splits |= self.src[start..self.pos].contains(&b'@');
        }
    }

    /// Skips to the closing bracket of `${ … }` or `$(( … ))`; a command substitution inside is
    /// analysed as a command (it may run). Quotes inside quote a bracket too: `${x:-'}'}` ends at
    /// its second `}`. Inside double quotes (`in_double`), whether bash reads a single quote there
    /// as a quote depends on the operator and bash's version: uncertain.
    pub(super) fn skip_balanced(&mut self, open: u8, close: u8, mut depth: usize, in_double: bool) {
        while let Some(c) = self.peek() {
            self.pos += 1;
            if depth > MAX_DEPTH {
                self.uncertain();
                self.pos = self.src.len();
                return;
            }
            match c {
                b'\\' => self.pos = (self.pos + 1).min(self.src.len()),
                b'`' => {
                    self.pos -= 1;
                    self.backtick(&mut WordBuf::default());
                }
                b'$' if self.peek() == Some(b'(') => {
                    self.pos += 1;
                    self.nested_list();
                }
                b'"' => {
                    self.pos -= 1;
                    self.double_quoted(&mut WordBuf::default());
                }
                b'\'' | b'$' if in_double && (c == b'\'' || self.peek() == Some(b'\'')) => self.uncertain(),
                b'\'' => {
                    self.pos -= 1;
                    self.single_quoted(&mut Vec::new());
                }
                b'$' if self.peek() == Some(b'\'') => self.ansi_c_quoted(&mut Vec::new()),
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
        let body = String::from_utf8_lossy(&body);
        self.sink.nested(&body, self.depth + 1);
        if let Some(printed) = model::printed_word(&body) {
            w.text.extend_from_slice(printed.as_bytes());
            return;
        }
        w.known = false;
        w.text.extend_from_slice(&self.src[start..self.pos]);
        w.literal_from = w.text.len();
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
                // `\'` ends the quote for sh (dash), which has no `$'…'`: the two shells pair the
                // quotes after it differently.
                b'\\' if self.peek() == Some(b'\'') => {
                    self.uncertain();
                    self.ansi_c_escape(text);
                }
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
}

/// `NAME` or `NAME+` before the `=` of an assignment.
fn is_assignment_name(text: &[u8]) -> bool {
    let name = text.strip_suffix(b"+").unwrap_or(text);
    name.first().is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_')
        && name.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_')
}

/// Whether the literal end of a word whose start is an expansion fixes the program it names: a `/`
/// followed by a plain name (`"$basedir/node"` runs a program named `node`, from a directory the
/// analysis cannot know).
fn literal_base(tail: &[u8]) -> bool {
    tail.iter().rposition(|&b| b == b'/').is_some_and(|slash| {
        let base = &tail[slash + 1..];
        !base.is_empty() && base != b"." && base != b".." && !base.iter().any(|b| b"*?[]{}$`\\".contains(b))
    })
}
