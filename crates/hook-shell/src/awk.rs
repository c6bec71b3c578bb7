//! awk (R-PRED-4c): where its program comes from, and whether that program can run a command.
//!
//! An awk program runs a command in three ways only: `system(…)`, an output pipe (`print | "cmd"`,
//! gawk's `|&`) and an input pipe (`"cmd" | getline`). A program whose text is known and has none of
//! them (a `|` inside a string, a regex or a comment is not a pipe) runs nothing: its words are data.
//! Anything that cannot be read that way is uncertain: a program of unknown text, one read from
//! standard input that is not known, gawk's `@` (indirect calls such as `f = "system"; @f(…)`,
//! `@load`, `@include`), extensions (`-l`), an option this model does not know.
//!
//! A program read from a file (`-f FILE`, `-E FILE`, `-i FILE`) is not part of the command line, as
//! for a shell or an interpreter running a script (`bash script.sh`). That holds whether the file's
//! name is known or not: a known name may be a symbolic link to `/dev/stdin` just as well, so an
//! unknown one opens no way a known one does not. Only a name that is standard input as written
//! (`-`, `/dev/stdin`, …) or a process substitution is read as such.

use crate::lex::Stdin;
use crate::program_file::program_file_is_harmless;
use crate::walk::Walk;
use crate::word::Word;

/// Short options that take a value (attached, or the next word): `-F fs`, `-v a=b`, `-f file`,
/// gawk's `-e text`, `-E file`, `-i file`, `-l ext`, `-Z locale`, mawk's `-W opt`.
const SHORT_WITH_VALUE: &[u8] = b"FvfeEilWZ";
/// gawk's short options whose value is optional and only ever attached (`-dfile`, `-L`). Not `-D`:
/// the debugger reads commands (`eval`, which may call `system`) from standard input or a file.
const SHORT_OPTIONAL: &[u8] = b"dopL";
/// Short options that stand alone (gawk's; POSIX awk has none).
const SHORT_FLAGS: &[u8] = b"bcCghIkMNnOPrsStVY";

/// gawk's long options that take a value (`--file=x` or `--file x`), as the short option they mean.
const LONG_WITH_VALUE: &[(&str, u8)] = &[
    ("field-separator", b'F'),
    ("assign", b'v'),
    ("file", b'f'),
    ("source", b'e'),
    ("exec", b'E'),
    ("include", b'i'),
    ("load", b'l'),
];
/// gawk's long options whose value is optional and only attached with `=` (not `--debug`: see
/// [`SHORT_OPTIONAL`]).
const LONG_OPTIONAL: &[&str] = &["dump-variables", "pretty-print", "profile", "lint"];
/// gawk's long options that stand alone.
const LONG_FLAGS: &[&str] = &[
    "characters-as-bytes",
    "traditional",
    "copyright",
    "gen-pot",
    "help",
    "bignum",
    "use-lc-numeric",
    "non-decimal-data",
    "optimize",
    "posix",
    "re-interval",
    "no-optimize",
    "sandbox",
    "lint-old",
    "version",
    "csv",
    "usage",
];

/// Where awk's program comes from: its text, or the name of a file holding it, each with whether
/// the text is known.
enum Source<'w> {
    /// Program text on the command line (the first operand, or `-e`).
    Text(&'w str, bool),
    /// A file named on the command line (`-f`, `-E`, `-i`).
    File(&'w str, bool),
}

impl Walk<'_> {
    /// awk, gawk, mawk, nawk: uncertain unless every program text is known and cannot run a
    /// command; the words of such a command are data.
    pub(crate) fn awk(&mut self, words: &[Word], stdin: &Stdin) {
        let Some(sources) = awk_sources(words) else {
            self.uncertain();
            return;
        };
        for source in sources {
            let harmless = match source {
                Source::Text(text, known) => known && !program_may_run_a_command(text),
                Source::File(name, known) => {
                    program_file_is_harmless(name, known, stdin, |text| !program_may_run_a_command(text))
                }
            };
            if !harmless {
                self.uncertain();
            }
        }
    }
}

