//! find: the commands its actions run (`-exec`, `-execdir`, `-ok`, `-okdir`), with `{}` read as
//! the paths find lists — a glob of them where the expression says which (`find . -name '*.rs'
//! -exec wc -l {} +` reads `./**/*.rs`, none of which is `.env` or an option), else a word of
//! unknown value — what `find … -print0` writes into a pipe, and the files find itself touches
//! (its roots' names, `-newer FILE`, `-fprint FILE`).

use globset::GlobBuilder;

use crate::files::{Arg, FileModel, READ, Reach, WRITE};
use crate::word::{Word, basename};

/// The actions of find that run a command, and whether `{}` is the path as found (`-execdir` and
/// `-okdir` give `./NAME` in the file's own directory instead).
const ACTIONS: &[(&str, bool)] = &[("-exec", true), ("-ok", true), ("-execdir", false), ("-okdir", false)];

/// Words of an expression that join tests other than by "and": with one of them, a test before an
/// action no longer holds for every path it runs on.
const NOT_AND: &[&str] = &["-o", "-or", "!", "-not", "(", ")", ","];

/// `find … -exec COMMAND ;` (or `+`), and `-execdir`, `-ok`, `-okdir`: the commands find runs,
/// `{}` standing for the paths found (analysed one level deeper by the walk).
pub(crate) fn exec_commands(words: &[Word]) -> Vec<Vec<Word>> {
    let mut commands = Vec::new();
    let start = expression_start(words);
    let mut i = start;
    while i < words.len() {
        let Some(&(_, as_found)) = ACTIONS.iter().find(|(a, _)| words[i].known && words[i].text == *a) else {
            i += 1;
            continue;
        };
        let from = i + 1;
        let end = words[from..].iter().position(|w| w.text == ";" || w.text == "+").map_or(words.len(), |p| from + p);
        let many = words.get(end).is_some_and(|w| w.text == "+");
        let found = if as_found { found_paths(words, start, i) } else { None };
        let mut command = words[from..end].to_vec();
        for w in command.iter_mut().filter(|w| w.text.contains("{}")) {
            match &found {
                // The word is replaced whole: a glob every path found matches.
                Some(glob) if w.known && w.text == "{}" => {
                    w.text.clone_from(glob);
                    w.glob = true;
                }
                _ => {
                    w.known = false;
                    w.program_known = false;
                    w.splits |= many;
                }
            }
        }
        commands.push(command);
        i = end + 1;
    }
    commands
}

/// What `find … -print0` writes to its standard output, when it is only that: a glob of the paths
/// (NUL-terminated) its one `-print0` lists, with no other action that prints or runs anything.
pub(crate) fn null_listing(words: &[Word]) -> Option<String> {
    const PRINTS: &[&str] =
        &["-print", "-printf", "-ls", "-fls", "-fprint", "-fprint0", "-fprintf", "-delete", "-quit"];
    if words.first().is_none_or(|w| !w.known || w.text != "find") {
        return None;
    }
    let start = expression_start(words);
    let mut print0 = words[start..].iter().enumerate().filter(|(_, w)| w.text == "-print0").map(|(i, _)| start + i);
    let (at, None) = (print0.next()?, print0.next()) else { return None };
    let others =
        words[start..].iter().any(|w| PRINTS.contains(&w.text.as_str()) || ACTIONS.iter().any(|(a, _)| w.text == *a));
    if others {
        return None;
    }
    found_paths(words, start, at)
}

