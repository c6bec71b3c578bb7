//! An exec as the rules read it: the program's name and its arguments as one simple command, in
//! every reading the kernel or the program itself may act on.
//!
//! - The name is the basename of the file executed, of `argv[0]` (a multi-call binary such as
//!   busybox runs the applet `argv[0]` names) and of the file with its symlinks followed; each
//!   is a reading, and a rule that meets any of them refuses the exec.
//! - A shell (`sh`, `bash`, …) is read with its options only: its script runs its builtins in
//!   the shell and every program it starts is an exec checked on its own. Its `-c` script is
//!   read once more, whole ([`Readings::scripts`]), for what no single exec shows (`curl … |
//!   sh`): there a certain match refuses, and an uncertain one is left to the execs it makes.
//! - The program the file is by identity (see the `identity` module: a renamed copy of git is
//!   git) is one more name, unless `argv[0]` already names it in git's dashed form (`git-push`).
//! - The dynamic loader's exec is read as the program it runs (`loaded`), and as itself with its
//!   options only: the program's words are that program's, read on what it is.
//! - git's plumbing for an act is read as its porcelain as well: `send-pack` and `http-push` are
//!   `push` ([`GIT_PLUMBING`]).
//! - git with a subcommand that is an alias is read with the alias expanded, looked up with the
//!   exec's own cwd and git environment by the git the guard found at its start (never by the
//!   program being executed); a shell alias (`!…`) reads as the shell git starts. A builtin
//!   command of that git (`status`, `commit`) is never looked up when the exec runs that very
//!   file: git ignores an alias that would hide one ([`Git`]).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use hook_shell::table::{
    GIT_GLOBAL_WITH_VALUE, GIT_PLUMBING, LOADER, MULTI_CALL, MULTI_CALL_SHELLS, SHELLS, is_loader,
};

use crate::rules::quote_line;

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
    /// The program the file is, by identity (`None`: none the rules name).
    pub(crate) identity: Option<String>,
    /// For the dynamic loader: the program it runs, or why that cannot be known.
    pub(crate) loaded: Option<Result<Box<Exec>, String>>,
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
        if let Some(identity) = &self.identity {
            // git run as `git-push` is that command already; as any other name it is `git`.
            let arg0 = self.argv.first().map(|a| basename(a)).unwrap_or_default();
            if !arg0.strip_prefix(identity.as_str()).is_some_and(|rest| rest.starts_with('-')) {
                add(identity);
            }
        }
        names
    }

    /// Whether the exec is the dynamic loader's (by name or by identity).
    pub(crate) fn is_loader(&self) -> bool {
        self.identity.as_deref() == Some(LOADER) || self.names().iter().any(|n| is_loader(n))
    }

    /// Whether a reading depends on the exec's environment (git's, for its aliases).
    pub(crate) fn reads_environment(&self) -> bool {
        self.names().iter().any(|n| n == "git")
            || matches!(&self.loaded, Some(Ok(program)) if program.reads_environment())
    }

    /// The command lines the rules are asked about; `env` gives the exec's environment (asked
    /// only for git); `git` is the git that looks aliases up.
    pub(crate) fn readings(&self, git: Option<&Git>, env: &mut dyn FnMut() -> Vec<(OsString, OsString)>) -> Readings {
        let names = self.names();
        let args = match &self.loaded {
            // The loader's own reading is its options: the program it runs is read below as
            // itself (what a descriptor or a path names, known here, not guessed from its words).
            Some(Ok(_)) => {
                let (at, _) = crate::identity::loader_operand(&self.argv);
                self.argv.get(1..at.max(1)).unwrap_or_default()
            }
            _ => self.argv.get(1..).unwrap_or_default(),
        };
        let mut readings = Readings { lines: Vec::with_capacity(names.len()), scripts: Vec::new() };
        for name in names {
            let words: Vec<&str> = std::iter::once(name.as_str()).chain(args.iter().map(String::as_str)).collect();
            let porcelain = plumbing(&words);
            for words in std::iter::once(words).chain(porcelain) {
                let line = match words[0] {
                    "git" => git_reading(&words, git.map(|git| (git, self.real.as_deref())), self.cwd.as_deref(), env),
                    _ => {
                        let (reading, script) = shell_reading(&words);
                        readings.add_script(script);
                        quote_line(&reading)
                    }
                };
                readings.add_line(line);
            }
        }
        if let Some(Ok(program)) = &self.loaded {
            let Readings { lines, scripts } = program.readings(git, env);
            lines.into_iter().for_each(|line| readings.add_line(line));
            scripts.iter().for_each(|script| readings.add_script(Some(script)));
        }
        readings
    }
}

