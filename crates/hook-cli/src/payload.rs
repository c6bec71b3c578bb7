//! Reading a payload from a file or stdin; reading it as the client meant it, and its meaning,
//! are hook-wire's.

use std::io::Read;
use std::path::Path;

use anyhow::Context as _;

/// The payload's bytes from `source` (a file, `-` or `None` for stdin), and where they came from.
pub(crate) fn bytes(source: Option<&Path>) -> anyhow::Result<(Vec<u8>, String)> {
    match source {
        Some(path) if path != Path::new("-") => Ok((
            std::fs::read(path).with_context(|| format!("cannot read the payload file {}", path.display()))?,
            path.display().to_string(),
        )),
        _ => {
            let mut bytes = Vec::new();
            std::io::stdin().read_to_end(&mut bytes).context("cannot read the payload from stdin")?;
            Ok((bytes, "stdin".to_owned()))
        }
    }
}

/// Reads the payload from `source` (see [`bytes`]). Empty input is `{}`.
pub(crate) fn read(source: Option<&Path>) -> anyhow::Result<serde_json::Map<String, serde_json::Value>> {
    let (bytes, name) = bytes(source)?;
    Ok(hook_wire::parse_payload(&bytes, &name)?)
}
