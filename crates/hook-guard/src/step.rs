//! The guarded process's first step, run as a re-exec of the guard's own binary: ask to be
//! traced, stop until the tracer is ready, install the filter, then exec the command — so the
//! command's own first exec is checked too.

use std::ffi::OsString;
use std::os::unix::process::CommandExt as _;
use std::process::Command;

use nix::sys::ptrace;
use nix::sys::signal::{Signal, raise};

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
    let err = Command::new(program).args(args).exec();
    eprintln!("aimon-hooks guard: {}: {err}", program.to_string_lossy());
    if err.kind() == std::io::ErrorKind::NotFound { 127 } else { REFUSED }
}

fn refuse(why: &str) -> i32 {
    eprintln!("aimon-hooks guard: {why}; nothing was run");
    REFUSED
}
