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

/// The exec of `./t pwned` reads as `t pwned` when it is checked; only once the kernel has loaded
/// it is the program `touch` (the script's interpreter), with `./t pwned` as its arguments. The
/// check right after the exec reads the new program's argv and file and kills it before its
/// first instruction.
#[test]
fn a_script_whose_interpreter_is_a_denied_program_is_killed_before_that_program_runs() {
    let sandbox = Sandbox::new(&[]);
    let touch = ["/usr/bin/touch", "/bin/touch"].into_iter().find(|p| std::path::Path::new(p).exists());
    let touch = touch.expect("coreutils' touch");
    sandbox.script("work/t", &format!("#!{touch}\n"));
    let unguarded = sandbox.run("./t reached; echo after $?", false, b"");
    assert!(sandbox.path("work/reached").exists(), "the row proves nothing: {unguarded:?}");
    let out = sandbox.run("./t pwned; echo after $?", true, b"");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!sandbox.path("work/pwned").exists(), "touch ran under the guard: {stderr}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "after 137\n", "bash sees its child killed: {stderr}");
    assert!(stderr.contains(&format!("aimon-hooks: denied by project#0: no touching ({touch} ./t pwned)")), "{stderr}");
}