impl FileModel {
    /// `find ROOTS EXPRESSION`: it reads the names below its roots (no file's content) and the files
    /// `-newer` and the like compare with, and writes `-fprint FILE`. With `-delete` (or a word of
    /// unknown value, which may be it) it is read as a program the model does not know: a protected
    /// name among its words is a doubt (`find . -name hooks.json -delete`), and what else it removes
    /// is not seen (`docs/security.md`; the pack's `find -delete` rule asks about it). The commands
    /// of `-exec` and the like are commands of their own.
    pub(crate) fn find(&mut self, words: &[Word]) {
        if words[1..].iter().any(|w| !w.known || w.text == "-delete") {
            self.mention_all(&words[1..]);
            return;
        }
        const READS: &[&str] = &["-newer", "-anewer", "-cnewer", "-samefile", "-files0-from"];
        const WRITES: &[&str] = &["-fprint", "-fprint0", "-fls", "-fprintf"];
        const WITH_VALUE: &[&str] = &[
            "-name",
            "-iname",
            "-path",
            "-ipath",
            "-wholename",
            "-iwholename",
            "-regex",
            "-iregex",
            "-lname",
            "-ilname",
            "-type",
            "-xtype",
            "-maxdepth",
            "-mindepth",
            "-user",
            "-group",
            "-uid",
            "-gid",
            "-perm",
            "-size",
            "-mtime",
            "-mmin",
            "-atime",
            "-amin",
            "-ctime",
            "-cmin",
            "-used",
            "-links",
            "-inum",
            "-fstype",
            "-printf",
            "-regextype",
            "-context",
            "-D",
        ];
        let mut i = 1;
        while let Some(w) = words.get(i).filter(|w| w.known) {
            match w.text.as_str() {
                "-H" | "-L" | "-P" => i += 1,
                "-D" => i += 2,
                t if t.starts_with("-O") => i += 1,
                _ => break,
            }
        }
        let roots_from = i;
        while words
            .get(i)
            .is_some_and(|w| !w.known || !(w.text.starts_with('-') || matches!(w.text.as_str(), "(" | "!")))
        {
            i += 1;
        }
        let roots = &words[roots_from..i];
        while let Some(w) = words.get(i) {
            i += 1;
            let t = w.text.as_str();
            if !w.known {
                continue;
            } else if READS.contains(&t) || WRITES.contains(&t) {
                let access = if READS.contains(&t) { READ } else { WRITE };
                if let Some(file) = words.get(i) {
                    self.push_word(access, Reach::File, file);
                }
                i += 1 + usize::from(t == "-fprintf");
            } else if WITH_VALUE.contains(&t) || t.starts_with("-newer") {
                i += 1;
            } else if matches!(t, "-exec" | "-execdir" | "-ok" | "-okdir") {
                i += words[i..].iter().position(|w| w.text == ";" || w.text == "+").map_or(words.len(), |p| p + 1);
            }
        }
        if roots.is_empty() {
            self.push(READ, Reach::File, Arg::Known(".".to_owned()));
        }
        for root in roots {
            self.push_word(READ, Reach::File, root);
        }
    }
}

/// Where find's expression starts: after its options (`-H`, `-L`, `-P`, `-D LIST`, `-OLEVEL`) and
/// its start points.
fn expression_start(words: &[Word]) -> usize {
    let mut i = 1;
    while let Some(w) = words.get(i) {
        match w.text.as_str() {
            "-H" | "-L" | "-P" => i += 1,
            "-D" => i += 2,
            t if t.starts_with("-O") => i += 1,
            _ => break,
        }
    }
    while words.get(i).is_some_and(|w| !w.known || !(w.text.starts_with('-') || NOT_AND.contains(&w.text.as_str()))) {
        i += 1;
    }
    i.min(words.len())
}

/// The glob every path an action at `action` runs on matches, when the line says: one start point
/// of known text (`.` when none is given), no `-L`, `-follow` or `-files0-from`, and known words
/// up to the action. Every path find visits is below its start point, which does not begin with
/// `-` (it would be read as a test), so none is an option: `ROOT/**`, narrowed to `ROOT/**/PATTERN`
/// by a `-name` or `-iname` test when the expression joins it by "and" only and the start point
/// itself does not pass it.
fn found_paths(words: &[Word], start: usize, action: usize) -> Option<String> {
    let mut first_root = 1;
    while first_root < start {
        match words[first_root].text.as_str() {
            "-L" | "-D" => return None,
            "-H" | "-P" => {}
            t if t.starts_with("-O") => {}
            _ => break,
        }
        first_root += 1;
    }
    let root = match &words[first_root..start] {
        [] => ".",
        [w] if w.known && !w.glob && !w.text.is_empty() && !w.text.starts_with('~') => w.text.as_str(),
        _ => return None,
    };
    let (mut name, mut only_and) = (None, true);
    let mut i = start;
    while i < action {
        let w = &words[i];
        if !w.known || matches!(w.text.as_str(), "-follow" | "-files0-from") {
            return None;
        }
        if ACTIONS.iter().any(|(a, _)| w.text == *a) {
            // Another action's command: its words are not find's.
            i += words[i..].iter().position(|w| w.text == ";" || w.text == "+").unwrap_or(words.len());
        } else if NOT_AND.contains(&w.text.as_str()) {
            only_and = false;
        } else if (w.text == "-name" || w.text == "-iname") && name.is_none() {
            let value = words.get(i + 1).filter(|v| v.known)?;
            name = Some((value.text.as_str(), w.text == "-iname"));
        }
        i += 1;
    }
    let root = if root == "/" { "" } else { root.trim_end_matches('/') };
    let below = |pattern: &str| format!("{}/**{pattern}", globset::escape(root));
    Some(match name.filter(|_| only_and).and_then(|(pattern, caseless)| name_glob(pattern, caseless, root)) {
        Some(pattern) => below(&format!("/{pattern}")),
        None => below(""),
    })
}

