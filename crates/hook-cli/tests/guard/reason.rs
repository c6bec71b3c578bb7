//! The reason travels with the refusal: when the refused command's stderr is not the guard's own
//! (an agent that runs the whole session under the guard and reads each tool's stderr through a
//! pipe or a socket), the guard's line is written there too, so whoever reads the command's
//! output reads why it failed.

use crate::sandbox::Sandbox;

/// Runs `bash -c 't=tou; ${t}ch pwned'` with its stderr on a pipe or on one end of a socket pair,
/// and prints what came through.
const READER: &str = r#"import socket, subprocess, sys
command = ["bash", "-c", "t=tou; ${t}ch pwned"]
if sys.argv[1] == "pipe":
    said = subprocess.run(command, stderr=subprocess.PIPE).stderr
else:
    ours, theirs = socket.socketpair()
    child = subprocess.Popen(command, stderr=theirs)
    theirs.close()
    child.wait()
    chunks = []
    while chunk := ours.recv(65536):
        chunks.append(chunk)
    said = b"".join(chunks)
sys.stdout.write(said.decode())
"#;

#[test]
fn the_guards_reason_reaches_a_refused_commands_own_stderr_on_a_pipe_and_on_a_socket() {
    for kind in ["pipe", "socket"] {
        let sandbox = Sandbox::new(&[]);
        let reader = sandbox.script("reader.py", READER);
        let out = sandbox.run(&format!("python3 {} {kind}", reader.display()), true, b"");
        let seen = String::from_utf8_lossy(&out.stdout);
        assert!(!sandbox.path("work/pwned").exists(), "{kind}: the touch ran under the guard");
        assert!(
            seen.contains("aimon-hooks: denied by")
                && seen.contains("no touching")
                && seen.contains("Operation not permitted"),
            "{kind}: the command's stderr did not carry the guard's reason: {seen:?} (guard: {})",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
