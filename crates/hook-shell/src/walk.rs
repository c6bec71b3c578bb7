//! The command walk: each simple command turned into the views a rule is tested against, with
//! assignments, reserved words and wrappers stripped layer by layer, and the command strings hidden
//! in arguments analysed recursively (R-PRED-4).

use crate::analysis::{Analysis, COMMAND_WORK, MAX_DEPTH, MAX_LAYERS, View, WORD_WORK};
use crate::files::Arg;
use crate::find;
use crate::lex::{Lexer, RESERVED, Sink, Stdin};
use crate::model;
use crate::program_file::program_file_is_harmless;
use crate::programs::{self, Subcommand};
use crate::sed;
use crate::table::{COMMAND_VARIABLES, FIXED_ARGUMENT_VARIABLES, MULTI_CALL, OTHER_SHELLS, SHELLS, is_loader};
use crate::word::{Word, basename};

/// How many of a runner's later words are tried as the start of the command it runs.
const MAX_RUNNER_STARTS: usize = 4;

/// How many views one command string may produce, beyond one per byte of it, before the analysis
/// gives up (uncertain): runners nested in runners try several starts each.
const MAX_VIEWS: usize = 4096;

/// The walk: the sink that turns each simple command the lexer reads into views, and analyses the
/// command strings hidden in them (`hidden.rs`, `git.rs`, `awk.rs` extend it).
pub(crate) struct Walk<'o> {
    /// How deep the command being walked is nested.
    pub(crate) depth: usize,
    /// What the walk found so far.
    pub(crate) out: &'o mut Analysis,
    /// What the simple command the lexer handed over last prints, when known, and how deep it is:
    /// the paths `find … -print0` lists (a glob), read by an `xargs -0` it pipes into, or the text
    /// `echo` prints.
    listing: Option<(usize, Stdin)>,
}

/// Analyses `cmd` at nesting `depth` into `out`: the lexer reads it, the walk turns it into views.
pub(crate) fn analyse_into(cmd: &str, depth: usize, out: &mut Analysis) {
    if depth > MAX_DEPTH || !out.spend(cmd.len()) {
        out.uncertain = true;
        return;
    }
    let mut walk = Walk::new(depth, out);
    let mut lexer = Lexer::new(cmd, depth, &mut walk);
    lexer.list(false);
    lexer.flush_deferred(true);
}

impl Sink for Walk<'_> {
    fn command(&mut self, words: Vec<Word>, stdin: Stdin, depth: usize) {
        self.depth = depth;
        let output =
            find::null_listing(&words).map(Stdin::Listing).or_else(|| model::echo_output(&words).map(Stdin::Text));
        let stdin = match (stdin, self.listing.take()) {
            (Stdin::Pipe, Some((from, output))) if from == depth => output,
            (Stdin::Pipe, _) => Stdin::Inherited,
            (stdin, _) => stdin,
        };
        match &stdin {
            // `echo ok | xargs git reset --hard` runs `git reset --hard ok`.
            Stdin::Text(text) if let Some(command) = xargs_with_known_input(&words, text) => {
                push_view(&mut self.out.views, &words, false);
                // xargs gives the command it runs /dev/null for standard input.
                self.emit(command, Stdin::File);
            }
            _ => self.emit(words, stdin),
        }
        self.listing = output.map(|output| (depth, output));
    }

    fn nested(&mut self, text: &str, depth: usize) {
        analyse_into(text, depth, self.out);
    }

    fn redirect(&mut self, op: &[u8], target: &Word, substitution: bool) {
        self.out.unknown_redirect |= !substitution && !target.known;
        if self.out.files_recorded {
            self.out.files.redirect(op, target); // File uses for Read/Edit rules (files.rs).
        }
    }

    fn uncertain(&mut self) {
        self.out.uncertain = true;
    }

    fn spend(&mut self, units: usize) -> bool {
        self.out.spend(units)
    }

    fn exhausted(&self) -> bool {
        self.out.exhausted()
    }
}

