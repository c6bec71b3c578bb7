//! The seccomp filter of a guarded process, compiled by seccompiler before the clone: `execve` and
//! `execveat` wait for the guard (`SECCOMP_RET_USER_NOTIF`), and so does a `seccomp` call making
//! a notification listener (`SECCOMP_FILTER_FLAG_NEW_LISTENER`, and any x32 `seccomp`), which the
//! guard fails with `EPERM`: a newer filter's notification wins over an older one's, so a listener
//! of the command's own would hear its execs in the guard's place and could let them through
//! unchecked. Everything else runs untouched; any other architecture's system calls (32-bit ones
//! through `int 0x80`) kill the process. Once the guard is gone the notified calls fail with
//! `ENOSYS`, so a process that outlives its guard cannot exec at all. Two more filters
//! ([`refusals`]) keep the mounts the guard made: the calls that change mounts or namespaces fail.

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter, SeccompRule, TargetArch,
};

/// x86_64's `execve` and `execveat`, and their x32 numbers (x32 calls carry bit 30).
#[cfg(target_arch = "x86_64")]
pub(crate) const EXEC_CALLS: &[i64] = &[59, 322, X32 | 520, X32 | 545];
/// x86_64's `seccomp`.
#[cfg(target_arch = "x86_64")]
const SECCOMP: i64 = 317;
/// The bit of an x32 system call's number.
const X32: i64 = 0x4000_0000;

/// The architecture the filters are built for, or why the guard cannot run here.
pub(crate) fn arch() -> Result<TargetArch, String> {
    if cfg!(target_arch = "x86_64") {
        Ok(TargetArch::x86_64)
    } else {
        Err(format!("the exec guard supports x86_64 Linux only, not {}", std::env::consts::ARCH))
    }
}

/// The filter. seccompiler has no action for a notification, so the filter is built with
/// `SECCOMP_RET_TRACE` as its match action and that return is turned into
/// `SECCOMP_RET_USER_NOTIF` (the only return instruction with that value).
#[cfg(target_arch = "x86_64")]
pub(crate) fn program() -> Result<BpfProgram, String> {
    let flag = libc::SECCOMP_FILTER_FLAG_NEW_LISTENER;
    let listener = SeccompCondition::new(1, SeccompCmpArgLen::Dword, SeccompCmpOp::MaskedEq(flag), flag)
        .and_then(|c| SeccompRule::new(vec![c]))
        .map_err(|e| format!("cannot build the seccomp filter: {e}"))?;
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = EXEC_CALLS.iter().map(|nr| (*nr, Vec::new())).collect();
    rules.insert(SECCOMP, vec![listener]);
    rules.insert(X32 | SECCOMP, Vec::new());
    let filter = SeccompFilter::new(rules, SeccompAction::Allow, SeccompAction::Trace(0), arch()?)
        .map_err(|e| format!("cannot build the seccomp filter: {e}"))?;
    let mut program = BpfProgram::try_from(filter).map_err(|e| format!("cannot compile the seccomp filter: {e}"))?;
    let trace = u32::from(SeccompAction::Trace(0));
    let mut turned = 0;
    for insn in &mut program {
        if insn.code == RET_K && insn.k == trace {
            insn.k = libc::SECCOMP_RET_USER_NOTIF;
            turned += 1;
        }
    }
    match turned {
        0 => Err(String::from("cannot build the seccomp filter: nothing in it waits for the guard")),
        _ => Ok(program),
    }
}