/// What the rules are asked about one exec.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Readings {
    /// The exec as simple commands (a shell without its script): any match refuses it.
    pub(crate) lines: Vec<String>,
    /// A shell's `-c` script, whole: a certain match refuses the exec. An uncertain one does
    /// not: whatever the script runs is an exec of its own, checked then.
    pub(crate) scripts: Vec<String>,
}

impl Readings {
    fn add_line(&mut self, line: String) {
        if !self.lines.contains(&line) {
            self.lines.push(line);
        }
    }

    fn add_script(&mut self, script: Option<&str>) {
        if let Some(script) = script.filter(|s| !self.scripts.iter().any(|known| known == s)) {
            self.scripts.push(script.to_owned());
        }
    }
}

/// git's plumbing `words` as their porcelain (`git send-pack …` → `git push …`, `git-http-push …`
/// → `git push …`), if they are plumbing for one.
fn plumbing<'w>(words: &[&'w str]) -> Option<Vec<&'w str>> {
    let porcelain = |sub: &str| GIT_PLUMBING.iter().find(|(p, _)| *p == sub).map(|(_, porcelain)| *porcelain);
    if let Some(porcelain) = words[0].strip_prefix("git-").and_then(porcelain) {
        return Some(["git", porcelain].into_iter().chain(words[1..].iter().copied()).collect());
    }
    if words[0] != "git" {
        return None;
    }
    let at = subcommand_at(words);
    let porcelain = porcelain(words.get(at)?)?;
    let mut out = words.to_vec();
    out[at] = porcelain;
    Some(out)
}

/// Where git's subcommand is in `words` (after its global options).
fn subcommand_at(words: &[&str]) -> usize {
    let mut at = 1;
    while let Some(w) = words.get(at) {
        if !w.starts_with('-') {
            break;
        }
        at += if GIT_GLOBAL_WITH_VALUE.contains(w) { 2 } else { 1 };
    }
    at
}

/// A shell's words with its script left out: the program and its options, then `:` for a
/// `-c` script, or the script file; a shell reading its commands from standard input reads as
/// `<shell> -c :` (`bash -c 'touch x' sh` reads `bash -c :`, `bash -o pipefail x.sh a` reads
/// `bash -o pipefail x.sh`); any other program's words as they are (`busybox sh -c …` is a shell).
/// Second, the `-c` script (`touch x`), if there is one.
fn shell_reading<'w>(words: &[&'w str]) -> (Vec<&'w str>, Option<&'w str>) {
    let at = match words {
        [first, ..] if SHELLS.contains(first) => 0,
        [first, second, ..] if *first == MULTI_CALL && MULTI_CALL_SHELLS.contains(second) => 1,
        _ => return (words.to_vec(), None),
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
        script if script_in_argument => (words[..end].iter().copied().chain([":"]).collect(), script.copied()),
        Some(file) if !script_on_stdin => (words[..end].iter().copied().chain([*file]).collect(), None),
        // Commands on standard input: read like an empty `-c` script, whatever the options.
        _ => (words[..=at].iter().copied().chain(["-c", ":"]).collect(), None),
    }
}