/// A `-name` (or, `caseless`, `-iname`) pattern as a glob of the last component, when the start
/// point does not pass it (the narrowed glob would leave the start point out).
fn name_glob(pattern: &str, caseless: bool, root: &str) -> Option<String> {
    if pattern.is_empty() || pattern.contains(['/', '{', '}']) {
        return None;
    }
    let matcher = GlobBuilder::new(pattern)
        .literal_separator(true)
        .backslash_escape(true)
        .case_insensitive(caseless)
        .build()
        .ok()?
        .compile_matcher();
    if matcher.is_match(basename(root)) {
        return None;
    }
    // A letter of a caseless test is either case: a class, which the overlap reads as any character.
    Some(if caseless {
        pattern
            .chars()
            .map(|c| {
                if c.is_ascii_alphabetic() {
                    format!("[{}{}]", c.to_ascii_lowercase(), c.to_ascii_uppercase())
                } else {
                    c.to_string()
                }
            })
            .collect()
    } else {
        pattern.to_owned()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The words of a test line: split at spaces, quotes and `\` dropped, a word with `$` unknown.
    fn words(line: &str) -> Vec<Word> {
        line.split(' ')
            .map(|t| {
                let text = t.trim_matches(['\'', '"']).trim_start_matches('\\');
                Word { known: !text.contains('$'), ..Word::literal(text) }
            })
            .collect()
    }

    fn found(line: &str) -> Option<String> {
        let words = words(line);
        let start = expression_start(&words);
        let action = words.iter().position(|w| w.text.starts_with("-exec") || w.text.starts_with("-ok"))?;
        found_paths(&words, start, action)
    }

    #[test]
    fn the_paths_find_lists_are_below_its_start_point_narrowed_by_a_name_test_the_expression_applies() {
        #[rustfmt::skip]
        let table: &[(&str, Option<&str>)] = &[
            ("find . -name '*.rs' -exec wc -l {} +", Some("./**/*.rs")),
            ("find -name '*.rs' -exec wc -l {} +", Some("./**/*.rs")),
            ("find src/ -type f -name '*.md' -exec cat {} \\;", Some("src/**/*.md")),
            ("find / -name '*.conf' -exec cat {} \\;", Some("/**/*.conf")),
            ("find -P . -iname 'ab*' -exec cat {} \\;", Some("./**/[aA][bB]*")),
            ("find '[x]' -name '*.md' -exec cat {} \\;", Some("[[]x[]]/**/*.md")),
            // Which paths reach the action is not the -name test's alone: all below the start point.
            ("find . -exec cat {} \\; -name '*.rs'", Some("./**")),
            ("find . -name '*.rs' -o -name '*.md' -exec cat {} \\;", Some("./**")),
            ("find . ! -name '*.rs' -exec cat {} \\;", Some("./**")),
            ("find . \\( -name '*.rs' \\) -exec cat {} \\;", Some("./**")),
            ("find . -type f -exec cat {} +", Some("./**")),
            ("find / -exec rm -r {} +", Some("/**")),
            // The start point itself passes the test: it is listed too.
            ("find x.rs -name '*.rs' -exec cat {} +", Some("x.rs/**")),
            ("find . -name '.*' -exec cat {} +", Some("./**")),
            // A pattern find never matches as written, or one the overlap would read otherwise.
            ("find . -name 'a/b' -exec cat {} +", Some("./**")),
            ("find . -name '{a,b}' -exec cat {} +", Some("./**")),
            // An earlier action's words are its command's, not find's.
            ("find . -name '*.rs' -exec grep -o x {} \\; -exec cat {} \\;", Some("./**/*.rs")),
            // A word of unknown value may be a start point or `-files0-from`.
            ("find . -name \"$p\" -exec cat {} +", None),
            ("find . $more -name '*.rs' -exec cat {} +", None),
            ("find . -name '*.rs' $more -exec cat {} +", None),
            // Where find looks is not known, or symbolic links are followed.
            ("find $dir -name '*.rs' -exec cat {} +", None),
            ("find a b -name '*.rs' -exec cat {} +", None),
            ("find -L . -name '*.rs' -exec cat {} +", None),
            ("find . -follow -name '*.rs' -exec cat {} +", None),
            ("find -files0-from list -name '*.rs' -exec cat {} +", None),
            ("find ~ -name '*.rs' -exec cat {} +", None),
        ];
        for (line, want) in table {
            assert_eq!(found(line).as_deref(), *want, "{line}");
        }
    }

    #[test]
    fn find_print0_lists_a_glob_only_when_it_prints_nothing_else() {
        let listing = |line: &str| null_listing(&words(line));
        #[rustfmt::skip]
        let table: &[(&str, Option<&str>)] = &[
            ("find . -name '*.rs' -print0", Some("./**/*.rs")),
            ("find src -type f -name '*.md' -print0", Some("src/**/*.md")),
            ("find . -print0 -name '*.rs'", Some("./**")),
            ("find . -name '*.rs' -print0 -o -print0", None),
            ("find . -name '*.rs' -print0 -print", None),
            ("find . -name '*.rs' -print0 -exec cat {} +", None),
            ("find . -name '*.rs' -print", None),
            ("find . -type f -print0", Some("./**")),
            ("sudo find . -name '*.rs' -print0", None),
        ];
        for (line, want) in table {
            assert_eq!(listing(line).as_deref(), *want, "{line}");
        }
    }
}
