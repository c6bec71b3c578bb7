//! Trust for hooks that come with a repository (R-CLI-12).
//!
//! A repository's files — the PROJECT and LOCAL tier files, the project's `.aimon/mcp.json` and
//! every SKILL.md inside the project directory — may run code (`command`, `http`, `mcp`
//! handlers, MCP servers) only once the person has recorded their SHA-256 with `aimon-hooks
//! trust`; a changed file is untrusted again. Untrusted files still restrict: their `deny`
//! handlers run.
//!
//! - [`TrustStore`] is `~/.aimon/trusted.json`: read without a lock (writes are atomic renames),
//!   changed only under an exclusive lock on `~/.aimon/trusted.json.lock`, so concurrent `trust`
//!   calls never lose or corrupt an entry.
//! - [`TrustGate`] is the verdict for one project: trust everything (an explicit project, the
//!   `AIMON_TRUST_PROJECT_HOOKS=1` override, which the caller reads and passes to
//!   [`TrustGate::for_agent`]) or a snapshot of the store. The declarative builder
//!   asks it per file and builds the hooks of an untrusted file withheld (they never match).
//!
//! Files are keyed by their canonical path under the canonical project directory, so a
//! repository that symlinks `.aimon/` to another, trusted project's files gets no trust from it.

mod gate;
mod store;

use sha2::{Digest as _, Sha256};

pub use gate::TrustGate;
pub use store::{TrustDocument, TrustStore, TrustedProject, project_files};

/// The SHA-256 of `bytes` in lower-case hex: what `sha256sum` prints for a file.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    Sha256::digest(bytes).iter().fold(String::with_capacity(64), |mut hex, b| {
        let _ = write!(hex, "{b:02x}");
        hex
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_hex_matches_the_published_test_vectors() {
        assert_eq!(sha256_hex(b""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        assert_eq!(sha256_hex(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }
}
