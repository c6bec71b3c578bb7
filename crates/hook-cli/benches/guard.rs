//! The exec guard's cost, measured against the same commands unguarded in the same run:
//!
//! - a loop: one `bash` running `/bin/true` 1,000 times (1,000 forks and execs, each stopped and
//!   checked twice by the guard), guarded ÷ unguarded (goal ≤ 1.10);
//! - start-up: `aimon-hooks guard -- bash -c /bin/true` (start the binary, read the tiers, clone
//!   the command's process, which installs the filter; check both execs twice) minus a bare
//!   spawn of `bash -c /bin/true` (goal ≤ 2 ms).
//!
//! `cargo bench -p hook-cli --bench guard` (release profile). The project has three deny rules.
//! Runs are interleaved so machine noise hits both sides alike; medians are printed.
//! `AIMON_BENCH_RUNS` sets the start-up runs (default 200; the loop runs a tenth as often, at
//! least 5 times). Both sides run without the `LD_LIBRARY_PATH` cargo sets for a bench.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const RULES: &str = r#"{"hooks": {"PreToolUse": [
  {"matcher": "Bash(touch:*)", "hooks": [{"type": "deny", "reason": "no touching"}]},
  {"matcher": "Bash(git push:*)", "hooks": [{"type": "deny", "reason": "pushes are reviewed"}]},
  {"matcher": "Bash(rm -rf:*)", "hooks": [{"type": "deny", "reason": "no recursive removal"}]}
]}}"#;

const LOOP: &str = "for i in $(seq 1000); do /bin/true; done";

fn time(cmd: &mut Command) -> Duration {
    let started = Instant::now();
    let status = cmd.status().expect("spawn");
    let elapsed = started.elapsed();
    assert!(status.success(), "{cmd:?} failed: {status}");
    elapsed
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let runs: usize = std::env::var("AIMON_BENCH_RUNS").ok().and_then(|v| v.parse().ok()).unwrap_or(200);
    let dir = tempfile::tempdir().expect("temp dir");
    let (project, home) = (dir.path().join("project"), dir.path().join("home"));
    std::fs::create_dir_all(project.join(".aimon")).expect("project");
    std::fs::create_dir_all(&home).expect("home");
    std::fs::write(project.join(".aimon/hooks.json"), RULES).expect("rules");
    let plain = |args: &[&str]| {
        let mut cmd = Command::new("bash");
        cmd.args(args).env_remove("LD_LIBRARY_PATH").stdout(Stdio::null());
        cmd
    };
    let guarded = |args: &[&str]| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_aimon-hooks"));
        cmd.arg("guard").arg("--project").arg(&project).arg("--home").arg(&home).arg("--").arg("bash").args(args);
        cmd.env_remove("LD_LIBRARY_PATH").env("HOME", &home).stdout(Stdio::null());
        cmd
    };

    let loops = (runs / 10).max(5);
    let (mut bare, mut under) = (Vec::new(), Vec::new());
    for _ in 0..loops {
        bare.push(time(&mut plain(&["-c", LOOP])));
        under.push(time(&mut guarded(&["-c", LOOP])));
    }
    let (bare, under) = (median(bare), median(under));
    println!(
        "1,000 execs of /bin/true from one bash loop ({loops} runs, medians): unguarded {bare:?}, guarded {under:?}, \
         ratio {:.3} (goal <= 1.10)",
        under.as_secs_f64() / bare.as_secs_f64()
    );

    let (mut bare, mut under) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        bare.push(time(&mut plain(&["-c", "/bin/true"])));
        under.push(time(&mut guarded(&["-c", "/bin/true"])));
    }
    let (bare, under) = (median(bare), median(under));
    println!(
        "start-up ({runs} runs, medians): bash -c /bin/true {bare:?}, under the guard {under:?}, \
         the guard's start-up {:.2} ms (goal <= 2 ms)",
        under.saturating_sub(bare).as_secs_f64() * 1000.0
    );
}
