//! The guarded command's process: cloned from the guard into a user and mount namespace of its
//! own, it writes its uid and gid maps, waits for the guard's mounts and makes them (`mounts`),
//! installs the filters, hands the exec
//! filter's listener to the guard (over a socket pair made before the clone; its own copy is
//! closed, so nothing the command runs can answer its execs), then execs the command — so the
//! command's own first exec is checked too. Until its exec the child runs in the guard's own memory (`CLONE_VM`, as
//! `posix_spawn` does, without waiting for the exec): nothing is copied, no page is shared
//! copy-on-write, and the exec has no copy of the guard to tear down. So the child makes system
//! calls on what the parent prepared and nothing else — no allocation, no lock, no libc call that
//! reads the thread it would share with the parent (glibc's `raise` would signal the parent) —
//! and the parent keeps that memory, and the child's stack, until the child has exec'd or ended
//! ([`Child`]).

use std::cell::UnsafeCell;
use std::ffi::{CString, OsStr, OsString};
use std::io::IoSliceMut;
use std::mem::MaybeUninit;
use std::num::NonZeroUsize;
use std::os::fd::{AsRawFd as _, OwnedFd};
use std::os::unix::ffi::OsStrExt as _;
use std::path::PathBuf;
use std::ptr::NonNull;

use nix::errno::Errno;
use nix::sys::mman::{MapFlags, ProtFlags, mmap_anonymous, mprotect, munmap};
use nix::sys::signal::SigSet;
use nix::unistd::{AccessFlags, Pid, access};
use rustix::net::{RecvAncillaryBuffer, RecvAncillaryMessage, RecvFlags};
use seccompiler::BpfProgram;

use crate::Error;
use crate::mounts::{IdMaps, Planned};

/// The exit code of a command the guard could not set up (as a shell's "cannot execute").
pub const REFUSED: i32 = 126;

/// Everything the child needs, made before the clone.
struct Prepared {
    /// The program as given: the name of the failure and the `PATH` search's fallback.
    program: CString,
    /// The file a `PATH` search finds, exec'd by its path: each `execve` of a search would wait
    /// for the guard (a dozen round trips on a usual `PATH`).
    file: Option<CString>,
    /// The arguments, `argv[0]` first: owned here for `argv_ptrs`, never read.
    _argv: Vec<CString>,
    /// The arguments' pointers, NULL-terminated (pointing into `_argv`).
    argv_ptrs: Vec<*const libc::c_char>,
    /// The filter, installed with its listener.
    filter: BpfProgram,
    /// The filters refusing changes to the mounts, installed before it.
    refusals: Vec<BpfProgram>,
    /// The person's uid and gid, mapped to themselves in the child's user namespace.
    ids: IdMaps,
    /// The mounts of the child's namespace: written by the parent once (before it sends the
    /// byte the child waits for), read by the child after that byte.
    plan: UnsafeCell<Vec<Planned>>,
    /// The child's end of the socket pair the listener goes to the guard over (the guard's copy
    /// is closed right after the clone, so the guard's end reads the end of the child).
    sock: libc::c_int,
    /// The signals the guard blocks for its relay: not the command's to have blocked.
    unblock: SigSet,
    /// `/dev/null`, for standard input, output and error, when the command runs quietly.
    quiet: Option<OwnedFd>,
}

/// The child's stack. `execvp` runs a script without a `#!` line through `sh` with a copy of
/// `argv`'s pointers on it: at most 8 bytes for every 10 of the kernel's argument limit (at most
/// 6 MB), so 8 MB always hold it. Untouched pages of the mapping cost nothing.
const STACK: usize = 8 << 20;
/// The inaccessible page below it.
const GUARD_PAGE: usize = 4096;

/// The child's stack: a mapping of its own with an inaccessible page below it, so that running
/// past its end faults in the child instead of writing over the guard's memory.
struct Stack {
    base: NonNull<libc::c_void>,
    len: usize,
}

