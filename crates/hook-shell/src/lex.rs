//! Lexing: a command string split into simple commands of shell words — quoting and escapes,
//! operators, substitutions, redirections and here-documents (R-PRED-4).

use crate::analysis::{MAX_DEPTH, MAX_LAYERS};
use crate::word::Word;

mod words;

/// How a simple command ended.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum End {
    Separator,
    /// `|`: the next command reads this one's standard output.
    Pipe,
    /// `;;`, `;&` or `;;&`: the end of a `case` clause.
    CaseBreak,
    Close,
    Eof,
}

#[derive(Debug)]
pub(crate) struct Heredoc {
    delimiter: Vec<u8>,
    strip_tabs: bool,
    expands: bool,
    /// Where its body goes in [`Lexer::bodies`].
    id: usize,
}

/// What a command reads on its standard input, for the commands that run it as code (`bash <<EOF`).
#[derive(Debug, Clone, Default)]
pub(crate) enum Stdin {
    /// Whatever the caller gave: unknown text.
    #[default]
    Inherited,
    /// A pipe from the simple command the lexer handed the sink just before (the walk reads it
    /// as [`Stdin::Inherited`] unless it knows what that command prints).
    Pipe,
    /// NUL-separated paths, each matching this glob (`find … -print0 |`).
    Listing(String),
    /// `< file`: a file's contents, which are not part of the command.
    File,
    /// A here-string or a here-document whose text is known.
    Text(String),
    /// A here-string or here-document whose text depends on expansions.
    Unknown,
    /// A here-document whose body comes after the end of the line (see [`Lexer::bodies`]).
    Pending(usize),
}

/// Reserved words that may open a command without being its name.
pub(crate) const RESERVED: &[&str] =
    &["!", "{", "}", "if", "then", "elif", "else", "fi", "do", "done", "while", "until"];

/// What the lexer hands its results to: each simple command as it is read, and what it finds
/// about the whole. The walk (`walk.rs`) is the sink that turns commands into views; the lexer
/// knows nothing of what they mean (save that a substitution of `echo WORD` is WORD:
/// `model::printed_word`).
pub(crate) trait Sink {
    /// One simple command: its words, what it reads on standard input, and how deep it is nested.
    fn command(&mut self, words: Vec<Word>, stdin: Stdin, depth: usize);
    /// A command string found inside a word (a backtick substitution's body), one level deeper.
    fn nested(&mut self, text: &str, depth: usize);
    /// A redirection: its operator (`<`, `>>`, …), its target, and whether the target is a
    /// process substitution.
    fn redirect(&mut self, op: &[u8], target: &Word, substitution: bool);
    /// Something the lexer could not read with certainty.
    fn uncertain(&mut self);
    /// Counts `units` of work: false once past the budget.
    fn spend(&mut self, units: usize) -> bool;
    /// Whether the budget is spent: the lexer skips the rest of the input.
    fn exhausted(&self) -> bool;
}

pub(crate) struct Lexer<'a, 's, S: Sink> {
    pub(crate) src: &'a [u8],
    pub(crate) pos: usize,
    pub(crate) depth: usize,
    heredocs: Vec<Heredoc>,
    /// The bodies of the here-documents read so far, by id (`None` until read).
    bodies: Vec<Option<Stdin>>,
    /// Commands whose here-document body has not been read yet, with its id.
    deferred: Vec<(Vec<Word>, usize)>,
    /// The next simple command reads the output of the one the sink was handed last.
    piped: bool,
    sink: &'s mut S,
    /// The client's `TMPDIR`, when this command cannot have changed it (`environment.rs`).
    pub(crate) tmpdir: Option<String>,
}

impl<'a, 's, S: Sink> Lexer<'a, 's, S> {
    pub(crate) fn new(src: &'a str, depth: usize, sink: &'s mut S) -> Self {
        Lexer {
            src: src.as_bytes(),
            pos: 0,
            depth,
            heredocs: Vec::new(),
            bodies: Vec::new(),
            deferred: Vec::new(),
            piped: false,
            sink,
            tmpdir: crate::environment::tmpdir_for(src),
        }
    }
}

impl<S: Sink> Lexer<'_, '_, S> {
    fn peek(&self) -> Option<u8> {
        self.src.get(self.pos).copied()
    }

    fn peek_at(&self, n: usize) -> Option<u8> {
        self.src.get(self.pos + n).copied()
    }

    pub(crate) fn uncertain(&mut self) {
        self.sink.uncertain();
    }

