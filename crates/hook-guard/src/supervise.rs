//! The supervisor: every exec of the guarded tree waits for it (the seccomp filter's
//! notification). The exec's file and argv (and its cwd and environment where a reading depends
//! on them) are read from the waiting thread and checked: a denied exec fails with `EPERM`. An
//! exec let through is followed by ptrace, attached to that thread alone (`PTRACE_SEIZE`) before
//! the kernel goes on with the call, and the new program's argv and file are read again right
//! after the exec, before it runs a single instruction — another thread may have rewritten the
//! argv between the check and the kernel's own read, and a program whose exec was let through on
//! such a changed argv is killed. Then the thread is let go. Forks, clones and signals cost
//! nothing: nothing else is traced.
//!
//! The guard is the tree's subreaper, so a daemonising grandchild stays its descendant (traceable
//! where Yama allows only descendants) and the guard returns once the whole tree is gone.

use std::collections::HashMap;
use std::ffi::OsString;
use std::io::Write as _;
use std::os::fd::AsFd as _;
use std::os::unix::ffi::OsStringExt as _;
use std::os::unix::fs::{FileTypeExt as _, MetadataExt as _, OpenOptionsExt as _};
use std::path::{Path, PathBuf};

use nix::errno::Errno;
use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
use nix::sys::ptrace::{self, Event};
use nix::sys::signal::Signal;
use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
use nix::unistd::Pid;

use crate::Guard;
use crate::exec::Exec;
use crate::identity::{self, FileId};
use crate::memory::{self, MAX_ARG_BYTES};
use crate::notify::{Listener, Notification};
use crate::relay::ChildWake;
use crate::rules::quote_line;

/// `execveat`'s `AT_FDCWD` and `AT_EMPTY_PATH`.
const AT_FDCWD: i64 = -100;
const AT_EMPTY_PATH: u64 = 0x1000;

/// The options of a followed exec: its stop after the exec, and its death should the guard die.
fn follow_options() -> ptrace::Options {
    ptrace::Options::PTRACE_O_TRACEEXEC | ptrace::Options::PTRACE_O_EXITKILL
}

/// What the supervisor keeps between events.
struct Supervisor<'a> {
    guard: &'a Guard,
    listener: Listener,
    main: Pid,
    /// Whether `main`'s own exec has been followed (until then a refusal of ptrace refuses
    /// the whole command).
    followed: bool,
    /// The threads followed, with the exec each was let through with (a thread whose exec
    /// failed stays followed until its next exec, signal or end).
    seized: HashMap<Pid, Allowed>,
    /// The last refusal said, so a PATH search refused in each directory is said once.
    said: Option<(Pid, String)>,
    /// `main`'s exit code once it ended.
    status: Option<i32>,
}

/// Supervises the tree under `main` (which has not exec'd yet; its execs wait on `listener`)
/// until every process of it is gone; returns the exit code of `main` (128 + N for a signal).
pub(crate) fn supervise(guard: &Guard, main: Pid, listener: Listener) -> Result<i32, crate::Error> {
    let wake = ChildWake::start()
        .map_err(|e| crate::Error::Unavailable(format!("cannot watch the command's processes ({e})")))?;
    let _reaper = Reaper::start()?;
    let mut s = Supervisor { guard, listener, main, followed: false, seized: HashMap::new(), said: None, status: None };
    let mut listening = true;
    loop {
        // The tree's changes first (a thread stopped after its exec waits for them), then the
        // wake-ups spent, then once more what came in between.
        if !s.reap()? {
            break;
        }
        wake.drain();
        if !s.reap()? {
            break;
        }
        let mut fds = vec![PollFd::new(wake.as_fd(), PollFlags::POLLIN)];
        if listening {
            fds.push(PollFd::new(s.listener.as_fd(), PollFlags::POLLIN));
        }
        match poll(&mut fds, PollTimeout::NONE) {
            Ok(_) | Err(Errno::EINTR) => {}
            Err(e) => return Err(crate::Error::Supervise(format!("cannot wait for an exec ({e})"))),
        }
        let Some(events) = fds.get(1).and_then(PollFd::revents) else { continue };
        if events.contains(PollFlags::POLLIN) {
            match s.listener.receive() {
                Ok(n) => s.on_exec(n)?,
                Err(Errno::EINTR | Errno::ENOENT) => {}
                Err(e) => return Err(crate::Error::Supervise(format!("cannot read an exec ({e})"))),
            }
        } else if events.intersects(PollFlags::POLLHUP | PollFlags::POLLERR) {
            // No process of the tree is left to exec.
            listening = false;
        }
    }
    Ok(s.status.unwrap_or(128 + Signal::SIGKILL as i32))
}

