//! The four tools of the peers bench: where each is installed, how it is called as a Claude Code
//! PreToolUse command hook, and how its answer is read.
//!
//! - dcg (crate `destructive_command_guard`, binary `dcg`): the payload on stdin, no arguments, as
//!   its README's `settings.json` entry (`"command": "/absolute/path/to/dcg"`).
//! - longline (crate `longline`): the payload on stdin, no arguments (its README's entry).
//! - cc-safety-net (npm `cc-safety-net`): `cc-safety-net hook --claude-code`, what its Claude Code
//!   plugin runs (`--coding-cli` in 2.4.5's help, `--claude-code` kept as its alias).
//! - aimon: `aimon-hooks claude --no-serve` (this bench's release build; no daemon is asked).
//!
//! Each answers with exit 2 (deny), or exit 0 and either nothing (no opinion) or Claude Code's JSON
//! (`hookSpecificOutput.permissionDecision`, or the older top-level `decision: "block"`).

use std::io::Write as _;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How a peer is installed under `target/peers/<name>`.
enum Install {
    /// `cargo install --locked --root target/peers/<name> <krate> --version <version>`.
    Cargo {
        krate: &'static str,
        version: &'static str,
        bin: &'static str,
        /// `RUSTUP_TOOLCHAIN` for the build, where the crate's lock needs a newer compiler than the
        /// workspace's (dcg 0.16.0's locks `vergen` 10.0.3, which wants rustc 1.96; dcg itself
        /// pins a nightly).
        toolchain: Option<&'static str>,
        /// Lock entries moved to another version when the registry lacks the locked one (the
        /// registry mirror this was written on has no `webpki-roots` 1.0.11); used only after the
        /// plain `--locked` install failed.
        lock_pins: &'static [(&'static str, &'static str)],
    },
    /// `npm install --prefix target/peers/<name> <package>@<version>`, run with node.
    Npm { package: &'static str, version: &'static str, script: &'static str, args: &'static [&'static str] },
}

struct Peer {
    name: &'static str,
    install: Install,
}

const PEERS: [Peer; 3] = [
    Peer {
        name: "dcg",
        install: Install::Cargo {
            krate: "destructive_command_guard",
            version: "0.16.0",
            bin: "dcg",
            toolchain: Some("nightly"),
            lock_pins: &[("webpki-roots", "1.0.10")],
        },
    },
    Peer {
        name: "longline",
        install: Install::Cargo {
            krate: "longline",
            version: "0.21.3",
            bin: "longline",
            toolchain: None,
            lock_pins: &[],
        },
    },
    Peer {
        name: "ccsn",
        install: Install::Npm {
            package: "cc-safety-net",
            version: "2.4.5",
            script: "dist/bin/cc-safety-net.js",
            args: &["hook", "--claude-code"],
        },
    },
];

/// Every tool the bench knows, in table order.
pub(crate) const ALL: [&str; 4] = ["aimon", "dcg", "longline", "ccsn"];

/// One tool ready to be called.
#[derive(Debug, Clone)]
pub(crate) struct Tool {
    pub(crate) name: &'static str,
    program: PathBuf,
    args: Vec<String>,
    /// Variables of its environment beyond HOME, PATH and CLAUDE_PROJECT_DIR.
    env: Vec<(&'static str, String)>,
    /// The first line of its `--version`.
    pub(crate) version: String,
}

/// A hook's answer to one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Verdict {
    Allow,
    Ask,
    Deny,
    /// Exit other than 0 and 2, output that is not Claude Code's JSON, or a timeout: Claude Code
    /// goes on with the call, so the bench counts it as not stopped.
    Error(String),
}

impl Verdict {
    pub(crate) fn word(&self) -> &str {
        match self {
            Verdict::Allow => "allow",
            Verdict::Ask => "ask",
            Verdict::Deny => "deny",
            Verdict::Error(_) => "error",
        }
    }
}

/// `target/peers`, next to the release build of `aimon-hooks`.
pub(crate) fn peers_dir() -> PathBuf {
    let exe = Path::new(env!("CARGO_BIN_EXE_aimon-hooks"));
    exe.parent().and_then(Path::parent).expect("aimon-hooks sits in <target>/<profile>/").join("peers")
}

/// Installs (when missing) and returns the named tools.
pub(crate) fn prepare(names: &[&'static str]) -> Result<Vec<Tool>, String> {
    let dir = peers_dir();
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut tools = Vec::new();
    for &name in names {
        let tool = match PEERS.iter().find(|p| p.name == name) {
            None if name == "aimon" => Tool {
                name,
                program: PathBuf::from(env!("CARGO_BIN_EXE_aimon-hooks")),
                args: vec!["claude".into(), "--no-serve".into()],
                // As `init claude --protect` leaves Claude Code: every Bash command under the
                // guard, whose prefix Claude Code hands to its hooks as well.
                env: vec![(
                    hook_wire::claude::SHELL_PREFIX,
                    hook_wire::claude::guard_prefix(env!("CARGO_BIN_EXE_aimon-hooks")),
                )],
                version: String::new(),
            },
            None => return Err(format!("unknown tool {name:?} (known: {})", ALL.join(", "))),
            Some(peer) => install(peer, &dir.join(peer.name))?,
        };
        let version = first_line(Command::new(&tool.program).args(version_args(&tool)));
        // dcg and cc-safety-net print the bare number.
        let version =
            if version.starts_with(|c: char| c.is_ascii_digit()) { format!("{name} {version}") } else { version };
        tools.push(Tool { version, ..tool });
    }
    Ok(tools)
}

fn version_args(tool: &Tool) -> Vec<String> {
    match tool.name {
        "ccsn" => vec![tool.args[0].clone(), "--version".into()],
        _ => vec!["--version".into()],
    }
}

fn first_line(cmd: &mut Command) -> String {
    let out = cmd.stdin(Stdio::null()).output().map(|o| o.stdout).unwrap_or_default();
    String::from_utf8_lossy(&out).lines().next().unwrap_or("?").trim().to_string()
}

fn install(peer: &Peer, root: &Path) -> Result<Tool, String> {
    let log = root.with_extension("install.log");
    match &peer.install {
        Install::Cargo { krate, version, bin, toolchain, lock_pins } => {
            let program = root.join("bin").join(bin);
            if !first_line(Command::new(&program).arg("--version")).contains(version) {
                eprintln!("peers: installing {krate} {version} into {} (log: {})", root.display(), log.display());
                let mut locked = cargo(*toolchain);
                locked.args(["install", "--locked", "--force", "--root"]).arg(root).args([krate, "--version", version]);
                if !run_logged(&mut locked, &log)? {
                    if lock_pins.is_empty() {
                        return Err(format!("cargo install {krate} failed: see {}", log.display()));
                    }
                    install_with_pins(krate, version, *toolchain, lock_pins, root, &log)?;
                }
            }
            Ok(Tool { name: peer.name, program, args: Vec::new(), env: Vec::new(), version: String::new() })
        }
        Install::Npm { package, version, script, args } => {
            let package_dir = root.join("node_modules").join(package);
            let manifest = std::fs::read_to_string(package_dir.join("package.json")).unwrap_or_default();
            let installed = serde_json::from_str::<serde_json::Value>(&manifest).ok();
            if installed.as_ref().and_then(|m| m["version"].as_str()) != Some(version) {
                eprintln!("peers: installing {package}@{version} into {} (log: {})", root.display(), log.display());
                let mut npm = Command::new("npm");
                npm.args(["install", "--no-audit", "--no-fund", "--prefix"])
                    .arg(root)
                    .arg(format!("{package}@{version}"));
                if !run_logged(&mut npm, &log)? {
                    return Err(format!("npm install {package} failed: see {}", log.display()));
                }
            }
            let node = which("node").ok_or("node is not on PATH")?;
            let mut all = vec![package_dir.join(script).display().to_string()];
            all.extend(args.iter().map(|a| a.to_string()));
            Ok(Tool { name: peer.name, program: node, args: all, env: Vec::new(), version: String::new() })
        }
    }
}

fn cargo(toolchain: Option<&str>) -> Command {
    // The rustup proxy (not $CARGO, a toolchain's own cargo) so RUSTUP_TOOLCHAIN applies; the
    // install builds in its own directory, not in the workspace's target (no shared lock).
    let mut cmd = Command::new("cargo");
    cmd.env_remove("CARGO_TARGET_DIR").env_remove("CARGO_BUILD_TARGET_DIR");
    if let Some(toolchain) = toolchain {
        cmd.env("RUSTUP_TOOLCHAIN", toolchain);
    }
    cmd
}

/// The crate's published source (unpacked in cargo's registry cache by the failed attempt) copied
/// to `<root>-src`, made its own workspace, its toolchain file and `.cargo` settings (a nightly
/// rustc flag) removed, the pinned lock entries moved, then `cargo install --locked --path`.
fn install_with_pins(
    krate: &str,
    version: &str,
    toolchain: Option<&str>,
    pins: &[(&str, &str)],
    root: &Path,
    log: &Path,
) -> Result<(), String> {
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .ok_or("no CARGO_HOME or HOME")?;
    let unpacked = std::fs::read_dir(cargo_home.join("registry/src"))
        .map_err(|e| format!("cargo's registry cache: {e}"))?
        .flatten()
        .map(|index| index.path().join(format!("{krate}-{version}")))
        .find(|p| p.join("Cargo.toml").is_file())
        .ok_or_else(|| format!("{krate}-{version} is not in cargo's registry cache: see {}", log.display()))?;
    let src = root.with_file_name(format!("{}-src", root.file_name().and_then(|n| n.to_str()).unwrap_or("peer")));
    let _ = std::fs::remove_dir_all(&src);
    if !Command::new("cp").arg("-r").arg(&unpacked).arg(&src).status().is_ok_and(|s| s.success()) {
        return Err(format!("copying {} failed", unpacked.display()));
    }
    let _ = std::fs::remove_dir_all(src.join(".cargo"));
    let _ = std::fs::remove_file(src.join("rust-toolchain.toml"));
    let manifest = src.join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest).map_err(|e| e.to_string())?;
    std::fs::write(&manifest, text + "\n[workspace]\n").map_err(|e| e.to_string())?;
    for (dep, precise) in pins {
        eprintln!("peers: {krate}: the registry lacks its locked {dep}; moving that one entry to {precise}");
        let mut update = cargo(toolchain);
        update.arg("update").arg("--manifest-path").arg(&manifest).args(["-p", dep, "--precise", precise]);
        if !run_logged(&mut update, log)? {
            return Err(format!("cargo update -p {dep} failed: see {}", log.display()));
        }
    }
    let mut install = cargo(toolchain);
    install.args(["install", "--locked", "--force", "--root"]).arg(root).arg("--path").arg(&src);
    if !run_logged(&mut install, log)? {
        return Err(format!("cargo install --path {} failed: see {}", src.display(), log.display()));
    }
    Ok(())
}

/// Runs `cmd` with its output appended to `log`; whether it succeeded.
fn run_logged(cmd: &mut Command, log: &Path) -> Result<bool, String> {
    let file = std::fs::OpenOptions::new().create(true).append(true).open(log).map_err(|e| e.to_string())?;
    let err = file.try_clone().map_err(|e| e.to_string())?;
    let status = cmd.stdin(Stdio::null()).stdout(file).stderr(err).status().map_err(|e| format!("{cmd:?}: {e}"))?;
    Ok(status.success())
}

fn which(program: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?).map(|d| d.join(program)).find(|p| p.is_file())
}

/// Kills a call's process group when it outlives the timeout; one per worker thread.
#[derive(Debug)]
pub(crate) struct Watchdog {
    tx: mpsc::Sender<Option<i32>>,
    fired: Arc<AtomicBool>,
}

impl Watchdog {
    pub(crate) fn new(timeout: Duration) -> Watchdog {
        let (tx, rx) = mpsc::channel::<Option<i32>>();
        let fired = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&fired);
        std::thread::spawn(move || {
            while let Ok(message) = rx.recv() {
                let Some(pgid) = message else { continue };
                match rx.recv_timeout(timeout) {
                    Ok(_) => {}
                    Err(mpsc::RecvTimeoutError::Timeout) => {
                        flag.store(true, Ordering::SeqCst);
                        let _ = nix::sys::signal::kill(
                            nix::unistd::Pid::from_raw(-pgid),
                            nix::sys::signal::Signal::SIGKILL,
                        );
                        let _ = rx.recv();
                    }
                    Err(mpsc::RecvTimeoutError::Disconnected) => return,
                }
            }
        });
        Watchdog { tx, fired }
    }
}

