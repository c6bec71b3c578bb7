//! An exec as the rules read it: the program's name and its arguments as one simple command, in
//! every reading the kernel or the program itself may act on.
//!
//! - The name is the basename of the file executed, of `argv[0]` (a multi-call binary such as
//!   busybox runs the applet `argv[0]` names) and of the file with its symlinks followed; each
//!   is a reading, and a rule that meets any of them refuses the exec.
//! - A shell (`sh`, `bash`, …) is read with its options only: its script runs its builtins in
//!   the shell and every program it starts is an exec checked on its own, so the script's text
//!   is not the exec's business (the parse-time hook reads it).
//! - git with a subcommand that is an alias is read with the alias expanded, looked up with the
//!   exec's own cwd and git environment by the git the guard found at its start (never by the
//!   program being executed); a shell alias (`!…`) reads as the shell git starts.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::rules::quote_line;

/// Shells whose script operand is not part of the exec's reading.
const SHELLS: &[&str] =
    &["sh", "bash", "dash", "zsh", "ksh", "ksh93", "mksh", "lksh", "pdksh", "oksh", "loksh", "ash", "yash", "posh"];

/// git's global options that take the next word as their value.
const GIT_WITH_VALUE: &[&str] =
    &["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--super-prefix", "--config-env", "--list-cmds"];

/// The environment variables a git config lookup sees from the exec (nothing that loads code).
fn git_variable(name: &str) -> bool {
    name == "HOME"
        || name == "XDG_CONFIG_HOME"
        || name.starts_with("GIT_CONFIG")
        || matches!(
            name,
            "GIT_DIR"
                | "GIT_WORK_TREE"
                | "GIT_COMMON_DIR"
                | "GIT_CEILING_DIRECTORIES"
                | "GIT_DISCOVERY_ACROSS_FILESYSTEM"
                | "GIT_NAMESPACE"
        )
}

/// One exec as read from the process at its stop.
#[derive(Debug)]
pub(crate) struct Exec {
    /// The file executed: absolute when the process's cwd was known.
    pub(crate) file: PathBuf,
    /// Its arguments, `argv[0]` first (lossy UTF-8).
    pub(crate) argv: Vec<String>,
    /// The process's working directory.
    pub(crate) cwd: Option<PathBuf>,
    /// The file with its symlinks followed (`None` when it cannot be).
    pub(crate) real: Option<PathBuf>,
}

/// The last path component (`/usr/bin/git` → `git`).
pub(crate) fn basename(name: &str) -> &str {
    name.rsplit('/').next().unwrap_or(name)
}

impl Exec {
    /// The names the program runs under: the file's, `argv[0]`'s and the real file's basenames.
    fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = Vec::with_capacity(3);
        let mut add = |name: &str| {
            if !name.is_empty() && !names.iter().any(|n| n == name) {
                names.push(name.to_owned());
            }
        };
        add(basename(&self.file.to_string_lossy()));
        if let Some(arg0) = self.argv.first() {
            add(basename(arg0));
        }
        if let Some(real) = &self.real {
            add(basename(&real.to_string_lossy()));
        }
        names
    }

    /// Whether a reading depends on the exec's environment (git's, for its aliases).
    pub(crate) fn reads_environment(&self) -> bool {
        self.names().iter().any(|n| n == "git")
    }

    /// The command lines the rules are asked about; `env` gives the exec's environment (asked
    /// only for git); `git` is the git that looks aliases up.
    pub(crate) fn readings(
        &self,
        git: Option<&Path>,
        env: &mut dyn FnMut() -> Vec<(OsString, OsString)>,
    ) -> Vec<String> {
        let names = self.names();
        let args = self.argv.get(1..).unwrap_or_default();
        let mut lines = Vec::with_capacity(names.len());
        for name in names {
            let words: Vec<&str> = std::iter::once(name.as_str()).chain(args.iter().map(String::as_str)).collect();
            let line = match words[0] {
                "git" => git_reading(&words, git, self.cwd.as_deref(), env),
                _ => quote_line(&shell_reading(&words)),
            };
            if !lines.contains(&line) {
                lines.push(line);
            }
        }
        lines
    }
}

/// A shell's words with its script left out: the program and its options, then `:` for a
/// `-c` script, or the script file; a shell reading its commands from standard input reads as
/// `<shell> -c :` (`bash -c 'touch x' sh` reads `bash -c :`, `bash -o pipefail x.sh a` reads
/// `bash -o pipefail x.sh`); any other program's words as they are (`busybox sh -c …` is a shell).
fn shell_reading<'w>(words: &[&'w str]) -> Vec<&'w str> {
    let at = match words {
        [first, ..] if SHELLS.contains(first) => 0,
        [first, second, ..] if *first == "busybox" && SHELLS.contains(second) => 1,
        _ => return words.to_vec(),
    };
    let mut end = at + 1;
    let (mut script_in_argument, mut script_on_stdin) = (false, false);
    while let Some(w) = words.get(end) {
        if *w == "--" {
            end += 1;
            break;
        }
        if !(w.starts_with('-') || w.starts_with('+')) || *w == "-" {
            break;
        }
        let short = w.starts_with('-') && !w.starts_with("--");
        script_in_argument |= short && w.contains('c');
        script_on_stdin |= short && w.contains('s');
        end += 1;
        if matches!(*w, "-o" | "+o" | "-O" | "+O") {
            end = (end + 1).min(words.len());
        }
    }
    match words.get(end) {
        _ if script_in_argument => words[..end].iter().copied().chain([":"]).collect(),
        Some(file) if !script_on_stdin => words[..end].iter().copied().chain([*file]).collect(),
        // Commands on standard input: read like an empty `-c` script, whatever the options.
        _ => words[..=at].iter().copied().chain(["-c", ":"]).collect(),
    }
}

