//! A position index over raw JSON text.
//!
//! serde_json gives values without spans. Instead of a second JSON stack, the text serde_json has
//! already accepted is scanned once more by this small tokenizer, which records where every value
//! and every object key starts, keyed by its JSON pointer (`/hooks/PreToolUse/0/matcher`). The text
//! is known to be valid JSON, so the scanner needs no error reporting of its own; on anything
//! unexpected it stops recording (it never panics). Cost: one linear pass.

use std::collections::HashMap;

/// A 1-based line and column (columns count characters, not bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Pos {
    pub(crate) line: usize,
    pub(crate) column: usize,
}

const START: Pos = Pos { line: 1, column: 1 };

/// Where each value and key of one document starts.
#[derive(Debug, Default)]
pub(crate) struct PositionIndex {
    values: HashMap<String, Pos>,
    keys: HashMap<String, Pos>,
}

impl PositionIndex {
    pub(crate) fn new(text: &str) -> Self {
        let mut index = PositionIndex::default();
        let mut scanner = Scanner { bytes: text.as_bytes(), at: 0, pos: START };
        scanner.value("", &mut index, 0);
        index
    }

    /// Where the value at `pointer` starts (the document start when unknown).
    pub(crate) fn value(&self, pointer: &str) -> Pos {
        self.values.get(pointer).copied().unwrap_or(START)
    }

    /// Where the key naming the value at `pointer` starts (falls back to the value).
    pub(crate) fn key(&self, pointer: &str) -> Pos {
        self.keys.get(pointer).copied().unwrap_or_else(|| self.value(pointer))
    }
}

/// Appends one reference token to a JSON pointer (RFC 6901 escaping).
pub(crate) fn push_token(pointer: &str, token: &str) -> String {
    let mut p = String::with_capacity(pointer.len() + token.len() + 1);
    p.push_str(pointer);
    append_token(&mut p, token);
    p
}

/// Appends `/` and `token`, escaped (RFC 6901), to `pointer`.
fn append_token(pointer: &mut String, token: &str) {
    pointer.push('/');
    for c in token.chars() {
        match c {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            c => pointer.push(c),
        }
    }
}

/// A JSON pointer written out only when a diagnostic needs it: the pointer it extends and one
/// token, kept on the stack of the code walking the document (a clean file builds none).
#[derive(Clone, Copy)]
pub(crate) struct Pointer<'a>(Option<(&'a Pointer<'a>, Token<'a>)>);

#[derive(Clone, Copy)]
enum Token<'a> {
    Key(&'a str),
    Index(usize),
}

impl<'a> Pointer<'a> {
    /// The whole document (`""`).
    pub(crate) const ROOT: Pointer<'static> = Pointer(None);

    /// The member `key` of the object here.
    pub(crate) fn key(&'a self, key: &'a str) -> Pointer<'a> {
        Pointer(Some((self, Token::Key(key))))
    }

    /// The item `i` of the array here.
    pub(crate) fn index(&'a self, i: usize) -> Pointer<'a> {
        Pointer(Some((self, Token::Index(i))))
    }

    /// The pointer as text (`/hooks/PreToolUse/0`).
    pub(crate) fn render(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }

    fn write(&self, out: &mut String) {
        if let Some((parent, token)) = self.0 {
            parent.write(out);
            match token {
                Token::Key(key) => append_token(out, key),
                Token::Index(i) => {
                    out.push('/');
                    out.push_str(&i.to_string());
                }
            }
        }
    }
}

/// Deeper nesting than this is not indexed (serde_json refuses more than 128 anyway).
const MAX_DEPTH: usize = 256;

struct Scanner<'a> {
    bytes: &'a [u8],
    at: usize,
    pos: Pos,
}