impl<'o> Walk<'o> {
    pub(crate) fn new(depth: usize, out: &'o mut Analysis) -> Self {
        Walk { depth, out, listing: None }
    }
}

impl Walk<'_> {
    /// The command cannot be analysed with certainty.
    pub(crate) fn uncertain(&mut self) {
        self.out.uncertain = true;
    }

    /// Turns one simple command into views, stripping one layer at a time; `stdin` is what the
    /// command reads on standard input.
    pub(crate) fn emit(&mut self, mut words: Vec<Word>, stdin: Stdin) {
        if self.out.views.len() > MAX_VIEWS + self.out.input_len || !self.out.spend(COMMAND_WORK + view_work(&words)) {
            self.uncertain();
            return;
        }
        let first_view = self.out.views.len();
        self.command_variables(&words);
        let mut at = 0;
        let mut more_args = false;
        // What an `xargs` appends, when it reads NUL-separated paths it knows (`find … -print0 |`).
        let mut appended = None;
        let mut layers = 0;
        let mut innermost_from = None;
        loop {
            if let Some(w) = words.get_mut(at).filter(|w| w.program_known && !w.assignment) {
                // `"$dir/node" …` runs a program named `node`: read like `/some/dir/node …`.
                w.known = true;
            }
            let before = self.out.views.len();
            if !self.out.spend(view_work(words.get(at..).unwrap_or_default())) {
                return;
            }
            push_view(&mut self.out.views, &words[at..], more_args);
            if self.out.views.len() > before {
                innermost_from = Some(before);
            }
            let Some(word) = words.get(at) else { break };
            let next = if word.assignment {
                at + words[at..].iter().take_while(|w| w.assignment).count()
            } else if !word.quoted && RESERVED.contains(&word.text.as_str()) {
                at + 1
            } else if !word.quoted && word.text == "function" {
                // `function NAME { …; }`: the body follows; `function NAME` alone names nothing to run.
                at + 2
            } else if word.known && word.text == "coproc" && words.get(at + 2).is_some_and(|w| w.text == "{") {
                // `coproc NAME { …; }`: NAME names the coprocess.
                at + 2
            } else {
                match self.unwrap(&words, at) {
                    Some(Unwrapped { next, appends, placeholder, null_input }) if next > at => {
                        if more_args && next >= words.len() {
                            // `cat list | xargs nice`: the command the wrapper runs is what an
                            // earlier wrapper appends.
                            self.uncertain();
                        }
                        if appends && !more_args {
                            appended = match &stdin {
                                Stdin::Listing(glob) if null_input && placeholder.is_none() => Some(glob.clone()),
                                _ => None,
                            };
                        } else if appends {
                            appended = None;
                        }
                        more_args |= appends;
                        if let Some(p) = placeholder.filter(|p| !p.is_empty()) {
                            // `xargs -I{} git {}`: each word holding the replacement string is unknown.
                            for w in words.iter_mut().skip(next).filter(|w| w.text.contains(&p)) {
                                w.known = false;
                                w.program_known = false;
                            }
                        }
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
            // `function` alone names nothing: a skip may pass the last word.
            at = next.min(words.len());
        }
        if self.out.files_recorded {
            // File uses for Read/Edit rules (files.rs).
            let appended = more_args.then(|| appended.clone().map_or(Arg::Unknown, Arg::Glob));
            self.out.files.command(&words, at, appended);
        }
        if let Some(rest) = words.get(at..).filter(|rest| !rest.is_empty()) {
            // `git -C dir push` is also seen as `git push`; an unknown option as a word of unknown value.
            let view = match programs::subcommand(rest) {
                Subcommand::Plain => None,
                Subcommand::At(k) => Some(rest[..1].iter().chain(&rest[k..]).cloned().collect()),
                Subcommand::Unknown(k) => {
                    let mut view = rest.to_vec();
                    view[k].known = false;
                    Some(view)
                }
            };
            if let Some(view) = view {
                let before = self.out.views.len();
                push_view(&mut self.out.views, &view, more_args);
                innermost_from = innermost_from.or(Some(before));
            }
        }
        if let Some(from) = innermost_from {
            for view in &mut self.out.views[from..] {
                view.innermost = true;
            }
        }
        // git's aliases, exec-path names and the commands its options run (git.rs).
        if self.git(&words, at, first_view, &stdin) {
            return;
        }
        if let Some(rest) = words.get(at..).filter(|rest| !rest.is_empty()) {
            // What a wrapper appends are operands too: `xargs -0 watch`, `xargs bash -c` run them.
            let rest: std::borrow::Cow<'_, [Word]> = if more_args {
                rest.iter().cloned().chain([appended_word(appended)]).collect::<Vec<_>>().into()
            } else {
                rest.into()
            };
            if !self.recurse_into_strings(&rest, &stdin) {
                self.model(&rest, &stdin);
            }
        }
    }

    /// When `words[at]` is a wrapper, where the wrapped command starts, whether the wrapper appends
    /// arguments of its own (`xargs`) and the string it replaces in them (`xargs -I{}`).
    fn unwrap(&mut self, words: &[Word], at: usize) -> Option<Unwrapped> {
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
                        t if t.starts_with("--split-string=") => {
                            self.recurse_into_attached(w, "--split-string=".len());
                            return None;
                        }
                        t if t.starts_with('-') && !t.starts_with("--") => {
                            // A cluster of short options: `-i`, `-0`, `-v` stand alone; `-u NAME`,
                            // `-C DIR` take the rest or the next word; `-S…` the rest is a command line.
                            let cluster = &t.as_bytes()[1..];
                            match cluster.iter().position(|b| matches!(b, b'u' | b'C' | b'S' | b'P')) {
                                Some(k) if cluster[k] == b'S' => {
                                    if k + 1 < cluster.len() {
                                        self.recurse_into_attached(w, k + 2);
                                    } else {
                                        self.recurse_into_word(words.get(i + 1));
                                    }
                                    return None;
                                }
                                Some(k) if k + 1 == cluster.len() => i += 2,
                                _ => i += 1,
                            }
                        }
                        t if t.starts_with('-') || t.contains('=') => i += 1,
                        _ => break,
                    }
                }
                (i, false)
            }
            "sudo" => (skip_options(words, at, &["-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-T", "-U"]), false),
            "doas" => (skip_options(words, at, &["-u", "-C"]), false),
            // `command -v x` looks a name up.
            "command" if words.get(at + 1).is_some_and(|w| w.text.starts_with("-v") || w.text.starts_with("-V")) => {
                return None;
            }
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
                let next = skip_options(words, at, &flags);
                let placeholder = words[at + 1..next.min(words.len())].iter().enumerate().find_map(|(k, w)| {
                    let t = w.text.as_str();
                    match t {
                        "-I" => words.get(at + 2 + k).map(|r| r.text.clone()),
                        "-i" | "--replace" => Some("{}".to_owned()),
                        _ => t
                            .strip_prefix("--replace=")
                            .or_else(|| t.strip_prefix("-I"))
                            .or_else(|| t.strip_prefix("-i"))
                            .map(str::to_owned),
                    }
                });
                let null_input = xargs_reads_null_separated_stdin(&words[at + 1..next.min(words.len())]);
                return Some(Unwrapped { next: next.min(words.len()), appends: true, placeholder, null_input });
            }
            "flock" => {
                // `flock [options] file command…` or `flock [options] file -c 'command'`.
                let file = skip_options(words, at, &["-w", "--wait", "--timeout", "-E", "--conflict-exit-code"]);
                match words.get(file + 1).map(|w| w.text.as_str()) {
                    Some("-c" | "--command") => {
                        self.recurse_into_word(words.get(file + 2));
                        return None;
                    }
                    Some(_) => (file + 1, false),
                    None => return None,
                }
            }
            _ => return None,
        };
        // An option that wants an argument may be the last word: never point past the end.
        Some(Unwrapped { next: next.min(words.len()), appends, placeholder: None, null_input: false })
    }

    /// `sh -c '…'`, `bash <<EOF`, `eval …`, `watch …`, `find … -exec … ;`, `trap`, `su -c`,
    /// `script -c`, `ssh`, `parallel`, `source <(…)`, interpreters: the command line inside is
    /// analysed as well, or the command is uncertain (see [`super::hidden`]).
    /// Returns whether the program is one of those handled here (its arguments are then accounted
    /// for).
    fn recurse_into_strings(&mut self, words: &[Word], stdin: &Stdin) -> bool {
        if self.interpreter(words, stdin) {
            return true;
        }
        match basename(&words[0].text) {
            name if SHELLS.contains(&name) || name == MULTI_CALL => self.shell(words, stdin),
            name if OTHER_SHELLS.contains(&name) => self.other_shell(words, stdin),
            "alias" => {
                // `alias t=touch`: the value is what `t` runs.
                for w in &words[1..] {
                    if let Some((_, value)) = w.text.split_once('=') {
                        if w.known {
                            analyse_into(value, self.depth + 1, self.out);
                        } else {
                            self.uncertain();
                        }
                    }
                }
            }
            "awk" | "gawk" | "mawk" | "nawk" => self.awk(words, stdin),
            // git's subcommands and their indirections are modelled in `programs.rs`.
            "git" => {}
            "source" | "." => match words.get(1) {
                Some(script) => self.script(script, stdin),
                None => self.uncertain(),
            },
            "trap" => self.trap(words),
            "su" | "runuser" => self.command_option(words, &["--command", "--session-command"], stdin),
            "script" => self.command_option(words, &["--command"], stdin),
            "ssh" => self.ssh(words, stdin),
            "parallel" => self.parallel(words, stdin),
            "at" | "batch" => self.stdin_code(stdin),
            "eval" => self.analyse_joined(&words[1..]),
            "watch" => self.analyse_joined(&words[skip_options(words, 0, &["-n", "--interval"]).min(words.len())..]),
            "find" => find::exec_commands(words).into_iter().for_each(|command| self.emit_nested(command)),
            _ => return false,
        }
        true
    }

    /// A program the walk does not handle: the model says whether its arguments are data, where the
    /// command it runs may start, or — not modelled — that a rule about a program its arguments
    /// name is uncertain for it (the arguments are kept with interpreter code).
    fn model(&mut self, words: &[Word], stdin: &Stdin) {
        if !words[0].known {
            return;
        }
        // sed runs a command only from its scripts (`e`, `s///e`): one whose scripts are read and
        // run nothing is inert; a script file is as awk's.
        if basename(&words[0].text) == "sed" {
            if sed::scripts_only_read(&words[1..]).is_ok() {
                return;
            }
            let harmless = |(name, known)| program_file_is_harmless(name, known, stdin, sed::script_reads);
            if !sed::script_files(&words[1..]).into_iter().all(harmless) {
                self.uncertain();
            }
        }
        let texts: Vec<&str> = words.iter().map(|w| w.text.as_str()).collect();
        match model::kind(&texts) {
            model::Kind::Inert => {}
            model::Kind::Runner { from } => {
                if is_loader(basename(&words[0].text))
                    && let Some((start, argv0)) = model::loader_start(words)
                {
                    self.loader(words, start, argv0);
                    return;
                }
                if let Some(start) = model::exact_start(words, from) {
                    self.emit_nested(words[start..].to_vec());
                    return;
                }
                // A runner execs its command: `.` and `..` (directories) cannot start one.
                let can_start =
                    |w: &Word| !w.known || !(w.text.starts_with('-') || matches!(w.text.as_str(), "." | ".."));
                let starts = (from..words.len()).filter(|&i| can_start(&words[i]));
                for start in starts.take(MAX_RUNNER_STARTS) {
                    self.emit_nested(words[start..].to_vec());
                }
            }
            model::Kind::Other => {
                if words.len() > 1 {
                    self.out.opaque.push(texts[1..].join(" "));
                }
            }
        }
    }

    /// Each word of a simple command that assigns a command-valued variable ([`COMMAND_VARIABLES`]:
    /// as an assignment, or an argument of `export`, `declare`, `env`, …): its value is a command
    /// line the program run (or a later one) may start ([`Walk::started_command`]). A value of
    /// unknown text is analysed as written (`$HOME/bin/vim` runs a `vim`).
    fn command_variables(&mut self, words: &[Word]) {
        // Every name of the table starts with a capital letter: most words end the test there.
        for w in words.iter().filter(|w| w.text.as_bytes().first().is_some_and(u8::is_ascii_uppercase)) {
            if let Some((name, value)) = w.text.split_once('=')
                && COMMAND_VARIABLES.contains(&name)
            {
                // less puts the file's name where its preprocessor says `%s`: text of any value.
                let value = if name.starts_with("LESS") { value.replace("%s", "$P") } else { value.to_owned() };
                self.started_command(&value, !FIXED_ARGUMENT_VARIABLES.contains(&name));
            }
        }
    }

    /// A command line a program starts on its own (a pager, an editor, git's ssh command, …),
    /// analysed one level deeper. When the program `appends` arguments the command line may
    /// choose (a host, a URL, a file name), each of its views may have more words than it shows.
    pub(crate) fn started_command(&mut self, text: &str, appends: bool) {
        let before = self.out.views.len();
        analyse_into(text, self.depth + 1, self.out);
        if appends {
            for view in &mut self.out.views[before..] {
                view.more_args = true;
            }
        }
    }

    /// The dynamic loader run by hand (`ld.so PROGRAM ARGS…`, `model::loader_start`): it runs
    /// the program at `start` with the words after it, and with `--argv0 NAME` (the word at
    /// `argv0`) under that name too (git run as `git-push` is `git push`, busybox as `touch` is
    /// `touch`). A program only a descriptor names (`ld.so /dev/fd/3 push …`) is uncertain.
    fn loader(&mut self, words: &[Word], start: usize, argv0: Option<usize>) {
        if model::is_descriptor(&words[start].text) {
            self.uncertain();
        }
        self.emit_nested(words[start..].to_vec());
        if let Some(name) = argv0 {
            let renamed = std::iter::once(words[name].clone()).chain(words[start + 1..].iter().cloned()).collect();
            self.emit_nested(renamed);
        }
    }

    /// The words joined by spaces, analysed as a command (what `eval` and `watch` run).
    pub(crate) fn analyse_joined(&mut self, words: &[Word]) {
        if words.iter().any(|w| !w.known) {
            self.uncertain();
            return;
        }
        let joined: Vec<&str> = words.iter().map(|w| w.text.as_str()).collect();
        analyse_into(&joined.join(" "), self.depth + 1, self.out);
    }

    /// Emits a command found inside another command's arguments, one level deeper.
    pub(crate) fn emit_nested(&mut self, words: Vec<Word>) {
        if self.depth >= MAX_DEPTH {
            self.uncertain();
            return;
        }
        self.depth += 1;
        self.emit(words, Stdin::Inherited);
        self.depth -= 1;
    }

    /// The text of `word` from byte `from` on, analysed as a command line (`env -S'…'`).
    fn recurse_into_attached(&mut self, word: &Word, from: usize) {
        match word.text.get(from..) {
            Some(text) if word.known => analyse_into(text, self.depth + 1, self.out),
            _ => self.uncertain(),
        }
    }

    pub(crate) fn recurse_into_word(&mut self, word: Option<&Word>) {
        match word {
            Some(w) if w.known => analyse_into(&w.text, self.depth + 1, self.out),
            _ => self.uncertain(),
        }
    }
}

