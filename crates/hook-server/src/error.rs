//! The crate's one error type.

use std::path::PathBuf;

/// Why the daemon could not start or a project could not be served.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file or socket operation failed; the text names the path.
    #[error("cannot {what} {}: {source}", path.display())]
    Io {
        /// What was being done ("bind the socket", "write the token file", …).
        what: &'static str,
        /// The path it was done to.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// Another `serve` answers on the socket already.
    #[error("another aimon-hooks serve is already listening on {}", .0.display())]
    AlreadyRunning(PathBuf),
    /// Something listens on the socket that does not prove it is a `serve` of this home.
    #[error("what listens on {} is not your aimon-hooks serve ({why}): stop it, then start serve again", path.display())]
    Unproven {
        /// The socket.
        path: PathBuf,
        /// Why it is not believed.
        why: String,
    },
    /// The TCP address could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Listen {
        /// The address.
        addr: std::net::SocketAddr,
        /// The cause.
        source: std::io::Error,
    },
    /// Hot reload of a project could not start.
    #[error("cannot watch the project's hooks: {0}")]
    Reload(#[from] hook_config::Error),
    /// No home directory: neither `--home` nor `$HOME` is set.
    #[error("no home directory: pass --home or set HOME")]
    NoHome,
    /// The rewake store could not be opened or its service could not start.
    #[error("cannot start rewake: {0}")]
    Rewake(#[from] hook_host::Error),
    /// The task opening the rewake store stopped before it answered (it panicked).
    #[error("opening the rewake store stopped: {0}")]
    StoreTask(String),
    /// The random source failed while making the token.
    #[error("cannot make a random token: {0}")]
    Random(String),
}
