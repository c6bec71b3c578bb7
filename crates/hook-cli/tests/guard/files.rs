//! Files held by the kernel: under `Read(./.env)` and `Edit(./.env)` deny rules the command runs
//! in a mount namespace of its own where `.env` is an empty read-only file of mode 0 and the
//! policy files are read-only. Each row is run in a fresh project once without the guard (it must
//! read the secret, or change the file, or it proves nothing) and once under it (it must not),
//! as the test's own user and, when that is root, as `nobody` (an unprivileged user namespace).

use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use tempfile::TempDir;

const RULES: &str = r#"{"hooks": {"PreToolUse": [
  {"matcher": "Read(./.env)", "hooks": [{"type": "deny", "reason": "secrets stay secret"}]},
  {"matcher": "Edit(./.env)", "hooks": [{"type": "deny", "reason": "secrets stay as they are"}]}
]}}"#;

/// What `.env` holds; no row's text contains it.
const SECRET: &str = "hunter2-kernel";

/// Ways to read `.env` (each prints the secret without the guard).
const READS: &[&str] = &[
    "cat .env",
    "echo \"$(<.env)\"",
    "while read l; do echo \"$l\"; done < .env",
    "date -f .env 2>&1",
    "xargs -a .env echo",
    "python3 -c \"print(open(chr(46)+'env').read())\"",
    "perl -ne print .env",
    "cp .env ../copy && cat ../copy",
    "tar cf - .env | tar xOf -",
    "ln .env ../hard && cat ../hard",
    "ln -s \"$PWD/.env\" ../sym && cat ../sym",
    "head -c 100 .env",
    "awk '{print}' .env",
    "sed -n p .env",
    "grep -r hunter .",
    "exec 3<.env; cat <&3",
    "mapfile -t a < .env; echo \"${a[@]}\"",
    "read -r l < .env; echo \"$l\"",
    "base64 .env | base64 -d",
    "dd if=.env status=none",
    "tail -n 1 .e*v",
    "python3 -c \"import os; print(os.popen('cat .e'+'nv').read())\"",
    "cd .. && cat project/.env",
    "cat /proc/self/cwd/.env",
    "mv .env ../moved; cat ../moved",
    "umount -l .env 2>/dev/null; cat .env",
    "unshare -rm cat .env",
    "mkdir ../m && unshare -rm sh -c 'mount --bind . ../m && cat ../m/.env'",
    "python3 -c \"import ctypes; ctypes.CDLL(None).unshare(0x10020000); print(open('.e'+'nv').read())\"",
    "git init -q && git add -f .env && git show :.env",
    "python3 -c \"import shutil; shutil.copy('.e'+'nv', '../c'); print(open('../c').read())\"",
];

/// Ways to write `.env` (each changes it without the guard: its bytes, inode, mode or time).
const WRITES: &[&str] = &[
    "echo pwned > .env",
    "echo pwned >> .env",
    ": > .env",
    "printf pwned | tee .env",
    "sed -i s/hunter2/pwned/ .env",
    "perl -i -pe s/hunter2/pwned/ .env",
    "truncate -s 0 .env",
    "rm .env",
    "rm -f .env && echo pwned > .env",
    "mv .env ../away",
    "echo pwned > ../new && mv ../new .env",
    "cp /etc/hostname .env",
    "install -m 644 /etc/hostname .env",
    "ln -sf /etc/hostname .env",
    "python3 -c \"open(chr(46)+'env', 'w').write('pwned')\"",
    "echo p > ../n && python3 -c \"import os; os.rename('../n', '.e'+'nv')\"",
    "python3 -c \"import os; os.unlink('.e'+'nv')\"",
    "echo pwned | dd of=.env status=none",
    "exec 3>.env; echo pwned >&3",
    "awk 'BEGIN{print \"pwned\" > \".env\"}'",
    "perl -e 'open F, \">\", \".env\"; print F \"pwned\"'",
    "cd .. && echo pwned > project/.env",
    "echo pwned > /proc/self/cwd/.env",
    "chmod 777 .env",
    "touch -d 2001-01-01 .env",
    "mkdir ../t && echo pwned > ../t/.env && tar cf ../t.tar -C ../t .env && tar xf ../t.tar",
    "umount -l .env 2>/dev/null; echo pwned > .env",
    "unshare -rm sh -c 'echo pwned > .env'",
    "python3 -c \"import ctypes; ctypes.CDLL(None).unshare(0x10020000); open('.e'+'nv', 'w').write('p')\"",
    "git init -q && echo pwned > f && git add f && git mv -f f .env",
];