impl Supervisor<'_> {
    /// Takes every change of the tree's processes so far; `false` once none is left.
    fn reap(&mut self) -> Result<bool, crate::Error> {
        loop {
            let event = match waitpid(None, Some(WaitPidFlag::__WALL | WaitPidFlag::WNOHANG)) {
                Ok(WaitStatus::StillAlive) => return Ok(true),
                Ok(event) => event,
                Err(Errno::EINTR) => continue,
                Err(Errno::ECHILD) => return Ok(false),
                Err(e) => return Err(crate::Error::Supervise(e.to_string())),
            };
            match event {
                WaitStatus::Exited(pid, code) => self.ended(pid, code),
                WaitStatus::Signaled(pid, sig, _) => self.ended(pid, 128 + sig as i32),
                WaitStatus::PtraceEvent(pid, _, event) if event == Event::PTRACE_EVENT_EXEC as i32 => {
                    // A thread other than the leader that execs takes the leader's pid. (Should the
                    // leader itself be followed still, its own exec's check is the one compared
                    // with: a verdict on an exec let through either way.)
                    let former = match self.seized.contains_key(&pid) {
                        true => pid,
                        false => ptrace::getevent(pid).ok().map_or(pid, |tid| Pid::from_raw(tid as i32)),
                    };
                    let checked = self.seized.remove(&former);
                    self.seized.remove(&pid);
                    if pid == self.main && !self.followed {
                        self.followed = true;
                        // The command's process has a memory of its own now: from here on no
                        // process of the same user may attach to the guard, read its memory or
                        // take its listener (`pidfd_getfd`) — only one with CAP_SYS_PTRACE.
                        let _ = nix::sys::prctl::set_dumpable(false);
                    }
                    after_exec(self.guard, pid, checked);
                    let _ = ptrace::detach(pid, None);
                }
                // A group-stop (it stays stopped once let go).
                WaitStatus::PtraceEvent(pid, _, _) => self.let_go(pid, None),
                // A signal on its way: delivered as the thread is let go.
                WaitStatus::Stopped(pid, sig) => self.let_go(pid, Some(sig)),
                _ => {}
            }
        }
    }

    fn ended(&mut self, pid: Pid, code: i32) {
        self.seized.remove(&pid);
        if pid == self.main {
            self.status = Some(code);
        }
    }

    fn let_go(&mut self, pid: Pid, sig: Option<Signal>) {
        self.seized.remove(&pid);
        let _ = ptrace::detach(pid, sig);
    }

    /// An exec waits: check it; fail it, or follow it and let it go on.
    fn on_exec(&mut self, n: Notification) -> Result<(), crate::Error> {
        let pid = n.pid;
        if crate::filter::is_seccomp(n.nr) {
            // A listener of the command's own would hear its execs in the guard's place.
            let _ = self.listener.fail(n.id, Errno::EPERM);
            return Ok(());
        }
        let mut allowed = match self.check(&n) {
            Ok(allowed) => allowed,
            Err(errno) => {
                let _ = self.listener.fail(n.id, errno);
                return Ok(());
            }
        };
        if !self.seized.contains_key(&pid)
            && let Err(e) = ptrace::seize(pid, follow_options())
        {
            let _ = self.listener.fail(n.id, Errno::EPERM);
            if pid == self.main && !self.followed {
                let _ = nix::sys::signal::kill(pid, Signal::SIGKILL);
                return Err(crate::Error::Unavailable(format!("the kernel refuses ptrace here ({})", e.desc())));
            }
            let message = format!(
                "aimon-hooks: refused: the guard cannot follow this exec ({}) ({})",
                e.desc(),
                quote_line(&allowed.argv)
            );
            self.say(pid, message);
            return Ok(());
        }
        // Still waiting once followed: what was read and followed is that thread's.
        if self.listener.waits(n.id) {
            let _ = self.listener.go_on(n.id);
            // While the kernel carries the exec out, the thread waits on it, not on the guard:
            // looked up now, its entries in /proc are quick to read after the exec.
            allowed.proc = ProcDir::warm(pid);
        }
        self.seized.insert(pid, allowed);
        Ok(())
    }

    /// The exec `n` let through, or the error it fails with (`EPERM` when refused).
    fn check(&mut self, n: &Notification) -> Result<Allowed, Errno> {
        let pid = n.pid;
        // x32 execs are never checked: they are refused.
        let args = exec_args(n).ok_or(Errno::EPERM)?;
        let (exec, envp, id) = read_exec(self.guard, pid, args)?;
        let mut env = || read_env(pid, envp);
        let message = match &exec.loaded {
            Some(Err(why)) => Some(refusal(why, &exec.argv)),
            _ => self.guard.denial(&exec, &mut env),
        };
        let Some(message) = message else {
            return Ok(Allowed::of(exec, id));
        };
        match std::fs::metadata(&exec.file) {
            // A file that is not there fails as the kernel would fail it (a PATH search goes on
            // to the next directory), without a word: nothing runs either way.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(Errno::ENOENT),
            _ => {
                self.say(pid, message);
                Err(Errno::EPERM)
            }
        }
    }

    /// Says `message` about `pid`'s exec, unless it was the last thing said about it.
    fn say(&mut self, pid: Pid, message: String) {
        if self.said.as_ref().is_none_or(|(p, m)| *p != pid || *m != message) {
            report(pid, &message);
            self.said = Some((pid, message));
        }
    }
}