/// git's words with an alias subcommand expanded (up to a few aliases deep).
fn git_reading(
    words: &[&str],
    git: Option<&Path>,
    cwd: Option<&Path>,
    env: &mut dyn FnMut() -> Vec<(OsString, OsString)>,
) -> String {
    let mut sub_at = 1;
    while let Some(w) = words.get(sub_at) {
        if !w.starts_with('-') {
            break;
        }
        sub_at += if GIT_WITH_VALUE.contains(w) { 2 } else { 1 };
    }
    let (Some(sub), Some(git)) = (words.get(sub_at), git) else { return quote_line(words) };
    let globals: Vec<&str> =
        words[1..sub_at.min(words.len())].iter().copied().filter(|w| !matches!(*w, "-p" | "--paginate")).collect();
    let vars: Vec<(OsString, OsString)> =
        env().into_iter().filter(|(k, _)| git_variable(&k.to_string_lossy())).collect();
    let mut name = (*sub).to_owned();
    let mut expansion: Option<String> = None;
    for _ in 0..8 {
        let Some(value) = git_alias(git, &globals, &name, cwd, &vars) else { break };
        if value.trim_start().starts_with('!') {
            // git runs a shell alias with `sh -c`: that shell is the exec's reading.
            return String::from("sh -c");
        }
        let first = value.split_whitespace().next().unwrap_or_default().to_owned();
        expansion = Some(match expansion {
            None => value,
            Some(previous) => format!("{value}{}", previous.strip_prefix(name.as_str()).unwrap_or_default()),
        });
        if first.is_empty() || first == name {
            break;
        }
        name = first;
    }
    match expansion {
        None => quote_line(words),
        Some(alias) => {
            let mut line = quote_line(&words[..sub_at]);
            line.push(' ');
            line.push_str(&alias);
            if sub_at + 1 < words.len() {
                line.push(' ');
                line.push_str(&quote_line(&words[sub_at + 1..]));
            }
            line
        }
    }
}

/// `alias.<name>` as git would see it with `globals` in `cwd` under `vars`; `None` when unset or
/// when the lookup fails.
fn git_alias(
    git: &Path,
    globals: &[&str],
    name: &str,
    cwd: Option<&Path>,
    vars: &[(OsString, OsString)],
) -> Option<String> {
    let mut cmd = Command::new(git);
    cmd.args(globals)
        .args(["config", "--get", &format!("alias.{name}")])
        .env_clear()
        .envs(vars.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stderr(Stdio::null());
    if let Some(cwd) = cwd {
        cmd.current_dir(cwd);
    }
    let out = cmd.output().ok()?;
    let value = String::from_utf8_lossy(&out.stdout).trim_end_matches('\n').to_owned();
    (out.status.success() && !value.trim().is_empty()).then_some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shell_is_read_with_its_options_only() {
        let cases: &[(&[&str], &[&str])] = &[
            (&["bash", "-c", "touch x"], &["bash", "-c", ":"]),
            (&["sh", "-e", "-c", "touch x", "sh"], &["sh", "-e", "-c", ":"]),
            (&["bash", "-o", "pipefail", "-c", "x"], &["bash", "-o", "pipefail", "-c", ":"]),
            (&["bash", "--norc", "script.sh", "a"], &["bash", "--norc", "script.sh"]),
            (&["busybox", "sh", "-c", "x"], &["busybox", "sh", "-c", ":"]),
            (&["touch", "-c", "x"], &["touch", "-c", "x"]),
            (&["bash"], &["bash", "-c", ":"]),
            (&["bash", "-s", "a"], &["bash", "-c", ":"]),
            (&["bash", "-e"], &["bash", "-c", ":"]),
        ];
        for (words, reading) in cases {
            assert_eq!(shell_reading(words), *reading, "{words:?}");
        }
    }

    #[test]
    fn every_name_of_the_exec_is_a_reading() {
        let exec = Exec {
            file: PathBuf::from("/usr/local/bin/rm"),
            argv: vec!["rm".into(), "-rf".into(), "/".into()],
            cwd: None,
            real: Some(PathBuf::from("/bin/busybox")),
        };
        let readings = exec.readings(None, &mut Vec::new);
        assert_eq!(readings, vec!["rm -rf /".to_owned(), "busybox -rf /".to_owned()]);
    }
}