impl Scanner<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn bump(&mut self) {
        if let Some(b) = self.peek() {
            self.at += 1;
            if b == b'\n' {
                self.pos.line += 1;
                self.pos.column = 1;
            } else if b & 0xC0 != 0x80 {
                self.pos.column += 1;
            }
        }
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.bump();
        }
    }

    /// Scans one value, recording its start under `pointer`. Returns false on malformed input.
    fn value(&mut self, pointer: &str, index: &mut PositionIndex, depth: usize) -> bool {
        self.skip_ws();
        if depth > MAX_DEPTH {
            return false;
        }
        index.values.insert(pointer.to_owned(), self.pos);
        match self.peek() {
            Some(b'{') => self.object(pointer, index, depth),
            Some(b'[') => self.array(pointer, index, depth),
            Some(b'"') => self.string().is_some(),
            Some(_) => {
                while matches!(self.peek(), Some(b) if !matches!(b, b',' | b']' | b'}' | b' ' | b'\t' | b'\n' | b'\r'))
                {
                    self.bump();
                }
                true
            }
            None => false,
        }
    }

    fn object(&mut self, pointer: &str, index: &mut PositionIndex, depth: usize) -> bool {
        self.bump();
        loop {
            self.skip_ws();
            match self.peek() {
                Some(b'}') => {
                    self.bump();
                    return true;
                }
                Some(b',') => self.bump(),
                Some(b'"') => {
                    let key_pos = self.pos;
                    let Some(key) = self.string() else { return false };
                    self.skip_ws();
                    if self.peek() != Some(b':') {
                        return false;
                    }
                    self.bump();
                    let child = push_token(pointer, &key);
                    index.keys.insert(child.clone(), key_pos);
                    if !self.value(&child, index, depth + 1) {
                        return false;
                    }
                }
                _ => return false,
            }
        }
    }

    fn array(&mut self, pointer: &str, index: &mut PositionIndex, depth: usize) -> bool {
        self.bump();
        let mut i = 0usize;
        loop {
            self.skip_ws();
            match self.peek() {
                Some(b']') => {
                    self.bump();
                    return true;
                }
                Some(b',') => self.bump(),
                Some(_) => {
                    let child = push_token(pointer, &i.to_string());
                    if !self.value(&child, index, depth + 1) {
                        return false;
                    }
                    i += 1;
                }
                None => return false,
            }
        }
    }

    /// Scans a string literal and returns its decoded text.
    fn string(&mut self) -> Option<String> {
        let start = self.at;
        self.bump();
        loop {
            match self.peek()? {
                b'"' => {
                    self.bump();
                    break;
                }
                b'\\' => {
                    self.bump();
                    self.bump();
                }
                _ => self.bump(),
            }
        }
        let raw = std::str::from_utf8(&self.bytes[start..self.at]).ok()?;
        serde_json::from_str(raw).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_and_keys_are_located_by_pointer_with_character_columns() {
        let text = "{\n  \"hooks\": {\n    \"é\": [ {\"matcher\": \"x\"} ]\n  }\n}";
        let index = PositionIndex::new(text);
        assert_eq!(index.key("/hooks"), Pos { line: 2, column: 3 });
        assert_eq!(index.value("/hooks"), Pos { line: 2, column: 12 });
        assert_eq!(index.key("/hooks/é"), Pos { line: 3, column: 5 });
        assert_eq!(index.value("/hooks/é/0"), Pos { line: 3, column: 12 });
        assert_eq!(index.value("/hooks/é/0/matcher"), Pos { line: 3, column: 24 });
    }

    #[test]
    fn a_pointer_renders_its_tokens_escaped_only_when_asked() {
        let hooks = Pointer::ROOT.key("hooks");
        let event = hooks.key("a/b~");
        let entry = event.index(12);
        assert_eq!(entry.key("matcher").render(), "/hooks/a~1b~0/12/matcher");
        assert_eq!(Pointer::ROOT.render(), "");
        assert_eq!(entry.render(), push_token(&push_token(&push_token("", "hooks"), "a/b~"), "12"));
    }

    #[test]
    fn keys_with_slashes_and_tildes_are_escaped() {
        let index = PositionIndex::new(r#"{"a/b~": 1}"#);
        assert_eq!(index.value("/a~1b~0"), Pos { line: 1, column: 10 });
    }

    #[test]
    fn malformed_input_does_not_panic() {
        for text in ["{", "[1,", "{\"a\"", "\"abc", "{\"a\":", "[[[[", "\u{0}"] {
            let index = PositionIndex::new(text);
            assert_eq!(index.value("/nothing"), START);
        }
    }
}