/// A wrapper's wrapped command: where it starts, whether arguments are appended to it, and the
/// replacement string they take the place of.
struct Unwrapped {
    next: usize,
    appends: bool,
    placeholder: Option<String>,
    /// xargs reads NUL-separated words from standard input (`-0`, and no `-a` or `-d`).
    null_input: bool,
}

/// The command `xargs OPTIONS COMMAND…` runs when it reads `text` on standard input, when every word
/// of it is plain ([`model::plain`]: no quotes or backslashes for xargs to read, as a here-string
/// may hold): COMMAND with the words appended, or with
/// the replacement string replaced by the one line (`-I R`, `-i`, `--replace`). `None` for any
/// other option (`-n`, `-L`, `-0`, `-a`, … split or read the input otherwise) or more than one
/// line to replace.
fn xargs_with_known_input(words: &[Word], text: &str) -> Option<Vec<Word>> {
    if words.first().is_none_or(|w| !w.known || w.text != "xargs") || !text.split_whitespace().all(model::plain) {
        return None;
    }
    let mut replace = None;
    let mut i = 1;
    while let Some(w) = words.get(i).filter(|w| w.text.starts_with('-')) {
        if !w.known {
            return None;
        }
        match w.text.as_str() {
            "-r" | "--no-run-if-empty" | "-t" | "--verbose" | "-x" | "--exit" => {}
            "-i" | "--replace" => replace = Some("{}".to_owned()),
            "-I" => {
                i += 1;
                replace = Some(words.get(i).filter(|r| r.known)?.text.clone());
            }
            "--" => {
                i += 1;
                break;
            }
            t => {
                let attached =
                    t.strip_prefix("--replace=").or_else(|| t.strip_prefix("-I")).or_else(|| t.strip_prefix("-i"));
                replace = Some(attached?.to_owned());
            }
        }
        i += 1;
    }
    let mut command: Vec<Word> = words[i..].to_vec();
    if command.is_empty() {
        command.push(Word::literal("echo"));
    }
    match replace.filter(|r| !r.is_empty()) {
        None => command.extend(text.split_whitespace().map(Word::literal)),
        Some(r) => {
            let mut lines = text.lines().map(|l| l.trim_start_matches([' ', '\t'])).filter(|l| !l.is_empty());
            let (Some(line), None) = (lines.next(), lines.next()) else { return None };
            for w in command.iter_mut().filter(|w| w.text.contains(&r)) {
                if !w.known {
                    return None;
                }
                w.text = w.text.replace(&r, line);
            }
        }
    }
    Some(command)
}

