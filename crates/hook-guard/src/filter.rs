//! The seccomp filters of a guarded process, compiled by seccompiler before the clone:
//!
//! - [`exec_notify`]: `execve` and `execveat` wait for the guard (`SECCOMP_RET_USER_NOTIF`),
//!   everything else runs untouched. Once the guard is gone those calls fail with `ENOSYS`, so a
//!   process that outlives its guard cannot exec at all.
//! - [`no_listeners`]: a guarded process cannot make a notification listener of its own. A newer
//!   filter's notification wins over an older one's, so a listener of the command's would hear
//!   its execs in the guard's place and could let them through unchecked.
//!
//! Any other architecture's system calls (32-bit ones through `int 0x80`) kill the process.

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter, SeccompRule,
    TargetArch,
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

/// The filter that makes execs wait for the guard. seccompiler has no action for a notification,
/// so the filter is built with `SECCOMP_RET_TRACE` as its match action and that return is turned
/// into `SECCOMP_RET_USER_NOTIF` (the only return instruction with that value).
#[cfg(target_arch = "x86_64")]
pub(crate) fn exec_notify() -> Result<BpfProgram, String> {
    let rules: BTreeMap<i64, Vec<SeccompRule>> = EXEC_CALLS.iter().map(|nr| (*nr, Vec::new())).collect();
    let mut program = compile(rules, SeccompAction::Trace(0))?;
    let trace = u32::from(SeccompAction::Trace(0));
    let mut turned = 0;
    for insn in &mut program {
        if insn.code == RET_K && insn.k == trace {
            insn.k = libc::SECCOMP_RET_USER_NOTIF;
            turned += 1;
        }
    }
    match turned {
        0 => Err(String::from("cannot build the seccomp filter: it has no exec to notify")),
        _ => Ok(program),
    }
}

/// The filter that refuses a notification listener (`seccomp` with
/// `SECCOMP_FILTER_FLAG_NEW_LISTENER`, and any x32 `seccomp`) with `EPERM`.
#[cfg(target_arch = "x86_64")]
pub(crate) fn no_listeners() -> Result<BpfProgram, String> {
    let flag = libc::SECCOMP_FILTER_FLAG_NEW_LISTENER;
    let listener = SeccompCondition::new(1, SeccompCmpArgLen::Dword, SeccompCmpOp::MaskedEq(flag), flag)
        .and_then(|c| SeccompRule::new(vec![c]))
        .map_err(|e| format!("cannot build the seccomp filter: {e}"))?;
    let rules = BTreeMap::from([(SECCOMP, vec![listener]), (X32 | SECCOMP, Vec::new())]);
    compile(rules, SeccompAction::Errno(libc::EPERM as u32))
}

/// `BPF_RET | BPF_K`.
const RET_K: u16 = 0x06;

fn compile(rules: BTreeMap<i64, Vec<SeccompRule>>, on_match: SeccompAction) -> Result<BpfProgram, String> {
    let filter = SeccompFilter::new(rules, SeccompAction::Allow, on_match, arch()?)
        .map_err(|e| format!("cannot build the seccomp filter: {e}"))?;
    BpfProgram::try_from(filter).map_err(|e| format!("cannot compile the seccomp filter: {e}"))
}

/// The filter that makes execs wait for the guard.
#[cfg(not(target_arch = "x86_64"))]
pub(crate) fn exec_notify() -> Result<BpfProgram, String> {
    Err(arch().err().unwrap_or_default())
}

/// The filter that refuses a notification listener.
#[cfg(not(target_arch = "x86_64"))]
pub(crate) fn no_listeners() -> Result<BpfProgram, String> {
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
                k if k == libc::SECCOMP_RET_ERRNO | libc::EPERM as u32 => "eperm",
                _ => "other",
            })
            .collect()
    }

    #[test]
    fn the_exec_filter_notifies_and_otherwise_allows_or_kills_another_architecture() {
        let program = exec_notify().expect("builds");
        let got = returns(&program);
        assert!(got.contains(&"notify") && got.contains(&"allow") && got.contains(&"kill"), "{got:?}");
        assert!(!got.contains(&"other"), "no trace return is left: {got:?}");
    }

    #[test]
    fn the_listener_filter_refuses_with_eperm_and_otherwise_allows() {
        let got = returns(&no_listeners().expect("builds"));
        assert!(got.contains(&"eperm") && got.contains(&"allow"), "{got:?}");
        assert!(!got.contains(&"notify") && !got.contains(&"other"), "{got:?}");
    }
}
