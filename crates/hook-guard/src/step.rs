//! The guarded process's first step, run as a re-exec of the guard's own binary: ask to be
//! traced, stop until the tracer is ready, install the filter, then exec the command — so the
//! command's own first exec is checked too.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt as _;
use std::os::unix::process::CommandExt as _;
use std::path::PathBuf;
use std::process::Command;

use nix::sys::ptrace;
use nix::sys::signal::{Signal, raise};
use nix::unistd::{AccessFlags, access};

/// The exit code of a step that could not set the guard up (as a shell's "cannot execute").
pub const REFUSED: i32 = 126;

/// Runs the step for `command`; returns only on failure, with the exit code to use (the reason
/// is on stderr).
pub fn exec_step(command: &[OsString]) -> i32 {
    let Some((program, args)) = command.split_first() else {
        eprintln!("aimon-hooks guard: no command to run");
        return 2;
    };
    let program_bpf = match crate::filter::program() {
        Ok(p) => p,
        Err(why) => return refuse(&why),
    };
    if let Err(e) = ptrace::traceme() {
        return refuse(&format!("the kernel refuses ptrace here ({e})"));
    }
    if let Err(e) = raise(Signal::SIGSTOP) {
        return refuse(&format!("cannot stop for the tracer ({e})"));
    }
    if let Err(e) = seccompiler::apply_filter(&program_bpf) {
        return refuse(&format!("the kernel refuses the seccomp filter here ({e})"));
    }
    // The guard blocks the signals it relays; its blocking is not the command's.
    let _ = crate::forwarded_signals().thread_unblock();
    // The file a PATH search finds, exec'd by its path: each execve of the search would stop for
    // the tracer (a dozen stops on a usual PATH). Should it fail, the search runs as it would have.
    let err = match on_path(program, std::env::var_os("PATH").as_deref()) {
        Some(file) => match Command::new(file).arg0(program).args(args).exec() {
            err if search_goes_on(&err) => Command::new(program).args(args).exec(),
            err => err,
        },
        None => Command::new(program).args(args).exec(),
    };
    eprintln!("aimon-hooks guard: {}: {err}", program.to_string_lossy());
    if err.kind() == std::io::ErrorKind::NotFound { 127 } else { REFUSED }
}

/// The first executable file named `program` in a directory of `path` (`PATH`; an empty entry is
/// the current directory), as `execvp` searches; `None` for a name with a `/` or with no `PATH`.
fn on_path(program: &OsStr, path: Option<&OsStr>) -> Option<PathBuf> {
    if program.is_empty() || program.as_bytes().contains(&b'/') {
        return None;
    }
    std::env::split_paths(path?)
        .map(|dir| if dir.as_os_str().is_empty() { PathBuf::from(".") } else { dir }.join(program))
        .find(|file| file.is_file() && access(file.as_path(), AccessFlags::X_OK).is_ok())
}

/// Whether `execvp` tries the next directory of `PATH` after an exec failed with `err`.
fn search_goes_on(err: &std::io::Error) -> bool {
    matches!(
        err.raw_os_error(),
        Some(libc::EACCES | libc::ENOENT | libc::ENOTDIR | libc::ESTALE | libc::ENODEV | libc::ETIMEDOUT)
    )
}

fn refuse(why: &str) -> i32 {
    eprintln!("aimon-hooks guard: {why}; nothing was run");
    REFUSED
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt as _;

    #[test]
    fn a_program_is_found_on_path_as_execvp_finds_it() {
        let root = tempfile::tempdir().expect("temp dir");
        let dir = |name: &str| root.path().join(name);
        for (name, mode) in [("plain/tool", 0o644), ("exec/tool", 0o755), ("later/tool", 0o755)] {
            std::fs::create_dir_all(dir(name).parent().expect("parent")).expect("mkdir");
            std::fs::write(dir(name), "#!/bin/sh\n").expect("write");
            std::fs::set_permissions(dir(name), std::fs::Permissions::from_mode(mode)).expect("chmod");
        }
        std::fs::create_dir_all(dir("adir/tool")).expect("a directory named tool");
        let path = |dirs: &[&str]| std::env::join_paths(dirs.iter().map(|d| dir(d))).expect("PATH");
        // (program, PATH directories, the file found)
        let cases: &[(&str, &[&str], Option<&str>)] = &[
            ("tool", &["missing", "plain", "adir", "exec", "later"], Some("exec/tool")),
            ("tool", &["later", "exec"], Some("later/tool")),
            ("tool", &["plain", "adir"], None),
            ("./tool", &["exec"], None),
            ("bin/tool", &["exec"], None),
            ("", &["exec"], None),
        ];
        for (program, dirs, found) in cases {
            let got = on_path(OsStr::new(program), Some(path(dirs).as_os_str()));
            assert_eq!(got, found.map(dir), "{program} on {dirs:?}");
        }
        assert_eq!(on_path(OsStr::new("tool"), None), None, "no PATH: execvp's own default applies");
    }
}