impl Stack {
    fn new() -> nix::Result<Stack> {
        let len = STACK + GUARD_PAGE;
        let flags = MapFlags::MAP_PRIVATE | MapFlags::MAP_STACK;
        let size = NonZeroUsize::new(len).ok_or(Errno::EINVAL)?;
        // SAFETY: a fresh anonymous mapping, owned by the `Stack` from here on.
        let base = unsafe { mmap_anonymous(None, size, ProtFlags::PROT_READ | ProtFlags::PROT_WRITE, flags) }?;
        let stack = Stack { base, len };
        // SAFETY: the lowest page of the mapping just made.
        unsafe { mprotect(stack.base, GUARD_PAGE, ProtFlags::PROT_NONE) }?;
        Ok(stack)
    }

    /// The top (the stack grows down from it), 16-byte aligned as the mapping is page-aligned.
    fn top(&self) -> *mut libc::c_void {
        self.base.as_ptr().cast::<u8>().wrapping_add(self.len).cast()
    }
}

impl Drop for Stack {
    fn drop(&mut self) {
        // SAFETY: the mapping `new` made, no longer used by anyone.
        let _ = unsafe { munmap(self.base, self.len) };
    }
}

/// The guarded process, and what it runs on until its exec: keep it until the process has
/// exec'd or ended.
pub(crate) struct Child {
    pub(crate) pid: Pid,
    /// The guard's end of the socket pair the child sends its listener over.
    sock: OwnedFd,
    _prepared: Box<Prepared>,
    _stack: Stack,
}

impl std::fmt::Debug for Child {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Child").field("pid", &self.pid).finish_non_exhaustive()
    }
}

/// Starts the guarded process for `command` (program first; see the module doc) and takes its
/// listener: nothing of the command runs before the guard answers its exec. `quiet` runs it on
/// `/dev/null`.
pub(crate) fn spawn_command(command: &[OsString], quiet: bool) -> Result<Child, Error> {
    let Some(program) = command.first() else {
        return Err(spawn_error(OsStr::new(""), std::io::Error::other("no command to run")));
    };
    let c_string = |word: &OsStr| {
        CString::new(word.as_bytes())
            .map_err(|_| spawn_error(program, std::io::Error::other("an argument contains a NUL byte")))
    };
    let argv = command.iter().map(|w| c_string(w)).collect::<Result<Vec<_>, _>>()?;
    let argv_ptrs = argv.iter().map(|a| a.as_ptr()).chain([std::ptr::null()]).collect();
    let file = on_path(program, std::env::var_os("PATH").as_deref()).map(|f| c_string(f.as_os_str())).transpose()?;
    let quiet = match quiet {
        true => Some(OwnedFd::from(
            std::fs::File::options().read(true).write(true).open("/dev/null").map_err(|e| spawn_error(program, e))?,
        )),
        false => None,
    };
    let (ours, theirs) = rustix::net::socketpair(
        rustix::net::AddressFamily::UNIX,
        rustix::net::SocketType::SEQPACKET,
        rustix::net::SocketFlags::CLOEXEC,
        None,
    )
    .map_err(|e| spawn_error(program, e.into()))?;
    let prepared = Box::new(Prepared {
        program: c_string(program)?,
        file,
        _argv: argv,
        argv_ptrs,
        filter: crate::filter::program().map_err(Error::Unavailable)?,
        refusals: crate::filter::refusals().map_err(Error::Unavailable)?,
        ids: IdMaps::own(),
        plan: UnsafeCell::new(Vec::new()),
        sock: theirs.as_raw_fd(),
        unblock: crate::relay::forwarded(),
        quiet,
    });
    let stack = Stack::new().map_err(|e| spawn_error(program, e.into()))?;
    let arg: *const Prepared = &*prepared;
    // SAFETY: the child runs `entry` on `stack` with `prepared` (both kept alive by `Child` for
    // as long as the child may run on them); `entry` makes system calls on
    // `prepared` only (no allocation, no lock, no unwinding, nothing of the parent's thread: see
    // the module doc) and ends in an exec or an exit.
    // A user namespace of its own (the person's ids mapped to themselves) and a mount namespace
    // it owns: the `mounts` module.
    let flags = libc::CLONE_VM | libc::CLONE_NEWUSER | libc::CLONE_NEWNS | libc::SIGCHLD;
    let pid = unsafe { libc::clone(entry, stack.top(), flags, arg.cast_mut().cast()) };
    if pid < 0 {
        let why = std::io::Error::last_os_error();
        return Err(Error::Unavailable(format!(
            "the kernel refuses the command a user and mount namespace of its own ({why}); user namespaces may be turned off"
        )));
    }
    let pid = Pid::from_raw(pid);
    drop(theirs);
    Ok(Child { pid, sock: ours, _prepared: prepared, _stack: stack })
}

