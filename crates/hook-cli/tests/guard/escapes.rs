//! Ways around the exec check that the guard closes: a notification listener of the command's
//! own, an exec from a thread other than the main one, a grandchild that daemonises and execs
//! after the command has ended, a tracer of the command's own, taking the guard's own listener.

use crate::sandbox::Sandbox;

/// A listener made by the command would hear its execs in the guard's place (a newer filter's
/// notification wins): making one fails with EPERM under the guard.
const MAKE_LISTENER: &str = r#"/usr/bin/python3 -c '
import ctypes, errno
libc = ctypes.CDLL(None, use_errno=True)
class Insn(ctypes.Structure):
    _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte), ("k", ctypes.c_uint)]
class Prog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(Insn))]
allow = (Insn * 1)(Insn(0x06, 0, 0, 0x7fff0000))
prog = Prog(1, allow)
libc.prctl(38, 1, 0, 0, 0)
fd = libc.syscall(317, 1, 8, ctypes.byref(prog))
print("listener" if fd >= 0 else errno.errorcode[ctypes.get_errno()])
'"#;

#[test]
fn a_command_cannot_make_a_seccomp_listener_of_its_own() {
    let sandbox = Sandbox::new(&[]);
    let unguarded = sandbox.run(MAKE_LISTENER, false, b"");
    assert_eq!(String::from_utf8_lossy(&unguarded.stdout), "listener\n", "the row proves nothing: {unguarded:?}");
    let guarded = sandbox.run(MAKE_LISTENER, true, b"");
    assert_eq!(String::from_utf8_lossy(&guarded.stdout), "EPERM\n", "{guarded:?}");
}

/// A thread that execs takes the main thread's pid: both the refused exec and the one let
/// through are followed.
#[test]
fn an_exec_from_a_thread_is_checked_as_any_other() {
    let sandbox = Sandbox::new(&["touch", "echo"]);
    let from_thread = |argv: &str| {
        format!(
            r#"/usr/bin/python3 -c '
import os, threading
def run():
    try:
        os.execvp({argv}[0], {argv})
    except OSError as e:
        print("refused", e.errno, flush=True)
        os._exit(3)
t = threading.Thread(target=run)
t.start()
t.join()
'"#
        )
    };
    let out = sandbox.run(&from_thread(r#"["tou" + "ch", "x"]"#), true, b"");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "refused 1\n", "{out:?}");
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let out = sandbox.run(&from_thread(r#"["echo", "from", "a", "thread"]"#), true, b"");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(sandbox.log(), "echo from a thread\n", "only the exec let through reached its stub");
}

/// A grandchild in a session of its own, exec'ing after the command ended: the guard waits for
/// it (it adopts the orphans of its tree) and still checks its exec.
#[test]
fn a_daemonising_grandchild_is_followed_after_the_command_ends() {
    let sandbox = Sandbox::new(&["touch", "echo"]);
    sandbox.script("work/late.sh", "sleep 0.3; env echo late; touch pwned\n");
    let line = "setsid sh ./late.sh > /dev/null 2>&1 < /dev/null & echo started";
    let out = sandbox.run(line, true, b"");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "started\n", "{out:?}");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(sandbox.log(), "echo late\n", "the late echo ran, the late touch did not");
}

/// A tracer of the command's own (here strace) holds the thread the guard would attach to for the
/// check after the exec: that exec is refused, with a sentence, rather than run unfollowed.
#[test]
fn an_exec_traced_by_the_commands_own_tracer_is_refused() {
    let sandbox = Sandbox::new(&["echo"]);
    let line = "strace -f -qq -e trace=none -o /dev/null echo hi";
    let unguarded = sandbox.run(line, false, b"");
    assert_eq!(sandbox.log(), "echo hi\n", "the row proves nothing (strace is installed by the CI): {unguarded:?}");
    std::fs::remove_file(sandbox.path("stubs.log")).expect("the log");
    let out = sandbox.run(line, true, b"");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(sandbox.log(), "", "the stub ran under the command's own tracer: {stderr}");
    assert!(stderr.contains("aimon-hooks: refused: the guard cannot follow this exec"), "{stderr}");
    assert_ne!(out.status.code(), Some(0), "{out:?}");
}

/// A path rule (`//` makes it absolute) reads an exec's relative path in the exec's own
/// directory, wherever the shell moved to before it (by a name the shell's script does not show,
/// or the script, read whole, would be refused first).
#[test]
fn a_path_rule_is_read_in_the_execs_own_directory() {
    let sandbox = Sandbox::new(&["cat"]);
    let secret = sandbox.path("work/secret");
    let rules = format!(
        r#"{{"hooks": {{"PreToolUse": [{{"matcher": "Read(/{}/**)", "hooks": [{{"type": "deny", "reason": "no secrets"}}]}}]}}}}"#,
        secret.display()
    );
    std::fs::write(sandbox.path("project/.aimon/hooks.json"), rules).expect("rules");
    for dir in ["secret", "public"] {
        std::fs::create_dir_all(sandbox.path(&format!("work/{dir}"))).expect("mkdir");
    }
    let out = sandbox.run("cd public && cat key; cd \"$(printf ../secret)\" && cat key", true, b"");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(sandbox.log(), "cat key\n", "only the read outside secret/ reached cat: {stderr}");
    assert!(stderr.contains("aimon-hooks: denied by project#0: no secrets (cat key)"), "{stderr}");
}

/// Takes a file descriptor whose target names a seccomp listener from the nearest `aimon-hooks`
/// above it (`pidfd_getfd`): with the guard's listener a command could answer its own execs.
const TAKE_LISTENER: &str = r#"/usr/bin/python3 -c '
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
pid = os.getppid()
while not open(f"/proc/{pid}/comm").read().startswith("aimon") and pid > 1:
    pid = int(open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[1])
pidfd = os.pidfd_open(pid)
taken = []
for fd in range(3, 64):
    new = libc.syscall(438, pidfd, fd, 0)
    if new >= 0 and "seccomp" in os.readlink(f"/proc/self/fd/{new}"):
        taken.append(fd)
print("taken" if taken else "refused")
'"#;

/// A process of the same user could attach to the guard, read its memory or take its listener;
/// once the command runs, the guard cannot be attached to (only with CAP_SYS_PTRACE, which the
/// test drops when it runs as root).
#[test]
fn a_command_cannot_take_the_guards_listener() {
    let sandbox = Sandbox::new(&[]);
    // Root keeps CAP_SYS_PTRACE unless it is dropped.
    let root = std::fs::read_to_string("/proc/self/status")
        .expect("status")
        .lines()
        .any(|l| l.starts_with("Uid:") && l.split_whitespace().nth(1) == Some("0"));
    let wrapper: &[&str] =
        if root { &["setpriv", "--bounding-set=-sys_ptrace", "--inh-caps=-sys_ptrace"] } else { &[] };
    let out = sandbox.run_wrapped(wrapper, TAKE_LISTENER, true, b"");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "refused\n", "{out:?}");
}
