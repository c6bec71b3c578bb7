//! The tracer: every process and thread of the guarded tree is followed (fork, vfork, clone); it
//! stops only at `execve`/`execveat` (the filter's trace stops) and right after an exec
//! succeeded. At the first stop the exec's file, argv, cwd and environment are read from the
//! process and checked: a denied exec is skipped with `EPERM`. At the second the new program's
//! argv and file are read again from `/proc` and checked again before it runs a single
//! instruction — another thread may have rewritten the argv between the check and the kernel's
//! own read, and a process whose exec was let through on such a changed argv is killed.

use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::io::Write as _;
use std::os::unix::ffi::OsStringExt as _;
use std::os::unix::fs::{FileTypeExt as _, MetadataExt as _, OpenOptionsExt as _};
use std::path::PathBuf;

use nix::errno::Errno;
use nix::sys::ptrace::{self, Event};
use nix::sys::signal::Signal;
use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
use nix::unistd::Pid;

use crate::Guard;
use crate::exec::Exec;
use crate::memory::{self, MAX_ARG_BYTES};
use crate::rules::quote_line;

/// `execveat`'s `AT_FDCWD` and `AT_EMPTY_PATH`.
const AT_FDCWD: i64 = -100;
const AT_EMPTY_PATH: u64 = 0x1000;

/// Follows the tree under `main` (stopped, options not yet set) until every process of it is
/// gone; returns the exit code of `main` (128 + N for a signal).
pub(crate) fn supervise(guard: &Guard, main: Pid) -> Result<i32, crate::Error> {
    let options = ptrace::Options::PTRACE_O_TRACESECCOMP
        | ptrace::Options::PTRACE_O_TRACEEXEC
        | ptrace::Options::PTRACE_O_TRACEFORK
        | ptrace::Options::PTRACE_O_TRACEVFORK
        | ptrace::Options::PTRACE_O_TRACECLONE
        | ptrace::Options::PTRACE_O_EXITKILL;
    if let Err(e) = ptrace::setoptions(main, options) {
        let _ = nix::sys::signal::kill(main, Signal::SIGKILL);
        return Err(crate::Error::Unavailable(format!("the kernel refuses the ptrace options ({e})")));
    }
    let mut known: HashSet<Pid> = HashSet::from([main]);
    // The last refusal said, so a PATH search refused in each directory is said once.
    let mut said: Option<(Pid, String)> = None;
    // The exec each process was let through with, to compare with what it became.
    let mut allowed: HashMap<Pid, Allowed> = HashMap::new();
    let mut status = None;
    let _ = ptrace::cont(main, None);
    loop {
        let event = match waitpid(None, Some(WaitPidFlag::__WALL)) {
            Ok(event) => event,
            Err(Errno::EINTR) => continue,
            Err(Errno::ECHILD) => break,
            Err(e) => return Err(crate::Error::Supervise(e.to_string())),
        };
        match event {
            WaitStatus::Exited(pid, code) => {
                known.remove(&pid);
                allowed.remove(&pid);
                if pid == main {
                    status = Some(code);
                }
            }
            WaitStatus::Signaled(pid, sig, _) => {
                known.remove(&pid);
                allowed.remove(&pid);
                if pid == main {
                    status = Some(128 + sig as i32);
                }
            }
            WaitStatus::Stopped(pid, sig) => {
                if known.insert(pid) && sig == Signal::SIGSTOP {
                    // A new process or thread's first stop, not a signal to deliver.
                    let _ = ptrace::cont(pid, None);
                } else if is_group_stop(pid, sig) {
                    // Job control cannot be relayed under PTRACE_TRACEME: the process goes on.
                    let _ = ptrace::cont(pid, None);
                } else {
                    let _ = ptrace::cont(pid, sig);
                }
            }
            WaitStatus::PtraceEvent(pid, _, event) => {
                known.insert(pid);
                if event == Event::PTRACE_EVENT_SECCOMP as i32 {
                    match at_exec(guard, pid, &mut said) {
                        Some(exec) => allowed.insert(pid, exec),
                        None => allowed.remove(&pid),
                    };
                } else if event == Event::PTRACE_EVENT_EXEC as i32 {
                    // A thread other than the leader that execs takes the leader's pid.
                    let former = ptrace::getevent(pid).ok().map(|tid| Pid::from_raw(tid as i32));
                    let checked = allowed.remove(&former.unwrap_or(pid));
                    after_exec(guard, pid, checked);
                }
                let _ = ptrace::cont(pid, None);
            }
            _ => {}
        }
    }
    Ok(status.unwrap_or(128 + Signal::SIGKILL as i32))
}

