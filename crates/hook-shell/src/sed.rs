//! sed's scripts: where a command line puts them, and whether one only reads (prints, deletes,
//! substitutes) or may write a file or run a command (`w`, `e`, `s///e`, `r`, …). Read by the
//! read-only column and by the walk, for which a sed that runs nothing is inert.

use crate::word::Word;

/// Why sed's scripts are not shown to only read.
#[derive(Debug)]
pub(crate) enum Doubt {
    /// A script this reading does not find or cannot see (`-f FILE`, `-ne …`, a word of unknown value).
    NotRead(String),
    /// A script with a command that may write a file or run a command.
    MayWriteOrRun(String),
}

/// The script files of `sed ARGS` (`-f FILE`, `-nfFILE`, `--file=FILE`, `--file FILE`): each
/// file's name and whether it is known.
pub(crate) fn script_files(args: &[Word]) -> Vec<(&str, bool)> {
    let mut files = Vec::new();
    let mut i = 0;
    while let Some(w) = args.get(i) {
        let t = w.text.as_str();
        i += 1;
        if t == "--" {
            break;
        }
        let value = if let Some(v) = t.strip_prefix("--file=") {
            Some(v)
        } else if t.starts_with("--f") && t != "--follow-symlinks" || t == "-f" {
            None
        } else if t.starts_with('-') && !t.starts_with("--") {
            match t.find('f') {
                Some(at) if at + 1 < t.len() => Some(&t[at + 1..]),
                Some(_) => None,
                None => continue,
            }
        } else {
            continue;
        };
        match value {
            Some(v) => files.push((v, w.known)),
            None => {
                let next = args.get(i);
                files.push(next.map_or(("", false), |n| (n.text.as_str(), n.known)));
                i += 1;
            }
        }
    }
    files
}

/// Whether every script of `sed ARGS` is found and only reads. `-i` is not judged here: it writes
/// the input files, and runs nothing.
pub(crate) fn scripts_only_read(args: &[Word]) -> Result<(), Doubt> {
    // `-f FILE` and `--file`: a script in a file; `-ne SCRIPT`, `-es…` and `--exp=…`: a script this
    // reading would not find.
    let hidden_script = |t: &str| {
        let cluster = t.starts_with('-') && !t.starts_with("--") && t.len() > 1;
        (cluster && t.contains('f'))
            || (cluster && t.len() > 2 && t.contains('e'))
            || (t.starts_with("--e") && t != "--expression" && !t.starts_with("--expression="))
            || (t.starts_with("--f") && t != "--follow-symlinks")
    };
    if let Some(w) = args.iter().find(|w| !w.known || hidden_script(&w.text)) {
        return Err(Doubt::NotRead(w.text.clone()));
    }
    let mut scripts = Vec::new();
    let mut i = 0;
    while let Some(w) = args.get(i) {
        let t = w.text.as_str();
        match t {
            "-e" | "--expression" => {
                scripts.push(args.get(i + 1));
                i += 2;
                continue;
            }
            "-l" | "--line-length" => i += 1,
            _ if t.starts_with("--expression=") => scripts.push(Some(w)),
            _ => {}
        }
        i += 1;
    }
    if scripts.is_empty() {
        // The first operand is the script.
        let mut j = 0;
        while let Some(w) = args.get(j) {
            if w.text == "-l" || w.text == "--line-length" {
                j += 2;
                continue;
            }
            if !w.text.starts_with('-') || w.text == "-" {
                scripts.push(Some(w));
                break;
            }
            j += 1;
        }
    }
    if scripts.is_empty() {
        return Err(Doubt::NotRead(String::new()));
    }
    for script in scripts {
        let Some(script) = script.filter(|w| w.known) else { return Err(Doubt::NotRead(String::new())) };
        let text = script.text.strip_prefix("--expression=").unwrap_or(&script.text);
        if !script_reads(text) {
            return Err(Doubt::MayWriteOrRun(text.to_owned()));
        }
    }
    Ok(())
}

