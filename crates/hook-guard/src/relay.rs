//! The guard's signal handlers, for as long as their guard values live: no thread to start, and
//! none to stop when the guard exits. One guarded command per process at a time.
//!
//! - [`Relay`]: the signals the guard receives (HUP, INT, QUIT, TERM), passed on to the command's
//!   process.
//! - [`ChildWake`]: `SIGCHLD` (a traced exec stopped, a child ended) as a byte on a pipe, which the
//!   guard's `poll` sees beside the exec listener — whichever of the process's threads the kernel
//!   hands the signal to.

use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::sync::atomic::{AtomicI32, Ordering};

use nix::sys::signal::{SaFlags, SigAction, SigHandler, SigSet, Signal, sigaction};
use nix::unistd::Pid;

/// The process the signals go to (0: none).
static MAIN: AtomicI32 = AtomicI32::new(0);

/// The signals relayed.
pub(crate) const FORWARDED: [Signal; 4] = [Signal::SIGHUP, Signal::SIGINT, Signal::SIGQUIT, Signal::SIGTERM];

/// The forwarded signals as a set.
pub(crate) fn forwarded() -> SigSet {
    let mut set = SigSet::empty();
    for sig in FORWARDED {
        set.add(sig);
    }
    set
}

/// The handlers in place; dropped, the previous ones are back.
#[derive(Debug)]
pub(crate) struct Relay {
    previous: Vec<(Signal, SigAction)>,
}

impl Relay {
    /// Passes the forwarded signals on to `main` from now on.
    pub(crate) fn start(main: Pid) -> Relay {
        MAIN.store(main.as_raw(), Ordering::SeqCst);
        let action =
            SigAction::new(SigHandler::SigAction(pass_on), SaFlags::SA_SIGINFO | SaFlags::SA_RESTART, SigSet::empty());
        // SAFETY: `pass_on` only reads an atomic and calls `kill`, which a handler may.
        let previous =
            FORWARDED.iter().filter_map(|sig| unsafe { sigaction(*sig, &action) }.ok().map(|p| (*sig, p))).collect();
        Relay { previous }
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        for (sig, action) in &self.previous {
            // SAFETY: the action was in place before `start`.
            let _ = unsafe { sigaction(*sig, action) };
        }
        MAIN.store(0, Ordering::SeqCst);
    }
}

/// The pipe's writing end `ChildWake` writes to (-1: none).
static WAKE: AtomicI32 = AtomicI32::new(-1);

/// `SIGCHLD`'s handler in place, and the pipe it writes to; dropped, the previous handler is back.
#[derive(Debug)]
pub(crate) struct ChildWake {
    read: OwnedFd,
    _write: OwnedFd,
    previous: Option<SigAction>,
}

impl ChildWake {
    pub(crate) fn start() -> nix::Result<ChildWake> {
        let (read, write) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC | nix::fcntl::OFlag::O_NONBLOCK)?;
        WAKE.store(std::os::fd::AsRawFd::as_raw_fd(&write), Ordering::SeqCst);
        let action = SigAction::new(SigHandler::Handler(wake), SaFlags::SA_RESTART, SigSet::empty());
        // (Without SA_NOCLDSTOP: a traced exec's stop is what the guard waits for.)
        // SAFETY: `wake` only reads an atomic and calls `write`, which a handler may.
        let previous = unsafe { sigaction(Signal::SIGCHLD, &action) }?;
        Ok(ChildWake { read, _write: write, previous: Some(previous) })
    }

    /// Empties the pipe (the wake-ups so far are seen).
    pub(crate) fn drain(&self) {
        let mut buf = [0u8; 64];
        while matches!(nix::unistd::read(&self.read, &mut buf), Ok(n) if n == buf.len()) {}
    }
}

impl AsFd for ChildWake {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.read.as_fd()
    }
}

impl Drop for ChildWake {
    fn drop(&mut self) {
        if let Some(previous) = self.previous.take() {
            // SAFETY: the action was in place before `start`.
            let _ = unsafe { sigaction(Signal::SIGCHLD, &previous) };
        }
        WAKE.store(-1, Ordering::SeqCst);
    }
}

/// `SIGCHLD`'s handler: a byte on the pipe (a full pipe has wake-ups enough).
extern "C" fn wake(_sig: libc::c_int) {
    let fd = WAKE.load(Ordering::SeqCst);
    if fd >= 0 {
        // SAFETY: `write` is async-signal-safe; errno is kept for the code the signal interrupted.
        unsafe {
            let errno = *libc::__errno_location();
            libc::write(fd, [0u8].as_ptr().cast(), 1);
            *libc::__errno_location() = errno;
        }
    }
}

/// A forwarded signal's handler: to the command, unless the terminal sent it (the whole
/// foreground group, the command included, got it already).
extern "C" fn pass_on(sig: libc::c_int, info: *mut libc::siginfo_t, _context: *mut libc::c_void) {
    // SAFETY: the kernel passes a valid `siginfo_t` to an `SA_SIGINFO` handler.
    if !info.is_null() && unsafe { (*info).si_code } == libc::SI_KERNEL {
        return;
    }
    let main = MAIN.load(Ordering::SeqCst);
    if main > 0 {
        // SAFETY: `kill` is async-signal-safe.
        unsafe { libc::kill(main, sig) };
    }
}