/// The guard as the subreaper of its tree while it supervises, and what it was before, back after
/// (with whether the guard could be attached to, which the first exec of the command turns off).
///
/// While it supervises, the guard's thread also stays on the CPU it started on (the command keeps
/// the CPUs it was given). A supervisor the scheduler moves about drags each exec's thread to
/// whichever CPU it wakes on, and the shell waiting for that thread to the other: waking a thread
/// on another CPU is costly (on a virtual machine, a wake-up of an idle virtual CPU). Measured in
/// `docs/decisions.md`.
struct Reaper {
    was: bool,
    dumpable: bool,
    cpus: Option<rustix::thread::CpuSet>,
}

impl Reaper {
    fn start() -> Result<Reaper, crate::Error> {
        let was = nix::sys::prctl::get_child_subreaper().unwrap_or(false);
        let dumpable = nix::sys::prctl::get_dumpable().unwrap_or(true);
        nix::sys::prctl::set_child_subreaper(true)
            .map_err(|e| crate::Error::Unavailable(format!("cannot adopt the command's orphans ({e})")))?;
        let cpus = rustix::thread::sched_getaffinity(None).ok().filter(|_| {
            let mut here = rustix::thread::CpuSet::new();
            here.set(rustix::thread::sched_getcpu());
            rustix::thread::sched_setaffinity(None, &here).is_ok()
        });
        Ok(Reaper { was, dumpable, cpus })
    }
}

impl Drop for Reaper {
    fn drop(&mut self) {
        let _ = nix::sys::prctl::set_child_subreaper(self.was);
        let _ = nix::sys::prctl::set_dumpable(self.dumpable);
        if let Some(cpus) = &self.cpus {
            let _ = rustix::thread::sched_setaffinity(None, cpus);
        }
    }
}

