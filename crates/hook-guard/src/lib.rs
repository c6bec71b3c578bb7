//! hook-guard: the exec-time guard of aimon-hooks (`aimon-hooks guard -- COMMAND…`).
//!
//! A parse-time reading of a command line is not the argv that runs; this crate checks the argv
//! that does, at `execve`. [`Guard`] holds the effective Bash deny rules (the `deny` hooks on
//! PreToolUse, from hook-config's [`DeclarativeHook`]s) and runs a command with every exec of its
//! process tree checked: [`Guard::run`] clones the command's process, which installs a seccomp
//! filter whose execs wait for the guard (a notification; the listener goes to the guard) and
//! execs the command. The guard checks each exec on the waiting thread's argv, fails it or
//! attaches to that thread with ptrace and lets it go on, checks the program the kernel loaded
//! right after the exec, and detaches. A denied exec fails with `EPERM` and
//! `aimon-hooks: denied by <hook source>: <reason> (<argv>)` on stderr; everything else runs
//! untouched. Where the kernel refuses ptrace or seccomp notifications the command is not run
//! (exit [`REFUSED`], 126, or [`Error::Unavailable`]); [`probe`] asks that question up front.
//!
//! The exec is matched as one simple command (program basename and arguments, every name it may
//! run under: the `exec` module) through the same predicates as the parse-time rules. A program a
//! rule names is known by identity, not only by name (the `identity` module): a copy, a link, a
//! memfd or a bind mount of git is git, and the dynamic loader's exec is read as the program it runs. The crate
//! knows nothing of Claude Code or of the CLI's arguments.
//!
//! Files are held by the kernel: the command's process is cloned into a user namespace of its own
//! (the person's uid and gid mapped to themselves) and a mount namespace it owns, where the paths
//! the Read deny rules name are hidden under empty read-only files and directories of mode 0 and
//! those of the Edit deny rules (self-protection's among them) are bound read-only onto
//! themselves ([`Guard::with_files`]; globs resolved at start: the `files` and `mounts` modules).
//! The filter refuses every call that could change those mounts (`mount`, `umount2`,
//! `pivot_root`, `unshare`, `setns`, a `clone` into a new namespace, `clone3`, the new mount
//! API), and a mount point cannot be renamed or removed. Where the kernel refuses user namespaces
//! the guard runs nothing.
//!
//! Its only `unsafe` is the clone of the
//! command's process and that process's exec (the `spawn` module), the mounts it makes before the
//! exec (`mounts`), the listener's ioctls
//! (`notify`) and the signal handlers (`relay`: the guard's signals passed on to the command, and
//! `SIGCHLD` as a wake-up). Unit tests sit beside the code; the end-to-end tests drive
//! the `aimon-hooks` binary and live in hook-cli: `tests/guard/` (the table of commands that build
//! a denied argv at run time, with stub programs on `PATH`; the fail-closed test) and
//! `tests/claude_code/guard.rs` (the real Claude Code); the bench is hook-cli's `benches/guard.rs`.
//!
//! Here the deny rule `Bash(touch:*)` refuses a `touch` whose name the shell only builds at run
//! time, which no reading of the command line could see:
//!
//! ```
//! use std::ffi::OsString;
//! use hook_config::{BuildEnv, TierPaths, load_tiers};
//! use hook_guard::Guard;
//!
//! let project = tempfile::tempdir().expect("a project");
//! std::fs::create_dir_all(project.path().join(".aimon")).expect("mkdir");
//! let rules = r#"{"hooks": {"PreToolUse": [
//!     {"matcher": "Bash(touch:*)", "hooks": [{"type": "deny", "reason": "no touching"}]}]}}"#;
//! std::fs::write(project.path().join(".aimon/hooks.json"), rules).expect("hooks.json");
//! let paths = TierPaths::new(None, project.path());
//! let (config, _diagnostics) = load_tiers(&paths).expect("loads");
//! let guard = Guard::new(&config.into_hooks(&BuildEnv::new(&paths)));
//!
//! let sh = |script: &str| -> Vec<OsString> { vec!["sh".into(), "-c".into(), script.into()] };
//! let file = project.path().join("touched");
//! assert_eq!(guard.run(&sh("true")).expect("guarded"), 0);
//! let code = guard.run(&sh(&format!("t=tou; ${{t}}ch '{}'", file.display()))).expect("guarded");
//! assert_eq!(code, 126, "sh cannot execute the refused touch");
//! assert!(!file.exists());
//! ```
#![warn(missing_docs)]

