//! `parse`: matcher strings and `if` permission rules to predicates (R-PRED-3, R-PRED-5).

use crate::pattern::Pattern;

use crate::anchors::PathAnchors;
use crate::bash::{BashSubcommand, CommandRule, WordRule};
use crate::composite::{Composite, Op};
use crate::error::Error;
use crate::field::{FieldMatch, FieldPath};
use crate::name_only::NameOnly;
use crate::path_glob::{PathGlob, path_tools};
use crate::predicate::ToolInputPredicate;

/// How deep parentheses may nest in a composite pattern.
const MAX_NESTING: usize = 64;

/// Compiles a matcher string or an `if` permission rule (the grammar is in the crate docs).
///
/// Relative path globs are anchored with `anchors`. A pattern that does not parse returns an
/// [`Error`]; [`Error::fallback`] gives the R-PRED-5 name-only predicate for it.
pub fn parse(pattern: &str, anchors: &PathAnchors) -> Result<Box<dyn ToolInputPredicate>, Error> {
    parse_with(pattern, anchors, true)
}

/// [`parse`] of a pattern built into the binary (a rule pack's), whose regexes a test has already
/// compiled: they are not checked again on every load, which was a quarter of a one-shot call.
/// Were one invalid after all, it would match every text (a gate that cannot test its pattern
/// runs its hook).
pub fn parse_built_in(pattern: &str, anchors: &PathAnchors) -> Result<Box<dyn ToolInputPredicate>, Error> {
    parse_with(pattern, anchors, false)
}

fn parse_with(pattern: &str, anchors: &PathAnchors, check: bool) -> Result<Box<dyn ToolInputPredicate>, Error> {
    let trimmed = pattern.trim();
    if trimmed.is_empty() || trimmed == "*" {
        return Ok(Box::new(NameOnly::Any));
    }
    if trimmed.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ' ' | ',' | '|')) {
        let names = trimmed.split(['|', ',']).map(str::trim).filter(|n| !n.is_empty()).map(str::to_owned);
        return Ok(Box::new(NameOnly::Exact(names.collect())));
    }
    let mut parser = Parser { src: pattern, pos: 0, anchors, extension: false, definitive: false, nesting: 0, check };
    let extended = parser.parse_all();
    if parser.extension {
        match extended {
            Ok(predicate) => return Ok(predicate),
            Err(error) if parser.definitive => return Err(error),
            Err(_) => {}
        }
    }
    // Not an extension (or not a well-formed one): Claude Code's unanchored regex.
    match Pattern::new(pattern) {
        Ok(re) => Ok(Box::new(NameOnly::Regex(re))),
        Err(source) => match extended {
            Err(error) if parser.extension => Err(error),
            _ => Err(regex_error(pattern, 0, pattern, source)),
        },
    }
}

/// The anchors with relative roots made absolute against the current directory.
fn absolute(anchors: &PathAnchors) -> PathAnchors {
    let abs = |p: &std::path::Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    PathAnchors {
        project_root: abs(&anchors.project_root),
        home: anchors.home.as_deref().map(abs),
        tier_root: abs(&anchors.tier_root),
    }
}

/// 1-based character column of byte offset `at`.
fn column(src: &str, at: usize) -> usize {
    src.get(..at).map_or(at, |s| s.chars().count()) + 1
}

fn regex_error(pattern: &str, at: usize, re_src: &str, source: regex::Error) -> Error {
    let offset = match regex_syntax::Parser::new().parse(re_src) {
        Err(regex_syntax::Error::Parse(e)) => e.span().start.offset,
        Err(regex_syntax::Error::Translate(e)) => e.span().start.offset,
        _ => 0,
    };
    Error::Regex { pattern: pattern.to_owned(), column: column(pattern, at + offset), source }
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

#[derive(Debug)]
struct Parser<'a> {
    src: &'a str,
    pos: usize,
    /// As given: made absolute by the path rule that needs them.
    anchors: &'a PathAnchors,
    /// An extension form (`Tool(…)`, `input.…~`, `&`) was seen: the pattern is not a plain regex.
    extension: bool,
    /// The extension's grammar fitted but a part of it does not compile (a regex or a glob): the
    /// error stands even when the whole pattern happens to be a valid regex.
    definitive: bool,
    nesting: usize,
    /// Whether regexes are checked now ([`parse_built_in`] leaves them to their first use).
    check: bool,
}

