//! The load benchmark (PERF-SRV-1/2), all in one run:
//!
//! - p50/p99 and decisions per second for a no-match `/v1/claude` decision over loopback TCP, at 1
//!   and at 64 connections, measured by `wrk` (installed with apt-get when missing);
//! - the daemon's RSS before and after 1,000,000 requests;
//! - the same decision through a spawned `aimon-hooks claude` (in-process, `AIMON_NO_SERVE=1`) and
//!   through `aimon-hooks claude` forwarding over the socket, and the ratio to the daemon's p50.
//!
//! The daemon runs in this process (the library's `serve` on two worker threads), so its RSS is
//! this process's. The `aimon-hooks` binary is taken from `target/release` (build it first with
//! `cargo build --release -p hook-cli`). Run: `cargo bench -p hook-server --bench load`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use hook_server::{ServeOptions, ServiceOptions, ensure_token, serve};

const GOAL_P50_US: f64 = 200.0;
const GOAL_P99_US: f64 = 1000.0;
const GOAL_RATE: f64 = 10_000.0;
const GOAL_FORWARD_MS: f64 = 3.0;

fn fail(sentence: &str) -> ! {
    eprintln!("load bench: {sentence}");
    std::process::exit(1)
}

fn ensure_wrk() {
    if Command::new("wrk").arg("--version").output().is_ok() {
        return;
    }
    eprintln!("load bench: installing wrk with apt-get");
    let ok = Command::new("sh")
        .args(["-c", "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk"])
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        fail("wrk is missing and apt-get could not install it; install wrk (apt-get install wrk)");
    }
}

fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// One wrk run's figures.
#[derive(Debug, Default)]
struct Run {
    p50_us: f64,
    p99_us: f64,
    rate: f64,
    requests: u64,
}

fn micros(text: &str) -> Option<f64> {
    let text = text.trim();
    let (number, factor) = if let Some(n) = text.strip_suffix("us") {
        (n, 1.0)
    } else if let Some(n) = text.strip_suffix("ms") {
        (n, 1000.0)
    } else if let Some(n) = text.strip_suffix('s') {
        (n, 1_000_000.0)
    } else {
        return None;
    };
    number.parse::<f64>().ok().map(|n| n * factor)
}

fn wrk(script: &Path, url: &str, connections: u32, seconds: u32) -> Run {
    let threads = connections.min(2).to_string();
    let out = Command::new("wrk")
        .args(["-t", &threads, "-c", &connections.to_string(), "-d", &format!("{seconds}s"), "--latency", "-s"])
        .arg(script)
        .arg(url)
        .output()
        .unwrap_or_else(|e| fail(&format!("cannot run wrk: {e}")));
    let text = String::from_utf8_lossy(&out.stdout);
    let mut run = Run::default();
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["50%", v] => run.p50_us = micros(v).unwrap_or(f64::NAN),
            ["99%", v] => run.p99_us = micros(v).unwrap_or(f64::NAN),
            ["Requests/sec:", v] => run.rate = v.parse().unwrap_or(0.0),
            [n, "requests", "in", ..] => run.requests = n.parse().unwrap_or(0),
            _ => {}
        }
    }
    if text.contains("Non-2xx") {
        fail(&format!("the daemon answered errors under load:\n{text}"));
    }
    run
}

fn binary() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let bin = root.join("target/release/aimon-hooks");
    if !bin.exists() {
        fail(&format!("{} is missing; build it with `cargo build --release -p hook-cli`", bin.display()));
    }
    bin
}

/// Median wall time of `n` runs of `aimon-hooks claude` (`bin`; or of `true` with no `args`)
/// with `payload` on stdin.
fn spawn_ms(bin: &Path, args: &[&str], home: &Path, payload: &str, extra_env: &[(&str, &str)], n: usize) -> f64 {
    let mut times = Vec::with_capacity(n);
    for _ in 0..n {
        let start = Instant::now();
        let mut child = Command::new(bin)
            .args(args)
            .env("HOME", home)
            .envs(extra_env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| fail(&format!("cannot spawn aimon-hooks: {e}")));
        if let Some(mut stdin) = child.stdin.take() {
            // `true` may exit before reading its stdin.
            let _ = std::io::Write::write_all(&mut stdin, payload.as_bytes());
        }
        let status = child.wait().unwrap_or_else(|e| fail(&e.to_string()));
        times.push(start.elapsed().as_secs_f64() * 1000.0);
        if !status.success() {
            fail(&format!("{} failed on the no-match payload", bin.display()));
        }
    }
    times.sort_by(f64::total_cmp);
    times[n / 2]
}

/// The `true` binary, the floor of any process start.
fn which_true() -> PathBuf {
    ["/usr/bin/true", "/bin/true"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.exists())
        .unwrap_or_else(|| fail("no /usr/bin/true or /bin/true to measure a bare process start against"))
}