    /// Reads commands until the closing `)` (when `in_parens`) or the end of input.
    pub(crate) fn list(&mut self, in_parens: bool) {
        loop {
            if self.sink.exhausted() {
                // Past the work budget (uncertain already): the rest is not read.
                self.pos = self.src.len();
                return;
            }
            match self.command(in_parens) {
                End::Separator | End::Pipe => {}
                // `;;` outside a `case` is a syntax error: bash runs nothing, but say so.
                End::CaseBreak => self.uncertain(),
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

    /// Reads one simple command and emits its views (once its here-documents are read).
    fn command(&mut self, in_parens: bool) -> End {
        let (words, stdin, end) = self.simple_command(in_parens);
        let mut now = true;
        match stdin {
            Stdin::Pending(id) => match self.bodies.get(id).cloned().flatten() {
                Some(body) => self.sink.command(words, body, self.depth),
                None => {
                    self.deferred.push((words, id));
                    now = false;
                }
            },
            stdin => self.sink.command(words, stdin, self.depth),
        }
        self.flush_deferred(false);
        // The next command reads this one's output only if this one was the last the sink saw.
        self.piped = end == End::Pipe && now && self.deferred.is_empty();
        end
    }

    /// Emits the commands whose here-document has been read by now (or, at the end, all of them:
    /// a body that never came is unknown).
    pub(crate) fn flush_deferred(&mut self, at_end: bool) {
        if !self.deferred.is_empty() && !self.sink.spend(self.deferred.len()) {
            return;
        }
        let mut i = 0;
        while i < self.deferred.len() {
            let body = self.bodies.get(self.deferred[i].1).cloned().flatten();
            match body.or_else(|| at_end.then_some(Stdin::Unknown)) {
                Some(body) => {
                    let (words, _) = self.deferred.remove(i);
                    self.sink.command(words, body, self.depth);
                }
                None => i += 1,
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
                // A NUL is read as a blank: whatever layer drops it, the words around it stay apart.
                (Some(b' ' | b'\t' | b'\r' | 0), _) => self.pos += 1,
                (Some(b'\\'), Some(b'\n')) => self.pos += 2,
                _ => return,
            }
        }
    }

    /// Reads one simple command: its words, what it reads on standard input, and how it ended.
    pub(crate) fn simple_command(&mut self, in_parens: bool) -> (Vec<Word>, Stdin, End) {
        let mut words: Vec<Word> = Vec::new();
        let mut stdin = if std::mem::take(&mut self.piped) { Stdin::Pipe } else { Stdin::Inherited };
        loop {
            self.skip_blanks();
            let Some(c) = self.peek() else { return (words, stdin, End::Eof) };
            match c {
                b'\n' => {
                    self.pos += 1;
                    self.read_heredocs();
                    return (words, stdin, End::Separator);
                }
                b'&' if self.peek_at(1) == Some(b'>') => {
                    self.redirection();
                }
                b';' if matches!(self.peek_at(1), Some(b';' | b'&')) => {
                    self.pos += 2;
                    if self.src[self.pos - 1] == b';' && self.peek() == Some(b'&') {
                        self.pos += 1;
                    }
                    return (words, stdin, End::CaseBreak);
                }
                b';' | b'&' | b'|' => {
                    self.pos += 1;
                    if matches!(self.peek(), Some(b'&' | b'|')) {
                        self.pos += 1;
                    } else if c == b'|' {
                        return (words, stdin, End::Pipe);
                    }
                    return (words, stdin, End::Separator);
                }
                b')' => {
                    self.pos += 1;
                    if in_parens {
                        return (words, stdin, End::Close);
                    }
                    self.uncertain();
                    return (words, stdin, End::Separator);
                }
                b'(' if self.peek_at(1) == Some(b'(') && opens_command(&words, &["for"]) => {
                    // `(( … ))` and `for (( … ))`: arithmetic, not commands.
                    self.pos += 2;
                    self.skip_balanced(b'(', b')', 2, false);
                    words.push(Word::literal("(( ))"));
                }
                b'(' => {
                    self.pos += 1;
                    if opens_command(&words, &[]) {
                        self.nested_list();
                        continue;
                    }
                    if let [first, _name] = words.as_slice()
                        && first.text == "coproc"
                    {
                        // `coproc NAME ( … )`: the subshell is the command.
                        words.clear();
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
                b'<' | b'>' if self.peek_at(1) != Some(b'(') => {
                    if let Some(source) = self.redirection() {
                        // Two input redirections (`bash <<A 3<<B`): which one is standard input is
                        // not tracked, so neither is trusted.
                        stdin = if matches!(stdin, Stdin::Inherited | Stdin::Pipe) { source } else { Stdin::Unknown };
                    }
                }
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
                    let io_number = !word.quoted
                        && (word.text.bytes().all(|b| b.is_ascii_digit())
                            || (word.text.starts_with('{') && word.text.ends_with('}') && word.text.len() > 2));
                    if io_number && matches!(self.peek(), Some(b'<' | b'>')) {
                        continue;
                    }
                    let opens = !word.quoted && opens_command(&words, &[]);
                    let keyword = if opens { word.text.as_str() } else { "" };
                    match keyword {
                        "[[" => {
                            words.push(word);
                            self.conditional(&mut words);
                        }
                        "case" => {
                            words.push(word);
                            self.case_clause(&mut words, in_parens);
                        }
                        _ => words.push(word),
                    }
                }
            }
        }
    }

    /// Reads a redirection operator and its target; both are dropped from the command's words. Returns
    /// what standard input becomes when the redirection is an input one.
    fn redirection(&mut self) -> Option<Stdin> {
        let rest = &self.src[self.pos..];
        let input = rest.starts_with(b"<") && !rest.starts_with(b"<&") && !rest.starts_with(b"<>");
        let here_string = rest.starts_with(b"<<<");
        let (len, heredoc) = if here_string {
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
        let op = &rest[..len];
        self.pos += len;
        self.skip_blanks();
        // `< <(cmd)`, `> >(cmd)`: the target is a process substitution (a word of its own).
        let substitution = heredoc.is_none()
            && !here_string
            && matches!(self.peek(), Some(b'<' | b'>'))
            && self.peek_at(1) == Some(b'(');
        if !substitution
            && self.peek().is_none_or(|c| matches!(c, b'\n' | b';' | b'&' | b'|' | b'(' | b')' | b'<' | b'>'))
        {
            self.uncertain();
            return None;
        }
        let target = self.word();
        self.sink.redirect(op, &target, substitution);
        if let Some(strip_tabs) = heredoc {
            let id = self.bodies.len();
            self.bodies.push(None);
            self.heredocs.push(Heredoc {
                delimiter: target.text.into_bytes(),
                strip_tabs,
                expands: !target.quoted,
                id,
            });
            return Some(Stdin::Pending(id));
        }
        if here_string {
            return Some(if target.known { Stdin::Text(target.text) } else { Stdin::Unknown });
        }
        // Input from a process substitution is a command's output, not a file's contents.
        input.then_some(if substitution { Stdin::Unknown } else { Stdin::File })
    }

    /// Reads the bodies of the here-documents opened on the line that just ended. A body is known text
    /// unless the here-document expands (unquoted delimiter) and holds `$`, a backtick or a backslash.
    fn read_heredocs(&mut self) {
        for doc in std::mem::take(&mut self.heredocs) {
            let mut body = Vec::new();
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
                body.extend_from_slice(line);
                body.push(b'\n');
            }
            let body = if doc.expands { unescaped_body(&body) } else { Some(body) };
            if let Some(slot) = self.bodies.get_mut(doc.id) {
                *slot = Some(match body {
                    Some(body) => Stdin::Text(String::from_utf8_lossy(&body).into_owned()),
                    None => Stdin::Unknown,
                });
            }
        }
    }

    /// The rest of `[[ … ]]` after `[[`: operators and parentheses inside are words of the test, not
    /// command separators (`[[ x =~ (a|b) ]]`); substitutions inside are still commands.
    fn conditional(&mut self, words: &mut Vec<Word>) {
        loop {
            self.skip_blanks();
            match self.peek() {
                None | Some(b';') => {
                    self.uncertain();
                    return;
                }
                Some(b'\n') => self.pos += 1,
                Some(c @ (b'(' | b')' | b'|' | b'&' | b'<' | b'>')) => {
                    self.pos += 1;
                    let op = match c {
                        b'(' => "(",
                        b')' => ")",
                        b'|' => "|",
                        b'&' => "&",
                        b'<' => "<",
                        _ => ">",
                    };
                    words.push(Word::literal(op));
                }
                _ => {
                    let start = self.pos;
                    let word = self.word();
                    if self.pos == start {
                        self.pos += 1;
                        self.uncertain();
                        continue;
                    }
                    let end = !word.quoted && word.text == "]]";
                    words.push(word);
                    if end {
                        return;
                    }
                }
            }
        }
    }

    /// The rest of `case WORD in [(]pattern[|pattern]…) list ;; … esac` after `case`: the subject and
    /// the patterns are words of the `case` command, each clause's list is commands.
    fn case_clause(&mut self, words: &mut Vec<Word>, in_parens: bool) {
        if self.depth >= MAX_DEPTH {
            self.uncertain();
            self.pos = self.src.len();
            return;
        }
        self.depth += 1;
        if !self.case_clauses(words, in_parens) {
            self.uncertain();
        }
        self.depth -= 1;
    }

    /// `case_clause`'s work; `false` when the text is not a well-formed `case`.
    fn case_clauses(&mut self, words: &mut Vec<Word>, in_parens: bool) -> bool {
        // The subject, then `in`.
        for expect_in in [false, true] {
            self.skip_blanks_and_newlines();
            let start = self.pos;
            let word = self.word();
            if self.pos == start || (expect_in && (word.quoted || word.text != "in")) {
                return false;
            }
            words.push(word);
        }
        loop {
            self.skip_blanks_and_newlines();
            if self.keyword_ahead("esac") {
                return true;
            }
            if self.peek() == Some(b'(') {
                self.pos += 1;
            }
            // The patterns, up to `)`.
            loop {
                self.skip_blanks();
                match self.peek() {
                    Some(b')') => {
                        self.pos += 1;
                        break;
                    }
                    Some(b'|') => self.pos += 1,
                    None | Some(b'\n' | b';' | b'&' | b'<' | b'>' | b'(') => return false,
                    Some(_) => {
                        let start = self.pos;
                        let word = self.word();
                        if self.pos == start {
                            return false;
                        }
                        words.push(word);
                    }
                }
            }
            // The clause's commands, up to `;;`, `;&`, `;;&` or `esac`.
            loop {
                self.skip_blanks_and_newlines();
                if self.keyword_ahead("esac") {
                    return true;
                }
                match self.command(in_parens) {
                    End::CaseBreak => break,
                    End::Separator | End::Pipe => {}
                    End::Close | End::Eof => return false,
                }
            }
        }
    }

    /// The elements of `name=( … )` up to the closing `)`: words (their substitutions still run).
    fn array_elements(&mut self) {
        loop {
            self.skip_blanks_and_newlines();
            match self.peek() {
                Some(b')') => {
                    self.pos += 1;
                    return;
                }
                None | Some(b';' | b'&' | b'|' | b'<' | b'>' | b'(') => {
                    self.uncertain();
                    return;
                }
                Some(_) => {
                    let start = self.pos;
                    self.word();
                    if self.pos == start {
                        self.pos += 1;
                        self.uncertain();
                    }
                }
            }
        }
    }

    /// Skips blanks and newlines (reading the here-documents a newline ends).
    fn skip_blanks_and_newlines(&mut self) {
        loop {
            self.skip_blanks();
            match self.peek() {
                Some(b'\n') => {
                    self.pos += 1;
                    self.read_heredocs();
                }
                Some(b'#') => {
                    while self.peek().is_some_and(|c| c != b'\n') {
                        self.pos += 1;
                    }
                }
                _ => return,
            }
        }
    }

    /// Consumes `keyword` when it comes next as a word of its own.
    fn keyword_ahead(&mut self, keyword: &str) -> bool {
        let rest = &self.src[self.pos..];
        let delimited = rest.get(keyword.len()).is_none_or(|c| b" \t\r\n;&|)<>".contains(c));
        if rest.starts_with(keyword.as_bytes()) && delimited {
            self.pos += keyword.len();
            return true;
        }
        false
    }
}

/// Whether a command name may come next: no word yet, or only reserved words (`if`, `!`, `then`,
/// …) and the `also` keywords.
fn opens_command(words: &[Word], also: &[&str]) -> bool {
    // Past this many leading reserved words the command is uncertain anyway (the walk's layer
    // limit); stopping here keeps a run of 100,000 `{` linear.
    words.len() <= 2 * MAX_LAYERS
        && words.iter().all(|w| !w.quoted && (RESERVED.contains(&w.text.as_str()) || also.contains(&w.text.as_str())))
}

/// The text of an unquoted here-document's body as bash hands it on: `\\`, `\$` and `` \` `` are
/// unescaped and any other backslash stays; `None` when an expansion or substitution would change
/// it, or a backslash joins two lines (the joined line may be the delimiter).
fn unescaped_body(body: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(body.len());
    let mut i = 0;
    while let Some(&c) = body.get(i) {
        match (c, body.get(i + 1)) {
            (b'$' | b'`', _) | (b'\\', Some(b'\n') | None) => return None,
            (b'\\', Some(&e @ (b'\\' | b'$' | b'`'))) => {
                out.push(e);
                i += 2;
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    Some(out)
}