/// A notification's arguments as an exec's: (path, argv, envp, dirfd, flags).
fn exec_args(n: &Notification) -> Option<(u64, u64, u64, i64, u64)> {
    let a = n.args;
    match n.nr {
        59 => Some((a[0], a[1], a[2], AT_FDCWD, 0)),
        322 => Some((a[1], a[2], a[3], a[0] as i32 as i64, a[4])),
        _ => None,
    }
}

/// What an exec was let through with: the same argv, file (name and identity) and cwd after the
/// exec need no second reading of the rules.
#[derive(Debug)]
struct Allowed {
    argv: Vec<String>,
    /// The basename of the file with its symlinks followed (the only part of it a reading uses).
    name: Option<String>,
    /// The file's device and inode.
    id: Option<FileId>,
    cwd: Option<PathBuf>,
    /// Whether a reading depended on the environment, which is read again after the exec, or
    /// on a file other than the one executed (the loader's program), which is looked up again.
    again: bool,
    /// The thread's directory in /proc, looked up while the kernel carried the exec out.
    proc: Option<ProcDir>,
}

impl Allowed {
    fn of(exec: Exec, id: Option<FileId>) -> Allowed {
        let again = exec.reads_environment() || exec.loaded.is_some();
        let name = exec.real.as_deref().map(|real| crate::exec::basename(&real.to_string_lossy()).to_owned());
        Allowed { argv: exec.argv, name, id, cwd: exec.cwd, again, proc: None }
    }
}

/// The refusal of an exec whose program cannot be known (a loader's).
fn refusal(why: &str, argv: &[String]) -> String {
    format!("aimon-hooks: refused: {why} ({})", quote_line(argv))
}

/// Identifies `exec`'s file, opened as `at` (see the `identity` module), and for a dynamic
/// loader the program it runs; returns the file's device and inode. Nothing is looked up when
/// there are no rules.
fn identify(guard: &Guard, exec: &mut Exec, at: &Path, meta: Option<&std::fs::Metadata>, pid: Pid) -> Option<FileId> {
    if guard.rules.is_empty() {
        return None;
    }
    let found = match meta {
        Some(meta) => guard.rules.identities().identify_stated(at, meta),
        None => guard.rules.identities().identify(at),
    };
    exec.identity = found.name;
    exec.loaded = loaded(guard, exec, pid, 0);
    found.id
}

/// The program a loader `exec` runs (itself read as an exec), or why it cannot be known; `None`
/// for any other exec, and for a loader that runs nothing.
fn loaded(guard: &Guard, exec: &Exec, pid: Pid, depth: usize) -> Option<Result<Box<Exec>, String>> {
    if !exec.is_loader() {
        return None;
    }
    let (program, argv) = match identity::loaded_program(&exec.argv) {
        Ok(found) => found?,
        Err(why) => return Some(Err(why)),
    };
    let mut cwd = exec.cwd.clone();
    let mut file = PathBuf::from(&program);
    if file.is_relative() {
        cwd = cwd.or_else(|| std::fs::read_link(format!("/proc/{pid}/cwd")).ok());
        match &cwd {
            Some(dir) => file = dir.join(file),
            None => return Some(Err(format!("the dynamic loader's program `{program}` cannot be found"))),
        }
    }
    let at = identity::of_process(&file, pid.as_raw());
    if !at.is_file() {
        return Some(Err(format!("the dynamic loader's program `{program}` cannot be opened")));
    }
    let found = guard.rules.identities().identify(&at);
    let mut inner = Exec { real: final_target(&at), file, argv, cwd, identity: found.name, loaded: None };
    inner.loaded = match depth < 4 {
        true => loaded(guard, &inner, pid, depth + 1),
        false => Some(Err(String::from("the dynamic loader runs the loader too many times over"))),
    };
    Some(Ok(Box::new(inner)))
}