/// Ways to write the policy (each changes `.aimon/hooks.json` without the guard).
const POLICY_WRITES: &[&str] = &[
    "echo '{}' > .aimon/hooks.json",
    "sed -i s/deny/allow/ .aimon/hooks.json",
    "python3 -c \"open('.aimon/hooks'+'.json', 'w').write('{}')\"",
    "rm -rf .aimon",
    "mv .aimon ../aimon",
    "mv .aimon/hooks.json ../h.json",
];

/// Benign work in the project: the same bytes with and without the guard.
const BENIGN: &[&str] = &[
    "cc -o hello hello.c && ./hello",
    "make -s && ./hello",
    "cargo --version",
    "test -f hello.c && echo yes; ls; python3 -c 'print(6*7)'",
    "git init -q -b main && git add hello.c Makefile && git -c user.email=a@b -c user.name=a commit -q -m one \
     && git log --format=%s && git status --short",
];

/// A project with the rules, `.env` and a small C program, in a temporary directory.
struct Project {
    dir: TempDir,
    nobody: bool,
}

impl Project {
    fn new(nobody: bool) -> Project {
        let dir = tempfile::tempdir().expect("temp dir");
        for sub in ["home", "project/.aimon"] {
            std::fs::create_dir_all(dir.path().join(sub)).expect("mkdir");
        }
        let files = [
            ("project/.aimon/hooks.json", RULES.to_owned()),
            ("project/.env", format!("TOKEN={SECRET}\n")),
            ("project/hello.c", "#include <stdio.h>\nint main(void) { puts(\"hello\"); return 0; }\n".to_owned()),
            ("project/Makefile", "hello: hello.c\n\tcc -o hello hello.c\n".to_owned()),
        ];
        for (path, text) in files {
            std::fs::write(dir.path().join(path), text).expect("write");
        }
        if nobody {
            let chown = Command::new("chown").arg("-R").arg("65534:65534").arg(dir.path()).status().expect("chown");
            assert!(chown.success());
        }
        Project { dir, nobody }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// `bash -c line` in the project, under the guard or not.
    fn run(&self, line: &str, guarded: bool) -> Output {
        let mut words: Vec<String> = Vec::new();
        if self.nobody {
            words.extend(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"].map(String::from));
        }
        if guarded {
            words.push(env!("CARGO_BIN_EXE_aimon-hooks").to_owned());
            words.push("guard".into());
            words.extend(["--project".into(), self.path("project").display().to_string()]);
            words.extend(["--home".into(), self.path("home").display().to_string(), "--".into()]);
        }
        words.extend(["bash".into(), "-c".into(), line.into()]);
        Command::new(&words[0])
            .args(&words[1..])
            .current_dir(self.path("project"))
            .env("HOME", self.path("home"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env_remove("GIT_CONFIG_GLOBAL")
            .output()
            .expect("runs")
    }
}

/// Everything of a file a write could change: its bytes, inode, mode, change time.
fn state(path: &Path) -> Option<(Vec<u8>, u64, u32, i64, i64)> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    Some((std::fs::read(path).unwrap_or_default(), meta.ino(), meta.mode(), meta.mtime(), meta.ctime_nsec()))
}

fn said(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

/// The users the rows run as: the test's own, and `nobody` when that is root.
fn users() -> Vec<bool> {
    match std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0) {
        true => vec![false, true],
        false => vec![false],
    }
}

#[test]
fn no_way_of_reading_a_denied_file_shows_its_secret_under_the_guard() {
    let mut failures = Vec::new();
    for nobody in users() {
        for line in READS {
            let project = Project::new(nobody);
            let bare = said(&project.run(line, false));
            if !bare.contains(SECRET) {
                failures.push(format!("[nobody: {nobody}] {line}: reads nothing without the guard: {bare}"));
                continue;
            }
            let project = Project::new(nobody);
            let guarded = said(&project.run(line, true));
            if guarded.contains(SECRET) || !project.path("project/.env").exists() {
                failures.push(format!("[nobody: {nobody}] {line}: under the guard: {guarded}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn no_way_of_writing_a_denied_file_changes_it_under_the_guard() {
    let mut failures = Vec::new();
    for nobody in users() {
        for line in WRITES {
            let project = Project::new(nobody);
            let before = state(&project.path("project/.env"));
            let bare = said(&project.run(line, false));
            if state(&project.path("project/.env")) == before {
                failures.push(format!("[nobody: {nobody}] {line}: changes nothing without the guard: {bare}"));
                continue;
            }
            let project = Project::new(nobody);
            let before = state(&project.path("project/.env"));
            let guarded = said(&project.run(line, true));
            if state(&project.path("project/.env")) != before {
                failures.push(format!("[nobody: {nobody}] {line}: changed under the guard: {guarded}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_policy_files_cannot_be_written_under_the_guard() {
    let mut failures = Vec::new();
    for nobody in users() {
        for line in POLICY_WRITES {
            let project = Project::new(nobody);
            let bare = said(&project.run(line, false));
            if std::fs::read_to_string(project.path("project/.aimon/hooks.json")).ok().as_deref() == Some(RULES) {
                failures.push(format!("[nobody: {nobody}] {line}: changes nothing without the guard: {bare}"));
                continue;
            }
            let project = Project::new(nobody);
            let guarded = said(&project.run(line, true));
            if std::fs::read_to_string(project.path("project/.aimon/hooks.json")).ok().as_deref() != Some(RULES) {
                failures.push(format!("[nobody: {nobody}] {line}: changed under the guard: {guarded}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn benign_work_in_the_project_runs_byte_identical_under_the_guard() {
    for line in BENIGN {
        let (bare, guarded) = (Project::new(false), Project::new(false));
        let (bare, guarded) = (bare.run(line, false), guarded.run(line, true));
        assert!(bare.status.success(), "{line}: {}", said(&bare));
        assert_eq!(
            (guarded.status.code(), said(&guarded)),
            (bare.status.code(), said(&bare)),
            "{line}: guarded vs not"
        );
    }
}

/// The kernel nests user namespaces 32 deep: a guard started in the deepest one a chain of
/// `unshare -Ur` can make cannot give the command one of its own.
#[test]
fn the_guard_runs_nothing_where_the_kernel_refuses_the_command_a_user_namespace() {
    let project = Project::new(false);
    let ran = project.path("ran");
    let mut deepest = None;
    for depth in 1..=40 {
        let _ = std::fs::remove_file(&ran);
        let mut cmd = Command::new("unshare");
        for _ in 1..depth {
            cmd.args(["-Ur", "unshare"]);
        }
        cmd.arg("-Ur").arg(env!("CARGO_BIN_EXE_aimon-hooks")).arg("guard");
        cmd.arg("--project").arg(project.path("project")).arg("--home").arg(project.path("home"));
        cmd.args(["--", "sh", "-c"]).arg(format!("echo ran > {}", ran.display()));
        let out = cmd.output().expect("unshare runs");
        if String::from_utf8_lossy(&out.stderr).contains("unshare failed") {
            break;
        }
        deepest = Some(out);
    }
    let out = deepest.expect("unshare -Ur works here");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(126), "{stderr}");
    assert!(stderr.contains("a user and mount namespace of its own") && stderr.contains("nothing was run"), "{stderr}");
    assert!(!ran.exists(), "the command ran");
}

/// A denied path absent when the guard starts has nothing to be mounted over, so the kernel does
/// not hold a file the command creates there (docs/security.md says why no placeholder is made):
/// the exec rules still refuse a program whose arguments name it, the shell's script read whole
/// refuses a builtin reading it by name, and an interpreter building the name at run time reads
/// it. The file is made by a name built at run time (`.env` by name is a denied write). Pinned so
/// a change of either is seen.
#[test]
fn a_denied_file_created_after_the_start_is_refused_to_programs_naming_it_and_not_held_by_the_kernel() {
    let rows: &[(&str, bool)] = &[
        ("echo made > \"$(printf .env)\"; cat .env", false),
        ("echo made > \"$(printf .env)\"; tail -n 1 .env", false),
        ("echo made > \"$(printf .env)\"; read -r l < .env; echo \"$l\"", false),
        ("echo made > \"$(printf .env)\"; python3 -c \"print(open(chr(46)+'env').read())\"", true),
    ];
    let mut failures = Vec::new();
    for (line, shown) in rows {
        let project = Project::new(false);
        std::fs::remove_file(project.path("project/.env")).expect("no .env at start");
        let out = project.run(line, true);
        let stdout = String::from_utf8_lossy(&out.stdout);
        if stdout.contains("made") != *shown {
            failures.push(format!("{line}: shown {}, expected {shown}: {}", !shown, said(&out)));
        }
        if !shown && !said(&out).contains("aimon-hooks: denied by project#0: secrets stay secret") {
            failures.push(format!("{line}: no denial: {}", said(&out)));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
