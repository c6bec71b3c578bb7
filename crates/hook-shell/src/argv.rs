//! Analyses of an exec's argv: the exec-time guard asks the rules about one simple command whose
//! words it read from the process, not about text a tool call brings.
//!
//! A tool call's command is analysed within budgets (`analysis.rs`, `files.rs`, and hook-predicate's
//! `resolve.rs`) so that no text makes a hook slow enough for its client to give up on it; past a
//! budget the command is uncertain, and a deny holds. An exec cannot be made to time out, and the
//! kernel already bounds its argv (with the environment, a quarter of the stack limit and at most
//! 6 MiB), so there a budget would only refuse long benign argvs (`xargs`, a linker's objects) for
//! no reading of them. While a [`WholeArgv`] lives, this thread's analyses have no fixed cap:
//! their budgets grow with the argv's length, so each is decided by the whole argv and none
//! takes unbounded time.

use std::cell::Cell;
use std::marker::PhantomData;

thread_local! {
    static WHOLE: Cell<bool> = const { Cell::new(false) };
}

/// Whether this thread's analyses are of a whole argv (no cap on their budgets).
pub(crate) fn whole() -> bool {
    WHOLE.with(Cell::get)
}

/// While alive, the analyses on this thread read an exec's whole argv: their work, their file
/// records and their path resolution have budgets linear in its length, with no fixed cap. Only
/// for commands whose size something else bounds (the kernel, for an exec): a tool call's text
/// keeps its capped budgets.
///
/// ```
/// let _scope = hook_shell::WholeArgv::enter();
/// // rules asked now read an argv of any length to its end
/// ```
#[derive(Debug)]
pub struct WholeArgv {
    previous: bool,
    /// Tied to the thread whose analyses it changes.
    _thread: PhantomData<*const ()>,
}

impl WholeArgv {
    /// Starts the scope on this thread.
    pub fn enter() -> Self {
        WholeArgv { previous: WHOLE.with(|w| w.replace(true)), _thread: PhantomData }
    }
}

impl Drop for WholeArgv {
    fn drop(&mut self) {
        WHOLE.with(|w| w.set(self.previous));
    }
}