/// Right after an exec succeeded: the new program's argv (from its new stack: argc, then the argv
/// pointers) and file, read again; a refusal kills it before it runs. What is read is what was
/// let through (`checked`) needs no second reading of the rules.
fn after_exec(guard: &Guard, pid: Pid, mut checked: Option<Allowed>) {
    let argv = ptrace::getregs(pid).ok().and_then(|regs| stack_argv(pid, regs.rsp));
    let Some(argv) = argv else {
        let _ = nix::sys::signal::kill(pid, Signal::SIGKILL);
        return;
    };
    // Looked up for the thread that exec'd, which has `pid` unless it was not the leader.
    let proc =
        checked.as_mut().and_then(|c| c.proc.take()).filter(|p| p.pid == pid).unwrap_or(ProcDir { pid, fd: None });
    let file = proc.read_link(c"exe").unwrap_or_default();
    let mut exec = Exec { real: Some(file.clone()), file, argv, cwd: None, identity: None, loaded: None };
    // The cwd again if a reading depends on it, now or at the check (another thread may have
    // changed it in between).
    if guard.reads_cwd(&exec) || checked.as_ref().is_some_and(|c| c.cwd.is_some()) {
        exec.cwd = proc.read_link(c"cwd");
    }
    let id = proc.id(c"exe");
    if let Some(checked) = &checked
        && !checked.again
        && checked.argv == exec.argv
        && checked.cwd == exec.cwd
        && checked.id == id
        && checked.name.as_deref() == Some(crate::exec::basename(&exec.file.to_string_lossy()))
    {
        return;
    }
    // What the kernel loaded, by identity (the link's target may be a memfd or a deleted file).
    identify(guard, &mut exec, Path::new(&format!("/proc/{pid}/exe")), None, pid);
    let mut env = || std::fs::read(format!("/proc/{pid}/environ")).map(|b| env_pairs(&b)).unwrap_or_default();
    let message = match &exec.loaded {
        Some(Err(why)) => Some(refusal(why, &exec.argv)),
        _ => guard.denial(&exec, &mut env),
    };
    if let Some(message) = message {
        report(pid, &message);
        let _ = nix::sys::signal::kill(pid, Signal::SIGKILL);
    }
}

/// A thread's directory in /proc, opened (its `exe` looked up too) while the kernel carries out
/// the thread's exec, so that reading it after the exec costs no lookup of a process entry. It
/// names the thread it was opened for, or none once that thread is gone (`ESRCH`): then the
/// entries are read by pid.
#[derive(Debug)]
struct ProcDir {
    pid: Pid,
    fd: Option<std::os::fd::OwnedFd>,
}

impl ProcDir {
    fn warm(pid: Pid) -> Option<ProcDir> {
        use rustix::fs::{Mode, OFlags};
        let fd =
            rustix::fs::open(format!("/proc/{pid}"), OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC, Mode::empty())
                .ok()?;
        // The link itself, not its target: what it names is the exec's to change.
        let _ = rustix::fs::statat(&fd, c"exe", rustix::fs::AtFlags::SYMLINK_NOFOLLOW);
        Some(ProcDir { pid, fd: Some(fd) })
    }

    /// The device and inode of the file the entry `name` of the thread's directory leads to.
    fn id(&self, name: &std::ffi::CStr) -> Option<FileId> {
        if let Some(fd) = &self.fd {
            return rustix::fs::statat(fd, name, rustix::fs::AtFlags::empty()).ok().map(|st| (st.st_dev, st.st_ino));
        }
        let meta = std::fs::metadata(format!("/proc/{}/{}", self.pid, name.to_string_lossy())).ok()?;
        Some((meta.dev(), meta.ino()))
    }

