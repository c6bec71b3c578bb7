//! The crate's one error type.

/// Errors of `hook-host`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// `AIMON_REWAKE_STORE` (or `--store`) names no store this build can open.
    #[error("{0}")]
    StoreUrl(String),
    /// This build cannot open such a store (a PostgreSQL URL without the `postgres` feature).
    #[error("{0}")]
    Unsupported(String),
    /// The directory of a SQLite store could not be created.
    #[error("cannot create the rewake store directory {}: {source}", dir.display())]
    StoreDir {
        /// The directory.
        dir: std::path::PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The store could not be opened (a PostgreSQL server that cannot be reached, say).
    #[error("cannot open the rewake store {store}: {source}")]
    Open {
        /// The store, its password hidden.
        store: String,
        /// Why.
        source: hook_rewake::Error,
    },
    /// `run`'s payload cannot be read, on an event that cannot veto (where it can, the payload is
    /// denied instead); the text says why.
    #[error("{0}")]
    Payload(String),
    /// The configuration of `run`'s project cannot run its hooks; the text says why.
    #[error("{0}")]
    Config(String),
    /// An open store failed a call (taking a session's mail, say): hook-rewake's error, passed on unchanged.
    #[error(transparent)]
    Rewake(#[from] hook_rewake::Error),
}
