//! The crate's one error type.

/// Errors of `hook-rewake`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A duration string that is neither shorthand nor ISO-8601, or is zero or out of range (R-CFG-RW-3).
    #[error("invalid duration '{text}': {detail}")]
    InvalidDuration {
        /// The input as given.
        text: String,
        /// What is wrong with it.
        detail: String,
    },
    /// A cron expression that is not strict five-field cron (R-CFG-RW-4). The message is the
    /// seed's wording followed by what is wrong (`…: day-of-week field '5L': 'L' is not allowed`).
    #[error("asyncRewake.trigger.cron is not a valid five-field cron expression: {detail}")]
    InvalidCron {
        /// The expression as given.
        expr: String,
        /// What is wrong with it.
        detail: String,
    },
    /// A zone id that is not in the IANA database.
    #[error("unknown time zone '{0}'")]
    UnknownZone(String),
    /// An envelope the service cannot take (duplicate id, times out of range, no next cron fire).
    #[error("rewake envelope rejected: {0}")]
    Rejected(String),
    /// The service was started outside a tokio runtime.
    #[error("the rewake service must be started inside a tokio runtime")]
    NoRuntime,
    /// The durable store failed.
    #[error("rewake store failed: {0}")]
    Store(String),
}

impl From<rusqlite::Error> for Error {
    fn from(err: rusqlite::Error) -> Self {
        Error::Store(err.to_string())
    }
}

impl From<serde_json::Error> for Error {
    fn from(err: serde_json::Error) -> Self {
        Error::Store(format!("corrupt envelope record: {err}"))
    }
}
