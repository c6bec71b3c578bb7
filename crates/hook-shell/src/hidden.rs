//! Command lines hidden in arguments or fed on standard input (R-PRED-4c): `bash <<EOF`,
//! `sh <<< '…'`, `trap '…' EXIT`, `su -c`, `script -c`, `ssh host cmd`, `parallel`, process
//! substitution fed to a shell or `source`, and the code of `python -c`, `perl -e`, `node -e`, ….
//! What is itself a command line is analysed recursively; what cannot be seen is uncertain;
//! interpreter code is kept in [`Analysis::code`](super::Analysis) for the rules to look into.

use crate::lex::Stdin;
use crate::table::{MULTI_CALL, MULTI_CALL_SHELLS, SHELLS};
use crate::walk::{Walk, analyse_into};
use crate::word::{Word, basename};

/// `ssh` options that take a value (the rest of the word, or the next word).
const SSH_WITH_VALUE: &[u8] = b"BbcDEeFIiJLlmOoPpQRSWw";
/// `ssh` options that stand alone.
const SSH_FLAGS: &[u8] = b"46AaCfGgKkMNnqsTtVvXxYy";
/// `ssh -o` settings whose value is a command line run locally or remotely.
/// At most this many `:::` arguments are read one job at a time; more are one unknown word.
const MAX_PARALLEL_JOBS: usize = 16;

const SSH_COMMANDS: &[&str] = &["remotecommand", "proxycommand", "localcommand", "knownhostscommand"];

/// GNU parallel's options that take a value as the next word.
#[rustfmt::skip]
const PARALLEL_WITH_VALUE: &[&str] = &["-j", "--jobs", "-P", "--max-procs", "-S", "--sshlogin", "-d", "--delimiter",
    "-I", "--joblog", "--results", "--res", "-n", "--max-args", "-N", "-L", "--max-lines", "--delay", "--timeout",
    "--retries", "--tagstring", "--colsep", "-C", "--workdir", "--wd", "-E", "--eof", "--load", "--memfree",
    "--basefile", "--bf", "--return", "--env", "--tmpdir", "--halt", "--termseq", "--sshdelay"];
/// GNU parallel's options that stand alone.
#[rustfmt::skip]
const PARALLEL_FLAGS: &[&str] = &["-k", "--keep-order", "-v", "--verbose", "--dry-run", "--tag", "-q", "--quote",
    "--progress", "--bar", "--eta", "-u", "--ungroup", "--line-buffer", "--lb", "-0", "--null", "-X", "-m",
    "--xargs", "--group", "--no-notice", "--will-cite", "--halt-on-error", "--nonall", "--onall", "-r",
    "--no-run-if-empty", "--shuf", "--linebuffer", "--files", "--plain", "-t"];

/// An interpreter: the options whose value (or the rest of the word) is code (`python -c`, …), and
/// the options that, given alone, print something and exit before any code is read
/// (`python --version`: no standard input is read as a program; `ruby -v` quits when no program
/// is given).
struct Interpreter {
    name: &'static str,
    short_code: &'static [u8],
    long_code: &'static [&'static str],
    exits: &'static [&'static str],
}

#[rustfmt::skip]
const INTERPRETERS: &[Interpreter] = &[
    Interpreter { name: "python", short_code: b"c", long_code: &[], exits: &["-V", "-VV", "--version", "-h", "--help"] },
    Interpreter { name: "pypy", short_code: b"c", long_code: &[], exits: &["-V", "--version", "-h", "--help"] },
    Interpreter { name: "perl", short_code: b"eE", long_code: &[], exits: &["-v", "--version", "-h", "--help"] },
    Interpreter { name: "ruby", short_code: b"e", long_code: &[], exits: &["-v", "--version", "-h", "--help"] },
    Interpreter { name: "node", short_code: b"ep", long_code: &["--eval", "--print"], exits: &["-v", "--version", "-h", "--help"] },
    Interpreter { name: "nodejs", short_code: b"ep", long_code: &["--eval", "--print"], exits: &["-v", "--version", "-h", "--help"] },
    Interpreter { name: "bun", short_code: b"ep", long_code: &["--eval", "--print"], exits: &["-v", "--version", "-h", "--help"] },
    Interpreter { name: "deno", short_code: b"", long_code: &["eval"], exits: &["-V", "--version", "-h", "--help"] },
    Interpreter { name: "php", short_code: b"rBRFE", long_code: &[], exits: &["-v", "--version", "-h", "--help"] },
    Interpreter { name: "lua", short_code: b"e", long_code: &[], exits: &["-v"] },
    Interpreter { name: "luajit", short_code: b"e", long_code: &[], exits: &["-v"] },
    Interpreter { name: "osascript", short_code: b"e", long_code: &[], exits: &[] },
];