mod error;
mod exec;
mod files;
mod filter;
mod identity;
mod memory;
// The mounts of the command's namespace, made in its process before its exec.
#[allow(unsafe_code)]
mod mounts;
// The listener's ioctls, the clone of the command's process and the signal handlers: the crate's
// only unsafe code.
#[allow(unsafe_code)]
mod notify;
#[allow(unsafe_code)]
mod relay;
mod rules;
#[allow(unsafe_code)]
mod spawn;
mod supervise;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use hook_config::DeclarativeHook;
use hook_core::HookEventType;
use nix::sys::signal::Signal;
use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
use nix::unistd::Pid;

pub use crate::error::Error;
pub use crate::spawn::REFUSED;

use crate::exec::{Exec, Git};
use crate::rules::Rules;

/// The rules and what checking an exec needs.
#[derive(Debug)]
pub struct Guard {
    rules: Rules,
    /// The mounts of the command's namespace: the paths the Read and Edit deny rules name.
    mounts: Vec<files::Mount>,
    /// The git that looks aliases up (found on the guard's `PATH` when first needed).
    git: OnceLock<Option<Git>>,
}

impl Guard {
    /// A guard enforcing the `deny` hooks on PreToolUse among `hooks` (the effective hooks of
    /// the tiers, as hook-config builds them).
    pub fn new<'a>(hooks: impl IntoIterator<Item = &'a (HookEventType, Arc<DeclarativeHook>)>) -> Self {
        Guard { rules: Rules::new(hooks), mounts: Vec::new(), git: OnceLock::new() }
    }

    /// [`Guard::new`], and the command's files held by the kernel: in the command's own mount
    /// namespace the paths the Read deny rules among `hooks` name (anchored by `paths`, globs
    /// resolved now) are hidden and those of the Edit deny rules are read-only. `Err` when a glob
    /// names too much to resolve.
    ///
    /// `protected` (self-protection's hooks) only become mounts: the kernel holds them, and as
    /// exec rules their paths would make every long argv uncertain.
    pub fn with_files<'a>(
        hooks: impl IntoIterator<Item = &'a (HookEventType, Arc<DeclarativeHook>)> + Clone,
        protected: &'a [(HookEventType, Arc<DeclarativeHook>)],
        paths: &hook_config::TierPaths,
    ) -> Result<Self, Error> {
        let mounts = files::mounts(hooks.clone().into_iter().chain(protected), paths).map_err(Error::Unavailable)?;
        let mut guard = Guard::new(hooks);
        guard.rules.hidden_by_kernel = true;
        Ok(Guard { mounts, ..guard })
    }

    /// Runs `command` (program first, found on `PATH` as `execvp` finds it) with every exec of
    /// its process tree checked; returns the command's exit code (128 + N when a signal ended it;
    /// [`REFUSED`] when the guard could not be set up in its process, the reason on stderr).
    /// Signals the guard receives (HUP, INT, QUIT, TERM) are passed on to the command.
    pub fn run(&self, command: &[OsString]) -> Result<i32, Error> {
        Started::start_quietly(command, false)?.supervise(self)
    }

    /// Whether a reading of `exec` depends on its working directory: a path rule is among the
    /// rules, or the exec is git's (its aliases are looked up there).
    fn reads_cwd(&self, exec: &Exec) -> bool {
        !self.rules.is_empty() && (self.rules.reads_cwd() || exec.reads_environment())
    }

    /// The message refusing `exec`, if a rule refuses it.
    fn denial(&self, exec: &Exec, env: &mut dyn FnMut() -> Vec<(OsString, OsString)>) -> Option<String> {
        if self.rules.is_empty() {
            return None;
        }
        let git = match exec.reads_environment() {
            true => self.git.get_or_init(|| find_on_path("git").map(Git::new)).as_ref(),
            false => None,
        };
        let readings = exec.readings(git, env);
        let cwd = exec.cwd.as_deref();
        let lines = readings.lines.iter().find_map(|line| self.rules.check(line, cwd));
        lines
            .or_else(|| readings.scripts.iter().find_map(|script| self.rules.check_script(script, cwd)))
            .map(|d| supervise::message(&d.source, &d.reason, &exec.argv))
    }
}