/// Whether a stop with a stopping signal is a group-stop (no signal info), not its delivery.
fn is_group_stop(pid: Pid, sig: Signal) -> bool {
    matches!(sig, Signal::SIGSTOP | Signal::SIGTSTP | Signal::SIGTTIN | Signal::SIGTTOU)
        && ptrace::getsiginfo(pid) == Err(Errno::EINVAL)
}

/// The syscall's registers as an exec's arguments: (path, argv, envp, dirfd, flags).
#[cfg(target_arch = "x86_64")]
fn exec_args(regs: &libc::user_regs_struct) -> Option<(u64, u64, u64, i64, u64)> {
    match regs.orig_rax {
        59 => Some((regs.rdi, regs.rsi, regs.rdx, AT_FDCWD, 0)),
        322 => Some((regs.rsi, regs.rdx, regs.r10, regs.rdi as i32 as i64, regs.r8)),
        _ => None,
    }
}

/// What an exec was let through with: the same argv, file and cwd after the exec need no
/// second reading of the rules.
#[derive(Debug, PartialEq)]
struct Allowed {
    argv: Vec<String>,
    real: Option<PathBuf>,
    cwd: Option<PathBuf>,
}

/// At an exec's trace stop: check it, and skip it with `EPERM` (or the error reading it met)
/// when it is refused; returns the exec let through.
#[cfg(target_arch = "x86_64")]
fn at_exec(guard: &Guard, pid: Pid, said: &mut Option<(Pid, String)>) -> Option<Allowed> {
    let Ok(mut regs) = ptrace::getregs(pid) else { return None };
    let refusal = match exec_args(&regs) {
        // x32 execs are never checked: they are refused.
        None => Some(Errno::EPERM),
        Some(args) => match read_exec(pid, args) {
            Err(errno) => Some(errno),
            Ok((exec, envp)) => {
                let mut env = || read_env(pid, envp);
                match guard.denial(&exec, &mut env) {
                    None => return Some(Allowed { argv: exec.argv, real: exec.real, cwd: exec.cwd }),
                    Some(message) => Some(match std::fs::metadata(&exec.file) {
                        // A file that is not there fails as the kernel would fail it (a PATH
                        // search goes on to the next directory), without a word: nothing ran
                        // either way.
                        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Errno::ENOENT,
                        _ => {
                            if said.as_ref().is_none_or(|(p, m)| *p != pid || *m != message) {
                                report(pid, &message);
                                *said = Some((pid, message));
                            }
                            Errno::EPERM
                        }
                    }),
                }
            }
        },
    };
    if let Some(errno) = refusal {
        regs.orig_rax = u64::MAX;
        regs.rax = (-(errno as i64)) as u64;
        if ptrace::setregs(pid, regs).is_err() {
            // The exec must not go ahead unchecked.
            let _ = nix::sys::signal::kill(pid, Signal::SIGKILL);
        }
    }
    None
}

#[cfg(not(target_arch = "x86_64"))]
fn at_exec(_guard: &Guard, pid: Pid, _said: &mut Option<(Pid, String)>) -> Option<Allowed> {
    let _ = nix::sys::signal::kill(pid, Signal::SIGKILL);
    None
}

/// Right after an exec succeeded: the new program's argv (from its new stack: argc, then the argv
/// pointers) and file, read again; a refusal kills it before it runs. What is read is what was
/// let through (`checked`) needs no second reading of the rules.
fn after_exec(guard: &Guard, pid: Pid, checked: Option<Allowed>) {
    let argv = ptrace::getregs(pid).ok().and_then(|regs| stack_argv(pid, regs.rsp));
    let Some(argv) = argv else {
        let _ = nix::sys::signal::kill(pid, Signal::SIGKILL);
        return;
    };
    let proc = PathBuf::from(format!("/proc/{pid}"));
    let file = std::fs::read_link(proc.join("exe")).unwrap_or_default();
    let cwd = std::fs::read_link(proc.join("cwd")).ok();
    let now = Allowed { argv, real: Some(file.clone()), cwd };
    if checked.as_ref() == Some(&now) {
        return;
    }
    let exec = Exec { file, argv: now.argv, cwd: now.cwd, real: now.real };
    let mut env = || std::fs::read(proc.join("environ")).map(|b| env_pairs(&b)).unwrap_or_default();
    if let Some(message) = guard.denial(&exec, &mut env) {
        report(pid, &message);
        let _ = nix::sys::signal::kill(pid, Signal::SIGKILL);
    }
}

