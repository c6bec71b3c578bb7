//! PERF-4: wall time of `aimon-hooks run` with the demo config (all three tiers present, seven
//! hooks) and a payload no hook matches, against spawning `true`, measured in the same run.
//!
//! `cargo bench -p hook-cli --bench run_wall_time` (release profile). The two commands are
//! interleaved so machine noise hits both alike; the figures printed are medians and p90s of
//! each and the ratio of the medians. `AIMON_BENCH_RUNS` sets the number of runs (default 300).
//!
//! Both run without the `LD_LIBRARY_PATH` cargo sets for a bench (every build script's output
//! directory and the toolchain's): with it the loader looks for each shared library in some thirty
//! directories first, a cost no installed `aimon-hooks` (or `true`) pays.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn time(cmd: &mut Command) -> Duration {
    let started = Instant::now();
    let status = cmd.status().expect("spawn");
    let elapsed = started.elapsed();
    assert!(status.success() || status.code() == Some(2), "{cmd:?} failed: {status}");
    elapsed
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let index = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[index]
}

fn main() {
    let runs: usize = std::env::var("AIMON_BENCH_RUNS").ok().and_then(|v| v.parse().ok()).unwrap_or(300);
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let home = tempfile::tempdir().expect("empty home");
    let mut aimon = Command::new(env!("CARGO_BIN_EXE_aimon-hooks"));
    aimon
        .current_dir(&root)
        .args(["run", "PreToolUse", "--project", "examples/demo", "--home", "examples/demo/home"])
        .args(["--payload", "examples/demo/payloads/pre-bash-ls.json"])
        .env("HOME", home.path())
        .env_remove("RUST_LOG")
        .env_remove("LD_LIBRARY_PATH")
        .stdin(Stdio::null());
    let check = aimon.output().expect("aimon-hooks runs");
    let verdict: serde_json::Value = serde_json::from_slice(&check.stdout).unwrap_or_default();
    assert_eq!(verdict["hooks"], serde_json::json!([]), "the payload must match no hook: {verdict}");
    aimon.stdout(Stdio::null()).stderr(Stdio::null());
    let mut baseline = Command::new("true");
    baseline.env_remove("LD_LIBRARY_PATH").stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null());

    for _ in 0..20 {
        time(&mut baseline);
        time(&mut aimon);
    }
    let (mut base, mut ours) = (Vec::with_capacity(runs), Vec::with_capacity(runs));
    for _ in 0..runs {
        base.push(time(&mut baseline));
        ours.push(time(&mut aimon));
    }
    base.sort_unstable();
    ours.sort_unstable();
    let (b50, o50) = (percentile(&base, 0.5), percentile(&ours, 0.5));
    println!("run_wall_time ({runs} interleaved runs each)");
    println!("  true                      median {b50:>10.3?}  p90 {:>10.3?}", percentile(&base, 0.9));
    println!("  aimon-hooks run (no match) median {o50:>10.3?}  p90 {:>10.3?}", percentile(&ours, 0.9));
    println!(
        "  ratio of medians {:.2}x; overhead over spawning a process {:.3?}",
        o50.as_secs_f64() / b50.as_secs_f64(),
        o50.saturating_sub(b50)
    );
}
