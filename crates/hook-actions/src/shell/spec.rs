//! What a `command` handler declares.

use std::time::Duration;

/// A shell hook: `command` runs verbatim under `sh -c` (R-ACT-SH-1).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ShellSpec {
    /// The command line; never template-rendered.
    pub command: String,
    /// The hook's deadline and declared execution budget; `None` = [`crate::DEFAULT_TIMEOUT`].
    pub timeout: Option<Duration>,
    /// Block on decision events when the hook gives no usable decision (R-CFG-4c).
    pub fail_closed: bool,
}

impl ShellSpec {
    /// Runs `command` with the default timeout, failing open.
    pub fn new(command: impl Into<String>) -> Self {
        ShellSpec { command: command.into(), timeout: None, fail_closed: false }
    }
}

crate::answer::spec_setters!(ShellSpec);