/// The program sources of an awk command line (`words[0]` is awk), or `None` when the options
/// cannot be read with certainty: a word of unknown value where an option may stand (`$OPTS` may
/// be `-f /dev/stdin`), an option this model does not know, an extension (`-l`), `-W …`. awk
/// reads options up to its first operand (gawk's getopt string starts with `+`), so the words
/// after the program (or after `-f FILE`'s options) are its input files and assignments: data.
fn awk_sources(words: &[Word]) -> Option<Vec<Source<'_>>> {
    let mut sources = Vec::new();
    let mut i = 1;
    while let Some(w) = words.get(i) {
        let t = w.text.as_str();
        if !w.known || w.glob {
            // A glob may expand to a file named `-eBEGIN { system(…) }`.
            return None;
        }
        if t == "--" {
            i += 1;
            break;
        }
        if !t.starts_with('-') || t == "-" {
            break;
        }
        // The option (as its short letter; 0 for one whose value is not looked at) and its value.
        let (option, value) = if let Some(long) = t.strip_prefix("--") {
            match long.split_once('=') {
                Some((name, value)) => match long_option(name)? {
                    Long::WithValue(short) => (short, Some((value, true))),
                    Long::Optional => (0, None),
                    Long::Flag => return None,
                },
                None => match long_option(long)? {
                    Long::WithValue(short) => {
                        i += 1;
                        (short, Some(word_value(words.get(i)?)))
                    }
                    Long::Optional | Long::Flag => (0, None),
                },
            }
        } else {
            let cluster = &t[1..];
            let mut found = (0, None);
            for (k, b) in cluster.bytes().enumerate() {
                if SHORT_WITH_VALUE.contains(&b) {
                    let attached = &cluster[k + 1..];
                    found = if attached.is_empty() {
                        i += 1;
                        (b, Some(word_value(words.get(i)?)))
                    } else {
                        (b, Some((attached, true)))
                    };
                    break;
                }
                if SHORT_OPTIONAL.contains(&b) {
                    break;
                }
                if !SHORT_FLAGS.contains(&b) {
                    return None;
                }
            }
            found
        };
        match (option, value) {
            // An extension is native code loaded by name; `-W …` spells options this model does
            // not read (mawk's `-W exec file`).
            (b'l' | b'W', _) => return None,
            (b'e', Some((text, known))) => sources.push(Source::Text(text, known)),
            (b'f' | b'E' | b'i', Some((name, known))) => sources.push(Source::File(name, known)),
            _ => {}
        }
        if option == b'E' {
            // `-E file` ends the options: the rest are the program's arguments.
            return Some(sources);
        }
        i += 1;
    }
    if sources.is_empty() {
        // No `-f` or `-e`: the first operand is the program (none: awk prints its usage).
        if let Some(program) = words.get(i) {
            sources.push(Source::Text(&program.text, program.known && !program.glob));
        }
    }
    Some(sources)
}

/// The value an option takes from the next word, and whether it is known (a glob is not: the
/// file names it expands to are).
fn word_value(word: &Word) -> (&str, bool) {
    (word.text.as_str(), word.known && !word.glob)
}

enum Long {
    WithValue(u8),
    Optional,
    Flag,
}

/// A long option by its name or an unambiguous prefix of it (getopt_long accepts `--so` for
/// `--source`); `None` when it is not one of gawk's or is ambiguous.
fn long_option(name: &str) -> Option<Long> {
    let candidates = LONG_WITH_VALUE
        .iter()
        .map(|(n, short)| (*n, Long::WithValue(*short)))
        .chain(LONG_OPTIONAL.iter().map(|n| (*n, Long::Optional)))
        .chain(LONG_FLAGS.iter().map(|n| (*n, Long::Flag)));
    let mut found = None;
    for (candidate, long) in candidates {
        if candidate == name {
            return Some(long);
        }
        if !name.is_empty() && candidate.starts_with(name) {
            if found.is_some() {
                return None;
            }
            found = Some(long);
        }
    }
    found
}

/// Whether an awk program's text may run a command: it names `system` anywhere (a string
/// included: gawk calls a function by a name held in a variable), holds `@` outside strings,
/// regexes and comments, holds a `|` there that is not half of `||`, or cannot be read (a string
/// or regex left open, a regex with a bracket expression, where awks disagree on where it ends).
pub(crate) fn program_may_run_a_command(program: &str) -> bool {
    if program.contains("system") {
        return true;
    }
    let code = match strip_literals(program) {
        Some(code) => code,
        None => return true,
    };
    code.contains('@') || code.replace("||", "").contains('|')
}