impl Child {
    /// Hands the child the mounts of its namespace and lets it go on to them, its filter and its
    /// exec; `false` when the child is gone.
    pub(crate) fn release(&self, plan: Vec<Planned>) -> bool {
        // SAFETY: the child reads the plan only after the byte below, and the parent writes it
        // only here, once, before that byte.
        unsafe { *self._prepared.plan.get() = plan };
        rustix::net::send(&self.sock, &[1], rustix::net::SendFlags::NOSIGNAL).is_ok_and(|n| n == 1)
    }

    /// The listener its execs wait on, as the child sends it; `None` when it ends without (it
    /// could not set its filter up, and ends with [`REFUSED`], its reason on stderr).
    pub(crate) fn listener(&self) -> Option<OwnedFd> {
        receive_listener(&self.sock)
    }
}

/// The listener the child sends over `sock`, or `None` when it ends without (its socket closes).
fn receive_listener(sock: &OwnedFd) -> Option<OwnedFd> {
    let mut space = [MaybeUninit::<u8>::uninit(); rustix::cmsg_space!(ScmRights(1))];
    let mut control = RecvAncillaryBuffer::new(&mut space);
    let mut byte = [0u8; 1];
    loop {
        match rustix::net::recvmsg(sock, &mut [IoSliceMut::new(&mut byte)], &mut control, RecvFlags::CMSG_CLOEXEC) {
            Err(rustix::io::Errno::INTR) => continue,
            Err(_) => return None,
            Ok(_) => break,
        }
    }
    control.drain().find_map(|message| match message {
        RecvAncillaryMessage::ScmRights(mut fds) => fds.next(),
        _ => None,
    })
}

/// The child's entry: `arg` is the `Prepared` the parent keeps.
extern "C" fn entry(arg: *mut libc::c_void) -> libc::c_int {
    // SAFETY: `spawn_command` passes a pointer to a live `Prepared`, never written while the
    // child runs.
    let prepared = unsafe { &*arg.cast::<Prepared>() };
    child(prepared)
}