/// A guarded command's process, started: its execs wait for the guard's answer, so nothing of
/// the command runs before [`Started::supervise`]. Started before the rules are read, the process
/// sets itself up (its filter, its listener) while the guard reads them. Dropped without
/// supervising, it is killed.
#[derive(Debug)]
pub struct Started {
    /// The command's process (`None` once supervised or killed).
    main: Option<Pid>,
    /// What it runs on until its exec, and its listener (dropped after `main`'s kill).
    child: Option<spawn::Child>,
    /// The relay of the guard's signals to the process (dropped after `main`'s kill).
    _relay: relay::Relay,
}

impl Started {
    /// Starts `command` (program first, found on `PATH` as `execvp` finds it); the guard's
    /// signals (HUP, INT, QUIT, TERM) are relayed to it from now on.
    pub fn start(command: &[OsString]) -> Result<Started, Error> {
        Started::start_quietly(command, false)
    }

    /// [`Started::start`]; `quiet`: on `/dev/null`.
    fn start_quietly(command: &[OsString], quiet: bool) -> Result<Started, Error> {
        filter::arch().map_err(Error::Unavailable)?;
        // Blocked while the process starts and the relay is set up (the process unblocks them
        // before its exec), so none is missed or handled in the process with the guard's handler.
        let mask = relay::forwarded().thread_swap_mask(nix::sys::signal::SigmaskHow::SIG_BLOCK).ok();
        let started = spawn::spawn_command(command, quiet).map(|child| Started {
            main: Some(child.pid),
            _relay: relay::Relay::start(child.pid),
            child: Some(child),
        });
        if let Some(mask) = mask {
            let _ = mask.thread_set_mask();
        }
        started
    }

    /// Supervises the command under `guard`'s rules until the command's process tree is gone;
    /// returns the command's exit code (128 + N when a signal ended it; [`REFUSED`] when the
    /// guard could not be set up in its process, the reason on stderr).
    pub fn supervise(mut self, guard: &Guard) -> Result<i32, Error> {
        let plan = guard.mounts.iter().map(mounts::Planned::new).collect::<Option<Vec<_>>>();
        let Some(plan) = plan else {
            return Err(Error::Unavailable(String::from("a path a deny rule names cannot be mounted over")));
        };
        let listener = self.child.as_ref().filter(|c| c.release(plan)).and_then(spawn::Child::listener);
        let Some(main) = self.main.take() else {
            return Err(Error::Unavailable(String::from("the command's process is gone")));
        };
        let Some(listener) = listener else {
            // The process could not set its filter up: it ends saying why, before anything ran.
            return match waitpid(main, Some(WaitPidFlag::__WALL)) {
                Ok(WaitStatus::Exited(_, code)) => Ok(code),
                _ => Ok(REFUSED),
            };
        };
        let result = supervise::supervise(guard, main, notify::Listener::new(listener));
        if result.is_err() {
            kill_command(main);
            // The process may not have exec'd: what it runs on is never freed.
            std::mem::forget(self.child.take());
        }
        result
    }
}

impl Drop for Started {
    fn drop(&mut self) {
        if let Some(main) = self.main.take() {
            kill_command(main);
        }
    }
}

/// Kills the command's process, and reaps it.
fn kill_command(main: Pid) {
    let _ = nix::sys::signal::kill(main, Signal::SIGKILL);
    let _ = waitpid(main, Some(WaitPidFlag::__WALL));
}

