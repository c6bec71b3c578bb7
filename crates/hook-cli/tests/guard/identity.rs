//! Programs by identity: git under another name, through the dynamic loader, from a descriptor,
//! a memfd or a bind mount, and git's own push plumbing, each pushing to a local bare repository
//! without the guard and pushing nothing under it (`Bash(git push:*)` is denied).

use crate::sandbox::Sandbox;

/// A push that does not say `git push`.
struct Row {
    name: &'static str,
    /// Written to `work/` before the row runs (a script the command starts: its text is not the
    /// exec's reading, only what it execs is).
    files: &'static [(&'static str, &'static str)],
    line: &'static str,
    /// How the guard holds it.
    held: Held,
}

/// How nothing gets pushed under the guard.
enum Held {
    /// The exec of git is refused (`aimon-hooks: denied by …` on stderr) and the command exits
    /// with this code: what its own program makes of the refusal.
    Denied(i32),
    /// Either that, or a step before the exec is refused by the kernel (the filter refuses a new
    /// namespace, so there is no mount to run git through): this on stderr, and this exit code.
    DeniedOrRefused(i32, &'static str, i32),
}

impl Held {
    /// What is wrong with a guarded run's `stderr` and exit `code`, if anything.
    fn check(&self, stderr: &str, code: i32) -> Option<String> {
        let denied = stderr.contains("aimon-hooks: denied by project#0: pushes are reviewed");
        match *self {
            Held::Denied(want) if denied && code == want => None,
            Held::DeniedOrRefused(want, ..) if denied && code == want => None,
            Held::DeniedOrRefused(_, refusal, want) if stderr.contains(refusal) && code == want => None,
            Held::Denied(want) => Some(format!("exit {code}, expected the denial and exit {want} (stderr: {stderr})")),
            Held::DeniedOrRefused(want, refusal, or) => Some(format!(
                "exit {code}, expected the denial and exit {want}, or `{refusal}` and exit {or} (stderr: {stderr})"
            )),
        }
    }
}

/// `work/` as a repository with one commit and a bare remote `../remote.git`.
const GIT_REPO: &str = "git init -q -b main . && git -c user.email=a@b -c user.name=a commit -q --allow-empty -m one \
    && git init -q --bare ../remote.git";

/// Runs git from a memfd: a copy in memory, exec'd through `/proc/self/fd/N`.
const MEMFD: &str = "import os, shutil, sys
fd = os.memfd_create('x')
with open(shutil.which('git'), 'rb') as git:
    os.write(fd, git.read())
os.execve('/proc/self/fd/%d' % fd, ['x', 'push', '../remote.git', 'main'], os.environ)
";

/// In a mount namespace of its own, git mounted over another file's name.
const BIND: &str = ": > ./editor && mount --bind \"$(command -v git)\" ./editor && ./editor push ../remote.git main\n";

const ROWS: &[Row] = &[
    Row {
        name: "the loader by path",
        files: &[],
        line: "/lib64/ld-linux-x86-64.so.2 \"$(command -v git)\" push ../remote.git main",
        held: Held::Denied(126),
    },
    Row {
        name: "the loader by exec-path name",
        files: &[],
        line: "ld.so \"$(git --exec-path)/git-push\" ../remote.git main",
        held: Held::Denied(126),
    },
    Row {
        name: "the loader by descriptor",
        files: &[],
        line: "ld.so --argv0 git /dev/fd/3 push ../remote.git main 3<\"$(command -v git)\"",
        held: Held::Denied(126),
    },
    Row {
        name: "a copy",
        files: &[],
        line: "cp \"$(command -v git)\" ./tool && ./tool push ../remote.git main",
        held: Held::Denied(126),
    },
    Row {
        name: "a hard link",
        files: &[],
        line: "g=$(command -v git); { ln \"$g\" ./tool 2>/dev/null || { cp \"$g\" ./g0 && ln ./g0 ./tool; }; } \
            && ./tool push ../remote.git main",
        held: Held::Denied(126),
    },
    Row { name: "a memfd copy", files: &[("memfd.py", MEMFD)], line: "python3 memfd.py", held: Held::Denied(1) },
    Row {
        name: "a bind mount",
        files: &[("bind.sh", BIND)],
        line: "unshare -rm sh bind.sh",
        held: Held::DeniedOrRefused(126, "unshare failed: Operation not permitted", 1),
    },
    Row { name: "git send-pack", files: &[], line: "git send-pack ../remote.git main", held: Held::Denied(126) },
];

fn sandbox(row: &Row) -> Sandbox {
    let sandbox = Sandbox::new(&[]);
    for (name, text) in row.files {
        sandbox.script(&format!("work/{name}"), text);
    }
    let out = sandbox.run(GIT_REPO, false, b"");
    assert!(out.status.success(), "{}: setup failed: {}", row.name, String::from_utf8_lossy(&out.stderr));
    sandbox
}

/// The remote's refs.
fn pushed(sandbox: &Sandbox) -> String {
    String::from_utf8_lossy(&sandbox.run("git --git-dir ../remote.git for-each-ref", false, b"").stdout).into_owned()
}

#[test]
fn git_under_any_name_or_through_the_loader_or_its_plumbing_pushes_without_the_guard_and_nothing_under_it() {
    let mut failures = Vec::new();
    for row in ROWS {
        let plain = sandbox(row);
        let out = plain.run(row.line, false, b"");
        assert!(
            pushed(&plain).contains("refs/heads/main"),
            "{}: without the guard the row does not push (stderr: {})",
            row.name,
            String::from_utf8_lossy(&out.stderr)
        );
        let guarded = sandbox(row);
        let out = guarded.run(row.line, true, b"");
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        let code = out.status.code().unwrap_or(-1);
        let refs = pushed(&guarded);
        if !refs.is_empty() {
            failures.push(format!("{}: pushed under the guard: {refs}", row.name));
        }
        if let Some(wrong) = row.held.check(&stderr, code) {
            failures.push(format!("{}: {wrong}", row.name));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A loader exec whose program it would have to look for (no `/`) is refused, with a reason; one
/// whose program is a file it can resolve runs, by path or by descriptor.
#[test]
fn a_loader_exec_whose_program_cannot_be_resolved_is_refused_and_one_that_can_runs() {
    let sandbox = Sandbox::new(&[]);
    let line = "ld.so --library-path \"$(dirname \"$(command -v git)\")\" git --version";
    let out = sandbox.run(line, true, b"");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.stdout.is_empty(), "{out:?}");
    assert!(
        stderr.contains("aimon-hooks: refused: the dynamic loader would search its library path for `git`"),
        "{stderr}"
    );
    assert_eq!(out.status.code(), Some(126), "{stderr}");
    for line in ["ld.so \"$(command -v ls)\" -d /", "ld.so /dev/fd/3 -d / 3<\"$(command -v ls)\""] {
        let allowed = sandbox.run(line, true, b"");
        assert_eq!(String::from_utf8_lossy(&allowed.stdout), "/\n", "{line}: {allowed:?}");
    }
}
