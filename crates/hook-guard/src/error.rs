//! The crate's one error.

/// What can stop the guard before or while it runs a command.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The kernel refuses the mechanism: nothing was run.
    #[error("aimon-hooks guard: {0}; nothing was run")]
    Unavailable(String),
    /// The command could not be started.
    #[error("aimon-hooks guard: cannot start {command}: {source}")]
    Spawn {
        /// The program.
        command: String,
        /// Why.
        source: std::io::Error,
    },
    /// Supervising failed midway: the guarded processes were killed.
    #[error("aimon-hooks guard: lost track of the command ({0}); its processes were killed")]
    Supervise(String),
}
