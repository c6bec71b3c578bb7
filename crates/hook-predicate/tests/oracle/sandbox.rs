//! Where the oracle runs a case: a fresh directory, stub programs, and (when the kernel allows it)
//! a user, mount, network and pid namespace in which the stubs are bound over the real programs
//! and every file system outside the run's directory is read-only.
//!
//! The namespace is made once: a holder process (`unshare -U -n -m`) binds the stubs and remounts
//! everything read-only, then waits; each case enters it with `nsenter` and starts a pid namespace
//! of its own (`unshare -pf --kill-child --mount-proc`), so killing the case kills everything it
//! started. Inside, the run's user is root of the namespace but, outside, the caller's own user —
//! or `nobody` when the caller is root, so that a command escaping the stubs can harm nothing.

use std::fs;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::{Duration, Instant};

/// The programs rules are about: each is a stub that records its argv and succeeds.
pub(crate) const STUBBED: &[&str] = &[
    "git",
    "git-push",
    "rm",
    "touch",
    "curl",
    "wget",
    "npm",
    "pnpm",
    "yarn",
    "bun",
    "chmod",
    "chown",
    "docker",
    "podman",
    "kubectl",
    "ssh",
    "scp",
    "rsync",
    "cargo",
    "gh",
    "terraform",
    "sudo",
    "doas",
    "at",
    "systemd-run",
    "pkexec",
    "busybox",
];

/// The directories whose copies of a stubbed program are covered by the stub inside the namespace.
const BIN_DIRS: &[&str] = &["/usr/bin", "/usr/sbin", "/usr/local/bin", "/usr/local/sbin", "/bin", "/sbin"];

/// git's exec-path directories: every `git-*` there is covered too (`git-push` is `git push`).
const GIT_CORE: &[&str] = &["/usr/local/libexec/git-core", "/usr/lib/git-core", "/usr/libexec/git-core"];

/// How long a case may run before its pid namespace is killed.
pub(crate) const CASE_TIMEOUT: Duration = Duration::from_secs(5);

const STUB: &str = r#"#!/bin/sh
# An oracle stub: records its name and arguments (NUL-separated) in the case's log, then succeeds.
d=$AIMON_ORACLE_LOG
p=$PPID
while [ -z "$d" ] && [ "${p:-0}" -ge 1 ] 2>/dev/null; do
  d=$(tr '\0' '\n' < "/proc/$p/environ" 2>/dev/null | sed -n 's/^AIMON_ORACLE_LOG=//p' | head -n 1)
  p=$(sed -n 's/^PPid:[[:space:]]*//p' "/proc/$p/status" 2>/dev/null)
done
[ -n "$d" ] || d=@UNCLAIMED@
printf '%s\0' "${0##*/}" "$@" > "$d/$$.$(date +%s%N)"
exit 0
"#;

/// Run inside the namespace (as its root) once: binds the stubs over the real programs, then makes
/// every mount but the run's directory and `/proc` read-only, and checks that it is.
const SETUP: &str = r#"
run=$1; stub=$2
mount --bind "$run" "$run" || exit 1
for name in $(ls "$run/stubs"); do
  for dir in @BIN_DIRS@; do
    if [ -e "$dir/$name" ]; then mount --bind "$stub" "$dir/$name" || exit 1; fi
  done
done
for dir in @GIT_CORE@; do
  for file in "$dir"/git-*; do
    if [ -f "$file" ]; then mount --bind "$stub" "$file" || exit 1; fi
  done
