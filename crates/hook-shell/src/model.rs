//! The model of known programs (DESIGN-0.3 §1): which programs only read their arguments as data
//! (inert), which run their arguments as a command (runners), and — by elimination — which the
//! analysis does not model. A program the analysis does not model may run whatever its arguments
//! name, so a rule about a program its arguments name is uncertain for it (see `walk.rs`).

use crate::table::{LOADER_ARGV0, LOADER_FLAGS, LOADER_WITH_VALUE, is_loader};
use crate::word::Word;

/// Programs and builtins that never run a command given in their arguments: their words are data.
/// (Wrappers, shells, interpreters, git, find and the programs of `hidden.rs` are modelled where
/// they are handled; `command`, `type`, `which` and `hash` only look names up, except
/// `command NAME …`, a wrapper, and `hash -p`, a rebinding.)
#[rustfmt::skip]
const INERT: &[&str] = &[
    "(( ))", ":", "[", "[[", "]]", "alias", "arch", "b2sum", "base32", "base64", "basename", "basenc", "bg", "break", "cal",
    "case", "cat", "cd", "chgrp", "chmod", "chown", "cksum", "clear", "cmp", "column", "comm", "continue", "cp",
    "csplit", "cut", "date", "dd", "declare", "df", "diff", "dirname", "dirs", "disown", "du", "echo", "egrep",
    "esac", "exit", "expand", "export", "expr", "factor", "false", "fg", "fgrep", "file", "fmt", "fold", "for",
    "free", "getconf", "getent", "getopts", "grep", "groups", "gunzip", "gzip", "hash", "head", "help", "hexdump",
    "history", "host", "hostname", "id", "in", "install", "jobs", "join", "jq", "kill", "killall", "let", "link",
    "ln", "local", "locale", "logger", "logname", "ls", "lsblk", "lsof", "md5sum", "mkdir", "mkfifo", "mknod",
    "mktemp", "mount", "mv", "nl", "nproc", "numfmt", "od", "paste", "pathchk", "pgrep", "pidof", "pkill", "popd",
    "pr", "printenv", "printf", "ps", "ptx", "pushd", "pwd", "read", "readarray", "readlink", "readonly",
    "realpath", "return", "rg", "rm", "rmdir", "select", "seq", "set", "sha1sum", "sha224sum", "sha256sum",
    "sha384sum", "sha512sum", "shift", "shopt", "shred", "shuf", "sleep", "sort", "split", "stat", "stty", "sum",
    "sync", "tac", "tail", "tee", "test", "touch", "tput", "tr", "tree", "true", "truncate", "tsort", "tty", "type",
    "typeset", "ulimit", "umask", "umount", "unalias", "uname", "unexpand", "uniq", "unlink", "unset", "unxz",
    "unzip", "uptime", "users", "wait", "wc", "whereis", "which", "who", "whoami", "xxd", "xz", "yes", "zcat",
];

/// A word `echo` prints as it is and that neither splits nor globs: letters, digits and `._/:=+-`,
/// not starting with `-` (an option to some echo).
pub(crate) fn plain(word: &str) -> bool {
    !word.is_empty()
        && !word.starts_with('-')
        && word.chars().all(|c| c.is_ascii_alphanumeric() || "._/:=+-".contains(c))
}

/// The output of a command substitution whose body is `echo WORD` and nothing else, WORD plain
/// ([`plain`]): the lexer reads `$(echo ls)` as the word `ls` (bash's `echo` prints WORD and a
/// newline, which the substitution drops).
pub(crate) fn printed_word(body: &str) -> Option<&str> {
    let body = body.trim_matches([' ', '\t']);
    let word = body.strip_prefix("echo")?.strip_prefix([' ', '\t'])?.trim_start_matches([' ', '\t']);
    plain(word).then_some(word)
}

/// What `echo WORD…` prints when every word is known and plain: the words, a space between, and a
/// newline (what the command it pipes into reads).
pub(crate) fn echo_output(words: &[Word]) -> Option<String> {
    let (echo, args) = words.split_first()?;
    let known = echo.known && echo.text == "echo" && !args.is_empty();
    (known && args.iter().all(|w| w.known && !w.glob && plain(&w.text)))
        .then(|| args.iter().map(|w| w.text.as_str()).collect::<Vec<_>>().join(" ") + "\n")
}

