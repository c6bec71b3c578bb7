//! The crate's one error type.

/// Errors of `hook-host`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// `AIMON_REWAKE_STORE` (or `--store`) names no store this build can open.
    #[error("{0}")]
    StoreUrl(String),
    /// The store could not be opened (a PostgreSQL server that cannot be reached, say).
    #[error("cannot open the rewake store {store}: {source}")]
    Open {
        /// The store, its password hidden.
        store: String,
        /// Why.
        source: hook_rewake::Error,
    },
    /// The store failed.
    #[error(transparent)]
    Rewake(#[from] hook_rewake::Error),
}
