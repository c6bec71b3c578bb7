//! Fail closed: where the kernel refuses ptrace, `guard` runs nothing and exits 126.
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