/// The git the guard looks aliases up with (found on its `PATH`), and its builtin commands, asked
/// once (`git --list-cmds=builtins`): git runs a builtin before it looks for an alias, so no
/// alias can hide one (`git -c alias.status='!x' status` runs `status`).
#[derive(Debug)]
pub(crate) struct Git {
    path: PathBuf,
    /// The file's device and inode (the command's namespace sees the same file under any path).
    file: Option<(u64, u64)>,
    builtins: OnceLock<Vec<String>>,
}

/// A file's device and inode, its symlinks followed.
fn file_id(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt as _;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

impl Git {
    pub(crate) fn new(path: PathBuf) -> Git {
        Git { file: file_id(&path), path, builtins: OnceLock::new() }
    }

    /// Whether `sub` is one of this git's builtins and the exec (its file with symlinks followed:
    /// `real`) is this very git: another git may have other builtins, and is looked up each time.
    fn builtin(&self, real: Option<&Path>, sub: &str) -> bool {
        let same = self.file.is_some() && real.and_then(file_id) == self.file;
        same && self.builtins().iter().any(|b| b == sub)
    }

    fn builtins(&self) -> &[String] {
        self.builtins.get_or_init(|| {
            let out = Command::new(&self.path)
                .arg("--list-cmds=builtins")
                .env_clear()
                .stdin(Stdio::null())
                .stderr(Stdio::null())
                .output();
            match out {
                Ok(out) if out.status.success() => {
                    String::from_utf8_lossy(&out.stdout).lines().map(str::to_owned).collect()
                }
                _ => Vec::new(),
            }
        })
    }
}

/// git's words with an alias subcommand expanded (up to a few aliases deep); `git` is the git
/// that looks aliases up, with the exec's file (symlinks followed).
fn git_reading(
    words: &[&str],
    git: Option<(&Git, Option<&Path>)>,
    cwd: Option<&Path>,
    env: &mut dyn FnMut() -> Vec<(OsString, OsString)>,
) -> String {
    let sub_at = subcommand_at(words);
    let (Some(sub), Some((git, real))) = (words.get(sub_at), git) else { return quote_line(words) };
    if git.builtin(real, sub) {
        return quote_line(words);
    }
    let globals: Vec<&str> =
        words[1..sub_at.min(words.len())].iter().copied().filter(|w| !matches!(*w, "-p" | "--paginate")).collect();
    let vars: Vec<(OsString, OsString)> =
        env().into_iter().filter(|(k, _)| git_variable(&k.to_string_lossy())).collect();
    let mut name = (*sub).to_owned();
    let mut expansion: Option<String> = None;
    for _ in 0..8 {
        let Some(value) = git_alias(&git.path, &globals, &name, cwd, &vars) else { break };
        if value.trim_start().starts_with('!') {
            // git runs a shell alias with `sh -c` (or execs its first word): read as a shell
            // given a command line of unknown text, which is uncertain.
            return String::from("sh -c \"$ALIAS\"");
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
    fn a_shell_is_read_with_its_options_only_and_its_c_script_whole_beside() {
        let cases: &[(&[&str], &[&str], Option<&str>)] = &[
            (&["bash", "-c", "touch x"], &["bash", "-c", ":"], Some("touch x")),
            (&["sh", "-e", "-c", "touch x", "sh"], &["sh", "-e", "-c", ":"], Some("touch x")),
            (&["bash", "-o", "pipefail", "-c", "x"], &["bash", "-o", "pipefail", "-c", ":"], Some("x")),
            (&["bash", "-c", "-l", "curl x | sh"], &["bash", "-c", "-l", ":"], Some("curl x | sh")),
            (&["bash", "-lc", "x", "a"], &["bash", "-lc", ":"], Some("x")),
            (&["bash", "--norc", "script.sh", "a"], &["bash", "--norc", "script.sh"], None),
            (&["busybox", "sh", "-c", "x"], &["busybox", "sh", "-c", ":"], Some("x")),
            (&["touch", "-c", "x"], &["touch", "-c", "x"], None),
            (&["bash"], &["bash", "-c", ":"], None),
            (&["bash", "-c"], &["bash", "-c", ":"], None),
            (&["bash", "-s", "a"], &["bash", "-c", ":"], None),
            (&["bash", "-e"], &["bash", "-c", ":"], None),
        ];
        for (words, reading, script) in cases {
            assert_eq!(shell_reading(words), (reading.to_vec(), *script), "{words:?}");
        }
    }

    #[test]
    fn every_name_of_the_exec_is_a_reading() {
        let exec = Exec {
            file: PathBuf::from("/usr/local/bin/rm"),
            argv: vec!["rm".into(), "-rf".into(), "/".into()],
            cwd: None,
            real: Some(PathBuf::from("/bin/busybox")),
            identity: None,
            loaded: None,
        };
        let readings = exec.readings(None, &mut Vec::new);
        assert_eq!(readings.lines, vec!["rm -rf /".to_owned(), "busybox -rf /".to_owned()]);
        assert!(readings.scripts.is_empty());
    }

    #[test]
    fn a_program_is_read_under_its_identity_its_plumbing_as_porcelain_and_the_loader_as_its_program() {
        let exec = |file: &str, argv: &str, identity: Option<&str>| Exec {
            file: PathBuf::from(file),
            argv: argv.split_whitespace().map(str::to_owned).collect(),
            cwd: None,
            real: None,
            identity: identity.map(str::to_owned),
            loaded: None,
        };
        let mut loader = exec("/lib64/ld-linux-x86-64.so.2", "ld.so --argv0 x /tmp/g push o", None);
        loader.loaded = Some(Ok(Box::new(exec("/tmp/g", "x push o", Some("git")))));
        let cases: Vec<(Exec, &[&str])> = vec![
            (exec("/tmp/mygit", "mygit push o", Some("git")), &["mygit push o", "git push o"]),
            (exec("/tmp/g", "git-push o", Some("git")), &["g o", "git-push o"]),
            (
                exec("/usr/bin/git", "git -C . send-pack d HEAD", None),
                &["git -C . send-pack d HEAD", "git -C . push d HEAD"],
            ),
            (exec("/x/git-http-push", "git-http-push d m", None), &["git-http-push d m", "git push d m"]),
            (exec("/x/h", "h d m", Some("git-http-push")), &["h d m", "git-http-push d m", "git push d m"]),
            (exec("/usr/bin/git", "git fetch-pack d", None), &["git fetch-pack d"]),
            (loader, &["ld-linux-x86-64.so.2 --argv0 x", "ld.so --argv0 x", "g push o", "x push o", "git push o"]),
        ];
        for (exec, want) in cases {
            assert_eq!(exec.readings(None, &mut Vec::new).lines, *want, "{:?}", exec.argv);
        }
    }

    #[test]
    fn a_shell_the_loader_runs_has_its_script_read_whole_too() {
        let shell = |argv: &str| Exec {
            file: PathBuf::from("/bin/bash"),
            argv: argv.split(' ').map(str::to_owned).collect(),
            cwd: None,
            real: None,
            identity: None,
            loaded: None,
        };
        let mut loader = shell("ld.so /bin/bash -c curl|sh");
        loader.file = PathBuf::from("/lib64/ld-linux-x86-64.so.2");
        loader.loaded = Some(Ok(Box::new(shell("bash -c curl|sh"))));
        let readings = loader.readings(None, &mut Vec::new);
        assert_eq!(readings.scripts, ["curl|sh"]);
        assert!(readings.lines.contains(&"bash -c :".to_owned()), "{:?}", readings.lines);
    }

    #[test]
    fn a_builtin_of_the_guards_own_git_is_never_looked_up_as_an_alias_and_another_gits_is() {
        let Some(path) = crate::find_on_path("git") else { panic!("git is on PATH") };
        let git = Git::new(path);
        let repo = tempfile::tempdir().expect("repo");
        let run = |args: &[&str]| Command::new(&git.path).args(args).current_dir(repo.path()).output().expect("git");
        assert!(run(&["init", "-q"]).status.success());
        assert!(run(&["config", "alias.status", "push --force"]).status.success());
        assert!(run(&["config", "alias.st", "push --force"]).status.success());
        let real = std::fs::canonicalize(&git.path).ok();
        let read = |words: &[&str], real: Option<&Path>| {
            git_reading(words, Some((&git, real)), Some(repo.path()), &mut Vec::new)
        };
        // git itself runs `status` for `git status`, whatever the alias says.
        assert!(run(&["status"]).status.success());
        assert_eq!(read(&["git", "status"], real.as_deref()), "git status");
        assert_eq!(read(&["git", "st"], real.as_deref()), "git push --force");
        // Another file's builtins are not known: its `status` is looked up.
        assert_eq!(read(&["git", "status"], Some(Path::new("/bin/sh"))), "git push --force");
        assert_eq!(read(&["git", "status"], None), "git push --force");
    }

    /// The guard and the analyser read one program table (hook-shell's `table`): each entry is read
    /// the same way on both sides, and no program of it is spelled again in the guard's code, so
    /// a program cannot be added to one side only.
    #[test]
    fn the_guard_and_the_analyser_read_every_program_of_the_one_table_alike() {
        let anchors = hook_predicate::PathAnchors::new("/proj");
        let push = hook_predicate::parse("Bash(git push:*)", &anchors).expect("rule");
        let denies = |command: &str| {
            let input = serde_json::json!({ "command": command });
            push.verdict(&hook_predicate::Call::new("Bash", &input)).matches()
        };
        for shell in SHELLS {
            assert_eq!(shell_reading(&[shell, "-c", "git push"]).0, [*shell, "-c", ":"], "the guard on {shell}");
            assert!(denies(&format!("{shell} -c 'git push'")), "the analyser on {shell}");
        }
        for applet in MULTI_CALL_SHELLS {
            let words = [MULTI_CALL, applet, "-c", "git push"];
            assert_eq!(shell_reading(&words).0, [MULTI_CALL, applet, "-c", ":"], "the guard on {applet}");
            assert!(denies(&format!("{MULTI_CALL} {applet} -c 'git push'")), "the analyser on {applet}");
        }
        for (sub, porcelain) in GIT_PLUMBING {
            assert_eq!(plumbing(&["git", "-C", ".", sub, "d"]), Some(vec!["git", "-C", ".", porcelain, "d"]));
            let rule = hook_predicate::parse(&format!("Bash(git {porcelain}:*)"), &anchors).expect("rule");
            let input = serde_json::json!({ "command": format!("git -C . {sub} d HEAD") });
            assert!(rule.verdict(&hook_predicate::Call::new("Bash", &input)).matches(), "the analyser on {sub}");
        }
        for path in hook_shell::table::LOADER_PATHS {
            let name = path.rsplit('/').next().unwrap_or(path);
            assert!(is_loader(name), "the guard on {path}");
            assert!(denies(&format!("{path} /usr/lib/git-core/git-push d HEAD")), "the analyser on {path}");
        }
        let code: String = [include_str!("exec.rs"), include_str!("identity.rs"), include_str!("rules.rs")]
            .iter()
            .map(|file| file.split("#[cfg(test)]").next().unwrap_or(file))
            .collect();
        let table = SHELLS.iter().chain(MULTI_CALL_SHELLS).chain(GIT_GLOBAL_WITH_VALUE).copied();
        let table =
            table.chain(GIT_PLUMBING.iter().map(|(p, _)| *p)).chain(hook_shell::table::LOADER_PATHS.iter().copied());
        let table = table.chain(hook_shell::table::LOADER_WITH_VALUE.iter().copied()).chain([MULTI_CALL, LOADER]);
        // One-letter options (`-c`, `-C`) are every program's; the names and long options are the table's.
        let spelled: Vec<&str> = table.filter(|name| name.len() > 2 && code.contains(&format!("\"{name}\""))).collect();
        assert!(spelled.is_empty(), "the guard spells programs of the shared table itself: {spelled:?}");
    }
}
