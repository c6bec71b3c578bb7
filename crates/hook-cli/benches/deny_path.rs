//! What a deny costs above an allow in a one-shot call: `aimon-hooks claude --no-serve` in a
//! project whose one rule denies `git push`, asked about `git push` (denied, a decision log line
//! written) and `git status` (allowed, nothing logged), interleaved in the same run. The ratio of
//! the medians is the figure (goal ≤ 1.1): a one-shot call writes its log line and exits without
//! waiting out the log writer's batch window, which only a busy `serve` uses.
//!
//! `cargo bench -p hook-cli --bench deny_path`; `AIMON_BENCH_RUNS` sets the runs (default 200).

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// One call with `command` as the Bash payload; returns its wall time and stdout.
fn call(project: &Path, home: &Path, command: &str) -> (Duration, String) {
    let payload = serde_json::json!({
        "session_id": "bench", "hook_event_name": "PreToolUse", "cwd": project,
        "tool_name": "Bash", "tool_input": {"command": command},
    });
    let started = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_aimon-hooks"))
        .args(["claude", "--no-serve"])
        .current_dir(project)
        .env("HOME", home)
        .env("AIMON_MANAGED_DIR", home.join("no-managed"))
        .env_remove("RUST_LOG")
        .env_remove("LD_LIBRARY_PATH")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("aimon-hooks starts");
    child.stdin.take().expect("stdin").write_all(payload.to_string().as_bytes()).expect("payload written");
    let out = child.wait_with_output().expect("aimon-hooks ends");
    (started.elapsed(), String::from_utf8_lossy(&out.stdout).into_owned())
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort_unstable();
    times[times.len() / 2]
}

fn main() {
    let runs: usize = std::env::var("AIMON_BENCH_RUNS").ok().and_then(|v| v.parse().ok()).unwrap_or(200);
    let dir = tempfile::tempdir().expect("temp dir");
    let (project, home) = (dir.path().join("project"), dir.path().join("home"));
    std::fs::create_dir_all(project.join(".aimon")).expect("project");
    std::fs::create_dir_all(&home).expect("home");
    let rule = serde_json::json!({"hooks": {"PreToolUse": [{"matcher": "Bash(git push:*)",
        "hooks": [{"type": "deny", "reason": "pushes go through review"}]}]}});
    std::fs::write(project.join(".aimon/hooks.json"), rule.to_string()).expect("rule");

    let (_, denied) = call(&project, &home, "git push origin main");
    assert!(denied.contains("\"deny\""), "git push must be denied: {denied}");
    let (_, allowed) = call(&project, &home, "git status");
    assert!(!allowed.contains("deny"), "git status must be allowed: {allowed}");

    let (mut deny, mut allow) = (Vec::with_capacity(runs), Vec::with_capacity(runs));
    for _ in 0..runs {
        deny.push(call(&project, &home, "git push origin main").0);
        allow.push(call(&project, &home, "git status").0);
    }
    let (d50, a50) = (median(deny), median(allow));
    println!("deny_path ({runs} interleaved calls each, aimon-hooks claude --no-serve)");
    println!("  allow (git status)      median {a50:>10.3?}");
    println!("  deny  (git push, logged) median {d50:>10.3?}");
    println!("  deny ÷ allow {:.3} (goal ≤ 1.1)", d50.as_secs_f64() / a50.as_secs_f64());
}
