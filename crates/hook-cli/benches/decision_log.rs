//! The decision log keeps up with `serve`: decisions per second of a deciding `/v1/claude` call
//! (one `deny` hook runs, so every request writes one log line) with the log on and with
//! `AIMON_DECISION_LOG=off`, measured in the same run by `wrk` over loopback TCP at 64
//! connections, rounds interleaved so machine noise hits both alike; and serve's CPU time per
//! decision each way (`/proc/<pid>/stat`, which other load on the machine moves less). Then the
//! log's own count: lines written against the answers wrk counted, each round in a log of its
//! own (a dropped line is a line the channel could not take; the bench fails on one).
//!
//! `cargo bench -p hook-cli --bench decision_log` (wrk must be installed: `apt-get install wrk`).
//! `AIMON_BENCH_ROUNDS` (default 3) and `AIMON_BENCH_SECONDS` (default 5) set the work.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn serve(home: &Path, project: &Path, port: u16, log: &str) -> Child {
    let child = Command::new(env!("CARGO_BIN_EXE_aimon-hooks"))
        .args(["serve", "--listen", &format!("127.0.0.1:{port}"), "--home"])
        .arg(home)
        .current_dir(project)
        .env("HOME", home)
        .env("AIMON_DECISION_LOG", log)
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("serve starts");
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "serve did not listen");
        std::thread::sleep(Duration::from_millis(20));
    }
    child
}

fn stop(mut child: Child) {
    let _ = Command::new("kill").arg("-TERM").arg(child.id().to_string()).status();
    let _ = child.wait();
}

/// wrk's decisions per second and requests.
fn wrk(script: &Path, port: u16, seconds: u64) -> (f64, u64) {
    let out = Command::new("wrk")
        .args(["-t", "2", "-c", "64", "-d", &format!("{seconds}s"), "-s"])
        .arg(script)
        .arg(format!("http://127.0.0.1:{port}/v1/claude"))
        .output()
        .expect("wrk runs (apt-get install wrk)");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains("Non-2xx"), "errors under load:\n{text}");
    let mut rate = 0.0;
    let mut requests = 0;
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["Requests/sec:", v] => rate = v.parse().unwrap_or(0.0),
            [n, "requests", "in", ..] => requests = n.parse().unwrap_or(0),
            _ => {}
        }
    }
    (rate, requests)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let rounds: usize = std::env::var("AIMON_BENCH_ROUNDS").ok().and_then(|v| v.parse().ok()).unwrap_or(3);
    let seconds: u64 = std::env::var("AIMON_BENCH_SECONDS").ok().and_then(|v| v.parse().ok()).unwrap_or(5);
    let root = tempfile::tempdir().expect("dir");
    let (home, project) = (root.path().join("home"), root.path().join("project"));
    for dir in [home.join(".aimon"), project.join(".aimon"), project.join(".git")] {
        std::fs::create_dir_all(&dir).expect("mkdir");
    }
    std::fs::write(
        project.join(".aimon/hooks.json"),
        r#"{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"deny","reason":"no shell"}]}]}}"#,
    )
    .expect("hooks");
    let token = {
        // The first serve writes the token; read it after.
        let port = free_port();
        stop(serve(&home, &project, port, "off"));
        std::fs::read_to_string(home.join(".aimon/serve.token")).expect("token").trim().to_owned()
    };
    let payload = serde_json::json!({"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": "ls"}, "cwd": project})
    .to_string();
    let script = root.path().join("claude.lua");
    std::fs::write(
        &script,
        format!("wrk.method = \"POST\"\nwrk.body = [[{payload}]]\nwrk.headers[\"Content-Type\"] = \"application/json\"\nwrk.headers[\"Authorization\"] = \"Bearer {token}\"\n"),
    )
    .expect("script");
    let (mut off, mut on) = (Vec::new(), Vec::new());
    let mut cpu_per_request = [Vec::new(), Vec::new()];
    let (mut logged_requests, mut lines, mut bytes, mut rotated) = (0, 0, 0, 0);
    for round in 0..rounds {
        // A log of its own per round, so the three files kept always hold every line of it.
        let log = root.path().join(format!("decisions-{round}.jsonl"));
        for with_log in [false, true] {
            let port = free_port();
            let daemon = serve(&home, &project, port, if with_log { log.to_str().expect("utf-8") } else { "off" });
            let (_, warm) = wrk(&script, port, 1);
            let (rate, requests) = wrk(&script, port, seconds);
            let cpu = cpu_seconds(daemon.id());
            stop(daemon);
            cpu_per_request[usize::from(with_log)].push(cpu * 1e6 / (warm + requests).max(1) as f64);
            if with_log {
                on.push(rate);
                logged_requests += warm + requests;
            } else {
                off.push(rate);
            }
        }
        for file in
            [log.clone(), PathBuf::from(format!("{}.1", log.display())), PathBuf::from(format!("{}.2", log.display()))]
        {
            if let Ok(text) = std::fs::read_to_string(&file) {
                rotated += u64::from(file != log);
                lines += text.lines().count() as u64;
                bytes += text.len() as u64;
            }
        }
    }
    let (off_rate, on_rate) = (median(off.clone()), median(on.clone()));
    println!(
        "deciding PreToolUse (one deny hook), POST /v1/claude, wrk 64 connections, {rounds} interleaved rounds of {seconds} s"
    );
    println!("  log off: {off:?} → median {off_rate:.0} decisions/s");
    println!("  log on:  {on:?} → median {on_rate:.0} decisions/s");
    println!(
        "  ratio on/off: {:.3} (goal ≥ 0.90: {})",
        on_rate / off_rate,
        if on_rate >= 0.9 * off_rate { "meets" } else { "MISSES" }
    );
    let [cpu_off, cpu_on] = cpu_per_request.map(median);
    println!(
        "  serve's CPU time per decision (user + system, median): log off {cpu_off:.1} µs, log on {cpu_on:.1} µs, ratio {:.3}",
        cpu_on / cpu_off
    );
    println!(
        "  lines in the logs ({} MB; {rotated} file(s) rotated out at 50 MB): {lines} for the {logged_requests} answers wrk counted with the log on \
         (a request in flight when wrk stops is decided and logged but not counted): {}",
        bytes / 1_000_000,
        if lines >= logged_requests { "no line lost" } else { "LINES LOST" }
    );
    assert!(lines >= logged_requests, "the log lost lines: {lines} < {logged_requests}");
}

/// The CPU time (user + system) process `pid` has used so far, from `/proc/<pid>/stat`.
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("/proc/<pid>/stat");
    // The fields after the command name (which may hold spaces) start at its closing parenthesis.
    let fields: Vec<&str> = stat[stat.rfind(')').expect("stat") + 2..].split(' ').collect();
    let ticks: f64 = fields[11].parse::<f64>().expect("utime") + fields[12].parse::<f64>().expect("stime");
    ticks / 100.0 // USER_HZ, 100 on every Linux
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map(|a| a.port()).expect("port")
}