/// The wrappers the walk strips (`walk.rs`, `unwrap`): the command they wrap is analysed there, so
/// their own words are accounted for.
#[rustfmt::skip]
const WRAPPERS: &[&str] = &["builtin", "chronic", "command", "coproc", "doas", "env", "exec", "flock", "ionice",
    "nice", "nohup", "setsid", "stdbuf", "sudo", "time", "timeout", "unbuffer", "xargs"];

/// Programs that run the command their arguments name, in argv form, after options this model does
/// not spell out: every later word that does not look like an option may be where that command
/// starts (`strace -o log touch x`, `chrt -f 99 touch x`, `busybox touch x`).
#[rustfmt::skip]
const RUNNERS: &[&str] = &[
    "bunx", "busybox", "bwrap", "caffeinate", "catchsegv", "chroot", "chrt", "cpulimit", "dbus-launch",
    "dbus-run-session", "entr", "faketime", "fakeroot", "firejail", "flatpak-spawn", "ltrace", "numactl",
    "npx", "nsenter", "pkexec", "pnpx", "prlimit", "proot", "proxychains", "proxychains4", "setarch",
    "linux32", "linux64", "setpriv", "sg", "ssh-agent", "strace", "systemd-run", "taskset", "toybox", "torsocks",
    "trickle", "tsocks", "unshare", "uvx", "valgrind", "xterm", "xvfb-run",
];

/// Programs whose named subcommand runs the command in its arguments (`npm exec touch x`,
/// `docker exec c git push`, `uv run touch x`).
#[rustfmt::skip]
const SUBCOMMAND_RUNNERS: &[(&str, &[&str])] = &[
    ("asdf", &["exec"]), ("bun", &["x", "run", "exec"]), ("bundle", &["exec"]), ("conda", &["run"]),
    ("direnv", &["exec"]), ("docker", &["run", "exec", "create"]), ("hatch", &["run"]), ("kubectl", &["exec", "run", "debug"]),
    ("lxc", &["exec"]), ("mamba", &["run"]), ("micromamba", &["run"]), ("mise", &["exec", "x"]),
    ("nerdctl", &["run", "exec"]), ("npm", &["exec", "x"]), ("pdm", &["run"]), ("perf", &["record", "stat", "trace", "ftrace"]), ("pipenv", &["run"]),
    ("pipx", &["run"]), ("pnpm", &["exec", "dlx"]), ("podman", &["run", "exec", "create"]), ("poetry", &["run"]),
    ("rye", &["run"]), ("tmux", &["new-session", "new", "new-window", "neww", "split-window", "splitw", "respawn-pane"]),
    ("uv", &["run", "tool"]), ("yarn", &["exec", "dlx"]),
];

/// Programs whose named subcommand only reads its words as data when no option follows it: an
/// option may set what runs later (`go env -w GOFLAGS=-toolexec=…`, `apt-cache -o …`), so a
/// word starting with `-` leaves the program unmodelled.
#[rustfmt::skip]
const SUBCOMMAND_INERT: &[(&str, &[&str])] = &[
    ("apt-cache", &["depends", "madison", "pkgnames", "policy", "rdepends", "search", "show", "showpkg", "showsrc", "stats"]),
    ("brew", &["deps", "desc", "home", "info", "leaves", "list", "ls", "outdated", "search", "uses"]),
    ("go", &["env", "help", "version"]),
];