/// A scratch project and home for one tool: every call of that tool runs in them.
#[derive(Debug)]
pub(crate) struct Scratch {
    pub(crate) home: PathBuf,
    pub(crate) project: PathBuf,
    /// Its TMPDIR.
    pub(crate) tmp: PathBuf,
}

impl Tool {
    /// One PreToolUse call of Bash `command`: the verdict and the wall time from spawn to exit.
    pub(crate) fn call(&self, scratch: &Scratch, command: &str, watchdog: &Watchdog) -> (Verdict, Duration) {
        let payload = serde_json::json!({
            "session_id": "peers-bench",
            "transcript_path": scratch.home.join(".claude/projects/peers/peers-bench.jsonl"),
            "cwd": scratch.project,
            "permission_mode": "default",
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command, "description": "peers bench"},
            "tool_use_id": "toolu_peers",
        })
        .to_string();
        let mut cmd = Command::new(&self.program);
        cmd.args(&self.args)
            .current_dir(&scratch.project)
            .env_clear()
            .env("HOME", &scratch.home)
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("CLAUDE_PROJECT_DIR", &scratch.project)
            // A temporary directory of its own, as a person's session has one (macOS always sets
            // TMPDIR; the suites take `rm -rf $TMPDIR/…` as removing scratch files).
            .env("TMPDIR", &scratch.tmp)
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        let started = Instant::now();
        let mut child = match cmd.spawn() {
            Ok(child) => child,
            Err(e) => return (Verdict::Error(format!("spawn: {e}")), started.elapsed()),
        };
        let pid = i32::try_from(child.id()).unwrap_or(i32::MAX);
        let _ = watchdog.tx.send(Some(pid));
        if let Some(mut stdin) = child.stdin.take() {
            // A tool may exit without reading its input: a broken pipe is its answer, not ours.
            let _ = stdin.write_all(payload.as_bytes());
        }
        let output = child.wait_with_output();
        let elapsed = started.elapsed();
        let _ = watchdog.tx.send(None);
        let timed_out = watchdog.fired.swap(false, Ordering::SeqCst);
        let verdict = match output {
            _ if timed_out => Verdict::Error("timeout".into()),
            Err(e) => Verdict::Error(format!("wait: {e}")),
            Ok(out) => read_verdict(out.status, &out.stdout, &out.stderr),
        };
        (verdict, elapsed)
    }
}

fn read_verdict(status: ExitStatus, stdout: &[u8], stderr: &[u8]) -> Verdict {
    let tail = || String::from_utf8_lossy(stderr).lines().last().unwrap_or("").chars().take(160).collect::<String>();
    match status.code() {
        Some(2) => return Verdict::Deny,
        Some(0) => {}
        Some(code) => return Verdict::Error(format!("exit {code}: {}", tail())),
        None => return Verdict::Error(format!("{status}: {}", tail())),
    }
    let text = String::from_utf8_lossy(stdout);
    if text.trim().is_empty() {
        return Verdict::Allow;
    }
    let Ok(answer) = serde_json::from_str::<serde_json::Value>(text.trim()) else {
        return Verdict::Error(format!("unparsable stdout: {}", text.chars().take(120).collect::<String>()));
    };
    match answer["hookSpecificOutput"]["permissionDecision"].as_str() {
        Some("deny") => return Verdict::Deny,
        Some("ask") => return Verdict::Ask,
        Some("allow") | None => {}
        Some(other) => return Verdict::Error(format!("permissionDecision {other:?}")),
    }
    if answer["decision"] == "block" || answer["continue"] == false {
        return Verdict::Deny;
    }
    Verdict::Allow
}