/// What a shell does with only one of these: print and exit, reading no command.
const SHELL_EXITS: &[&str] = &["--version", "--help"];

/// The interpreter `name` is (`python3.12` is python).
fn interpreter_named(name: &str) -> Option<&'static Interpreter> {
    INTERPRETERS
        .iter()
        .find(|i| name.strip_prefix(i.name).is_some_and(|v| v.bytes().all(|b| b.is_ascii_digit() || b == b'.')))
}

/// Whether the command is an interpreter or a shell given only an option that prints and exits
/// (`node -v`, `bash --version`): it reads and runs no program.
pub(crate) fn prints_and_exits(words: &[Word]) -> bool {
    let [program, only] = words else { return false };
    if !program.known || !only.known {
        return false;
    }
    let name = basename(&program.text);
    let exits = match interpreter_named(name) {
        Some(interpreter) => interpreter.exits,
        None if SHELLS.contains(&name) => SHELL_EXITS,
        None => return false,
    };
    exits.contains(&only.text.as_str())
}

/// A word whose value is a process substitution (`<(…)`): its text is built at run time.
fn is_process_substitution(w: &Word) -> bool {
    !w.known && (w.text.starts_with("<(") || w.text.starts_with(">("))
}

/// The value of an option `-x` (short) or `--long`: the next word, the rest of a short cluster
/// (`-qcCMD`), or `--long=value`. Short clusters are scanned for `short` anywhere (`-qc 'cmd'`).
enum Value<'w> {
    Word(Option<&'w Word>),
    Attached(&'w str),
}

fn option_value<'w>(words: &'w [Word], i: usize, short: u8, long: &[&str]) -> Option<Value<'w>> {
    let t = words[i].text.as_str();
    if let Some((_, value)) = t.split_once('=').filter(|(name, _)| long.contains(name)) {
        return Some(Value::Attached(value));
    }
    if long.contains(&t) {
        return Some(Value::Word(words.get(i + 1)));
    }
    let cluster = t.strip_prefix('-').filter(|c| !c.starts_with('-') && !c.is_empty())?;
    let at = cluster.bytes().position(|b| b == short)?;
    let rest = &cluster[at + 1..];
    Some(if rest.is_empty() { Value::Word(words.get(i + 1)) } else { Value::Attached(rest) })
}