/// Runner subcommands whose options this model reads exactly: `(program, subcommand, options that
/// take the next word as their value, options that stand alone)`. perf's option parser stops at the
/// first operand, and an option that takes a value takes the next word whatever it holds, so the
/// command starts exactly at the first word that is neither. Options left out (`perf stat --pre`,
/// which runs a command line of its own, `perf record -S`, whose value is optional) leave the start
/// to [`Kind::Runner`]'s reading of every later word.
#[rustfmt::skip]
const EXACT_RUNNERS: &[(&str, &str, &[&str], &[&str])] = &[
    ("perf", "stat",
        &["-e", "--event", "-M", "--metrics", "-o", "--output", "-x", "--field-separator", "-C", "--cpu", "-G",
            "--cgroup", "-r", "--repeat", "-I", "--interval-print"],
        &["-a", "--all-cpus", "-A", "--no-aggr", "-j", "--json-output", "-B", "--big-num", "-n", "--null", "-v",
            "--verbose", "--quiet", "-S", "--sync"]),
    ("perf", "record",
        &["-e", "--event", "-o", "--output", "-C", "--cpu", "-c", "--count", "-F", "--freq", "-m", "--mmap-pages",
            "-j", "--branch-filter", "--call-graph", "-G", "--cgroup"],
        &["-a", "--all-cpus", "-g", "-q", "--quiet", "-v", "--verbose", "-s", "--stat", "-n", "--no-samples", "-R",
            "--raw-samples", "-B", "--no-buildid", "-N", "--no-buildid-cache", "-T", "--timestamp", "-P", "--period",
            "-d", "--data", "--no-bpf-event", "--user-callchains", "--per-thread", "--phys-data"]),
];

/// Where the command a runner runs starts, exactly, when the runner is one of [`EXACT_RUNNERS`]
/// (`from` is the word after its subcommand) and every word before the command is an option of its
/// table or such an option's value. `None` when that cannot be told: an option not in the table, a
/// word of unknown value where an option may stand, a value that may be several words (unquoted
/// `$x`, `"$@"`, a glob), or `perf stat record` (a subcommand of `stat`).
pub(crate) fn exact_start(words: &[Word], from: usize) -> Option<usize> {
    let program = crate::word::basename(&words.first()?.text);
    let sub = words.get(from.checked_sub(1)?)?.text.as_str();
    let (_, _, with_value, flags) = EXACT_RUNNERS.iter().find(|(p, s, ..)| *p == program && *s == sub)?;
    let mut i = from;
    loop {
        let w = words.get(i)?;
        let t = w.text.as_str();
        if !w.known || w.glob {
            return None;
        }
        if t == "--" {
            return (i + 1 < words.len()).then_some(i + 1);
        }
        if !t.starts_with('-') || t == "-" {
            // `perf stat rec …`, `perf stat rep …`: stat's own subcommands, by any prefix.
            return (!(t.len() > 2 && ("record".starts_with(t) || "report".starts_with(t)))).then_some(i);
        }
        if flags.contains(&t) {
            i += 1;
        } else if with_value.contains(&t) {
            let value = words.get(i + 1)?;
            if value.glob || value.splits {
                return None;
            }
            i += 2;
        } else if t.starts_with("--") && t.split_once('=').is_some_and(|(name, _)| with_value.contains(&name)) {
            i += 1;
        } else {
            return None;
        }
    }
}

/// Where the program a loader's `words` run starts, and the word its `--argv0` names (the name
/// the program runs under), read by the loader's grammar: its options come first, each option of
/// [`LOADER_WITH_VALUE`] takes the next word, `--` ends them, and any other word is the program
/// (glibc refuses another `--word`; a word of one dash is a program's name). `None` when that
/// cannot be told (a word of unknown value, or a glob, where an option may stand; an option it
/// does not know) or when there is no program.
pub(crate) fn loader_start(words: &[Word]) -> Option<(usize, Option<usize>)> {
    let (mut i, mut argv0) = (1, None);
    loop {
        let w = words.get(i)?;
        let t = w.text.as_str();
        if !w.known || w.glob || w.splits {
            return None;
        }
        if t == "--" {
            return (i + 1 < words.len()).then_some((i + 1, argv0));
        }
        if LOADER_FLAGS.contains(&t) {
            i += 1;
        } else if LOADER_WITH_VALUE.contains(&t) {
            let value = words.get(i + 1)?;
            if value.glob || value.splits {
                return None;
            }
            if t == LOADER_ARGV0 {
                argv0 = Some(i + 1);
            }
            i += 2;
        } else if t.starts_with("--") {
            return None;
        } else {
            return Some((i, argv0));
        }
    }
}

/// Whether `path`, run as a program, is a file only a descriptor names (`/dev/fd/3`,
/// `/proc/self/fd/3`, `/dev/stdin`): what it is cannot be read from the command line.
pub(crate) fn is_descriptor(path: &str) -> bool {
    path.starts_with("/dev/fd/")
        || matches!(path, "/dev/stdin" | "/dev/stdout" | "/dev/stderr")
        || path.starts_with("/proc/") && path.contains("/fd/")
}