/// Whether the guard can run here: `Err` with the sentence `guard` would refuse with. Runs a
/// guarded `true` on `/dev/null` to find out.
pub fn probe() -> Result<(), Error> {
    let guard = Guard { rules: Rules::default(), mounts: Vec::new(), git: OnceLock::from(None) };
    match Started::start_quietly(&["true".into()], true)?.supervise(&guard)? {
        0 => Ok(()),
        REFUSED => Err(Error::Unavailable(String::from(
            "the kernel refuses ptrace, seccomp notifications or a user namespace's mounts to this process",
        ))),
        code => Err(Error::Unavailable(format!("a guarded `true` exited with {code}"))),
    }
}

fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join(name)).find(|p| is_executable(p))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use hook_config::{BuildEnv, TierPaths, load_tiers};

    const RULES: &str = r#"{"hooks": {"PreToolUse": [
      {"matcher": "Bash(touch:*)", "hooks": [{"type": "deny", "reason": "no touching"}]},
      {"matcher": "Bash(git push:*)", "hooks": [{"type": "deny", "reason": "pushes are reviewed"}]},
      {"matcher": "Bash(rm -rf:*)", "hooks": [{"type": "command", "command": "echo not a rule here"}]}
    ]}}"#;

    fn guard() -> (tempfile::TempDir, Guard) {
        let project = tempfile::tempdir().expect("project");
        std::fs::create_dir_all(project.path().join(".aimon")).expect("mkdir");
        std::fs::write(project.path().join(".aimon/hooks.json"), RULES).expect("rules");
        let paths = TierPaths::new(None, project.path());
        let (config, _) = load_tiers(&paths).expect("loads");
        let hooks = config.into_hooks(&BuildEnv::new(&paths));
        let guard = Guard { rules: Rules::new(&hooks), mounts: Vec::new(), git: OnceLock::from(None) };
        (project, guard)
    }

    /// (file executed, argv, refused by)
    const EXECS: &[(&str, &[&str], Option<&str>)] = &[
        ("/usr/bin/touch", &["touch", "x"], Some("no touching")),
        ("/usr/bin/git", &["git", "-C", ".", "push", "origin"], Some("pushes are reviewed")),
        ("/usr/lib/git-core/git-push", &["git-push", "origin"], Some("pushes are reviewed")),
        ("/bin/busybox", &["touch", "x"], Some("no touching")),
        ("/usr/bin/env", &["env", "A=1", "touch", "x"], Some("no touching")),
        ("/usr/bin/git", &["git", "status"], None),
        ("/usr/bin/echo", &["echo", "touch", "x"], None),
        ("/bin/bash", &["bash", "-c", "echo; touch x"], Some("no touching")),
        ("/bin/bash", &["bash", "-c", "$(printf tou)ch y; echo"], None),
        ("/bin/sh", &["sh"], None),
        ("/usr/bin/rm", &["rm", "-rf", "/"], None),
        ("/usr/bin/python3", &["python3", "-c", "import os; os.system('touch x')"], Some("no touching")),
        ("/usr/bin/python3", &["python3", "-c", "import os; os.system('tou' + 'ch x')"], None),
    ];

    #[test]
    fn an_exec_is_refused_by_the_deny_rules_read_on_its_argv_and_every_name_it_runs_under() {
        let (_project, guard) = guard();
        for (file, argv, refused) in EXECS {
            let file = PathBuf::from(file);
            let real = std::fs::canonicalize(&file).ok();
            let words = argv.iter().map(|a| (*a).to_owned()).collect();
            let exec = Exec { file, argv: words, cwd: None, real, identity: None, loaded: None };
            let got = guard.denial(&exec, &mut Vec::new);
            let want = refused.map(|reason| {
                format!("aimon-hooks: denied by project#0: {reason} ({})", crate::rules::quote_line(argv))
            });
            assert_eq!(got, want, "{} {argv:?}", exec.file.display());
        }
    }
}
