//! A signal sent to the guard reaches the guarded command, as it would reach the command run on
//! its own: the command's handler runs and its exit code comes back.

use std::io::{BufRead as _, BufReader};
use std::process::{Command, Stdio};

use crate::sandbox::Sandbox;

#[test]
fn a_signal_sent_to_the_guard_is_passed_on_to_the_command() {
    let sandbox = Sandbox::new(&[]);
    for name in ["TERM", "HUP", "INT"] {
        let script = format!("trap 'echo got {name}; exit 7' {name}; echo ready; while :; do sleep 0.05; done");
        let mut guard = Command::new(env!("CARGO_BIN_EXE_aimon-hooks"))
            .arg("guard")
            .arg("--project")
            .arg(sandbox.path("project"))
            .arg("--home")
            .arg(sandbox.path("home"))
            .args(["--", "bash", "-c", &script])
            .stdout(Stdio::piped())
            .spawn()
            .expect("guard starts");
        let mut out = BufReader::new(guard.stdout.take().expect("stdout"));
        let mut line = String::new();
        out.read_line(&mut line).expect("ready");
        assert_eq!(line, "ready\n");
        let sent = Command::new("kill").arg(format!("-{name}")).arg(guard.id().to_string()).status();
        assert!(sent.expect("kill runs").success());
        line.clear();
        out.read_line(&mut line).expect("the handler's line");
        assert_eq!(line, format!("got {name}\n"), "{name}");
        assert_eq!(guard.wait().expect("guard ends").code(), Some(7), "{name}: the command's own exit code");
    }
}