    /// The symlink `name` of the thread's directory.
    fn read_link(&self, name: &std::ffi::CStr) -> Option<PathBuf> {
        let warm = self.fd.as_ref().and_then(|fd| rustix::fs::readlinkat(fd, name, Vec::new()).ok());
        let link = match warm {
            Some(link) => link.into_bytes(),
            None => return std::fs::read_link(format!("/proc/{}/{}", self.pid, name.to_string_lossy())).ok(),
        };
        Some(PathBuf::from(OsString::from_vec(link)))
    }
}

/// A new program's argv from its stack pointer at the exec stop (`argc`, then the pointers).
fn stack_argv(pid: Pid, rsp: u64) -> Option<Vec<String>> {
    let mut budget = MAX_ARG_BYTES;
    memory::strings_near(pid, rsp.checked_add(8)?, &mut budget).ok()
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

/// Reads an exec's file and argv from the waiting thread, and its cwd when the file's path is
/// relative to it or `guard`'s reading of the exec depends on it; identifies the file (returning
/// its device and inode with the exec and its `envp`).
fn read_exec(
    guard: &Guard,
    pid: Pid,
    (path, argv, envp, dirfd, flags): (u64, u64, u64, i64, u64),
) -> Result<(Exec, u64, Option<FileId>), Errno> {
    let mut budget = MAX_ARG_BYTES;
    let ptrs: Vec<u64> = std::iter::once(path).chain(memory::pointers(pid, argv)?).collect();
    let mut strings = memory::strings(pid, &ptrs, &mut budget)?;
    let path = strings.remove(0);
    let argv = strings;
    let read_cwd = || std::fs::read_link(format!("/proc/{pid}/cwd")).ok();
    let mut cwd = None;
    let empty = path.is_empty() && flags & AT_EMPTY_PATH != 0;
    // The file as the guard opens it: the process's own descriptors and /proc entries are its.
    let at = match (path.starts_with('/'), dirfd == AT_FDCWD, empty) {
        (true, _, _) => identity::of_process(Path::new(&path), pid.as_raw()),
        (false, false, true) => PathBuf::from(format!("/proc/{pid}/fd/{dirfd}")),
        (false, false, false) => PathBuf::from(format!("/proc/{pid}/fd/{dirfd}/{path}")),
        (false, true, _) => PathBuf::from(format!("/proc/{pid}/cwd/{path}")),
    };
    let file = if path.starts_with('/') {
        PathBuf::from(&path)
    } else {
        let base = match dirfd == AT_FDCWD {
            true => {
                cwd = read_cwd();
                cwd.clone()
            }
            false => std::fs::read_link(format!("/proc/{pid}/fd/{dirfd}")).ok(),
        };
        match (base, empty) {
            (Some(base), true) => base,
            (Some(base), false) => base.join(&path),
            (None, _) => PathBuf::from(&path),
        }
    };
    // A file that is no symlink is its own real file, and its metadata is its identity's.
    let (real, meta) = match std::fs::symlink_metadata(&at) {
        Ok(meta) if !meta.file_type().is_symlink() => (Some(at.clone()), Some(meta)),
        _ => (final_target(&at), None),
    };
    let mut exec = Exec { file, argv, cwd, real, identity: None, loaded: None };
    if exec.cwd.is_none() && guard.reads_cwd(&exec) {
        exec.cwd = read_cwd();
    }
    let id = identify(guard, &mut exec, &at, meta.as_ref(), pid);
    Ok((exec, envp, id))
}

/// The file a path's last component names once its symlinks are followed (the directories on
/// the way are the kernel's to resolve: only the last name is read), or `None` past 40 links.
fn final_target(path: &std::path::Path) -> Option<PathBuf> {
    let mut path = path.to_path_buf();
    for _ in 0..40 {
        match std::fs::read_link(&path) {
            Ok(target) => path = path.parent().map_or_else(|| target.clone(), |dir| dir.join(&target)),
            Err(e) if e.raw_os_error() == Some(libc::EINVAL) => return Some(path),
            Err(_) => return None,
        }
    }
    None
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
