//! The program table's read-only column (issue 40): [`READ_ONLY`] names, per program (and git
//! subcommand), the options that make it write, delete, run a program or reach the network, and
//! how many operands it may take before one is written. A program outside it is not read-only.
//!
//! It judges one simple command's words; `read_only.rs` judges a whole command line with it (its
//! analysis, redirections and assignments), and `files.rs` asks it whether an unmodelled program
//! may write a file its words name ([`writes_nothing`]). It must not know the analysis.

use crate::programs::{self, Subcommand};
use crate::sed;
use crate::word::{Word, basename};

/// Variables an assignment may set without changing what a command runs or where it writes.
pub(crate) const SAFE_VARIABLES: &[&str] =
    &["LANG", "LC_ALL", "LC_COLLATE", "LC_CTYPE", "LC_MESSAGES", "NO_COLOR", "TZ", "COLUMNS"];

/// Whether `name` is, by convention, a shell variable of the script's own (a lower-case letter in
/// it) rather than one the environment or the shell gives a meaning (`PATH`, `IFS`, `GIT_DIR`).
pub(crate) fn shell_variable(name: &str) -> bool {
    // zsh ties these to `PATH`, `CDPATH`, …: `path=/tmp` there is `PATH=/tmp`.
    const ZSH_TIED: &[&str] = &["path", "cdpath", "fpath", "manpath", "module_path", "mailpath", "psvar", "fignore"];
    name.bytes().any(|b| b.is_ascii_lowercase()) && !ZSH_TIED.contains(&name)
}

/// Why a command is not shown read-only: a category (stable, for counting) and the detail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub category: &'static str,
    pub detail: String,
}

pub(crate) fn refuse(category: &'static str, detail: impl Into<String>) -> Refusal {
    Refusal { category, detail: detail.into() }
}

/// How one program of [`READ_ONLY`] reads its arguments.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Rule {
    /// No option writes or runs anything: any word is data (`cat`, `ls`, `wc`).
    Any,
    /// Read-only unless one of these options is given: short letters (anywhere in a cluster) and
    /// long names (any unambiguous start of them, as getopt_long reads them); `max` operands at
    /// most (`uniq in out` writes `out`).
    Unless { short: &'static str, long: &'static [&'static str], max: Option<usize> },
    /// No argument at all (`hostname NAME` sets the name).
    Bare,
    /// find: these primaries write, delete or run.
    Find(&'static [&'static str]),
    /// Read by a function of its own.
    Custom(fn(&[Word]) -> Result<(), Refusal>),
}