impl Walk<'_> {
    /// A command line fed on standard input: analysed when its text is known, uncertain otherwise.
    pub(crate) fn stdin_code(&mut self, stdin: &Stdin) {
        match stdin {
            Stdin::Text(text) => analyse_into(text, self.depth + 1, self.out),
            Stdin::File => {}
            Stdin::Inherited | Stdin::Pipe | Stdin::Listing(_) | Stdin::Unknown | Stdin::Pending(_) => self.uncertain(),
        }
    }

    fn value_as_command(&mut self, value: Value<'_>) {
        match value {
            Value::Word(w) => self.recurse_into_word(w),
            Value::Attached(text) => analyse_into(text, self.depth + 1, self.out),
        }
    }

    /// `sh -c '…'` (any shell), `bash script`, `bash <<EOF`, `sh -s`, `bash <(…)`.
    pub(crate) fn shell(&mut self, words: &[Word], stdin: &Stdin) {
        let mut words = words;
        if basename(&words[0].text) == MULTI_CALL {
            // `busybox sh -c …`: the applet is the shell.
            match words.get(1) {
                Some(w) if MULTI_CALL_SHELLS.contains(&w.text.as_str()) => words = &words[1..],
                // `busybox touch x`: a multi-call binary runs its applet.
                Some(_) => {
                    self.emit_nested(words[1..].to_vec());
                    return;
                }
                None => return,
            }
        }
        if prints_and_exits(words) {
            return;
        }
        let (mut saw_c, mut saw_s, mut unknown) = (false, false, false);
        let mut i = 1;
        while let Some(w) = words.get(i) {
            let t = w.text.as_str();
            if !w.known {
                // An option of unknown value may be `-c`.
                (saw_c, unknown) = (true, true);
                i += 1;
            } else if matches!(t, "--rcfile" | "--init-file" | "--emulate") {
                i += 2;
            } else if t == "--" || t == "-" {
                i += 1;
                break;
            } else if t.starts_with("--") {
                i += 1;
            } else if t.len() > 1 && (t.starts_with('-') || t.starts_with('+')) {
                saw_c |= t.contains('c');
                saw_s |= t.contains('s');
                // `-o NAME`, `-O NAME` (also inside a cluster: `-eo pipefail`) take the next word.
                i += if t[1..].contains(['o', 'O']) { 2 } else { 1 };
            } else {
                break;
            }
        }
        match words.get(i) {
            Some(_) if saw_c => {
                // The first operand is the command line; the rest are its `$0`, `$1`, …, which it
                // may run (`bash -c '"$@"' _ touch x`): they are tried as a command too.
                self.recurse_into_word(words.get(i));
                if words.len() > i + 1 {
                    self.analyse_joined(&words[i + 1..]);
                }
            }
            Some(w) if !saw_s => self.script(w, stdin),
            // `bash -c` and no command line: a usage error, nothing runs.
            None if saw_c && !unknown => {}
            _ => self.stdin_code(stdin),
        }
    }

    /// A shell of another syntax: each operand and option value may be a command line; an encoded
    /// command cannot be read; without operands it reads standard input.
    pub(crate) fn other_shell(&mut self, words: &[Word], stdin: &Stdin) {
        let mut operands = 0;
        for w in &words[1..] {
            let t = w.text.to_ascii_lowercase();
            if t.starts_with("-e") && "-encodedcommand".starts_with(t.split(['=', ':']).next().unwrap_or_default()) {
                self.uncertain();
            }
            let value = t.find(['=', ':']).filter(|_| t.starts_with('-')).map(|k| &w.text[k + 1..]);
            match value {
                Some(value) if w.known => analyse_into(value, self.depth + 1, self.out),
                _ if t.starts_with('-') || t.starts_with('+') => {}
                _ => {
                    operands += 1;
                    self.recurse_into_word(Some(w));
                }
            }
        }
        if operands == 0 {
            self.stdin_code(stdin);
        }
    }

    /// The script a shell or `source` runs: a file is not part of the command, but a process
    /// substitution is built at run time and `/dev/stdin` is standard input.
    pub(crate) fn script(&mut self, script: &Word, stdin: &Stdin) {
        match script.text.as_str() {
            _ if is_process_substitution(script) => self.uncertain(),
            "-" | "/dev/stdin" | "/proc/self/fd/0" | "/dev/fd/0" => self.stdin_code(stdin),
            t if t.starts_with("/dev/fd/") || t.starts_with("/proc/") => self.uncertain(),
            _ => {}
        }
    }

    /// `trap 'cmd' SIG…`: the action is a command line run later.
    pub(crate) fn trap(&mut self, words: &[Word]) {
        let mut i = 1;
        if words.get(i).is_some_and(|w| w.text == "--") {
            i += 1;
        }
        match words.get(i) {
            Some(w) if w.known && matches!(w.text.as_str(), "-l" | "-p" | "-" | "") => {}
            // `trap "rm -f x.$$" EXIT`: the handler text holds the shell's own numbers (`$$`, `$?`,
            // `$#`, `$!`: digits, or nothing), which cannot add shell syntax to it. Read as written,
            // each is an expansion in the handler, whose value the analysis does not assume: every
            // text the handler can have is read.
            Some(w) if !w.known && numbers_only(&w.text) => analyse_into(&w.text, self.depth + 1, self.out),
            Some(w) => self.recurse_into_word(Some(w)),
            None => {}
        }
    }

    /// `su -c 'cmd' user`, `runuser -c`, `script -qc 'cmd' log`: the `-c` value is a command line;
    /// without it a shell reads standard input.
    pub(crate) fn command_option(&mut self, words: &[Word], long: &[&str], stdin: &Stdin) {
        for i in 1..words.len() {
            if words[i].text == "--" {
                break;
            }
            if let Some(value) = option_value(words, i, b'c', long) {
                self.value_as_command(value);
                return;
            }
        }
        self.stdin_code(stdin);
    }

    /// `ssh [options] host [command…]`: the command is a command line run by the remote shell; so
    /// are `-o RemoteCommand=…` and the local `-o ProxyCommand=…`. Without a command, the remote shell
    /// reads standard input.
    pub(crate) fn ssh(&mut self, words: &[Word], stdin: &Stdin) {
        let (mut i, mut host, mut no_command) = (1, None, false);
        while let Some(w) = words.get(i) {
            let t = w.text.as_str();
            if t == "--" {
                i += 1;
                break;
            }
            let Some(cluster) = t.strip_prefix('-').filter(|c| !c.is_empty()) else {
                if host.is_some() {
                    break;
                }
                host = Some(i);
                i += 1;
                continue;
            };
            i += 1;
            for (at, b) in cluster.bytes().enumerate() {
                if SSH_WITH_VALUE.contains(&b) {
                    let attached = &cluster[at + 1..];
                    let value = if attached.is_empty() {
                        i += 1;
                        words.get(i - 1).map(|v| (v.text.as_str(), v.known))
                    } else {
                        Some((attached, w.known))
                    };
                    no_command |= matches!(b, b'O' | b'W');
                    if b == b'o' {
                        self.ssh_setting(value);
                    }
                    break;
                }
                if !SSH_FLAGS.contains(&b) {
                    self.uncertain();
                    return;
                }
                no_command |= b == b'N';
            }
        }
        if host.is_none() {
            host = (i < words.len()).then_some(i);
            i += 1;
        }
        let command = words.get(i..).unwrap_or_default();
        if !command.is_empty() {
            self.analyse_joined(command);
        } else if host.is_some() && !no_command {
            self.stdin_code(stdin);
        }
    }

    fn ssh_setting(&mut self, setting: Option<(&str, bool)>) {
        let Some((text, known)) = setting else { return };
        let (key, value) = text.split_once(['=', ' ']).unwrap_or((text, ""));
        if SSH_COMMANDS.contains(&key.to_ascii_lowercase().as_str()) {
            if known {
                analyse_into(value, self.depth + 1, self.out);
            } else {
                self.uncertain();
            }
        }
    }

    /// GNU `parallel [options] command ::: args`: the command (a shell command line, its `{}`
    /// replacement strings unknown) gets arguments appended; without one, the arguments after
    /// `:::` (or the lines of standard input) are the command lines.
    pub(crate) fn parallel(&mut self, words: &[Word], stdin: &Stdin) {
        let mut i = 1;
        let mut replace = None;
        while let Some(w) = words.get(i) {
            let t = w.text.as_str();
            if !t.starts_with('-') || t.starts_with(":::") {
                break;
            }
            let option = t.split_once('=').map_or(t, |(o, _)| o);
            if PARALLEL_WITH_VALUE.contains(&t) {
                if t == "-I" {
                    replace = words.get(i + 1).map(|r| r.text.clone());
                }
                i += 2;
            } else if PARALLEL_FLAGS.contains(&t) || PARALLEL_WITH_VALUE.contains(&option) {
                i += 1;
            } else {
                self.uncertain();
                return;
            }
        }
        let one_per_job = one_argument_per_job(&words[1..i]);
        let rest = words.get(i..).unwrap_or_default();
        let end = rest.iter().position(|w| w.text.starts_with(":::")).unwrap_or(rest.len());
        let (template, sources) = rest.split_at(end);
        if template.is_empty() {
            match sources.first().map(|w| w.text.as_str()) {
                Some(":::") => sources[1..].iter().take_while(|w| !w.text.starts_with(":::")).for_each(|w| {
                    self.recurse_into_word(Some(w));
                }),
                Some(_) => self.uncertain(),
                None => self.stdin_code(stdin),
            }
            return;
        }
        if template.iter().any(|w| !w.known) {
            self.uncertain();
            return;
        }
        let mut text = template.iter().map(|w| w.text.as_str()).collect::<Vec<_>>().join(" ");
        let written_p = text.contains("$P");
        if let Some(r) = replace.filter(|r| !r.is_empty()) {
            text = text.replace(&r, "$P");
        }
        let text = replace_placeholders(&text);
        // `::: a b`, each argument known: the command line of each job, the argument quoted in
        // (in place of the replacement string, or appended).
        let known = match sources {
            [first, args @ ..] if first.text == ":::" && one_per_job && !written_p => Some(args),
            _ => None,
        }
        .filter(|args| (1..=MAX_PARALLEL_JOBS).contains(&args.len()))
        .filter(|args| args.iter().all(|w| w.known && !w.text.starts_with(":::")));
        if let Some(args) = known {
            for arg in args {
                let quoted = format!("'{}'", arg.text.replace('\'', "'\\''"));
                let line = if text.contains("$P") { text.replace("$P", &quoted) } else { format!("{text} {quoted}") };
                analyse_into(&line, self.depth + 1, self.out);
            }
            return;
        }
        // Without a replacement string in it, the command gets the arguments appended.
        let text = if text.contains("$P") { text } else { format!("{text} $P") };
        let before = self.out.views.len();
        analyse_into(&text, self.depth + 1, self.out);
        for view in &mut self.out.views[before..] {
            view.more_args = true;
        }
    }

    /// `python -c`, `perl -e`, `node -e`, …: the code is kept for the rules to look into (a rule
    /// about another program matches when the code names it); code read from standard input likewise.
    pub(crate) fn interpreter(&mut self, words: &[Word], stdin: &Stdin) -> bool {
        let name = basename(&words[0].text);
        let Some(&Interpreter { short_code: shorts, long_code: longs, .. }) = interpreter_named(name) else {
            return false;
        };
        if prints_and_exits(words) {
            return true;
        }
        let mut saw_code = false;
        let mut i = 1;
        while let Some(w) = words.get(i) {
            let t = w.text.as_str();
            if longs.contains(&t) || t.split_once('=').is_some_and(|(o, _)| longs.contains(&o)) {
                if let Some(value) = option_value(words, i, 0, longs) {
                    i += if matches!(value, Value::Word(_)) { 2 } else { 1 };
                    self.keep_code(value);
                    saw_code = true;
                } else {
                    i += 1;
                }
                continue;
            }
            if t == "--" || !t.starts_with('-') || t == "-" {
                break;
            }
            if let Some(value) = shorts.iter().find_map(|&s| option_value(words, i, s, &[])) {
                let takes_next = matches!(value, Value::Word(_));
                self.keep_code(value);
                saw_code = true;
                i += if takes_next { 2 } else { 1 };
                continue;
            }
            i += 1;
        }
        if !saw_code {
            match words.get(i) {
                Some(w) if w.text == "-" => self.interpreter_stdin(stdin),
                Some(w) => {
                    if is_process_substitution(w) {
                        self.uncertain();
                    }
                }
                None => self.interpreter_stdin(stdin),
            }
        }
        true
    }

    fn interpreter_stdin(&mut self, stdin: &Stdin) {
        match stdin {
            Stdin::Text(text) => self.out.code.push(text.clone()),
            Stdin::File => {}
            Stdin::Inherited | Stdin::Pipe | Stdin::Listing(_) | Stdin::Unknown | Stdin::Pending(_) => self.uncertain(),
        }
    }

    fn keep_code(&mut self, value: Value<'_>) {
        match value {
            Value::Word(Some(w)) if w.known => self.out.code.push(w.text.clone()),
            Value::Word(Some(_)) => self.uncertain(),
            Value::Word(None) => {}
            Value::Attached(text) => self.out.code.push(text.to_owned()),
        }
    }
}

