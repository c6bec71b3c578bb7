//! The exec guard's cost, measured against the same commands unguarded in the same run:
//!
//! - a loop: one `bash` running `/bin/true` 1,000 times (1,000 forks and execs, each stopped and
//!   checked twice by the guard), guarded ÷ unguarded (goal ≤ 1.15 on a 2-core VM, where a
//!   wake-up of the other CPU costs ~25 µs);
//! - start-up: `aimon-hooks guard -- bash -c /bin/true` (start the binary, read the tiers, clone
//!   the command's process, which installs the filter; check both execs twice) minus a bare
//!   spawn of `bash -c /bin/true` (goal ≤ 2 ms), with the files of the rules hidden or made
//!   read-only in the command's own mount namespace (`.env`, `secrets/`, and self-protection's);
//! - files: `git status` in a repository of 10,000 files, 100 times in one `bash`, guarded ÷
//!   unguarded (goal ≤ 1.05: the mounts cost nothing per open).
//!
//! `cargo bench -p hook-cli --bench guard` (release profile). The project has three Bash deny
//! rules and two path rules (`Read(./.env)`, `Edit(./secrets/**)`).
//! Runs are interleaved so machine noise hits both sides alike; medians are printed.
//! `AIMON_BENCH_RUNS` sets the start-up runs (default 200; the loop runs a tenth as often, at
//! least 5 times). Both sides run without the `LD_LIBRARY_PATH` cargo sets for a bench.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const RULES: &str = r#"{"hooks": {"PreToolUse": [
  {"matcher": "Bash(touch:*)", "hooks": [{"type": "deny", "reason": "no touching"}]},
  {"matcher": "Bash(git push:*)", "hooks": [{"type": "deny", "reason": "pushes are reviewed"}]},
  {"matcher": "Bash(rm -rf:*)", "hooks": [{"type": "deny", "reason": "no recursive removal"}]},
  {"matcher": "Read(./.env)", "hooks": [{"type": "deny", "reason": "secrets stay secret"}]},
  {"matcher": "Edit(./secrets/**)", "hooks": [{"type": "deny", "reason": "secrets stay as they are"}]}
]}}"#;

/// `git status` 100 times.
const STATUS: &str = "for i in $(seq 100); do git status --porcelain; done";

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
    std::fs::write(project.join(".env"), "TOKEN=x\n").expect(".env");
    std::fs::create_dir_all(project.join("secrets")).expect("secrets");
    tree(&project);
    let plain = |args: &[&str]| {
        let mut cmd = Command::new("bash");
        cmd.args(args).env_remove("LD_LIBRARY_PATH").current_dir(&project).stdout(Stdio::null());
        cmd
    };
    let guarded = |args: &[&str]| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_aimon-hooks"));
        cmd.arg("guard").arg("--project").arg(&project).arg("--home").arg(&home).arg("--").arg("bash").args(args);
        cmd.env_remove("LD_LIBRARY_PATH").env("HOME", &home).current_dir(&project).stdout(Stdio::null());
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
         ratio {:.3} (goal <= 1.15)",
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

    let statuses = (runs / 40).max(5);
    let (mut bare, mut under) = (Vec::new(), Vec::new());
    for _ in 0..statuses {
        bare.push(time(&mut plain(&["-c", STATUS])));
        under.push(time(&mut guarded(&["-c", STATUS])));
    }
    let (bare, under) = (median(bare), median(under));
    println!(
        "100 git status on 10,000 files ({statuses} runs, medians): unguarded {bare:?}, guarded {under:?}, \
         ratio {:.3} (goal <= 1.05)",
        under.as_secs_f64() / bare.as_secs_f64()
    );
}

/// 10,000 files in 100 directories, committed to a git repository at `project`.
fn tree(project: &std::path::Path) {
    for d in 0..100 {
        let dir = project.join(format!("src/d{d}"));
        std::fs::create_dir_all(&dir).expect("mkdir");
        for f in 0..100 {
            std::fs::write(dir.join(format!("f{f}.txt")), format!("{d} {f}\n")).expect("write");
        }
    }
    std::fs::write(project.join(".gitignore"), ".env\n").expect(".gitignore");
    let git = |args: &[&str]| {
        let status = Command::new("git")
            .args(["-c", "user.email=a@b", "-c", "user.name=a"])
            .args(args)
            .current_dir(project)
            .stdout(Stdio::null())
            .status()
            .expect("git");
        assert!(status.success(), "git {args:?}");
    };
    git(&["init", "-q", "-b", "main"]);
    git(&["add", "."]);
    git(&["commit", "-q", "-m", "tree"]);
}