/// The child's whole life: its exec, or its exit code with the reason on stderr.
fn child(p: &Prepared) -> libc::c_int {
    if let Some(null) = &p.quiet {
        for target in 0..3 {
            // SAFETY: dup2 on open descriptors.
            unsafe { libc::dup2(null.as_raw_fd(), target) };
        }
    }
    if let Err(why) = crate::mounts::enter(&p.ids) {
        return refuse(why);
    }
    let mut byte = 0u8;
    // SAFETY: read(2) of one byte into a byte of the child's stack.
    if unsafe { libc::read(p.sock, (&raw mut byte).cast(), 1) } != 1 {
        return refuse(b"the guard did not let the command start");
    }
    // SAFETY: the parent wrote the plan before the byte just read, and writes it no more.
    if let Err(why) = crate::mounts::apply(unsafe { &*p.plan.get() }) {
        return refuse(why);
    }
    // SAFETY: prctl with integer arguments.
    if unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) } != 0 {
        return refuse(b"the kernel refuses the seccomp filter here");
    }
    for refusal in &p.refusals {
        let program = libc::sock_fprog {
            len: refusal.len() as u16,
            filter: refusal.as_ptr().cast::<libc::sock_filter>().cast_mut(),
        };
        // SAFETY: the kernel copies the program the pointer points to.
        if unsafe { libc::syscall(libc::SYS_seccomp, libc::SECCOMP_SET_MODE_FILTER, 0, &program) } != 0 {
            return refuse(b"the kernel refuses the seccomp filter here");
        }
    }
    // seccompiler's `sock_filter` is the kernel's, `repr(C)`.
    let program = libc::sock_fprog {
        len: p.filter.len() as u16,
        filter: p.filter.as_ptr().cast::<libc::sock_filter>().cast_mut(),
    };
    // SAFETY: the kernel copies the program the pointer points to.
    let listener = unsafe {
        libc::syscall(
            libc::SYS_seccomp,
            libc::SECCOMP_SET_MODE_FILTER,
            libc::SECCOMP_FILTER_FLAG_NEW_LISTENER,
            &program,
        )
    };
    if listener < 0 {
        return refuse(b"the kernel refuses seccomp notifications here");
    }
    let listener = listener as libc::c_int;
    if !send_fd(p.sock, listener) {
        return refuse(b"cannot hand the exec listener to the guard");
    }
    // SAFETY: closing descriptors of the child's own table (not the guard's: no CLONE_FILES).
    unsafe {
        libc::close(listener);
        libc::close(p.sock);
    }
    let _ = p.unblock.thread_unblock();
    // SAFETY: NUL-terminated strings and a NULL-terminated array of them, alive until the exec.
    unsafe {
        if let Some(file) = &p.file {
            libc::execvp(file.as_ptr(), p.argv_ptrs.as_ptr());
        }
        // Should the found file fail, the search runs as it would have, every try checked.
        if p.file.is_none() || search_goes_on(Errno::last()) {
            libc::execvp(p.program.as_ptr(), p.argv_ptrs.as_ptr());
        }
    }
    let errno = Errno::last();
    say(&[b"aimon-hooks guard: ", p.program.as_bytes(), b": ", errno.desc().as_bytes(), b"\n"]);
    if errno == Errno::ENOENT { 127 } else { REFUSED }
}

/// Sends `fd` over the socket `sock` (in the child: the message is built on its stack).
fn send_fd(sock: libc::c_int, fd: libc::c_int) -> bool {
    let mut byte = 0u8;
    let mut iov = libc::iovec { iov_base: (&raw mut byte).cast(), iov_len: 1 };
    // Room for one descriptor's control message (CMSG_SPACE(4) is 24), 8-byte aligned.
    let mut control = [0u64; 4];
    // SAFETY: an all-zero `msghdr` is a valid empty message.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &raw mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.as_mut_ptr().cast();
    // SAFETY: the CMSG macros compute offsets into `control`, which holds one descriptor's
    // message; `sendmsg` reads the message built there.
    unsafe {
        msg.msg_controllen = libc::CMSG_SPACE(std::mem::size_of::<libc::c_int>() as u32) as usize;
        let header = libc::CMSG_FIRSTHDR(&msg);
        if header.is_null() {
            return false;
        }
        (*header).cmsg_level = libc::SOL_SOCKET;
        (*header).cmsg_type = libc::SCM_RIGHTS;
        (*header).cmsg_len = libc::CMSG_LEN(std::mem::size_of::<libc::c_int>() as u32) as usize;
        std::ptr::write_unaligned(libc::CMSG_DATA(header).cast::<libc::c_int>(), fd);
        libc::sendmsg(sock, &msg, libc::MSG_NOSIGNAL) == 1
    }
}

/// Says why the child ends before its exec; its exit code, 126.
fn refuse(why: &[u8]) -> libc::c_int {
    say(&[b"aimon-hooks guard: ", why, b" (", Errno::last().desc().as_bytes(), b"); nothing was run\n"]);
    REFUSED
}

/// Writes `parts` to stderr (in the child: no allocation).
fn say(parts: &[&[u8]]) {
    for part in parts {
        let _ = nix::unistd::write(std::io::stderr(), part);
    }
}

fn spawn_error(program: &OsStr, source: std::io::Error) -> Error {
    Error::Spawn { command: program.to_string_lossy().into_owned(), source }
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

/// Whether `execvp` tries the next directory of `PATH` after an exec failed with `errno`.
fn search_goes_on(errno: Errno) -> bool {
    matches!(errno, Errno::EACCES | Errno::ENOENT | Errno::ENOTDIR | Errno::ESTALE | Errno::ENODEV | Errno::ETIMEDOUT)
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
