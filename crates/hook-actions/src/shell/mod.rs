//! The `command` action.

mod groups;
mod spec;
mod transport;

use hook_core::HookContext;

pub use self::groups::HookProcessGroups;
pub use self::spec::ShellSpec;
use crate::answer::{self, Reply};

/// A shell hook (R-ACT-SH): runs [`ShellSpec::command`] under `sh -c` in its own process group.
///
/// The command gets the context on stdin (one JSON line) and as `AIMON_*` variables on top of
/// the inherited environment (each cut at a NUL and to 32 KiB, 256 KiB in all: the whole value is
/// on stdin); it runs in the context's `cwd`, else the project directory, whichever is a
/// directory, else the process's own: no payload value keeps it from starting. Exit 0
/// proceeds, exit 2 vetoes with stderr as the reason, Claude Code JSON on stdout decides on any
/// exit code; a timeout, spawn failure, crash or other exit is "no usable decision" (WARN and
/// proceed, or block when `failClosed`). On timeout or when the future is dropped the whole
/// process group is killed.
#[derive(Debug, Clone)]
pub struct ShellAction {
    id: String,
    source: String,
    spec: ShellSpec,
}

impl ShellAction {
    /// A shell hook with `id`, registered from `source` (`user#0`, a skill name, …).
    pub fn new(id: impl Into<String>, source: impl Into<String>, spec: ShellSpec) -> Self {
        ShellAction { id: id.into(), source: source.into(), spec }
    }

    async fn call(&self, ctx: &HookContext) -> Reply {
        transport::call(&self.spec, ctx, &self.source).await
    }
}

answer::transport_hook!(ShellAction);
