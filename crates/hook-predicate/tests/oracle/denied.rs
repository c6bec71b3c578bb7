//! The oracle's own reading of a rule, independent of the analyser: did a stub receive the denied
//! argv, or did the traced run open the protected file? Deliberately a little over-inclusive.

use std::path::{Component, Path, PathBuf};

use regex::Regex;

/// A rule as the oracle reads it.
#[derive(Debug)]
pub(crate) enum Rule {
    /// `Bash(program words…)`: with `:*` or ` *` after the words a prefix, without them `exact`.
    Words { program: String, words: Vec<String>, exact: bool },
    /// `Bash(command=regex)`: the regex is searched in the argv joined by spaces.
    Regex(Regex),
    /// `Read(./path)`: the traced run opened the path for reading.
    Read(String),
    /// `Edit(./path)`: the traced run opened the path for writing, created, renamed onto or
    /// removed it.
    Edit(String),
}

impl Rule {
    /// The oracle's reading of `pattern`, or `None` for a rule it has no opinion on (a composite, a
    /// field test on another field, `Bash(*)`).
    pub(crate) fn read(pattern: &str) -> Option<Rule> {
        let (tool, body) = pattern.strip_suffix(')')?.split_once('(')?;
        match tool {
            "Read" => Some(Rule::Read(body.strip_prefix("./")?.to_owned())),
            "Edit" => Some(Rule::Edit(body.strip_prefix("./")?.to_owned())),
            "Bash" => {
                if let Some(regex) = body.strip_prefix("command=") {
                    return Regex::new(regex).ok().map(Rule::Regex);
                }
                if body.split_whitespace().next()?.contains('=') {
                    return None;
                }
                let prefix = body.strip_suffix(":*").or_else(|| body.strip_suffix(" *"));
                let mut words = shell_words(prefix.unwrap_or(body)).into_iter();
                let program = words.next().filter(|p| p != "*")?;
                Some(Rule::Words { program, words: words.collect(), exact: prefix.is_none() })
            }
            _ => None,
        }
    }

    /// Whether the rule needs the run traced (a path rule).
    pub(crate) fn traced(&self) -> bool {
        matches!(self, Rule::Read(_) | Rule::Edit(_))
    }

    /// Whether one stub call (program name, then arguments) is the denied argv.
    pub(crate) fn denies_call(&self, call: &[Vec<u8>]) -> bool {
        let words: Vec<String> = call.iter().map(|w| String::from_utf8_lossy(w).into_owned()).collect();
        let Some((name, args)) = words.split_first() else { return false };
        let (name, args) = match name.strip_prefix("git-") {
            Some(sub) => ("git", std::iter::once(sub.to_owned()).chain(args.iter().cloned()).collect()),
            None => (name.as_str(), args.to_vec()),
        };
        match self {
            Rule::Words { program, words, exact } => program == name && words_match(name, words, &args, *exact),
            Rule::Regex(regex) => regex.is_match(&format!("{name} {}", args.join(" "))),
            Rule::Read(_) | Rule::Edit(_) => false,
        }
    }

    /// Whether the strace log of a run started in `cwd` shows the protected file opened as the rule
    /// denies; `project` is where the rule's `./` is.
    pub(crate) fn denies_trace(&self, trace: &str, project: &Path, cwd: &Path) -> bool {
        let (path, write) = match self {
            Rule::Read(path) => (path, false),
            Rule::Edit(path) => (path, true),
            _ => return false,
        };
        let protected = canonical(&project.join(path));
        trace
            .lines()
            .filter_map(|line| Access::read(line, cwd))
            .any(|access| canonical(&access.path) == protected && if write { access.write } else { access.read })
    }
}

/// One successful file access in an strace line.
#[derive(Debug)]
struct Access {
    path: PathBuf,
    read: bool,
    write: bool,
}

