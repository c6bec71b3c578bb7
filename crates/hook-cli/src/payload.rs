//! Reading a payload from a file or stdin; its meaning is hook-claude's.

use std::io::Read;
use std::path::Path;

use anyhow::Context as _;
use serde_json::{Map, Value};

/// Reads the payload from `source` (a file, `-` or `None` for stdin). Empty input is `{}`.
pub(crate) fn read(source: Option<&Path>) -> anyhow::Result<Map<String, Value>> {
    let (text, name) = match source {
        Some(path) if path != Path::new("-") => (
            std::fs::read_to_string(path)
                .with_context(|| format!("cannot read the payload file {}", path.display()))?,
            path.display().to_string(),
        ),
        _ => {
            let mut text = String::new();
            std::io::stdin().read_to_string(&mut text).context("cannot read the payload from stdin")?;
            (text, "stdin".to_owned())
        }
    };
    Ok(hook_claude::parse_payload(&text, &name)?)
}
