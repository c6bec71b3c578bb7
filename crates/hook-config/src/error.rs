//! The crate's one error type.

use std::path::PathBuf;

use crate::diagnostic::Diagnostic;

/// Errors of `hook-config`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A hard configuration error; the diagnostic carries file, line and column (R-CFG-6).
    #[error("{0}")]
    Config(Diagnostic),
    /// A tier file exists but cannot be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The trust store cannot be read or written, or a project cannot be resolved.
    #[error("{}: {message}", path.display())]
    Trust {
        /// The store file, or the project directory that cannot be resolved.
        path: PathBuf,
        /// What went wrong, as a sentence.
        message: String,
    },
    /// Hot reload was started without something it needs.
    #[error("hot reload is missing its {0}")]
    Incomplete(&'static str),
    /// Hot reload was started outside a tokio runtime.
    #[error("hot reload needs a running tokio runtime")]
    NoRuntime,
}

impl Error {
    /// The diagnostic of a configuration error.
    pub fn diagnostic(&self) -> Option<&Diagnostic> {
        match self {
            Error::Config(d) => Some(d),
            _ => None,
        }
    }

    /// The error as one sentence for a person: `file:line:column: message` for a configuration
    /// error, else its message.
    pub fn sentence(&self) -> String {
        match self.diagnostic() {
            Some(d) => format!("{}:{}:{}: {}", d.file.display(), d.line, d.column, d.message),
            None => self.to_string(),
        }
    }
}
