//! What a `command` handler declares.

use std::time::Duration;

/// A shell hook: `command` runs verbatim under `sh -c` (R-ACT-SH-1).
///
/// Its serde and schema form is the `command` handler's own fields in hooks.json; `timeout` and
/// `failClosed` are the handler's common fields, which hook-config owns.
#[derive(Debug, Clone, PartialEq, serde::Serialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct ShellSpec {
    /// The command line, run verbatim under `sh -c` (never template-rendered); context arrives
    /// as JSON on stdin and in `AIMON_*` variables.
    #[schemars(pattern(r"\S"))]
    pub command: String,
    /// The hook's deadline and declared execution budget; `None` = [`crate::DEFAULT_TIMEOUT`].
    #[serde(skip)]
    pub timeout: Option<Duration>,
    /// Block on decision events when the hook gives no usable decision (R-CFG-4c).
    #[serde(skip)]
    pub fail_closed: bool,
}

impl ShellSpec {
    /// Runs `command` with the default timeout, failing open.
    pub fn new(command: impl Into<String>) -> Self {
        ShellSpec { command: command.into(), timeout: None, fail_closed: false }
    }
}

crate::answer::spec_setters!(ShellSpec);