/// The program with its strings, regex literals and comments replaced by a placeholder (`S`,
/// `R`), or `None` when one of them cannot be read with certainty. A `/` opens a regex only where
/// an operand is expected (after an operator, `(`, `,`, `{`, `}`, `;`, a newline, or at the start),
/// as in awk's own grammar; after `++`/`--`, where it may be division, it is left as code.
fn strip_literals(program: &str) -> Option<String> {
    let bytes = program.as_bytes();
    let mut out = String::with_capacity(program.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if bytes.get(i + 1) == Some(&b'\n') => {
                out.push(' ');
                i += 2;
            }
            b'"' => {
                i = literal_end(bytes, i + 1, b'"')?;
                out.push('S');
            }
            b'#' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if regex_expected(&out) => {
                let end = literal_end(bytes, i + 1, b'/')?;
                if bytes[i + 1..end - 1].contains(&b'[') {
                    return None;
                }
                i = end;
                out.push('R');
            }
            _ => {
                // Copy one character whole (the text is UTF-8; only ASCII is looked at).
                let len = program[i..].chars().next().map_or(1, char::len_utf8);
                out.push_str(&program[i..i + len]);
                i += len;
            }
        }
    }
    Some(out)
}

/// Where a string or regex that starts at `from` ends (just past its closing `close`); `None` when it
/// is left open (awk reads neither across a newline).
fn literal_end(bytes: &[u8], from: usize, close: u8) -> Option<usize> {
    let mut i = from;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'\\' => i += 2,
            b'\n' => return None,
            _ if b == close => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

/// Whether a `/` after `code` (the program so far, literals replaced) opens a regex.
fn regex_expected(code: &str) -> bool {
    let code = code.trim_end_matches([' ', '\t']);
    let mut tail = code.bytes().rev();
    match tail.next() {
        None => true,
        Some(b @ (b'+' | b'-')) => tail.next() != Some(b),
        Some(b) => b"(,{};\n!~&|=<>?:*%^".contains(&b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_program_runs_a_command_only_through_system_or_a_pipe() {
        let cases: &[(&str, bool)] = &[
            (r#"BEGIN { system("touch x") }"#, true),
            ("{ system($0) }", true),
            (r#"{ print | "sh" }"#, true),
            (r#"{ print |& "sh" }"#, true),
            (r#"BEGIN { "date" | getline d }"#, true),
            (r#"BEGIN { f = "sys" "tem"; @f("touch x") }"#, true),
            (r#"@load "ordchr"; BEGIN { }"#, true),
            (r#"BEGIN { print "a" }|"sh""#, true),
            // A `/` after an operand is division: what follows is code.
            (r#"{ x = a / 2 | "sh"; y = b / 3 }"#, true),
            (r#"{ x = a++ / 2 | "sh"; y = b / 3 }"#, true),
            ("{ x = a \\\n/ 2 | \"sh\"; y = b / 3 }", true),
            (r#"{ print "unterminated }"#, true),
            ("/[/]|x/ { print }", true),
            ("{ print $1 }", false),
            (r#"$1 == "a" || $2 { print $1 }"#, false),
            ("/a|b/ { n++ }", false),
            (r#"{ gsub(/x|y/, "|") ; print }"#, false),
            (r#"{ print "a|b" > "out.txt" }"#, false),
            (r#"{ getline line < "file"; print line }"#, false),
            ("{ print } # a | b", false),
            (r#"BEGIN { FS = "|" } { print $2 }"#, false),
            ("$1 ~ /^(a|b)$/", false),
            (r#"{ x = a / b; print x }"#, false),
            ("NR > 1 && !/x|y/", false),
        ];
        for (program, runs) in cases {
            assert_eq!(program_may_run_a_command(program), *runs, "{program}");
        }
    }

    #[test]
    fn long_options_are_read_by_unambiguous_prefix() {
        assert!(matches!(long_option("source"), Some(Long::WithValue(b'e'))));
        assert!(matches!(long_option("so"), Some(Long::WithValue(b'e'))));
        assert!(matches!(long_option("fil"), Some(Long::WithValue(b'f'))));
        assert!(long_option("fi").is_none(), "--fi is --field-separator or --file");
        assert!(long_option("f").is_none(), "--f is --field-separator or --file");
        assert!(long_option("frobnicate").is_none());
        assert!(matches!(long_option("posix"), Some(Long::Flag)));
    }
}