/// A new program's argv from its stack pointer at the exec stop (`argc`, then the pointers).
fn stack_argv(pid: Pid, rsp: u64) -> Option<Vec<String>> {
    let ptrs = memory::pointers(pid, rsp.checked_add(8)?).ok()?;
    let mut budget = MAX_ARG_BYTES;
    memory::strings(pid, &ptrs, &mut budget).ok()
}

/// Says why `pid`'s exec was refused: on the guard's stderr and, when the refused process's
/// stderr is another file (the pipe or socket to an agent that runs the guarded command and shows
/// the model its output, say), there too, never waiting on a full buffer, so the reason travels
/// with the failure it explains.
fn report(pid: Pid, message: &str) {
    eprintln!("{message}");
    let theirs = format!("/proc/{pid}/fd/2");
    let (Ok(their_file), Ok(our_file)) = (std::fs::metadata(&theirs), std::fs::metadata("/proc/self/fd/2")) else {
        return;
    };
    if (their_file.dev(), their_file.ino()) == (our_file.dev(), our_file.ino()) {
        return;
    }
    let line = format!("{message}\n");
    // A file, pipe or terminal opens anew (its own flags, appending); a socket does not, and is
    // borrowed from the process instead, written without waiting (its flags are the process's).
    match std::fs::OpenOptions::new().append(true).custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY).open(&theirs) {
        Ok(mut stderr) => {
            let _ = stderr.write_all(line.as_bytes());
        }
        Err(_) if their_file.file_type().is_socket() => {
            let borrowed = rustix::process::Pid::from_raw(pid.as_raw())
                .and_then(|pid| rustix::process::pidfd_open(pid, rustix::process::PidfdFlags::empty()).ok())
                .and_then(|pidfd| {
                    rustix::process::pidfd_getfd(pidfd, 2, rustix::process::PidfdGetfdFlags::empty()).ok()
                });
            if let Some(fd) = borrowed {
                let flags = rustix::net::SendFlags::DONTWAIT | rustix::net::SendFlags::NOSIGNAL;
                let _ = rustix::net::send(fd, line.as_bytes(), flags);
            }
        }
        Err(_) => {}
    }
}

/// Reads an exec's file, argv and cwd from the stopped process.
fn read_exec(pid: Pid, (path, argv, envp, dirfd, flags): (u64, u64, u64, i64, u64)) -> Result<(Exec, u64), Errno> {
    let mut budget = MAX_ARG_BYTES;
    let ptrs: Vec<u64> = std::iter::once(path).chain(memory::pointers(pid, argv)?).collect();
    let mut strings = memory::strings(pid, &ptrs, &mut budget)?;
    let path = strings.remove(0);
    let argv = strings;
    let cwd = std::fs::read_link(format!("/proc/{pid}/cwd")).ok();
    let file = if path.starts_with('/') {
        PathBuf::from(&path)
    } else {
        let base =
            if dirfd == AT_FDCWD { cwd.clone() } else { std::fs::read_link(format!("/proc/{pid}/fd/{dirfd}")).ok() };
        match (base, path.is_empty() && flags & AT_EMPTY_PATH != 0) {
            (Some(base), true) => base,
            (Some(base), false) => base.join(&path),
            (None, _) => PathBuf::from(&path),
        }
    };
    let real = std::fs::canonicalize(&file).ok();
    Ok((Exec { file, argv, cwd, real }, envp))
}

/// The environment an exec passes (`envp`), as pairs.
fn read_env(pid: Pid, envp: u64) -> Vec<(OsString, OsString)> {
    let mut budget = MAX_ARG_BYTES;
    let entries = memory::pointers(pid, envp).and_then(|ptrs| memory::strings(pid, &ptrs, &mut budget));
    entries
        .unwrap_or_default()
        .into_iter()
        .filter_map(|e| e.split_once('=').map(|(k, v)| (OsString::from(k), OsString::from(v))))
        .collect()
}

fn env_pairs(bytes: &[u8]) -> Vec<(OsString, OsString)> {
    bytes
        .split(|b| *b == 0)
        .filter_map(|e| {
            let at = e.iter().position(|b| *b == b'=')?;
            Some((OsString::from_vec(e[..at].to_vec()), OsString::from_vec(e[at + 1..].to_vec())))
        })
        .collect()
}

/// The message of a refused exec.
pub(crate) fn message(source: &str, reason: &str, argv: &[String]) -> String {
    format!("aimon-hooks: denied by {source}: {reason} ({})", quote_line(argv))
}