/// What the model knows of a program (by its base name, the command's first word).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Its arguments are data.
    Inert,
    /// It runs a command given in argv form at one of its later words; `from` is the first word
    /// that may start it.
    Runner { from: usize },
    /// Not modelled here (it may still be handled elsewhere: shells, interpreters, git, …).
    Other,
}

/// What `words` (a command's words, program first, as texts) is, to the model.
pub(crate) fn kind(words: &[&str]) -> Kind {
    let Some(&name) = words.first() else { return Kind::Inert };
    let name = crate::word::basename(name);
    match name {
        // `command -v x`, `command -V x` look a name up; `command x …` runs it (a wrapper).
        "command" if words.get(1).is_some_and(|w| w.starts_with("-v") || w.starts_with("-V")) => Kind::Inert,
        // `hash -p /path name` rebinds a name: not inert.
        "hash" if words.iter().any(|w| w.starts_with('-') && w.contains('p')) => Kind::Other,
        // `man` runs a pager and a browser it is told of (`-P`, `--pager`, `-H`, `--html`; the
        // rest of its options take a page's name, section or locale): without them, its words
        // are pages.
        "man" => {
            // Short options cluster (`-aP less`) and long ones may be abbreviated (`--pa`).
            let runs = |w: &str| match w.strip_prefix("--") {
                Some(long) => long.starts_with('p') || long.starts_with('h'),
                None => w.starts_with('-') && w[1..].contains(['P', 'H']),
            };
            if words.iter().skip(1).any(|w| runs(w)) { Kind::Other } else { Kind::Inert }
        }
        _ if INERT.binary_search(&name).is_ok() || WRAPPERS.contains(&name) => Kind::Inert,
        _ if RUNNERS.contains(&name) || is_loader(name) => Kind::Runner { from: 1 },
        _ if SUBCOMMAND_INERT.iter().any(|(program, subs)| {
            *program == name
                && words.get(1).is_some_and(|sub| subs.contains(sub))
                && words.iter().skip(2).all(|w| !w.starts_with('-'))
        }) =>
        {
            Kind::Inert
        }
        _ => {
            let Some((_, subs)) = SUBCOMMAND_RUNNERS.iter().find(|(program, _)| *program == name) else {
                return Kind::Other;
            };
            // The subcommand is the first word that is not an option.
            let at = words.iter().skip(1).position(|w| !w.starts_with('-')).map(|p| p + 1);
            match at {
                Some(at) if subs.contains(&words[at]) => Kind::Runner { from: at + 1 },
                _ => Kind::Other,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_inert_list_is_sorted_so_it_can_be_searched() {
        assert!(INERT.windows(2).all(|w| w[0] < w[1]), "{:?}", INERT.windows(2).find(|w| w[0] >= w[1]));
    }

    #[test]
    fn each_program_is_what_the_model_says() {
        let cases: &[(&[&str], Kind)] = &[
            (&["echo", "git", "push"], Kind::Inert),
            (&["/bin/cat", "x"], Kind::Inert),
            (&["command", "-v", "curl"], Kind::Inert),
            (&["command", "curl"], Kind::Inert),
            (&["hash", "-p", "/bin/touch", "ls"], Kind::Other),
            (&["strace", "-f", "touch", "x"], Kind::Runner { from: 1 }),
            (&["npm", "exec", "--", "touch", "x"], Kind::Runner { from: 2 }),
            (&["npm", "--yes", "x", "touch"], Kind::Runner { from: 3 }),
            (&["npm", "test"], Kind::Other),
            (&["make", "touch"], Kind::Other),
            (&["apt-cache", "policy", "cryptsetup"], Kind::Inert),
            (&["apt-cache", "-o", "Dir=/x", "policy", "cryptsetup"], Kind::Other),
            (&["brew", "deps", "wget"], Kind::Inert),
            (&["brew", "bundle", "exec", "wget"], Kind::Other),
            (&["go", "env"], Kind::Inert),
            (&["go", "env", "-w", "GOFLAGS=-toolexec=touch"], Kind::Other),
            (&["go", "run", "touch"], Kind::Other),
        ];
        for (words, kind) in cases {
            assert_eq!(super::kind(words), *kind, "{words:?}");
        }
    }
}