type Parsed = Result<Box<dyn ToolInputPredicate>, Error>;

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<u8> {
        self.src.as_bytes().get(self.pos).copied()
    }

    fn eat(&mut self, b: u8) -> bool {
        let hit = self.peek() == Some(b);
        if hit {
            self.pos += 1;
        }
        hit
    }

    fn skip_ws(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_whitespace()) {
            self.pos += 1;
        }
    }

    fn syntax(&self, message: impl Into<String>, at: usize) -> Error {
        Error::Syntax { pattern: self.src.to_owned(), column: column(self.src, at), message: message.into() }
    }

    fn compile(&mut self, re_src: &str, at: usize) -> Result<Pattern, Error> {
        if !self.check {
            return Ok(Pattern::unchecked(re_src));
        }
        Pattern::new(re_src).map_err(|e| self.definitive(regex_error(self.src, at, re_src, e)))
    }

    fn definitive(&mut self, error: Error) -> Error {
        self.definitive = true;
        error
    }

    fn parse_all(&mut self) -> Parsed {
        let predicate = self.or_expr()?;
        self.skip_ws();
        match self.src[self.pos..].chars().next() {
            None => Ok(predicate),
            Some(c) => Err(self.syntax(format!("unexpected '{c}'"), self.pos)),
        }
    }

    fn or_expr(&mut self) -> Parsed {
        let first = self.and_expr()?;
        self.skip_ws();
        if !self.eat(b'|') {
            return Ok(first);
        }
        let mut parts = vec![first];
        loop {
            parts.push(self.and_expr()?);
            self.skip_ws();
            if !self.eat(b'|') {
                return Ok(Composite::of(Op::Or, parts));
            }
        }
    }

    fn and_expr(&mut self) -> Parsed {
        let first = self.unary()?;
        self.skip_ws();
        if !self.eat(b'&') {
            return Ok(first);
        }
        let mut parts = vec![first];
        loop {
            self.extension = true;
            parts.push(self.unary()?);
            self.skip_ws();
            if !self.eat(b'&') {
                return Ok(Composite::of(Op::And, parts));
            }
        }
    }

    fn unary(&mut self) -> Parsed {
        self.skip_ws();
        let open = self.pos;
        if !self.eat(b'(') {
            return self.atom();
        }
        if self.nesting == MAX_NESTING {
            return Err(self.syntax("parentheses nested too deeply", open));
        }
        self.nesting += 1;
        let inner = self.or_expr()?;
        self.nesting -= 1;
        self.skip_ws();
        if self.eat(b')') { Ok(inner) } else { Err(self.syntax("expected ')' to close the '(' before it", self.pos)) }
    }

    fn atom(&mut self) -> Parsed {
        let start = self.pos;
        let bytes = self.src.as_bytes();
        let name_end = start + bytes[start..].iter().take_while(|&&b| is_name_byte(b)).count();
        let name = &self.src[start..name_end];
        let next = bytes.get(name_end).copied();
        let delimiter = |b: Option<u8>| b.is_none_or(|b| b.is_ascii_whitespace() || matches!(b, b'&' | b'|' | b')'));
        if let Some(rest) = self.src[start..].strip_prefix(crate::read_only::ATOM)
            && delimiter(rest.bytes().next())
        {
            self.extension = true;
            self.pos = start + crate::read_only::ATOM.len();
            return Ok(Box::new(crate::read_only::ReadOnlyCall));
        }
        if name == "input" && next == Some(b'.') {
            self.pos = name_end + 1;
            return self.input_test();
        }
        if !name.is_empty() && next == Some(b'(') {
            self.pos = name_end;
            return self.tool_rule(name);
        }
        if !name.is_empty() && delimiter(next) {
            self.pos = name_end;
            return Ok(Box::new(NameOnly::Exact(vec![name.to_owned()])));
        }
        if name.is_empty() && next == Some(b'*') && delimiter(bytes.get(start + 1).copied()) {
            self.pos = start + 1;
            return Ok(Box::new(NameOnly::Any));
        }
        let re_src = self.regex_token()?;
        Ok(Box::new(NameOnly::Regex(self.compile(re_src, start)?)))
    }

    /// A regex inside a composite: it runs to the first whitespace or unbalanced `)` outside
    /// brackets and groups; `|` and `&` inside it belong to the regex.
    fn regex_token(&mut self) -> Result<&'a str, Error> {
        let start = self.pos;
        let bytes = self.src.as_bytes();
        let (mut groups, mut classes) = (0usize, 0usize);
        while let Some(&b) = bytes.get(self.pos) {
            match b {
                b'\\' => self.pos += 1,
                b'[' => {
                    classes += 1;
                    self.pos += 1;
                    self.eat(b'^');
                    if self.peek() == Some(b']') {
                        self.pos += 1;
                    }
                    continue;
                }
                b']' if classes > 0 => classes -= 1,
                _ if classes > 0 => {}
                b'(' => groups += 1,
                b')' if groups == 0 => break,
                b')' => groups -= 1,
                _ if b.is_ascii_whitespace() && groups == 0 => break,
                _ => {}
            }
            self.pos += 1;
        }
        self.pos = self.pos.min(bytes.len());
        while !self.src.is_char_boundary(self.pos) {
            self.pos += 1;
        }
        if self.pos == start {
            return Err(self.syntax("expected a name or a regex", start));
        }
        Ok(&self.src[start..self.pos])
    }

    fn field_path(&mut self) -> Result<FieldPath, Error> {
        let mut segments = Vec::new();
        loop {
            let start = self.pos;
            let len = self.src.as_bytes()[start..].iter().take_while(|&&b| is_name_byte(b)).count();
            if len == 0 {
                return Err(self.syntax("expected a field name", start));
            }
            segments.push(self.src[start..start + len].to_owned());
            self.pos += len;
            if !self.eat(b'.') {
                return Ok(FieldPath::new(segments));
            }
        }
    }

    /// `input.<path>~<regex>`.
    fn input_test(&mut self) -> Parsed {
        self.extension = true;
        let path = self.field_path()?;
        if !self.eat(b'~') {
            return Err(self.syntax("expected '~' and a regex after the input field", self.pos));
        }
        let at = self.pos;
        let re_src = self.regex_token()?;
        Ok(Box::new(FieldMatch::new(path, self.compile(re_src, at)?)))
    }

    /// `Name(body)`: a field test or a permission rule.
    fn tool_rule(&mut self, name: &str) -> Parsed {
        self.extension = true;
        let open = self.pos;
        let close = self.closing_paren(open)?;
        let body_at = open + 1;
        let body = &self.src[body_at..close];
        self.pos = close + 1;
        if let Some(eq) = field_split(body) {
            let path = FieldPath::new(body[..eq].split('.').map(str::to_owned).collect());
            let re = self.compile(&body[eq + 1..], body_at + eq + 1)?;
            if name == "Bash" && path.is_command() {
                return Ok(Box::new(BashSubcommand::new(CommandRule::Regex(re))));
            }
            let tool: Box<dyn ToolInputPredicate> = Box::new(NameOnly::Exact(vec![name.to_owned()]));
            return Ok(Composite::of(Op::And, vec![tool, Box::new(FieldMatch::new(path, re))]));
        }
        let trimmed = body.trim();
        if name == "Bash" {
            if trimmed.is_empty() || trimmed == "*" {
                return Ok(Box::new(NameOnly::Exact(vec![name.to_owned()])));
            }
            let rule = WordRule::new(trimmed).map_err(|m| self.syntax(m, body_at))?;
            return Ok(Box::new(BashSubcommand::new(CommandRule::Words(rule))));
        }
        let Some(tools) = path_tools(name) else {
            return Err(self.syntax(
                format!("'{name}(…)' takes a field=regex body; path rules exist for Edit, Read and the file tools"),
                body_at,
            ));
        };
        if trimmed.is_empty() {
            return Ok(Box::new(NameOnly::Exact(tools.iter().map(|t| (*t).to_owned()).collect())));
        }
        let predicate = match PathGlob::new(tools, trimmed, &absolute(self.anchors)) {
            Ok(predicate) => predicate,
            Err(source) => {
                let error = Error::Glob { pattern: self.src.to_owned(), column: column(self.src, body_at), source };
                return Err(self.definitive(error));
            }
        };
        Ok(Box::new(predicate))
    }

    /// The `)` that closes the `(` at `open`, skipping `\x` escapes and `[…]` classes.
    fn closing_paren(&self, open: usize) -> Result<usize, Error> {
        let bytes = self.src.as_bytes();
        let (mut depth, mut in_class, mut i) = (0usize, false, open);
        while let Some(&b) = bytes.get(i) {
            match b {
                b'\\' => i += 1,
                b'[' if !in_class => in_class = true,
                b']' if in_class => in_class = false,
                _ if in_class => {}
                b'(' => depth += 1,
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        return Ok(i);
                    }
                }
                _ => {}
            }
            i += 1;
        }
        Err(self.syntax("this '(' is never closed", open))
    }
}

/// `a.b.c=` at the start of a rule body: the byte index of the `=`.
fn field_split(body: &str) -> Option<usize> {
    let eq = body.find('=')?;
    let path = &body[..eq];
    let starts_well = path.as_bytes().first().is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_');
    let segments_ok = path.split('.').all(|s| !s.is_empty() && s.bytes().all(is_name_byte));
    (starts_well && segments_ok).then_some(eq)
}
