//! The process's allocator, chosen once before `main` from the command line: jemalloc for
//! `serve`, the system's for every other command.
//!
//! `serve` needs jemalloc to hand the memory of a burst of connections back to the system
//! (docs/decisions.md, "The daemon's allocator"); a one-shot command (`run`, `claude` on every
//! Claude Code hook call) would only pay for allocating with it: about 45 page faults and half a
//! millisecond. (jemalloc's library constructor still sets up its first arena in every process,
//! which no build option turns off.) The choice is made by a start-up function the C runtime calls with the program's
//! arguments, before Rust's runtime or `main` allocate; should anything allocate earlier, the
//! system's allocator is chosen for good, so memory is always freed by the allocator that gave it.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU8, Ordering};

use tikv_jemallocator::Jemalloc;

const UNDECIDED: u8 = 0;
const SYSTEM: u8 = 1;
const JEMALLOC: u8 = 2;

/// The one choice; once made it never changes.
static CHOICE: AtomicU8 = AtomicU8::new(UNDECIDED);

/// jemalloc for `serve`, the system's allocator otherwise (see the module docs).
pub(crate) struct ChosenAllocator;

/// Whether this process allocates with jemalloc (only then does `serve` start its background
/// purging thread).
pub(crate) fn is_jemalloc() -> bool {
    decided() == JEMALLOC
}

/// The choice, made now (the system's allocator) if nothing made it yet.
fn decided() -> u8 {
    match CHOICE.load(Ordering::Relaxed) {
        UNDECIDED => choose(SYSTEM),
        choice => choice,
    }
}

/// Makes the choice unless it is made already; returns the choice in force.
fn choose(choice: u8) -> u8 {
    match CHOICE.compare_exchange(UNDECIDED, choice, Ordering::Relaxed, Ordering::Relaxed) {
        Ok(_) => choice,
        Err(made) => made,
    }
}

/// The allocator a command line gets: jemalloc when its command (the first argument that is not
/// an option) is `serve`.
fn choice_for<'a>(mut args: impl Iterator<Item = &'a [u8]>) -> u8 {
    match args.find(|arg| !arg.starts_with(b"-")) {
        Some(b"serve") => JEMALLOC,
        _ => SYSTEM,
    }
}

/// Run by the C runtime before `main` with the program's arguments (glibc passes them to every
/// `.init_array` function, as Rust's own runtime relies on).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[used]
#[unsafe(link_section = ".init_array")]
static CHOOSE_AT_START: extern "C" fn(std::ffi::c_int, *const *const std::ffi::c_char, *const *const std::ffi::c_char) =
    choose_at_start;

#[cfg(all(target_os = "linux", target_env = "gnu"))]
extern "C" fn choose_at_start(
    argc: std::ffi::c_int,
    argv: *const *const std::ffi::c_char,
    _env: *const *const std::ffi::c_char,
) {
    if argv.is_null() {
        return;
    }
    let count = usize::try_from(argc).unwrap_or(0);
    // SAFETY: the C runtime passes `argc` valid, NUL-terminated strings in `argv`, which live for
    // the whole process.
    let args = (1..count).map(|i| unsafe { std::ffi::CStr::from_ptr(*argv.add(i)) }.to_bytes());
    choose(choice_for(args));
}

// SAFETY: every call goes to the allocator of the one choice, made before the first allocation
// and never changed, so each block is resized and freed by the allocator that gave it.
unsafe impl GlobalAlloc for ChosenAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        unsafe { if decided() == JEMALLOC { Jemalloc.alloc(layout) } else { System.alloc(layout) } }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        unsafe { if decided() == JEMALLOC { Jemalloc.alloc_zeroed(layout) } else { System.alloc_zeroed(layout) } }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract, passed on; `ptr` came from the same allocator.
        unsafe { if decided() == JEMALLOC { Jemalloc.dealloc(ptr, layout) } else { System.dealloc(ptr, layout) } }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract, passed on; `ptr` came from the same allocator.
        unsafe {
            if decided() == JEMALLOC {
                Jemalloc.realloc(ptr, layout, new_size)
            } else {
                System.realloc(ptr, layout, new_size)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_command_line_whose_command_is_serve_gets_jemalloc() {
        let table: &[(&[&str], u8)] = &[
            (&["serve"], JEMALLOC),
            (&["-v", "serve", "--listen", "127.0.0.1:0"], JEMALLOC),
            (&["--verbose", "-vv", "serve"], JEMALLOC),
            (&["run", "PreToolUse", "serve"], SYSTEM),
            (&["claude"], SYSTEM),
            (&["--serve"], SYSTEM),
            (&["servers"], SYSTEM),
            (&[], SYSTEM),
        ];
        for (args, expected) in table {
            assert_eq!(choice_for(args.iter().map(|a| a.as_bytes())), *expected, "{args:?}");
        }
    }

    #[test]
    fn the_test_process_made_its_choice_before_its_first_allocation_and_keeps_it() {
        let before = decided();
        assert_ne!(before, UNDECIDED);
        assert_eq!(choose(if before == SYSTEM { JEMALLOC } else { SYSTEM }), before, "a second choice must not win");
        assert_eq!(decided(), before);
    }
}
