//! The crate's one error type.

/// Why a Claude Code hook call could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The payload is not a usable Claude Code hook payload; the text says why.
    #[error("{0}")]
    Payload(String),
    /// A Claude Code settings file has a shape `init claude` cannot edit; the text says why.
    #[error("{0}")]
    Settings(String),
}
