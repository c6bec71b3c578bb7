//! Another session's call under `serve` while slow analyses run (issue 36), run by hand:
//! `cargo bench -p hook-cli --bench slow_analysis [ROUNDS]`.
//!
//! A real `aimon-hooks serve` (this bench's build of it), two projects denying `Bash(git push:*)`
//! and `Read(./.env)`. First the baseline: another session's `git push` to the second project, on
//! an idle daemon. Then eight threads send the worst commands of the predicate bench (`cd dN; cat
//! fN` pairs and `a;` repeated, 1 MB each, all ending in `git push`) to the first project, back to
//! back, and meanwhile the other session's call is timed again, ROUNDS times (default 20). Prints
//! the median and worst latency of each against the 50 ms goal and their ratio; exits 1 when a
//! call is not denied.

#[path = "../tests/common/serve_process.rs"]
mod serve_process;

use std::io::{Read as _, Write as _};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::json;

const SLOW_CALLS: usize = 8;
const GOAL: Duration = Duration::from_millis(50);

fn project(root: &Path, name: &str) -> PathBuf {
    let dir = root.join(name);
    std::fs::create_dir_all(dir.join(".git")).expect("mkdir");
    std::fs::create_dir_all(dir.join(".aimon")).expect("mkdir");
    let deny = |reason: &str| json!([{"type": "deny", "reason": reason}]);
    let policy = json!({"hooks": {"PreToolUse": [
        {"matcher": "Bash(git push:*)", "hooks": deny("no pushing")},
        {"matcher": "Read(./.env)", "hooks": deny("no secrets")},
    ]}});
    std::fs::write(dir.join(".aimon/hooks.json"), policy.to_string()).expect("write the policy");
    dir
}

/// `unit(i)` repeated up to about `len` bytes, then `git push`.
fn fill(len: usize, unit: impl Fn(usize) -> String) -> String {
    let mut out = String::new();
    for i in 0.. {
        let next = unit(i);
        if out.len() + next.len() + 8 > len {
            break;
        }
        out.push_str(&next);
    }
    out + "git push"
}

/// Whether serve denies the Bash call of `command` in `cwd` for `session`.
fn denied(socket: &Path, session: &str, cwd: &Path, command: &str) -> bool {
    let body = json!({
        "session_id": session, "transcript_path": "/tmp/t.jsonl", "cwd": cwd, "permission_mode": "default",
        "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": command},
        "tool_use_id": "toolu_1",
    })
    .to_string();
    let Ok(mut stream) = UnixStream::connect(socket) else { return false };
    let head = format!(
        "POST /v1/claude HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n",
        body.len()
    );
    let mut raw = String::new();
    let sent = stream.write_all(head.as_bytes()).and_then(|()| stream.write_all(body.as_bytes()));
    sent.is_ok() && stream.read_to_string(&mut raw).is_ok() && raw.contains(r#""permissionDecision":"deny""#)
}

/// The latency of each of `rounds` calls of the other session, sorted; panics on one not denied.
fn other_session(socket: &Path, other: &Path, rounds: usize) -> Vec<Duration> {
    let mut times: Vec<Duration> = (0..rounds)
        .map(|_| {
            let start = Instant::now();
            assert!(denied(socket, "other-session", other, "git push origin main"), "the other session's push");
            start.elapsed()
        })
        .collect();
    times.sort();
    times
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let rounds: usize = std::env::args().skip(1).find_map(|a| a.parse().ok()).unwrap_or(20).clamp(1, 1000);
    let scratch = tempfile::tempdir().expect("a scratch directory");
    let home = scratch.path().join("home");
    std::fs::create_dir_all(&home).expect("mkdir home");
    let (slow, other) = (project(scratch.path(), "slow"), project(scratch.path(), "other"));
    let bin = Path::new(env!("CARGO_BIN_EXE_aimon-hooks"));
    let mut child = serve_process::serve_command(bin, &home, &other, &[])
        .env("AIMON_TRUST_PROJECT_HOOKS", "1")
        .spawn()
        .expect("aimon-hooks serve starts");
    let socket = home.join(".aimon/serve.sock");
    serve_process::wait_until(Duration::from_secs(60), "serve did not listen", || socket.exists());
    serve_process::wait_until(Duration::from_secs(10), "serve did not answer", || {
        denied(&socket, "warm", &slow, "git push")
    });

    let idle = other_session(&socket, &other, rounds);
    let commands = Arc::new([fill(1_000_000, |i| format!("cd d{i}; cat f{i}; ")), fill(1_000_000, |_| "a;".into())]);
    let (stop, slow_done, slow_wrong) =
        (Arc::new(AtomicBool::new(false)), Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let load: Vec<_> = (0..SLOW_CALLS)
        .map(|i| {
            let (socket, slow, commands) = (socket.clone(), slow.clone(), commands.clone());
            let (stop, done, wrong) = (stop.clone(), slow_done.clone(), slow_wrong.clone());
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let command = &commands[i % commands.len()];
                    if !denied(&socket, &format!("slow-{i}"), &slow, command) {
                        wrong.fetch_add(1, Ordering::Relaxed);
                    }
                    done.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();
    // Let every slow thread have a call in the daemon.
    std::thread::sleep(Duration::from_millis(500));
    let loaded = other_session(&socket, &other, rounds);
    stop.store(true, Ordering::Relaxed);
    load.into_iter().for_each(|t| t.join().expect("a slow thread"));
    let _ = child.kill();
    let _ = child.wait();

    let median = |t: &[Duration]| t[t.len() / 2];
    let worst = |t: &[Duration]| t[t.len() - 1];
    println!("another session's git push under serve, {rounds} calls each");
    println!("  idle daemon:                  median {:>10.2?}  worst {:>10.2?}", median(&idle), worst(&idle));
    println!(
        "  {SLOW_CALLS} slow calls running (1 MB): median {:>10.2?}  worst {:>10.2?}  ({:.1}x the idle median; {} slow calls answered)",
        median(&loaded),
        worst(&loaded),
        median(&loaded).as_secs_f64() / median(&idle).as_secs_f64(),
        slow_done.load(Ordering::Relaxed),
    );
    let verdict = if worst(&loaded) <= GOAL { "within" } else { "OVER" };
    println!("  worst under load {verdict} the {GOAL:?} goal");
    if slow_wrong.load(Ordering::Relaxed) > 0 {
        eprintln!("slow_analysis: {} slow calls were not denied", slow_wrong.load(Ordering::Relaxed));
        std::process::exit(1);
    }
}