impl Access {
    /// `call(args) = result` (one process's log, so no pid); only successful calls count.
    fn read(line: &str, cwd: &Path) -> Option<Access> {
        let (call, rest) = line.split_once('(')?;
        let (args, result) = rest.rsplit_once(')')?;
        let result = result.trim_start().strip_prefix("= ")?;
        if result.starts_with('-') {
            return None;
        }
        let strings = quoted(args);
        let dirs = angled(args);
        let base = dirs.first().map_or(cwd.to_path_buf(), PathBuf::from);
        match call {
            "open" | "openat" | "openat2" | "creat" => {
                let path = PathBuf::from(angled(result).first()?);
                let write =
                    call == "creat" || ["O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC"].iter().any(|f| args.contains(f));
                let read = call != "creat" && !args.contains("O_WRONLY");
                Some(Access { path, read, write })
            }
            "rename" | "renameat" | "renameat2" => {
                let target = strings.get(1)?;
                let base = dirs.get(1).map_or(base, PathBuf::from);
                Some(Access { path: base.join(target), read: false, write: true })
            }
            "unlink" | "unlinkat" | "truncate" => {
                Some(Access { path: base.join(strings.first()?), read: false, write: true })
            }
            _ => None,
        }
    }
}

/// The `"…"` strings of strace's argument text (escapes kept as written).
fn quoted(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = text.chars();
    while let Some(ch) = chars.next() {
        if ch == '"' {
            let mut s = String::new();
            while let Some(ch) = chars.next() {
                match ch {
                    '\\' => s.extend(chars.next()),
                    '"' => break,
                    _ => s.push(ch),
                }
            }
            out.push(s);
        }
    }
    out
}

/// The `<…>` paths strace's `-y` adds to file descriptors (`AT_FDCWD</dir>`, `= 3</file>`).
fn angled(text: &str) -> Vec<String> {
    text.split('<').skip(1).filter_map(|s| s.split_once('>').map(|(p, _)| p.to_owned())).collect()
}

