//! The pinned Claude Code CLI, installed with npm into `<target>/npm-cache/claude-code-<version>`
//! on first use. A lock file keeps parallel tests and parallel `cargo test` processes from
//! installing at the same time; a completion marker, written last, says the install finished.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The one Claude Code version the suite drives.
pub(crate) const CLAUDE_CODE_VERSION: &str = "2.1.332";

/// The `claude` executable of the pinned version, installing it first if needed. Panics with a
/// sentence naming what to install when npm is missing or the install fails.
pub(crate) fn claude_code() -> &'static Path {
    static CLAUDE: OnceLock<PathBuf> = OnceLock::new();
    CLAUDE.get_or_init(install)
}

/// `<target>/npm-cache/claude-code-<version>`: the target directory is the one holding the
/// binary under test (`<target>/<profile>/aimon-hooks`), so `CARGO_TARGET_DIR` is honoured.
fn cache_dir() -> PathBuf {
    let binary = Path::new(env!("CARGO_BIN_EXE_aimon-hooks"));
    let target = binary.parent().and_then(Path::parent).expect("the binary lives in <target>/<profile>/");
    target.join("npm-cache").join(format!("claude-code-{CLAUDE_CODE_VERSION}"))
}

fn install() -> PathBuf {
    let cache = cache_dir();
    let claude = cache.join("node_modules").join(".bin").join("claude");
    let marker = cache.join(".installed");
    std::fs::create_dir_all(&cache).unwrap_or_else(|e| panic!("cannot create {}: {e}", cache.display()));
    let lock_path = cache.with_file_name(format!("claude-code-{CLAUDE_CODE_VERSION}.lock"));
    let lock = File::create(&lock_path).unwrap_or_else(|e| panic!("cannot create {}: {e}", lock_path.display()));
    lock.lock().unwrap_or_else(|e| panic!("cannot lock {}: {e}", lock_path.display()));
    if !marker.exists() {
        npm_install(&cache);
        let version = version_of(&claude);
        assert!(
            version.contains(CLAUDE_CODE_VERSION),
            "npm installed {} but `claude --version` says {version:?}, not {CLAUDE_CODE_VERSION}",
            claude.display()
        );
        std::fs::write(&marker, CLAUDE_CODE_VERSION).expect("write the completion marker");
    }
    drop(lock);
    claude
}

fn npm_install(cache: &Path) {
    let package = format!("@anthropic-ai/claude-code@{CLAUDE_CODE_VERSION}");
    eprintln!("installing {package} into {} (first use, ~380 MB)", cache.display());
    let out = Command::new("npm")
        .arg("install")
        .arg("--prefix")
        .arg(cache)
        .args(["--no-audit", "--no-fund", "--loglevel=error", &package])
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "cannot run npm ({e}): the Claude Code end-to-end tests install {package} with npm; \
                 install Node.js and npm (e.g. `apt-get install nodejs npm`) and run them again"
            )
        });
    assert!(
        out.status.success(),
        "`npm install --prefix {} {package}` failed ({}); Node.js and npm must be installed and the npm \
         registry reachable.\nstdout:\n{}\nstderr:\n{}",
        cache.display(),
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn version_of(claude: &Path) -> String {
    let out = Command::new(claude)
        .arg("--version")
        .output()
        .unwrap_or_else(|e| panic!("npm finished but {} does not run: {e}", claude.display()));
    String::from_utf8_lossy(&out.stdout).into_owned()
}
