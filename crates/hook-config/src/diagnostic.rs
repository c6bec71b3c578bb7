//! Diagnostics: every WARN and error of a loaded file, with file, line and column (R-CFG-6).

use std::fmt;
use std::path::{Path, PathBuf};

use crate::position::Pos;

/// How bad a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The file loads; something in it is ignored or skipped.
    Warning,
    /// The file does not load.
    Error,
}

impl Severity {
    /// `warning` or `error`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// One message about one place in one file.
///
/// Displays as `<file>:<line>:<col>: warning: <message>`; `message` is the WARN text users grep
/// for (`hooks: unknown event 'Foo'`).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Diagnostic {
    /// Warning or error.
    pub severity: Severity,
    /// The file, as given to the loader.
    pub file: PathBuf,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// The JSON pointer of the value (or the key) it is about, such as
    /// `/hooks/PreToolUse/0/hooks/1/timeout`; empty for the whole document.
    pub pointer: String,
    /// The message, without location.
    pub message: String,
}

impl Diagnostic {
    pub(crate) fn at(severity: Severity, file: &Path, pos: Pos, pointer: &str, message: impl Into<String>) -> Self {
        Diagnostic {
            severity,
            file: file.to_owned(),
            line: pos.line,
            column: pos.column,
            pointer: pointer.to_owned(),
            message: message.into(),
        }
    }

    /// Emits the diagnostic through `tracing` at its severity (WARN texts exactly as written).
    pub fn log(&self) {
        match self.severity {
            Severity::Warning => {
                tracing::warn!(file = %self.file.display(), line = self.line, column = self.column, "{}", self.message)
            }
            Severity::Error => {
                tracing::error!(file = %self.file.display(), line = self.line, column = self.column, "{}", self.message)
            }
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}: {}: {}", self.file.display(), self.line, self.column, self.severity.as_str(), self.message)
    }
}
