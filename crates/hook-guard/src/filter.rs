//! The seccomp filter of a guarded process: `execve` and `execveat` stop for the tracer
//! (`SECCOMP_RET_TRACE`), everything else runs untouched. With no tracer attached the kernel fails
//! those calls with `ENOSYS`, so a process that escapes its tracer cannot exec at all.

use std::collections::BTreeMap;

use seccompiler::{BpfProgram, SeccompAction, SeccompFilter, TargetArch};

/// x86_64's `execve` and `execveat`, and their x32 numbers (x32 calls carry bit 30).
#[cfg(target_arch = "x86_64")]
pub(crate) const EXEC_CALLS: &[i64] = &[59, 322, 0x4000_0000 | 520, 0x4000_0000 | 545];

/// The architecture the filter is built for, or why the guard cannot run here.
pub(crate) fn arch() -> Result<TargetArch, String> {
    if cfg!(target_arch = "x86_64") {
        Ok(TargetArch::x86_64)
    } else {
        Err(format!("the exec guard supports x86_64 Linux only, not {}", std::env::consts::ARCH))
    }
}

/// The compiled filter.
#[cfg(target_arch = "x86_64")]
pub(crate) fn program() -> Result<BpfProgram, String> {
    let rules: BTreeMap<i64, Vec<seccompiler::SeccompRule>> = EXEC_CALLS.iter().map(|nr| (*nr, Vec::new())).collect();
    let filter = SeccompFilter::new(rules, SeccompAction::Allow, SeccompAction::Trace(0), arch()?)
        .map_err(|e| format!("cannot build the seccomp filter: {e}"))?;
    BpfProgram::try_from(filter).map_err(|e| format!("cannot compile the seccomp filter: {e}"))
}

/// The compiled filter.
#[cfg(not(target_arch = "x86_64"))]
pub(crate) fn program() -> Result<BpfProgram, String> {
    Err(arch().err().unwrap_or_default())
}