const fn unless(short: &'static str, long: &'static [&'static str]) -> Rule {
    Rule::Unless { short, long, max: None }
}

/// The read-only column: each program modelled as read-only, and what makes it write.
#[rustfmt::skip]
pub(crate) const READ_ONLY: &[(&str, Rule)] = &[
    (":", Rule::Any), ("[", Rule::Any), ("[[", Rule::Any), ("arch", Rule::Any), ("awk", Rule::Custom(awk)),
    ("b2sum", Rule::Any), ("base32", Rule::Any), ("base64", Rule::Any), ("basename", Rule::Any),
    ("cal", Rule::Any), ("cat", Rule::Any), ("cd", Rule::Any), ("cksum", Rule::Any), ("cmp", Rule::Any),
    ("column", Rule::Any), ("comm", Rule::Any), ("command", Rule::Custom(command)), ("cut", Rule::Any),
    ("date", Rule::Custom(date)), ("df", Rule::Any), ("diff", Rule::Any), ("dirname", Rule::Any), ("dirs", Rule::Any),
    ("du", Rule::Any), ("echo", Rule::Any), ("egrep", Rule::Any), ("env", Rule::Custom(env)), ("expand", Rule::Any),
    ("exit", Rule::Any), ("expr", Rule::Any), ("factor", Rule::Any), ("false", Rule::Any), ("fgrep", Rule::Any),
    ("file", unless("C", &["--compile"])), ("find", Rule::Find(FIND_WRITES)), ("fmt", Rule::Any), ("fold", Rule::Any),
    ("findmnt", Rule::Any), ("free", Rule::Any), ("getconf", Rule::Any), ("git", Rule::Custom(git)), ("grep", Rule::Any), ("groups", Rule::Any), ("hash", unless("p", &[])),
    ("head", Rule::Any), ("hexdump", Rule::Any), ("hostname", Rule::Bare), ("id", Rule::Any), ("ip", Rule::Custom(ip)), ("jq", Rule::Any),
    ("join", Rule::Any), ("locale", Rule::Any), ("logname", Rule::Any), ("ls", Rule::Any), ("lsof", Rule::Any), ("md5sum", Rule::Any),
    ("netstat", Rule::Any), ("nl", Rule::Any), ("nproc", Rule::Any), ("numfmt", Rule::Any), ("od", Rule::Any), ("paste", Rule::Any),
    ("pathchk", Rule::Any), ("printenv", Rule::Any), ("printf", unless("v", &[])), ("ps", Rule::Any), ("pstree", Rule::Any),
    ("pwd", Rule::Any), ("readlink", Rule::Any), ("realpath", Rule::Any), ("rev", Rule::Any),
    ("rg", unless("z", &["--pre", "--pre-glob", "--search-zip", "--hostname-bin"])),
    ("read", Rule::Custom(read)), ("sed", Rule::Custom(sed)), ("seq", Rule::Any), ("set", Rule::Any), ("sha1sum", Rule::Any), ("sha224sum", Rule::Any),
    ("sha256sum", Rule::Any), ("sha384sum", Rule::Any), ("sha512sum", Rule::Any), ("shuf", unless("o", &["--output"])),
    ("sleep", Rule::Any), ("ss", unless("KD", &["--kill", "--diag"])), ("sort", unless("oT", &["--output", "--compress-program", "--temporary-directory"])),
    ("stat", Rule::Any), ("strings", Rule::Any), ("sum", Rule::Any), ("tac", Rule::Any),
    ("tail", Rule::Any), ("test", Rule::Any), ("tr", Rule::Any), ("tree", unless("oR", &[])), ("true", Rule::Any),
    ("tsort", Rule::Any), ("tty", Rule::Any), ("type", Rule::Any), ("uname", Rule::Any), ("unexpand", Rule::Any),
    ("uniq", Rule::Unless { short: "", long: &[], max: Some(1) }), ("uptime", Rule::Any), ("wc", Rule::Any),
    ("whereis", Rule::Any), ("which", Rule::Any), ("whoami", Rule::Any), ("xargs", Rule::Custom(xargs)),
    ("xxd", Rule::Unless { short: "", long: &[], max: Some(1) }),
];

/// find's primaries that delete or write a file. The commands its `-exec`, `-execdir`, `-ok` and
/// `-okdir` run are views of their own (`find.rs`), judged like any other.
const FIND_WRITES: &[&str] = &["-delete", "-fprint", "-fprint0", "-fprintf", "-fls"];

/// find's primaries that run a command, up to `;` or `+`.
const FIND_RUNS: &[&str] = &["-exec", "-execdir", "-ok", "-okdir"];

/// Wrappers that only change how the command they wrap runs (its own view is judged too), and
/// their options that take a value; an option of theirs not listed is not read-only.
#[rustfmt::skip]
pub(crate) const WRAPPERS: &[(&str, &[&str], &[&str])] = &[
    ("time", &[], &["-p"]), ("timeout", &["-s", "--signal", "-k", "--kill-after"], &["--preserve-status", "--foreground", "-v", "--verbose"]),
    ("nice", &["-n", "--adjustment"], &[]), ("builtin", &[], &[]),
];

/// Whether `words` (a program and its arguments, wrappers stripped) is a program of the read-only
/// column that, with these arguments, writes no file: its words may name a file it reads, never
/// one it writes. `appended`: a wrapper (`xargs`) appends words nobody can see.
pub(crate) fn writes_nothing(words: &[Word], appended: bool) -> bool {
    let Some(first) = words.first().filter(|w| w.known && !w.glob && !w.assignment) else { return false };
    let Ok(name) = program_name(&first.text) else { return false };
    READ_ONLY
        .iter()
        .find(|(p, _)| *p == name)
        .is_some_and(|(_, rule)| (!appended || matches!(rule, Rule::Any)) && program(words, *rule).is_ok())
}

/// A program's name as it will be found: a bare name (looked up in `PATH`) or one in the system's
/// directories; any other path may be a program of the same name put there by anyone.
pub(crate) fn program_name(text: &str) -> Result<&str, Refusal> {
    let name = basename(text);
    let system = ["/bin/", "/usr/bin/", "/sbin/", "/usr/sbin/"].iter().any(|d| text.strip_prefix(d) == Some(name));
    if name == text || system { Ok(name) } else { Err(refuse("a program named by a path", text)) }
}

pub(crate) fn wrapper(words: &[Word], with_value: &[&str], flags: &[&str]) -> Result<(), Refusal> {
    let mut i = 1;
    while let Some(w) = words.get(i) {
        if w.may_hold_options() {
            return Err(refuse("a word of unknown value where an option may stand", &w.text));
        }
        let t = w.text.as_str();
        if t == "--" || !t.starts_with('-') || t == "-" {
            return Ok(());
        }
        if with_value.contains(&t) {
            i += 2;
        } else if flags.contains(&t) || with_value.iter().any(|o| o.len() == 2 && t.starts_with(o)) {
            i += 1;
        } else {
            return Err(refuse("an option that writes or runs", format!("{} {t}", words[0].text)));
        }
    }
    Ok(())
}

/// A program of [`READ_ONLY`] with its arguments (`words[0]` is the program).
pub(crate) fn program(words: &[Word], rule: Rule) -> Result<(), Refusal> {
    let name = basename(&words[0].text);
    match rule {
        Rule::Any => Ok(()),
        Rule::Bare if words.len() == 1 => Ok(()),
        Rule::Bare => Err(refuse("an option that writes or runs", format!("{name} with arguments"))),
        Rule::Custom(f) => f(words),
        Rule::Find(writes) => {
            let mut i = 1;
            while let Some(w) = words.get(i) {
                if w.may_hold_options() {
                    return Err(refuse("a word of unknown value where an option may stand", &w.text));
                }
                if writes.contains(&w.text.as_str()) {
                    return Err(refuse("an option that writes or runs", format!("find {}", w.text)));
                }
                if FIND_RUNS.contains(&w.text.as_str()) {
                    i += words[i..].iter().position(|w| w.text == ";" || w.text == "+").unwrap_or(words.len());
                }
                i += 1;
            }
            Ok(())
        }
        Rule::Unless { short, long, max } => options(&words[1..], short, long, max, name),
    }
}

/// getopt_long's reading: `--` ends the options; a cluster's letters (and what follows one that
/// takes a value, read as letters too: the answer errs on refusing); a long name by any start.
fn options(args: &[Word], short: &str, long: &[&str], max: Option<usize>, name: &str) -> Result<(), Refusal> {
    let mut operands = 0;
    let mut done = false;
    for w in args {
        if !done && w.may_hold_options() {
            return Err(refuse("a word of unknown value where an option may stand", &w.text));
        }
        let t = w.text.as_str();
        if done || t == "-" || !t.starts_with('-') {
            operands += 1;
            if !w.known && max.is_some() {
                return Err(refuse("a word of unknown value where an option may stand", &w.text));
            }
            continue;
        }
        if t == "--" {
            done = true;
        } else if let Some(body) = t.strip_prefix("--") {
            let opt = format!("--{}", body.split_once('=').map_or(body, |(n, _)| n));
            if long.iter().any(|l| l.starts_with(&opt)) {
                return Err(refuse("an option that writes or runs", format!("{name} {opt}")));
            }
        } else if let Some(letter) = t[1..].chars().find(|c| short.contains(*c)) {
            return Err(refuse("an option that writes or runs", format!("{name} -{letter}")));
        }
    }
    match max {
        Some(max) if operands > max => {
            Err(refuse("an operand that is written", format!("{name} with {operands} operands")))
        }
        _ => Ok(()),
    }
}

/// `command -v NAME`, `command -V NAME`: a lookup (`command NAME …`, a wrapper, is in [`WRAPPERS`]
/// only through the walk, which gives the wrapped command its own view).
fn command(words: &[Word]) -> Result<(), Refusal> {
    match words.get(1).map(|w| w.text.as_str()) {
        Some("-v" | "-V") | None => Ok(()),
        _ => wrapper(words, &[], &["-p"]),
    }
}

/// `env`, `env -i`, `env -u NAME`, `env LC_ALL=C …`: the command it runs is a view of its own.
fn env(words: &[Word]) -> Result<(), Refusal> {
    let mut i = 1;
    while let Some(w) = words.get(i) {
        let t = w.text.as_str();
        match t {
            "-i" | "--ignore-environment" | "-" => i += 1,
            "-u" | "--unset" => i += 2,
            "--" => return Ok(()),
            _ if !w.known => return Err(refuse("a word of unknown value where an option may stand", t)),
            _ if t.starts_with('-') => return Err(refuse("an option that writes or runs", format!("env {t}"))),
            _ => match t.split_once('=') {
                Some((name, _)) if SAFE_VARIABLES.contains(&name) => i += 1,
                Some((name, _)) => return Err(refuse("assigns a variable", name)),
                None => return Ok(()),
            },
        }
    }
    Ok(())
}

/// `read [-r] [-p prompt] name…`: reads standard input into the script's own variables.
fn read(words: &[Word]) -> Result<(), Refusal> {
    let mut i = 1;
    while let Some(w) = words.get(i) {
        let t = w.text.as_str();
        if !w.known {
            return Err(refuse("a word of unknown value where an option may stand", t));
        }
        if matches!(t, "-p" | "-d" | "-n" | "-N" | "-t" | "-u" | "-i") {
            i += 2;
            continue;
        }
        if t.starts_with('-') && t.len() > 1 {
            if t[1..].bytes().all(|b| matches!(b, b'r' | b's' | b'e')) {
                i += 1;
                continue;
            }
            return Err(refuse("an option that writes or runs", format!("read {t}")));
        }
        if !shell_variable(t) {
            return Err(refuse("assigns a variable", t));
        }
        i += 1;
    }
    Ok(())
}

/// `xargs [options] [PROGRAM …]`: its options that only shape the words it appends; the program
/// is its own view, judged with the appended words. Alone, xargs runs the program `echo` (found
/// on `PATH`), which only prints whatever it is given (`read_only.rs` names it).
fn xargs(words: &[Word]) -> Result<(), Refusal> {
    const WITH_VALUE: &[&str] = &[
        "-n",
        "-L",
        "-P",
        "-d",
        "-s",
        "-I",
        "-a",
        "-E",
        "--max-args",
        "--max-procs",
        "--delimiter",
        "--arg-file",
        "--max-lines",
        "--max-chars",
    ];
    const FLAGS: &[&str] = &["-0", "--null", "-r", "--no-run-if-empty", "-t", "--verbose", "-x", "--exit"];
    let mut i = 1;
    while let Some(w) = words.get(i) {
        let t = w.text.as_str();
        if !w.known {
            return Err(refuse("a word of unknown value where an option may stand", t));
        }
        if t == "--" || !t.starts_with('-') {
            return Ok(());
        }
        if WITH_VALUE.contains(&t) {
            i += 2;
        } else if FLAGS.contains(&t)
            || WITH_VALUE.iter().any(|o| o.len() == 2 && t.starts_with(o) || t.starts_with(&format!("{o}=")))
        {
            i += 1;
        } else {
            return Err(refuse("an option that writes or runs", format!("xargs {t}")));
        }
    }
    Ok(())
}

/// ip: an object's `show`, `list` or `get` (`ip addr`, `ip -br addr show`, `ip route get 1.1.1.1`),
/// with options that only shape the output. `-batch`, `-netns`, `-force`, `-resolve` (a lookup on
/// the network) and every other object or verb refuse.
fn ip(words: &[Word]) -> Result<(), Refusal> {
    const OUTPUT: &[&str] = &[
        "-4",
        "-6",
        "-br",
        "-brief",
        "-j",
        "-json",
        "--json",
        "-p",
        "-pretty",
        "-s",
        "-stats",
        "-statistics",
        "-d",
        "-details",
        "-c",
        "-color",
        "--color",
        "-o",
        "-oneline",
        "-h",
        "-human",
        "-human-readable",
    ];
    // Not `link`: `ip link show` sends the kernel an empty RTM_NEWLINK (a probe of what it supports).
    const OBJECTS: &[&str] = &[
        "a",
        "addr",
        "address",
        "r",
        "ro",
        "route",
        "n",
        "neigh",
        "neighbor",
        "neighbour",
        "ru",
        "rule",
        "maddr",
        "maddress",
        "netconf",
    ];
    const VERBS: &[&str] = &["show", "list", "lst", "get"];
    let mut args = words[1..].iter();
    let object = loop {
        match args.next() {
            None => return Err(refuse("a program not modelled read-only", "ip without an object")),
            Some(w) if w.known && (OUTPUT.contains(&w.text.as_str()) || w.text.starts_with("-color=")) => {}
            Some(w) => break w,
        }
    };
    if !object.known || !OBJECTS.contains(&object.text.as_str()) {
        return Err(refuse("an option that writes or runs", format!("ip {}", object.text)));
    }
    match args.next() {
        None => Ok(()),
        Some(verb) if verb.known && VERBS.contains(&verb.text.as_str()) => match args.find(|w| w.may_hold_options()) {
            Some(w) => Err(refuse("a word of unknown value where an option may stand", &w.text)),
            None => Ok(()),
        },
        Some(verb) => Err(refuse("an option that writes or runs", format!("ip {} {}", object.text, verb.text))),
    }
}

/// `date`, `date +FORMAT`, `date -d …`; not `date -s` or `date MMDDhhmm` (they set the clock).
fn date(words: &[Word]) -> Result<(), Refusal> {
    options(&words[1..], "s", &["--set"], None, "date")?;
    match words[1..].iter().find(|w| !w.text.starts_with('-') && !w.text.starts_with('+')) {
        Some(w) if words.iter().all(|x| !matches!(x.text.as_str(), "-d" | "-r" | "--date" | "--reference" | "-f")) => {
            Err(refuse("an operand that is written", format!("date {}", w.text)))
        }
        _ => Ok(()),
    }
}

/// sed: no `-i`, no script file, and every script made only of commands that print, delete or
/// substitute without a `w` or `e` flag (`w`, `W`, `e`, `r`, `R` and unknown commands refuse).
fn sed(words: &[Word]) -> Result<(), Refusal> {
    let args = &words[1..];
    options(args, "if", &["--in-place", "--file"], None, "sed")?;
    crate::sed::scripts_only_read(args).map_err(|doubt| match doubt {
        sed::Doubt::NotRead(text) => refuse("a sed script not read", text),
        sed::Doubt::MayWriteOrRun(text) => {
            refuse("a sed script that may write or run", text.chars().take(40).collect::<String>())
        }
    })
}

/// awk: only `-F` and `-v` options, and a program text with no output redirection, pipe,
/// `system`, `getline`, `@load` or `@include` (`>` refuses even as a comparison: the answer errs on
/// refusing).
fn awk(words: &[Word]) -> Result<(), Refusal> {
    let mut i = 1;
    while let Some(w) = words.get(i) {
        if w.may_hold_options() {
            return Err(refuse("a word of unknown value where an option may stand", &w.text));
        }
        let t = w.text.as_str();
        match t {
            "-F" | "-v" => i += 2,
            _ if t.starts_with("-F") || t.starts_with("-v") => i += 1,
            "--" => {
                i += 1;
                break;
            }
            _ if t.starts_with('-') => return Err(refuse("an option that writes or runs", format!("awk {t}"))),
            _ => break,
        }
    }
    let Some(program) = words.get(i).filter(|w| w.known) else { return Err(refuse("an awk program not read", "")) };
    let text = &program.text;
    if text.contains(['>', '|', '@'])
        || ["system", "getline", "close", "fflush", "ENVIRON"].iter().any(|k| text.contains(k))
    {
        return Err(refuse("an awk program that may write or run", text.chars().take(40).collect::<String>()));
    }
    Ok(())
}

/// git's read-only subcommands, each with the options that make it write, run or reach the
/// network (short letters, long names) and whether operands are allowed.
#[rustfmt::skip]
const GIT_READ_ONLY: &[(&str, &str, &[&str])] = &[
    ("log", "", &["--output", "--ext-diff", "--textconv"]), ("show", "", &["--output", "--ext-diff", "--textconv"]),
    ("diff", "", &["--output", "--ext-diff", "--textconv"]), ("whatchanged", "", &["--output", "--ext-diff"]),
    ("status", "", &[]), ("rev-parse", "", &[]), ("ls-files", "", &[]), ("ls-tree", "", &[]),
    ("cat-file", "", &["--textconv", "--filters"]), ("blame", "", &[]), ("shortlog", "", &[]), ("describe", "", &[]),
    ("rev-list", "", &[]), ("show-ref", "", &[]), ("for-each-ref", "", &[]), ("merge-base", "", &[]),
    ("name-rev", "", &[]), ("count-objects", "", &[]), ("version", "", &[]), ("grep", "O", &["--open-files-in-pager"]),
    ("diff-tree", "", &["--ext-diff", "--textconv"]), ("show-branch", "", &[]), ("check-ignore", "", &[]),
    ("check-attr", "", &[]), ("fsck", "", &["--lost-found"]), ("verify-pack", "", &[]),
];

/// git: global options that run nothing, then a subcommand of [`GIT_READ_ONLY`] (or a listing of
/// `branch`, `tag`, `remote`, `stash`, `config`, `reflog`, `worktree`).
fn git(words: &[Word]) -> Result<(), Refusal> {
    let mut bad = None;
    let at = match programs::globals(words, |opt, _| {
        // `-c key=value` is read by `globals`, which refuses a setting that names a command.
        let ok = !matches!(opt, "--config-env" | "-p" | "--paginate" | "--exec-path" | "--list-cmds");
        if !ok {
            bad = Some(opt.to_owned());
        }
        ok
    }) {
        Subcommand::Plain => 1,
        Subcommand::At(at) => at,
        Subcommand::Unknown(_) => {
            return Err(refuse("an option that writes or runs", format!("git {}", bad.unwrap_or_default())));
        }
    };
    let Some(sub) = words.get(at) else {
        // `git` alone prints its usage; `git --version`, `git -h` what they say.
        return Ok(());
    };
    if !sub.known {
        return Err(refuse("a word of unknown value where an option may stand", &sub.text));
    }
    let args = &words[at + 1..];
    let sub = sub.text.as_str();
    let has = |names: &[&str]| {
        args.iter().any(|w| names.iter().any(|n| w.text == *n || w.text.starts_with(&format!("{n}="))))
    };
    let operands = || args.iter().filter(|w| !w.text.starts_with('-')).count();
    let what = |s: &str| format!("git {sub} {s}");
    // Signatures are checked by running gpg (or ssh-keygen): `--show-signature`, `%G?` formats.
    if let Some(w) = args
        .iter()
        .find(|w| w.text.contains("%G") || w.text.contains("%(signature") || w.text.starts_with("--show-sig"))
    {
        return Err(refuse("an option that writes or runs", format!("git {sub} {}", w.text)));
    }
    if let Some((_, short, long)) = GIT_READ_ONLY.iter().find(|(s, ..)| *s == sub) {
        return options(args, short, long, None, &format!("git {sub}"));
    }
    match sub {
        "branch" => {
            options(
                args,
                "dDmMcCuf",
                &[
                    "--delete",
                    "--move",
                    "--copy",
                    "--set-upstream-to",
                    "--unset-upstream",
                    "--edit-description",
                    "--force",
                    "--track",
                    "--no-track",
                    "--create-reflog",
                    "--recurse-submodules",
                ],
                None,
                "git branch",
            )?;
            let listing = has(&[
                "--list",
                "-l",
                "-a",
                "--all",
                "-r",
                "--remotes",
                "--contains",
                "--no-contains",
                "--merged",
                "--no-merged",
                "--points-at",
                "--show-current",
            ]);
            if operands() > 0 && !listing { Err(refuse("an operand that is written", what("NAME"))) } else { Ok(()) }
        }
        "tag" => {
            options(
                args,
                "dfasmFuev",
                &[
                    "--verify",
                    "--delete",
                    "--force",
                    "--annotate",
                    "--sign",
                    "--message",
                    "--file",
                    "--local-user",
                    "--edit",
                    "--create-reflog",
                    "--no-sign",
                    "--cleanup",
                    "--trailer",
                ],
                None,
                "git tag",
            )?;
            let listing =
                has(&["--list", "-l", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at"]);
            if operands() > 0 && !listing { Err(refuse("an operand that is written", what("NAME"))) } else { Ok(()) }
        }
        "remote" => match args.iter().find(|w| !w.text.starts_with('-')).map(|w| w.text.as_str()) {
            None | Some("get-url") => options(args, "", &[], None, "git remote"),
            Some(other) => Err(refuse("an option that writes or runs", what(other))),
        },
        "stash" | "worktree" | "reflog" => match args.first().map(|w| w.text.as_str()) {
            Some("list") => options(&args[1..], "", &["--output", "--ext-diff", "--textconv"], None, &what("list")),
            Some("show") if sub != "worktree" => {
                options(&args[1..], "", &["--output", "--ext-diff", "--textconv"], None, &what("show"))
            }
            None if sub == "reflog" => Ok(()),
            other => Err(refuse("an option that writes or runs", what(other.unwrap_or("push")))),
        },
        "symbolic-ref" => options(args, "d", &["--delete"], Some(1), "git symbolic-ref"),
        "config" if args.len() == 1 && args[0].known && !args[0].text.starts_with('-') => Ok(()),
        "config" => {
            let reading = [
                "--get",
                "--get-all",
                "--get-regexp",
                "--list",
                "-l",
                "--get-urlmatch",
                "--show-origin",
                "--show-scope",
                "--global",
                "--local",
                "--system",
                "--name-only",
                "--null",
                "-z",
                "--type",
                "--default",
            ];
            let get_sub = args.first().is_some_and(|w| matches!(w.text.as_str(), "get" | "list"));
            let flags_read = args
                .iter()
                .filter(|w| w.text.starts_with('-'))
                .all(|w| reading.iter().any(|r| w.text == *r || w.text.starts_with(&format!("{r}="))));
            let lists = has(&["--get", "--get-all", "--get-regexp", "--list", "-l", "--get-urlmatch"]);
            if flags_read && (lists || get_sub) && args.iter().all(|w| w.known) {
                Ok(())
            } else {
                Err(refuse("an option that writes or runs", what("(setting)")))
            }
        }
        other => Err(refuse("a program not modelled read-only", format!("git {other}"))),
    }
}