/// Whether a sed script only prints, deletes, substitutes, quits or moves text between its
/// buffers: addresses (`3`, `$`, `/re/`, `3,5`, `!`), commands `p P d D q Q = l n N g G h H x z`,
/// `s` with flags `g p i I m M` and digits, `y`, `{ }`; anything else refuses.
pub(crate) fn script_reads(script: &str) -> bool {
    let b = script.as_bytes();
    let mut i = 0;
    let skip_ws = |i: &mut usize| {
        while *i < b.len() && matches!(b[*i], b' ' | b'\t' | b'\n' | b';') {
            *i += 1;
        }
    };
    // Past a delimited part starting at `i` (after its delimiter), escapes honoured.
    let delimited = |i: &mut usize, d: u8| -> bool {
        while *i < b.len() {
            if b[*i] == b'\\' {
                *i += 2;
                continue;
            }
            if b[*i] == d {
                *i += 1;
                return true;
            }
            if b[*i] == b'\n' && d != b'\n' {
                return false;
            }
            *i += 1;
        }
        false
    };
    loop {
        skip_ws(&mut i);
        if i >= b.len() {
            return true;
        }
        // Up to two addresses.
        for k in 0..2 {
            if k == 1 {
                if b.get(i) != Some(&b',') {
                    break;
                }
                i += 1;
            }
            match b.get(i) {
                Some(c) if c.is_ascii_digit() => {
                    while b.get(i).is_some_and(|c| c.is_ascii_digit() || *c == b'~') {
                        i += 1;
                    }
                }
                Some(b'$') => i += 1,
                Some(b'+') if k == 1 => {
                    i += 1;
                    while b.get(i).is_some_and(u8::is_ascii_digit) {
                        i += 1;
                    }
                }
                Some(b'/') => {
                    i += 1;
                    if !delimited(&mut i, b'/') {
                        return false;
                    }
                    while b.get(i).is_some_and(|c| matches!(c, b'I' | b'M')) {
                        i += 1;
                    }
                }
                _ => {}
            }
        }
        while b.get(i).is_some_and(|c| matches!(c, b' ' | b'!')) {
            i += 1;
        }
        let Some(&c) = b.get(i) else { return false };
        i += 1;
        match c {
            b'{' => continue,
            b'p' | b'P' | b'd' | b'D' | b'=' | b'l' | b'n' | b'N' | b'g' | b'G' | b'h' | b'H' | b'x' | b'z' | b'}' => {}
            b'q' | b'Q' => {
                while b.get(i).is_some_and(u8::is_ascii_digit) {
                    i += 1;
                }
            }
            b's' | b'y' => {
                let Some(&d) = b.get(i) else { return false };
                if d == b'\\' || d == b'\n' {
                    return false;
                }
                i += 1;
                if !delimited(&mut i, d) || !delimited(&mut i, d) {
                    return false;
                }
                if c == b's' {
                    while b
                        .get(i)
                        .is_some_and(|f| matches!(f, b'g' | b'p' | b'i' | b'I' | b'm' | b'M') || f.is_ascii_digit())
                    {
                        i += 1;
                    }
                }
            }
            _ => return false,
        }
        // A command ends at `;`, a newline, `}` or the end.
        while b.get(i).is_some_and(|c| matches!(c, b' ' | b'\t')) {
            i += 1;
        }
        if !matches!(b.get(i), None | Some(b';' | b'\n' | b'}')) {
            return false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sed_scripts_that_only_print_substitute_or_delete_read() {
        for script in ["p", "1,5p", "$p", "/x/d", "s/a/b/g", "s|a|b|2p", "y/ab/cd/", "/a/,/b/{p;d}", "5q", "1!G;h;$!d"]
        {
            assert!(script_reads(script), "{script}");
        }
        for script in ["w f", "s/a/b/w f", "s/a/b/e", "e ls", "r f", "R f", "1e", "s/a/b", "W f", "v", ":a;ba"] {
            assert!(!script_reads(script), "{script}");
        }
    }

    #[test]
    fn a_script_in_a_file_or_hidden_in_a_cluster_is_not_read() {
        use crate::word::Word;
        let args = |line: &str| line.split(' ').map(Word::literal).collect::<Vec<_>>();
        for line in ["-f s.sed in", "-nf s.sed in", "--file=s.sed in", "--fi s.sed in", "-ne p in", "--exp=p in"] {
            assert!(matches!(scripts_only_read(&args(line)), Err(Doubt::NotRead(_))), "{line}");
        }
        for line in ["s/a/b/ in", "-n -e p in", "-i s/a/b/ in", "--follow-symlinks -e p in", "-l 5 p in"] {
            assert!(scripts_only_read(&args(line)).is_ok(), "{line}");
        }
        assert!(matches!(scripts_only_read(&args("1e in")), Err(Doubt::MayWriteOrRun(_))));
    }
}