/// x86_64's calls that change mounts or namespaces, refused with `EPERM`: `pivot_root`, `mount`,
/// `umount2`, `unshare`, `setns`, `open_tree`, `move_mount`, `fsopen`, `fsconfig`, `fsmount`,
/// `fspick`, `mount_setattr`, `open_tree_attr`.
#[cfg(target_arch = "x86_64")]
const MOUNT_CALLS: &[i64] = &[155, 165, 166, 272, 308, 428, 429, 430, 431, 432, 433, 442, 467];
/// x86_64's `clone`, refused with a namespace flag.
#[cfg(target_arch = "x86_64")]
const CLONE: i64 = 56;
/// x86_64's `clone3`, whose flags are in memory no filter reads: refused with `ENOSYS`, so libc
/// falls back to `clone`.
#[cfg(target_arch = "x86_64")]
const CLONE3: i64 = 435;
/// The namespace flags of `clone`.
const NAMESPACES: &[u64] = &[
    libc::CLONE_NEWNS as u64,
    libc::CLONE_NEWCGROUP as u64,
    libc::CLONE_NEWUTS as u64,
    libc::CLONE_NEWIPC as u64,
    libc::CLONE_NEWUSER as u64,
    libc::CLONE_NEWPID as u64,
    libc::CLONE_NEWNET as u64,
];

/// The filters that keep the command's mounts as the guard made them (installed before the
/// notifying one): every call that changes mounts or namespaces fails with `EPERM`, a `clone`
/// into a new namespace too, and `clone3` with `ENOSYS`; the same for their x32 numbers.
#[cfg(target_arch = "x86_64")]
pub(crate) fn refusals() -> Result<Vec<BpfProgram>, String> {
    let error = |e: &dyn std::fmt::Display| format!("cannot build the seccomp filter: {e}");
    let flag = |f: u64| {
        SeccompCondition::new(0, SeccompCmpArgLen::Qword, SeccompCmpOp::MaskedEq(f), f)
            .and_then(|c| SeccompRule::new(vec![c]))
            .map_err(|e| error(&e))
    };
    let clone = NAMESPACES.iter().map(|f| flag(*f)).collect::<Result<Vec<_>, _>>()?;
    let mut eperm: BTreeMap<i64, Vec<SeccompRule>> =
        MOUNT_CALLS.iter().flat_map(|nr| [(*nr, Vec::new()), (X32 | nr, Vec::new())]).collect();
    eperm.insert(CLONE, clone.clone());
    eperm.insert(X32 | CLONE, clone);
    let enosys: BTreeMap<i64, Vec<SeccompRule>> = [(CLONE3, Vec::new()), (X32 | CLONE3, Vec::new())].into();
    [(eperm, libc::EPERM), (enosys, libc::ENOSYS)]
        .into_iter()
        .map(|(rules, errno)| {
            let filter = SeccompFilter::new(rules, SeccompAction::Allow, SeccompAction::Errno(errno as u32), arch()?)
                .map_err(|e| error(&e))?;
            BpfProgram::try_from(filter).map_err(|e| format!("cannot compile the seccomp filter: {e}"))
        })
        .collect()
}

/// The filters.
#[cfg(not(target_arch = "x86_64"))]
pub(crate) fn refusals() -> Result<Vec<BpfProgram>, String> {
    Err(arch().err().unwrap_or_default())
}

/// Whether a notified call is a listener's making (not an exec).
pub(crate) fn is_seccomp(nr: i32) -> bool {
    i64::from(nr) & !X32 == SECCOMP
}

/// `BPF_RET | BPF_K`.
const RET_K: u16 = 0x06;

/// The filter.
#[cfg(not(target_arch = "x86_64"))]
pub(crate) fn program() -> Result<BpfProgram, String> {
    Err(arch().err().unwrap_or_default())
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;

    /// The returns of a program, in order, with the action values named.
    fn returns(program: &BpfProgram) -> Vec<&'static str> {
        program
            .iter()
            .filter(|insn| insn.code == RET_K)
            .map(|insn| match insn.k {
                libc::SECCOMP_RET_ALLOW => "allow",
                libc::SECCOMP_RET_USER_NOTIF => "notify",
                libc::SECCOMP_RET_KILL_PROCESS => "kill",
                _ => "other",
            })
            .collect()
    }

    #[test]
    fn the_filter_notifies_and_otherwise_allows_or_kills_another_architecture() {
        let got = returns(&program().expect("builds"));
        assert!(got.contains(&"notify") && got.contains(&"allow") && got.contains(&"kill"), "{got:?}");
        assert!(!got.contains(&"other"), "no trace return is left: {got:?}");
    }
}
