//! Starting `aimon-hooks serve` as a process of its own, as the test binaries and the soak bench
//! do: one command line and one wait, whatever each keeps of the running daemon.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// `bin serve` with `args`, run in `project` with `home` as its home directory and the managed
/// tier in `managed/` beside it (the sandbox's; the machine's `/etc/aimon/managed` never). Nothing
/// of the caller's environment picks its rewake store, its Claude Code project or its log filter;
/// stdin, stdout and stderr are closed (set stderr again to keep it).
pub(crate) fn serve_command(bin: &Path, home: &Path, project: &Path, args: &[&str]) -> Command {
    let mut serve = Command::new(bin);
    serve
        .arg("serve")
        .args(args)
        .current_dir(project)
        .env("HOME", home)
        .env("AIMON_MANAGED_DIR", home.with_file_name("managed"))
        .env_remove("AIMON_REWAKE_STORE")
        .env_remove("CLAUDE_PROJECT_DIR")
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    serve
}

/// Polls `ready` every 50 ms until it holds; panics saying `what` once `within` has passed.
pub(crate) fn wait_until(within: Duration, what: &str, mut ready: impl FnMut() -> bool) {
    let deadline = Instant::now() + within;
    while !ready() {
        assert!(Instant::now() < deadline, "{what} (waited {within:?})");
        std::thread::sleep(Duration::from_millis(50));
    }
}