done
for mp in $(awk '{ print $5 }' /proc/self/mountinfo); do
  case $mp in "$run"|/proc|/proc/*) continue ;; esac
  mount -o remount,bind,ro "$mp" 2>/dev/null
done
if ( : > /oracle-probe ) 2>/dev/null; then echo "/ is still writable" >&2; exit 1; fi
"#;

/// How cases are isolated.
#[derive(Debug)]
pub(crate) enum Isolation {
    /// In the holder's namespaces.
    Namespace { holder: Child, _stdin: ChildStdin },
    /// Plain processes: only cases that cannot reach a real program outside the run are run.
    Plain(String),
}

/// The run: its directory, the stubs, and how cases are isolated.
#[derive(Debug)]
pub(crate) struct Sandbox {
    pub(crate) root: PathBuf,
    stubs: PathBuf,
    pub(crate) isolation: Isolation,
}

/// What one run of a case left behind.
#[derive(Debug, Default)]
pub(crate) struct Outcome {
    /// Every stub call: the program's name, then its arguments.
    pub(crate) calls: Vec<Vec<Vec<u8>>>,
    /// The `strace` log, when the case was traced.
    pub(crate) trace: Option<String>,
    pub(crate) timed_out: bool,
}

impl Sandbox {
    pub(crate) fn new() -> Sandbox {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        let root = std::env::temp_dir().join(format!("aimon-oracle-{}-{nanos}", std::process::id()));
        let stubs = root.join("stubs");
        make_dir(&stubs);
        make_dir(&root.join("unclaimed"));
        let stub = root.join("stub");
        let text = STUB.replace("@UNCLAIMED@", &root.join("unclaimed").to_string_lossy());
        fs::write(&stub, text).expect("write the stub");
        fs::set_permissions(&stub, fs::Permissions::from_mode(0o755)).expect("make the stub executable");
        for name in STUBBED {
            symlink(&stub, stubs.join(name)).expect("link a stub");
        }
        let isolation = match start_holder(&root, &stub) {
            Ok((holder, stdin)) => Isolation::Namespace { holder, _stdin: stdin },
            Err(why) => Isolation::Plain(why),
        };
        Sandbox { root, stubs, isolation }
    }

    /// A fresh directory for one run of a case: `proj/` with the fixture files (and `proj/sub/`),
    /// `home/`, `tmp/` and `log/` (where the stubs write).
    pub(crate) fn case_dir(&self, name: &str) -> PathBuf {
        let dir = self.root.join(format!("case-{name}"));
        for sub in ["proj/sub", "home", "tmp", "log"] {
            make_dir(&dir.join(sub));
        }
        for (name, text) in PROJECT_FILES {
            let path = dir.join("proj").join(name);
            fs::write(&path, text).expect("write a fixture file");
            fs::set_permissions(&path, fs::Permissions::from_mode(0o666)).expect("fixture mode");
        }
        dir
    }

    /// Runs `command` under `shell` in `cwd` (inside `dir/proj`), traced by strace when `trace`.
    pub(crate) fn run(&self, dir: &Path, cwd: &Path, shell: &str, command: &str, trace: bool) -> Outcome {
        let log = dir.join("log");
        let trace_file = dir.join(format!("trace-{shell}"));
        let mut argv: Vec<String> = Vec::new();
        if trace {
            argv.extend(["strace", "-ff", "-y", "-qq", "-o"].map(String::from));
            argv.push(trace_file.to_string_lossy().into_owned());
            argv.extend(
                ["-e", "trace=open,openat,openat2,creat,rename,renameat,renameat2,unlink,unlinkat,truncate"]
                    .map(String::from),
            );
        }
        argv.extend([shell.to_owned(), "-c".to_owned(), command.to_owned()]);
        let mut process = match &self.isolation {
            Isolation::Namespace { holder, .. } => {
                let mut p = Command::new("nsenter");
                p.arg("-t")
                    .arg(holder.id().to_string())
                    .args(["-U", "-m", "-n"])
                    .arg(format!("--wd={}", cwd.display()));
                p.args(["--", "unshare", "-pf", "--kill-child", "--mount-proc", "--"]);
                p
            }
            Isolation::Plain(_) => {
                let mut p = Command::new(&argv[0]);
                argv.remove(0);
                p.current_dir(cwd).process_group(0);
                p
            }
        };
        let path = format!("{}:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin", self.stubs.display());
        process.args(&argv).env_clear().env("PATH", path).env("HOME", dir.join("home")).env("TMPDIR", dir.join("tmp"));
        process
            .env("TMUX_TMPDIR", dir.join("tmp"))
            .env("AIMON_ORACLE_LOG", &log)
            .env("LANG", "C.UTF-8")
            .env("TERM", "dumb");
        process.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null());
        let mut outcome = Outcome::default();
        match process.spawn() {
            Ok(mut child) => outcome.timed_out = !wait_or_kill(&mut child),
            Err(e) => panic!("cannot start {shell} for a case: {e}"),
        }
        outcome.calls = read_calls(&log);
        outcome.trace = trace.then(|| read_traces(dir, &format!("trace-{shell}.")));
        outcome
    }

    /// Stub calls no case's log claimed (their process had lost the case's environment).
    pub(crate) fn unclaimed(&self) -> usize {
        read_calls(&self.root.join("unclaimed")).len()
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        if let Isolation::Namespace { holder, .. } = &mut self.isolation {
            let _ = holder.kill();
            let _ = holder.wait();
        }
        let _ = fs::remove_dir_all(&self.root);
    }
}

/// The files every case's project holds: `.env` (the secret the path rules protect), `f.txt` (a
/// line of text) and `list` (one word per line, for `xargs`).
pub(crate) const PROJECT_FILES: &[(&str, &str)] = &[(".env", "KEY=secret\n"), ("f.txt", "a line\n"), ("list", "x\n")];

fn make_dir(dir: &Path) {
    fs::create_dir_all(dir).expect("create a directory of the run");
    let mut here = Some(dir);
    while let Some(d) = here.filter(|d| d.starts_with(std::env::temp_dir()) && *d != std::env::temp_dir()) {
        fs::set_permissions(d, fs::Permissions::from_mode(0o777)).expect("open the run's directory to its user");
        here = d.parent();
    }
}

/// Waits for `child` for [`CASE_TIMEOUT`]; kills it (and so its pid namespace) after. False when
/// it had to be killed.
fn wait_or_kill(child: &mut Child) -> bool {
    let start = Instant::now();
    loop {
        if let Ok(Some(_)) = child.try_wait() {
            return true;
        }
        if start.elapsed() > CASE_TIMEOUT {
            // In a namespace, the child's death kills its pid namespace; plain, its process group.
            let _ =
                Command::new("kill").args(["-KILL", "--", &format!("-{}", child.id())]).stderr(Stdio::null()).status();
            let _ = child.kill();
            let _ = child.wait();
            return false;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The per-process strace logs (`-ff` writes one per pid, so no line is split) joined.
fn read_traces(dir: &Path, prefix: &str) -> String {
    let mut text = String::new();
    for entry in fs::read_dir(dir).into_iter().flatten().flatten() {
        if entry.file_name().to_string_lossy().starts_with(prefix) {
            text.push_str(&fs::read_to_string(entry.path()).unwrap_or_default());
        }
    }
    text
}

fn read_calls(log: &Path) -> Vec<Vec<Vec<u8>>> {
    let mut calls: Vec<Vec<Vec<u8>>> = fs::read_dir(log)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| fs::read(entry.path()).ok())
        .map(|bytes| {
            let mut words: Vec<Vec<u8>> = bytes.split(|b| *b == 0).map(<[u8]>::to_vec).collect();
            words.pop();
            words
        })
        .filter(|words| !words.is_empty())
        .collect();
    calls.sort();
    calls
}

/// The user and group the namespace's root is outside: the caller's, or `nobody` for root.
fn outside_ids() -> (u32, u32) {
    let status = fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |key: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .and_then(|v| v.split_whitespace().next()?.parse::<u32>().ok())
            .unwrap_or(0)
    };
    match (field("Uid:"), field("Gid:")) {
        (0, _) => (65534, 65534),
        ids => ids,
    }
}

/// Starts the namespace holder; the reason it cannot be had otherwise.
fn start_holder(root: &Path, stub: &Path) -> Result<(Child, ChildStdin), String> {
    let probe = Command::new("unshare").args(["-rn", "true"]).stderr(Stdio::null()).status();
    if !probe.is_ok_and(|s| s.success()) {
        return Err("`unshare -rn true` fails here".to_owned());
    }
    let mut holder = Command::new("unshare")
        .args(["-U", "-n", "-m", "--propagation", "private", "--", "cat"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start unshare: {e}"))?;
    let stdin = holder.stdin.take().ok_or("no stdin")?;
    let (uid, gid) = outside_ids();
    let proc_dir = PathBuf::from(format!("/proc/{}", holder.id()));
    // The maps can be written once the holder has left our user namespace.
    let ours = fs::read_link("/proc/self/ns/user").ok();
    let start = Instant::now();
    while fs::read_link(proc_dir.join("ns/user")).ok() == ours && start.elapsed() < CASE_TIMEOUT {
        std::thread::sleep(Duration::from_millis(2));
    }
    let mapped = fs::write(proc_dir.join("setgroups"), "deny")
        .and_then(|()| fs::write(proc_dir.join("uid_map"), format!("0 {uid} 1")))
        .and_then(|()| fs::write(proc_dir.join("gid_map"), format!("0 {gid} 1")));
    let script = SETUP.replace("@BIN_DIRS@", &BIN_DIRS.join(" ")).replace("@GIT_CORE@", &GIT_CORE.join(" "));
    let setup = mapped.is_ok().then(|| {
        Command::new("nsenter")
            .arg("-t")
            .arg(holder.id().to_string())
            .args(["-U", "-m", "-n", "--", "sh", "-c", &script, "setup"])
            .arg(root)
            .arg(stub)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .output()
    });
    let ready = matches!(&setup, Some(Ok(out)) if out.status.success());
    if ready {
        Ok((holder, stdin))
    } else {
        let _ = holder.kill();
        let _ = holder.wait();
        let said = match setup {
            None => "its uid map could not be written".to_owned(),
            Some(Ok(out)) => String::from_utf8_lossy(&out.stderr).trim().to_owned(),
            Some(Err(e)) => format!("cannot start nsenter: {e}"),
        };
        Err(format!("the namespace could not be set up: {said}"))
    }
}