fn verdict(ok: bool) -> &'static str {
    if ok { "meets the goal" } else { "MISSES the goal" }
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    ensure_wrk();
    let bin = binary();
    let root = tempfile::tempdir().unwrap_or_else(|e| fail(&e.to_string()));
    let (home, project) = (root.path().join("home"), root.path().join("project"));
    for dir in [home.join(".aimon"), project.join(".aimon"), project.join(".git")] {
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| fail(&e.to_string()));
    }
    let hooks = r#"{"hooks":{"PreToolUse":[{"matcher":"Edit","hooks":[{"type":"deny","reason":"no edits"}]}]}}"#;
    std::fs::write(project.join(".aimon/hooks.json"), hooks).unwrap_or_else(|e| fail(&e.to_string()));
    let payload = serde_json::json!({"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": "ls"}, "cwd": project})
    .to_string();

    let port = std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map_or(7787, |a| a.port());
    let token = ensure_token(&home).unwrap_or_else(|e| fail(&e.to_string()));
    let socket = home.join(".aimon/serve.sock");
    let options = ServeOptions {
        service: ServiceOptions::new(Some(home.clone()), root.path().to_owned()),
        socket: socket.clone(),
        listen: Some(([127, 0, 0, 1], port).into()),
        store: None,
        grace: Duration::from_secs(2),
    };
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let daemon = std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build();
        let runtime = runtime.unwrap_or_else(|e| fail(&e.to_string()));
        runtime.block_on(serve(options, async move {
            let _ = stopped.await;
        }))
    });
    let deadline = Instant::now() + Duration::from_secs(10);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        if Instant::now() > deadline {
            fail("the daemon did not listen within 10 s");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let script = root.path().join("claude.lua");
    let lua = format!(
        "wrk.method = \"POST\"\nwrk.body = [[{payload}]]\nwrk.headers[\"Content-Type\"] = \"application/json\"\nwrk.headers[\"Authorization\"] = \"Bearer {token}\"\n"
    );
    std::fs::write(&script, lua).unwrap_or_else(|e| fail(&e.to_string()));
    let url = format!("http://127.0.0.1:{port}/v1/claude");

    let forwarded_fresh = spawn_ms(&bin, &["claude"], &home, &payload, &[], 500);
    let _warm = wrk(&script, &url, 8, 3);
    let rss_before = rss_kib();
    let one = wrk(&script, &url, 1, 10);
    let many = wrk(&script, &url, 64, 10);
    let mut total = one.requests + many.requests;
    while total < 1_000_000 {
        total += wrk(&script, &url, 64, 20).requests;
    }
    let rss_after = rss_kib();

    let spawned = spawn_ms(&bin, &["claude"], &home, &payload, &[("AIMON_NO_SERVE", "1")], 200);
    let forwarded = spawn_ms(&bin, &["claude"], &home, &payload, &[], 500);
    let true_bin = which_true();
    let baseline = spawn_ms(&true_bin, &[], &home, &payload, &[], 500);
    let _ = stop.send(());
    let _ = daemon.join();

    println!("no-match PreToolUse decision, POST /v1/claude over loopback TCP (wrk, daemon on 2 worker threads)");
    println!("  1 connection:   p50 {:>7.1} µs  p99 {:>7.1} µs  {:>9.0} decisions/s", one.p50_us, one.p99_us, one.rate);
    println!(
        "  64 connections: p50 {:>7.1} µs  p99 {:>7.1} µs  {:>9.0} decisions/s",
        many.p50_us, many.p99_us, many.rate
    );
    println!(
        "  goals: p50 ≤ {GOAL_P50_US} µs ({}), p99 ≤ {GOAL_P99_US} µs ({}), ≥ {GOAL_RATE} decisions/s at 64 ({})",
        verdict(one.p50_us <= GOAL_P50_US),
        verdict(one.p99_us <= GOAL_P99_US),
        verdict(many.rate >= GOAL_RATE)
    );
    let grew = (rss_after as f64 - rss_before as f64) / 1024.0;
    println!(
        "  RSS: {:.1} MiB before, {:.1} MiB after {total} requests ({grew:+.1} MiB; goal ±10 MiB: {})",
        rss_before as f64 / 1024.0,
        rss_after as f64 / 1024.0,
        verdict(grew.abs() <= 10.0)
    );
    println!("  spawned `aimon-hooks claude` (in-process, AIMON_NO_SERVE=1): median {spawned:.2} ms per decision");
    println!(
        "  ratio spawned / daemon p50 (1 connection): {:.0}x",
        spawned * 1000.0 / one.p50_us.max(f64::MIN_POSITIVE)
    );
    println!(
        "  `aimon-hooks claude` forwarding over the socket: median {forwarded_fresh:.2} ms before the load, \
         {forwarded:.2} ms after it (goal ≤ {GOAL_FORWARD_MS} ms: {})",
        verdict(forwarded_fresh.max(forwarded) <= GOAL_FORWARD_MS)
    );
    println!(
        "  spawning `{}` the same way: median {baseline:.2} ms, so forwarding costs {:.2} ms above a process start",
        true_bin.display(),
        forwarded - baseline
    );
}
