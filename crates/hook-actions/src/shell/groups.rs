//! The process-wide registry of live command-hook process groups, so a process that is told to go
//! away (SIGTERM, SIGINT, SIGHUP) can kill them all before it exits (R-CLI-11).

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

static LIVE: Mutex<BTreeSet<i32>> = Mutex::new(BTreeSet::new());
static CLOSED: AtomicBool = AtomicBool::new(false);

/// The process groups of the command hooks this process is running: each [`crate::ShellAction`]
/// runs its command in a group of its own, listed here from spawn until the call ends.
///
/// ```
/// use hook_actions::HookProcessGroups;
/// assert_eq!(HookProcessGroups::live(), 0);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct HookProcessGroups;

impl HookProcessGroups {
    /// Kills every live hook process group with SIGKILL and returns how many were signalled.
    /// From then on a hook group is killed as soon as it starts: call this when the process is
    /// going away.
    pub fn kill_all() -> usize {
        CLOSED.store(true, Ordering::SeqCst);
        let live = LIVE.lock().unwrap_or_else(PoisonError::into_inner);
        live.iter().filter(|pgid| kill(**pgid)).count()
    }

    /// How many hook process groups are live.
    pub fn live() -> usize {
        LIVE.lock().unwrap_or_else(PoisonError::into_inner).len()
    }
}

/// Lists `pgid`; after [`HookProcessGroups::kill_all`] the group is killed instead.
pub(crate) fn register(pgid: i32) {
    let mut live = LIVE.lock().unwrap_or_else(PoisonError::into_inner);
    if CLOSED.load(Ordering::SeqCst) {
        kill(pgid);
    } else {
        live.insert(pgid);
    }
}

/// Takes `pgid` off the list (its call ended).
pub(crate) fn forget(pgid: i32) {
    LIVE.lock().unwrap_or_else(PoisonError::into_inner).remove(&pgid);
}

/// SIGKILLs the group; `false` when it was already gone (ESRCH, the only expected error).
pub(crate) fn kill(pgid: i32) -> bool {
    killpg(Pid::from_raw(pgid), Signal::SIGKILL).is_ok()
}