/// GNU parallel's replacement strings (`{}`, `{.}`, `{/}`, `{#}`, `{1}`, …) as an unknown word.
/// Whether GNU parallel's `options` leave its command line as written with one argument per job:
/// only the number of jobs and the output order are set (`-N2`, `-X`, `-m` put several arguments
/// in one line, `-q` changes the quoting, `-S` runs elsewhere).
fn one_argument_per_job(options: &[Word]) -> bool {
    let mut k = 0;
    while let Some(w) = options.get(k) {
        match w.text.as_str() {
            "-j" | "--jobs" => k += 2,
            "-k" | "--keep-order" | "--will-cite" => k += 1,
            t if t.starts_with("--jobs=")
                || t.strip_prefix("-j").is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit())) =>
            {
                k += 1;
            }
            _ => return false,
        }
    }
    true
}

fn replace_placeholders(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match after.find('}') {
            Some(close) if after[..close].bytes().all(|b| b.is_ascii_digit() || b"./#%^+=-".contains(&b)) => {
                out.push_str("$P");
                rest = &after[close + 1..];
            }
            _ => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Whether every expansion a word's text can hold is one of the shell's numbers (`$$`, `$?`, `$#`,
/// `$!`): every `$` starts one (a literal `\$` cannot be told from an expansion once quotes are
/// removed, so it fails), and there is no backtick.
fn numbers_only(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'`' => return false,
            b'$' if matches!(bytes.get(i + 1), Some(b'$' | b'?' | b'#' | b'!')) => i += 2,
            b'$' => return false,
            _ => i += 1,
        }
    }
    true
}
