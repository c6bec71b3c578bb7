//! The signals the guard receives (HUP, INT, QUIT, TERM), passed on to the command's process by a
//! signal handler for as long as a [`Relay`] lives: no thread to start, and none to stop when the
//! guard exits. One guarded command per process has its signals relayed at a time.

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
