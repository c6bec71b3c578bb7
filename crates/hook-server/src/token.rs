//! The daemon's bearer token, `~/.aimon/serve.token`: TCP's `Authorization: Bearer` secret and
//! the key of the socket's hello proof (`proof.rs`); `init claude --http` writes it into
//! Claude Code's http routes.

use std::io::Write as _;
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::{Path, PathBuf};

use crate::error::Error;

/// `~/.aimon/serve.token`.
pub fn token_path(home: &Path) -> PathBuf {
    hook_core::AimonDir::under(home).serve_token()
}

/// The bearer token of `home`, created (random, mode 0600) when it does not exist yet.
pub fn ensure_token(home: &Path) -> Result<String, Error> {
    let path = token_path(home);
    let io = |what, source| Error::Io { what, path: path.clone(), source };
    match std::fs::read_to_string(&path) {
        Ok(text) if !text.trim().is_empty() => return Ok(text.trim().to_owned()),
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(io("read the token file", e)),
    }
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| Error::Random(e.to_string()))?;
    let token: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| io("create the directory of", e))?;
    }
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&path)
        .map_err(|e| io("write the token file", e))?;
    file.write_all(format!("{token}\n").as_bytes()).map_err(|e| io("write the token file", e))?;
    Ok(token)
}
