//! The command form of an answer: what the daemon sends a forwarding `aimon-hooks <client>`
//! (`client.rs`) when it asks for it with the form header (`routes.rs`), to print as it is.

use serde::{Deserialize, Serialize};

/// The command form of an answer, as the daemon sends it to a forwarding process.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct CommandForm {
    pub(crate) stdout: String,
    pub(crate) stderr: String,
    pub(crate) exit: u8,
}
