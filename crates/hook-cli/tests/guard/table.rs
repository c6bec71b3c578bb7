//! The table: each denied row is run once without the guard (its stub must receive the denied
//! argv, or the row proves nothing) and once under it (the stub must not), in fresh sandboxes.

use std::os::unix::process::ExitStatusExt as _;

use crate::sandbox::Sandbox;

/// A command that builds a denied argv at run time.
struct Denied {
    name: &'static str,
    /// Run before the command, unguarded, in `work/` (a git repository with a bare remote).
    setup: &'static str,
    line: &'static str,
    /// What reaching the denied program looks like: a stub's log line, or (for git) the pushed ref.
    reaches: Reach,
    /// The guarded command's exit code: what its own program makes of the EPERM.
    code: i32,
}

enum Reach {
    Stub(&'static str),
    Pushed,
}

const GIT_REPO: &str = "git init -q -b main . && git -c user.email=a@b -c user.name=a commit -q --allow-empty -m one \
    && git init -q --bare ../remote.git && git remote add origin ../remote.git";

const DENIED: &[Denied] = &[
    Denied {
        name: "command substitution",
        setup: "",
        line: "$(printf 'tou%s' ch) pwned",
        reaches: Reach::Stub("touch pwned"),
        code: 126,
    },
    Denied {
        name: "a script written, then run",
        setup: "",
        line: "printf '#!/bin/sh\\nc=tou\\n\"${c}ch\" pwned\\necho after\\n' > s.sh && chmod +x s.sh && ./s.sh",
        reaches: Reach::Stub("touch pwned"),
        code: 0,
    },
    Denied {
        name: "make",
        setup: "printf 'C := $(shell printf tou)ch\\nall:\\n\\t$(C) pwned\\n' > Makefile",
        line: "make -s",
        reaches: Reach::Stub("touch pwned"),
        code: 2,
    },
    Denied {
        name: "xargs",
        setup: "",
        line: "echo pwned | xargs \"$(printf tou)ch\"",
        reaches: Reach::Stub("touch pwned"),
        code: 126,
    },
    Denied {
        name: "find -exec",
        setup: "",
        line: "c=tou; find . -maxdepth 0 -exec \"${c}ch\" pwned ';'",
        reaches: Reach::Stub("touch pwned"),
        code: 126,
    },
    Denied {
        name: "a git alias from the repository's config file",
        setup: "git config alias.p push",
        line: "git p -q origin main",
        reaches: Reach::Pushed,
        code: 126,
    },
    Denied {
        name: "a git shell alias from the repository's config file",
        setup: "git config alias.t '!touch'",
        line: "git t pwned",
        reaches: Reach::Stub("touch pwned"),
        code: 126,
    },
    Denied {
        name: "git's exec-path name",
        setup: "",
        line: "\"$(git --exec-path)/git-push\" -q origin main",
        reaches: Reach::Pushed,
        code: 126,
    },
    Denied {
        name: "a multi-call binary run under the applet's name",
        setup: "",
        line: "(exec -a touch busybox pwned)",
        reaches: Reach::Stub("busybox pwned"),
        code: 126,
    },
    Denied {
        name: "python's os.system",
        setup: "",
        line: "/usr/bin/python3 -c 'import os, sys; sys.exit(os.waitstatus_to_exitcode(os.system(\"tou\" + \"ch pwned\")))'",
        reaches: Reach::Stub("touch pwned"),
        // `sh -c 'touch pwned'` is refused at the shell's exec (its script, read whole): the
        // child os.system forked exits 127.
        code: 127,
    },
    Denied {
        name: "perl's exec",
        setup: "",
        line: "perl -e 'exec(\"tou\" . \"ch\", \"pwned\") or exit 9'",
        reaches: Reach::Stub("touch pwned"),
        code: 9,
    },
];

fn sandbox(row: &Denied) -> Sandbox {
    let sandbox = Sandbox::new(&["touch", "busybox"]);
    let setup = format!("{GIT_REPO} && {}", if row.setup.is_empty() { "true" } else { row.setup });
    let out = sandbox.run(&setup, false, b"");
    assert!(out.status.success(), "{}: setup failed: {}", row.name, String::from_utf8_lossy(&out.stderr));
    sandbox
}

/// Whether the denied program got the denied argv.
fn reached(sandbox: &Sandbox, row: &Denied) -> bool {
    match row.reaches {
        Reach::Stub(line) => sandbox.log().lines().any(|l| l == line),
        Reach::Pushed => {
            let refs = sandbox.run("git --git-dir ../remote.git for-each-ref", false, b"");
            !refs.stdout.is_empty()
        }
    }
}

#[test]
fn a_denied_argv_built_at_run_time_never_reaches_its_program_and_the_command_exits_as_its_program_decides() {
    let mut failures = Vec::new();
    for row in DENIED {
        let plain = sandbox(row);
        let out = plain.run(row.line, false, b"");
        assert!(
            reached(&plain, row),
            "{}: without the guard the row does not reach the denied program (stderr: {})",
            row.name,
            String::from_utf8_lossy(&out.stderr)
        );
        let guarded = sandbox(row);
        let out = guarded.run(row.line, true, b"");
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        let code = out.status.code().unwrap_or(-1);
        if reached(&guarded, row) {
            failures.push(format!("{}: the denied program ran under the guard", row.name));
        }
        if !stderr.contains("aimon-hooks: denied by project#0: ") {
            failures.push(format!("{}: no denial on stderr: {stderr}", row.name));
        }
        if code != row.code {
            failures.push(format!("{}: exit {code}, expected {} (stderr: {stderr})", row.name, row.code));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Benign commands: (name, line, stdin).
const BENIGN: &[(&str, &str, &[u8])] = &[
    ("output and an exit code", "echo hello; ls -1 /; exit 3", b""),
    ("a pipeline reading stdin", "sort -r | head -2; cat /dev/null", b"b\na\nc\n"),
    (
        "stderr and an interpreter's exit code",
        "/usr/bin/python3 -c 'import sys; sys.stderr.write(\"e\\n\"); print(1); sys.exit(5)'",
        b"",
    ),
    ("a signal death", "echo before; kill -TERM $$", b""),
    ("the environment as the command sees it", "env | grep -v '^_=' | sort", b""),
    ("a background child and wait", "(sleep 0.05; echo late) & echo early; wait", b""),
    ("git, make and find", "git --version; make -f /dev/null -q; find /etc/hostname -maxdepth 0", b""),
    ("a touch of nothing is still no touch", "echo touch pwned; printf 'tou'", b""),
    // The guard keeps to one CPU while it supervises; the command keeps all it was given.
    ("the CPUs the command may run on", "grep -E '^(Cpus_allowed|Mems_allowed)_list' /proc/self/status", b""),
];

#[test]
fn benign_commands_run_byte_identical_with_and_without_the_guard() {
    let sandbox = Sandbox::new(&["touch"]);
    for (name, line, stdin) in BENIGN {
        let plain = sandbox.run(line, false, stdin);
        let guarded = sandbox.run(line, true, stdin);
        // A signal death is 128 + N through the guard, as a shell reports it.
        let plain_code = plain.status.code().or(plain.status.signal().map(|n| 128 + n));
        assert_eq!(
            (String::from_utf8_lossy(&guarded.stdout), String::from_utf8_lossy(&guarded.stderr), guarded.status.code()),
            (String::from_utf8_lossy(&plain.stdout), String::from_utf8_lossy(&plain.stderr), plain_code),
            "{name}"
        );
    }
    assert_eq!(sandbox.log(), "", "no stub was called");
}

/// The guard starts the command itself as `execvp` would: a file without `#!` runs through `sh`,
/// which needs a copy of every argument's pointer on the starting process's stack — here with
/// close to the most one-letter arguments the kernel takes.
#[test]
fn a_script_without_a_shebang_line_runs_as_the_command_itself_even_with_190000_arguments() {
    let sandbox = Sandbox::new(&[]);
    let script = sandbox.script("work/count", "echo \"$# $1\"\n");
    let many: Vec<&str> = vec!["a"; 190_000];
    let mut guard = std::process::Command::new(env!("CARGO_BIN_EXE_aimon-hooks"));
    guard.arg("guard").arg("--project").arg(sandbox.path("project")).arg("--home").arg(sandbox.path("home"));
    let out = guard.arg("--").arg(&script).args(&many).output().expect("guard runs");
    assert_eq!(
        (String::from_utf8_lossy(&out.stdout).into_owned(), out.status.code()),
        ("190000 a\n".to_owned(), Some(0)),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