/// Whether xargs with these options reads NUL-separated words from standard input: `-0` given,
/// and nothing but flags that do not change where or how it reads and numeric limits (no `-a`,
/// `-d`, `-E`, `-I`).
fn xargs_reads_null_separated_stdin(options: &[Word]) -> bool {
    const FLAGS: &[&str] = &["-0", "--null", "-r", "--no-run-if-empty", "-t", "--verbose", "-x", "--exit"];
    const LIMITS: &[&str] = &["-n", "-P", "-L", "-s", "--max-args", "--max-procs", "--max-lines", "--max-chars"];
    let number = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    let mut null = false;
    let mut i = 0;
    while let Some(w) = options.get(i) {
        let t = w.text.as_str();
        i += 1;
        if !w.known {
            return false;
        }
        null |= matches!(t, "-0" | "--null");
        if FLAGS.contains(&t) {
            continue;
        }
        if LIMITS.contains(&t) && options.get(i).is_some_and(|v| v.known && number(&v.text)) {
            i += 1;
            continue;
        }
        let attached = LIMITS.iter().any(|o| {
            t.strip_prefix(o).is_some_and(|v| number(v.strip_prefix('=').filter(|_| o.starts_with("--")).unwrap_or(v)))
        });
        if !attached {
            return false;
        }
    }
    null
}

/// The work of one view of `words` ([`super::Analysis::spend`]): its bytes are copied and joined,
/// and each word counts besides.
fn view_work(words: &[Word]) -> usize {
    words.iter().map(|w| WORD_WORK + w.text.len()).sum()
}

/// The words a wrapper appends (`xargs`), as one word: the glob of the paths it reads when known
/// (`find … -print0 | xargs -0`), else a word of unknown value that may be several.
fn appended_word(appended: Option<String>) -> Word {
    match appended {
        Some(glob) => Word { glob: true, splits: true, ..Word::literal(&glob) },
        None => Word { known: false, splits: true, ..Word::literal("") },
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