/// The path with symlinks resolved where it exists, `.` and `..` folded where it does not.
fn canonical(path: &Path) -> PathBuf {
    if let Ok(real) = path.canonicalize() {
        return real;
    }
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// Shell-like words: quotes removed, whitespace splits.
fn shell_words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut quote = None;
    for ch in text.chars() {
        match (quote, ch) {
            (None, '"' | '\'') => {
                quote = Some(ch);
                word.get_or_insert_with(String::new);
            }
            (Some(q), _) if q == ch => quote = None,
            (None, c) if c.is_whitespace() => words.extend(word.take()),
            (_, c) => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    words
}

/// Programs whose global options come before the subcommand, and those options that take the
/// next word as their value (`git -C dir`, `kubectl -n ns`, …).
const GLOBAL_VALUED: &[(&str, &[&str])] = &[
    ("git", &["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env", "--super-prefix"]),
    (
        "docker",
        &["--context", "-c", "-H", "--host", "--log-level", "-l", "--config", "--tlscacert", "--tlscert", "--tlskey"],
    ),
    ("podman", &["--root", "--runroot", "--connection", "-c", "--url", "--log-level", "--storage-driver"]),
    (
        "kubectl",
        &["-n", "--namespace", "--context", "--kubeconfig", "-v", "-s", "--server", "--cluster", "--user", "--token"],
    ),
    ("npm", &["--prefix", "-w", "--workspace", "--tag", "--registry", "--userconfig", "-C"]),
    ("pnpm", &["-C", "--dir", "--filter", "-F", "-w"]),
    ("yarn", &["--cwd"]),
    ("cargo", &["-Z", "-C", "--config", "--color"]),
    ("gh", &["-R", "--repo"]),
    ("terraform", &[]),
];

/// Long options and the short option each is, per program (the prefix of one of them is it too,
/// as GNU getopt and git read an abbreviation).
const LONG: &[(&str, &[(&str, &str)])] = &[
    ("rm", &[("recursive", "-r"), ("force", "-f"), ("dir", "-d"), ("verbose", "-v"), ("interactive", "-i")]),
    (
        "git",
        &[
            ("force", "-f"),
            ("verbose", "-v"),
            ("quiet", "-q"),
            ("dry-run", "-n"),
            ("set-upstream", "-u"),
            ("all", "-a"),
        ],
    ),
    ("chmod", &[("recursive", "-R"), ("verbose", "-v"), ("changes", "-c"), ("silent", "-f"), ("quiet", "-f")]),
];

/// Short options that are the same option (`rm -R` is `rm -r`).
const SAME: &[(&str, &str, &str)] = &[("rm", "-R", "-r")];

/// The option a word spells, as a set of canonical short or long forms.
fn options(program: &str, word: &str) -> Vec<String> {
    let same =
        |opt: String| SAME.iter().find(|(p, a, _)| *p == program && *a == opt).map_or(opt, |(_, _, b)| (*b).to_owned());
    if let Some(long) = word.strip_prefix("--") {
        let long = long.split_once('=').map_or(long, |(name, _)| name);
        let table = LONG.iter().find(|(p, _)| *p == program).map_or(&[][..], |(_, t)| *t);
        let exact = table.iter().find(|(name, _)| *name == long);
        let prefixed: Vec<_> = table.iter().filter(|(name, _)| name.starts_with(long)).collect();
        return match (exact, prefixed.as_slice()) {
            (Some((_, short)), _) | (None, [(_, short)]) => vec![same((*short).to_owned())],
            _ => vec![format!("--{long}")],
        };
    }
    word.chars().skip(1).map(|ch| same(format!("-{ch}"))).collect()
}

fn is_option(word: &str) -> bool {
    word.len() > 1 && word.starts_with('-')
}

/// Splits arguments into the option set and the positional words (everything after `--` is
/// positional; GNU programs permute, so options anywhere count).
fn split(program: &str, args: &[String]) -> (Vec<String>, Vec<String>) {
    let mut opts = Vec::new();
    let mut positional = Vec::new();
    let mut rest = args.iter();
    while let Some(word) = rest.next() {
        if word == "--" {
            positional.extend(rest.by_ref().cloned());
        } else if is_option(word) {
            opts.extend(options(program, word));
        } else {
            positional.push(word.clone());
        }
    }
    (opts, positional)
}

/// Whether the rule's words are the stub's leading non-option words and its options a subset of the
/// stub's (`exact`: the words are all of them and the options the same set).
fn words_match(program: &str, rule: &[String], args: &[String], exact: bool) -> bool {
    let mut args = args;
    if let Some((_, valued)) = GLOBAL_VALUED.iter().find(|(p, _)| *p == program) {
        while let Some((first, rest)) =
            args.split_first().filter(|(first, _)| is_option(first) || first.starts_with('+'))
        {
            args = if valued.contains(&first.as_str()) { rest.get(1..).unwrap_or(&[]) } else { rest };
        }
    }
    let (want_opts, want_words) = split(program, rule);
    let (have_opts, have_words) = split(program, args);
    let subset = |a: &[String], b: &[String]| a.iter().all(|o| b.contains(o));
    // A rule's `--` is one of its words: the command must write it too (`git checkout -- :*`).
    let dashdash = |words: &[String]| words.iter().any(|w| w == "--");
    subset(&want_opts, &have_opts)
        && (!dashdash(rule) || dashdash(args))
        && (!exact || subset(&have_opts, &want_opts))
        && glob(&want_words, &have_words, exact)
}

/// `want` (where `*` is any run of words) matches the start of `have`, or all of it when `whole`.
fn glob(want: &[String], have: &[String], whole: bool) -> bool {
    match want.split_first() {
        None => !whole || have.is_empty(),
        Some((star, rest)) if star == "*" => (0..=have.len()).any(|skip| glob(rest, &have[skip..], whole)),
        Some((word, rest)) => have.split_first().is_some_and(|(first, tail)| first == word && glob(rest, tail, whole)),
    }
}
