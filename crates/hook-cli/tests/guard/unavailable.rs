//! Fail closed: where the kernel refuses ptrace, or the rules cannot be read, `guard` runs nothing
//! and exits 126.
//!
//! The refusal is real: the guard is started by a process that is itself traced (`strace -f`
//! follows every child), and a process that already has a tracer cannot be traced by the guard.

use std::process::Command;

use crate::sandbox::Sandbox;

#[test]
fn the_guard_refuses_to_run_anything_where_the_kernel_refuses_ptrace() {
    let sandbox = Sandbox::new(&["touch"]);
    let out = Command::new("strace")
        .args(["-f", "-qq", "-e", "trace=none", "-o", "/dev/null"])
        .arg(env!("CARGO_BIN_EXE_aimon-hooks"))
        .arg("guard")
        .arg("--project")
        .arg(sandbox.path("project"))
        .arg("--home")
        .arg(sandbox.path("home"))
        .args(["--", "sh", "-c"])
        .arg(format!("echo ran > {}", sandbox.path("ran").display()))
        .output()
        .expect("strace runs (the CI installs it)");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(126), "{stderr}");
    assert!(stderr.contains("the kernel refuses ptrace here") && stderr.contains("nothing was run"), "{stderr}");
    assert!(!sandbox.path("ran").exists(), "the command ran");
}

/// The command's process starts while the rules are read; rules that cannot be read end it
/// before its first exec.
#[test]
fn the_guard_runs_nothing_when_the_rules_cannot_be_read() {
    let sandbox = Sandbox::new(&[]);
    std::fs::write(sandbox.path("project/.aimon/hooks.json"), "{ not json").expect("broken rules");
    let out = sandbox.run(&format!("echo ran > {}", sandbox.path("ran").display()), true, b"");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(126), "{stderr}");
    assert!(stderr.contains("the rules cannot be read, so nothing was run"), "{stderr}");
    assert!(!sandbox.path("ran").exists(), "the command ran");
}
