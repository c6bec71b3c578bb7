//! A termination signal while hooks run (R-CLI-11): the process groups of the hooks are killed,
//! nothing is left behind, and the exit code is 128 + the signal number.

use std::io::Write as _;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::json;

use crate::support::{Sandbox, bash, command, one_hook};

/// The live (non-zombie) processes of process group `pgid`: a zombie counts as gone, since PID 1
/// here does not reap orphans.
fn live_members(pgid: i32) -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { return false };
            // After the command name: state, ppid, pgrp.
            let fields: Vec<&str> = stat.rsplit_once(')').map_or("", |(_, rest)| rest).split_whitespace().collect();
            fields.first().is_some_and(|state| *state != "Z") && fields.get(2) == Some(&pgid.to_string().as_str())
        })
        .collect()
}

/// Polls `done` every 20 ms for up to `limit`.
fn wait_for(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    done()
}

/// Kills the binary (by its own pid) however the test ends.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start(sandbox: &Sandbox, args: &[&str], payload: &str) -> Running {
    let mut child = Command::new(env!("CARGO_BIN_EXE_aimon-hooks"))
        .args(args)
        .current_dir(sandbox.project())
        .env("HOME", sandbox.home())
        .env("CLAUDE_PROJECT_DIR", sandbox.project())
        .env("AIMON_TRUST_PROJECT_HOOKS", "1")
        .env("AIMON_NO_SERVE", "1")
        .env_remove("RUST_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the binary starts");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(payload.as_bytes()).expect("payload written");
    Running(child)
}

#[test]
fn a_termination_signal_kills_every_hook_process_group_and_exits_128_plus_the_signal() {
    // (command, signal, exit code): Claude Code stops a timed-out `aimon-hooks claude` with SIGTERM.
    let cases = [
        ("claude", Signal::SIGTERM, 143),
        ("run", Signal::SIGTERM, 143),
        ("run", Signal::SIGINT, 130),
        ("claude", Signal::SIGHUP, 129),
    ];
    for (cmd, signal, code) in cases {
        let sandbox = Sandbox::new();
        let pid_file = sandbox.root().join("group.pid");
        let hook = format!(
            "echo $$ > '{tmp}'; mv '{tmp}' '{file}'; sleep 30 & sleep 30 & sleep 30; wait",
            tmp = sandbox.root().join("group.tmp").display(),
            file = pid_file.display()
        );
        sandbox.project_hooks(&one_hook("PreToolUse", "Bash", command(&hook)));
        let args: &[&str] = if cmd == "claude" { &["claude"] } else { &["run", "PreToolUse"] };
        let mut payload: serde_json::Value = serde_json::from_str(&bash("ls")).expect("payload");
        payload["cwd"] = json!(sandbox.project());
        let mut running = start(&sandbox, args, &payload.to_string());

        assert!(wait_for(Duration::from_secs(20), || Path::new(&pid_file).exists()), "{cmd}: the hook never started");
        let pgid: i32 = std::fs::read_to_string(&pid_file).expect("pid").trim().parse().expect("a pid");
        assert!(
            wait_for(Duration::from_secs(10), || live_members(pgid).len() == 4),
            "{cmd}: the hook's shell and its three sleeps are not all running: {:?}",
            live_members(pgid)
        );

        kill(Pid::from_raw(i32::try_from(running.0.id()).expect("pid")), signal).expect("signal sent");
        let mut status = None;
        assert!(
            wait_for(Duration::from_secs(10), || {
                status = running.0.try_wait().expect("wait");
                status.is_some()
            }),
            "{cmd}: still running after {signal}"
        );
        assert_eq!(status.and_then(|s| s.code()), Some(code), "{cmd} {signal}");
        assert!(
            wait_for(Duration::from_secs(5), || live_members(pgid).is_empty()),
            "{cmd} {signal}: left behind {:?}",
            live_members(pgid)
        );
    }
}
