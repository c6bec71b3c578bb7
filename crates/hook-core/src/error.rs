//! The crate's one error type.

/// Errors of `hook-core`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A hook could not run; mapped by the execution policy (R-EXEC-6).
    #[error("hook failed: {0}")]
    HookFailed(String),
    /// The turn was blocked by an onStart hook (R-CHAIN-4).
    #[error("execution blocked by hook: {reason}")]
    ExecutionBlockedByHook {
        /// The blocking reason.
        reason: String,
    },
}

impl Error {
    /// A hook failure with a message.
    pub fn hook(message: impl Into<String>) -> Self {
        Error::HookFailed(message.into())
    }
}
