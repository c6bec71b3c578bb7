//! The read-only oracle (issue 40): every command line `read_only` approves is run for real, and
//! an approved line that wrote, deleted, connected or ran a program the model did not name fails.
//!
//! The lines: the allow-labelled lines of `../shared/corpora/peer-commands.jsonl` (the peers' own
//! suites, read by path at test time and never copied here; when the file is absent the test
//! fails under `CI` and otherwise says so loudly and goes on without them), the benign corpus
//! (`fixtures/benign-commands.txt`) and tldr-style examples (`fixtures/read-only-examples.txt`).
//!
//! Each approved line runs under `bash -c` in a throwaway copy of a small git project (three
//! commits, a branch, a tag) with a temporary `HOME`, inside `unshare -rnmpf` (no network but
//! loopback, a pid namespace killed with the line, every file system but the sandbox's read-only)
//! and `strace -ff -e trace=%file,%network,execve`. A line fails when the trace shows an open for
//! writing (anything but `/dev/null` and the terminal), a rename, unlink, mkdir, link, chmod or
//! truncate, a connect or send to an IP address, or a successful exec of a program whose name is
//! not among those `read_only` named. Lines run four at a time, each for at most
//! [`LINE_TIMEOUT`].
//!
//! It prints the share of the peers' allow-labelled lines approved and the ten most common reasons
//! one was not. Needs `unshare` with unprivileged user namespaces and `strace`; without them the
//! test fails under `CI` and is skipped with a note otherwise.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use hook_predicate::read_only;

/// How long one line may run before its namespace is killed.
const LINE_TIMEOUT: Duration = Duration::from_secs(4);

/// How many lines run at once.
const WORKERS: usize = 4;

/// The share of the peers' allow-labelled lines that must stay approved: a regression guard under
/// today's 31.7 % (the goal was 60 %; most of the rest write, run code or reach the network:
/// `git commit`, `uv run`, `gh`, `curl`, `npx`, and are not read-only by this model's definition).
const MIN_PEER_SHARE: f64 = 0.31;

const BENIGN: &str = include_str!("fixtures/benign-commands.txt");
const EXAMPLES: &str = include_str!("fixtures/read-only-examples.txt");

fn in_ci() -> bool {
    std::env::var_os("CI").is_some()
}

/// The peers' allow-labelled lines, or `None` (said loudly) when the corpus is absent.
fn peer_lines() -> Option<Vec<String>> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpora/peer-commands.jsonl");
    let Ok(text) = std::fs::read_to_string(&path) else {
        assert!(!in_ci(), "the peers' corpus {} is absent: the read-only oracle needs it in CI", path.display());
        eprintln!("\n!!! read-only oracle: {} is absent; running without the peers' lines !!!\n", path.display());
        return None;
    };
    let lines = text
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|v| v["label"].as_str() == Some("safe"))
        .filter_map(|v| v["command"].as_str().map(str::to_owned))
        .collect();
    Some(lines)
}

fn fixture_lines(text: &'static str) -> impl Iterator<Item = String> {
    text.lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#')).map(str::to_owned)
}

/// Whether this machine can run the sandbox.
fn sandbox_available() -> bool {
    let ok = |program: &str, args: &[&str]| {
        Command::new(program).args(args).stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok_and(|s| s.success())
    };
    ok("unshare", &["-rnmpf", "--kill-child", "--mount-proc", "true"]) && ok("strace", &["-V"])
}

fn run(dir: &Path, program: &str, args: &[&str]) {
    let status = Command::new(program).args(args).current_dir(dir).stdout(Stdio::null()).status().expect("spawn");
    assert!(status.success(), "{program} {args:?} in {}", dir.display());
}

/// The small project every line runs in: three commits, a branch and a tag, files dated in the past
/// (so that git's index, refreshed after each copy, is not racily clean).
fn template(root: &Path) -> PathBuf {
    let proj = root.join("template");
    let files: &[(&str, &str)] = &[
        ("README.md", "# demo\nhello world\n"),
        ("notes.txt", "line 1\nline 2\nline 3\nline 2\n"),
        ("src/main.rs", "fn main() {\n    println!(\"hello\"); // TODO\n}\n"),
        ("src/lib.rs", "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n"),
        ("docs/guide.md", "guide\n"),
        ("package.json", "{\"name\": \"demo\", \"scripts\": {\"test\": \"true\"}}\n"),
    ];
    std::fs::create_dir_all(proj.join("src")).unwrap();
    std::fs::create_dir_all(proj.join("docs")).unwrap();
    let git = |args: &[&str]| {
        let mut all = vec!["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main"];
        all.extend_from_slice(args);
        run(&proj, "git", &all);
    };
    git(&["init", "-q"]);
    for (i, chunk) in files.chunks(2).enumerate() {
        for (path, text) in chunk {
            std::fs::write(proj.join(path), text).unwrap();
        }
        git(&["add", "-A"]);
        git(&["commit", "-qm", &format!("commit {i}")]);
        if i == 1 {
            git(&["branch", "feature"]);
            git(&["tag", "v1"]);
        }
    }
    run(&proj, "sh", &["-c", "find . -path ./.git -prune -o -type f -exec touch -d @1600000000 {} +"]);
    proj
}

/// A fresh copy of the template for a worker, its index refreshed before anything is traced.
fn fresh_copy(template: &Path, dir: &Path) {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir.join("home")).unwrap();
    std::fs::create_dir_all(dir.join("tmp")).unwrap();
    run(dir, "cp", &["-a", template.to_str().unwrap(), dir.join("proj").to_str().unwrap()]);
    run(&dir.join("proj"), "git", &["status", "-s"]);
}

/// What the trace of one line shows that a read-only command must not do.
fn violations(traces: &Path, named: &[String]) -> Vec<String> {
    const WRITE_FLAGS: &[&str] = &["O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC", "O_APPEND"];
    const CHANGES: &[&str] = &[
        "rename(",
        "renameat(",
        "renameat2(",
        "unlink(",
        "unlinkat(",
        "rmdir(",
        "mkdir(",
        "mkdirat(",
        "link(",
        "linkat(",
        "symlink(",
        "symlinkat(",
        "truncate(",
        "mknod(",
        "mknodat(",
        "chmod(",
        "fchmodat(",
        "chown(",
        "fchownat(",
        "lchown(",
        "utimensat(",
        "utimes(",
        "creat(",
    ];
    let harmless = ["\"/dev/null\"", "\"/dev/tty\"", "\"/dev/pts/"];
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(traces) else { return vec!["no trace".to_owned()] };
    for entry in entries.flatten() {
        let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
        let git = text.lines().any(|l| l.starts_with("execve(\"") && l.contains("/git\"") && l.ends_with("= 0"));
        for line in text.lines() {
            if git && git_index_refresh(line) {
                INDEX_REFRESHES.fetch_add(1, Ordering::Relaxed);
                continue;
            }
            let opens = line.starts_with("open(") || line.starts_with("openat(") || line.starts_with("openat2(");
            let writes =
                opens && WRITE_FLAGS.iter().any(|f| line.contains(f)) && !harmless.iter().any(|h| line.contains(h));
            let changes = CHANGES.iter().any(|c| line.starts_with(c));
            let sends = ["connect(", "sendto(", "sendmsg("].iter().any(|c| line.starts_with(c));
            let network = sends
                && if line.contains("nlmsg_type=") {
                    netlink_changes(line)
                } else {
                    line.contains("AF_INET") || line.contains("AF_PACKET")
                };
            if writes || changes || network {
                out.push(line.to_owned());
            } else if line.starts_with("execve(") && line.ends_with("= 0") {
                let path = line.split('"').nth(1).unwrap_or("");
                let name = path.rsplit('/').next().unwrap_or(path);
                if name != "bash" && !named.iter().any(|n| n == name) {
                    out.push(format!("ran a program not named ({}): {line}", named.join(", ")));
                }
            }
        }
    }
    out
}

/// Whether a message to the kernel over netlink (`ip`, `ss`) may change something: any message
/// but a query (`RTM_GET…`, `SOCK_DIAG_BY_FAMILY`, and the empty terminator) — `ip link set`
/// sends `RTM_NEWLINK`, `ss -K` `SOCK_DESTROY`.
fn netlink_changes(line: &str) -> bool {
    line.split("nlmsg_type=").skip(1).any(|rest| {
        let kind = rest.split([',', ' ']).next().unwrap_or("");
        !(kind.starts_with("RTM_GET") || kind == "SOCK_DIAG_BY_FAMILY" || kind == "0")
    })
}

/// How many times git took its index lock to refresh the index's stat data (see below).
static INDEX_REFRESHES: AtomicUsize = AtomicUsize::new(0);

/// git's opportunistic index refresh (`git status`, `git diff`, `git describe --dirty`): it takes
/// `.git/index.lock`, and then drops it or renames it over `.git/index` with fresher stat data.
/// That is git's cache of what it read, not content: the one write allowed, by a git process, and
/// counted in the summary (docs/decisions.md, "Read-only: what counts as a write").
fn git_index_refresh(line: &str) -> bool {
    let lock = line.contains("/.git/index.lock\"");
    (line.starts_with("openat(") && lock && line.contains("O_CREAT|O_EXCL"))
        || (line.starts_with("unlink(") && lock)
        || (line.starts_with("rename(") && lock && line.contains("/.git/index\")"))
}

/// Runs `line` in the worker's copy under the sandbox; returns what it did that it must not have,
/// and whether it timed out.
fn run_line(dir: &Path, line: &str, named: &[String]) -> (Vec<String>, bool) {
    let traces = dir.join("trace");
    let _ = std::fs::remove_dir_all(&traces);
    std::fs::create_dir_all(&traces).unwrap();
    let setup = r#"mount --bind "$S" "$S" && mount -o remount,bind,ro / || exit 97
cd "$S/proj" && exec strace -ff -qq -o "$S/trace/t" -e trace=%file,%network,execve bash -c "$LINE""#;
    let mut child = Command::new("unshare")
        .args(["-rnmpf", "--kill-child", "--mount-proc", "sh", "-c", setup])
        .env_clear()
        .env("S", dir)
        .env("LINE", line)
        .env("HOME", dir.join("home"))
        .env("TMPDIR", dir.join("tmp"))
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("LANG", "C.UTF-8")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("unshare runs");
    let start = Instant::now();
    let mut timed_out = false;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                if status.code() == Some(97) {
                    return (vec!["the sandbox could not be set up".to_owned()], false);
                }
                break;
            }
            Ok(None) if start.elapsed() > LINE_TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                timed_out = true;
                break;
            }
            Ok(None) => std::thread::park_timeout(Duration::from_millis(5)),
            Err(_) => break,
        }
    }
    (violations(&traces, named), timed_out)
}

#[test]
fn no_approved_line_writes_deletes_connects_or_runs_an_unnamed_program() {
    if !sandbox_available() {
        assert!(!in_ci(), "the read-only oracle needs unshare (user namespaces) and strace");
        eprintln!("\n!!! read-only oracle skipped: no unprivileged user namespaces or no strace !!!\n");
        return;
    }
    let peers = peer_lines().unwrap_or_default();
    let mut lines: Vec<(String, &str)> = peers.iter().map(|l| (l.clone(), "peers")).collect();
    lines.extend(fixture_lines(BENIGN).map(|l| (l, "benign")));
    lines.extend(fixture_lines(EXAMPLES).map(|l| (l, "examples")));
    let total = lines.len();
    assert!(peers.is_empty() || total >= 3000, "at least 3,000 lines, got {total}");

    // Judge every line; keep the approved ones (once each) with the programs they name.
    let mut approved: Vec<(String, Vec<String>)> = Vec::new();
    let mut seen = HashSet::new();
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    let (mut peer_approved, mut by_source) = (0, BTreeMap::<&str, (usize, usize)>::new());
    for (line, source) in &lines {
        let verdict = read_only(line);
        let entry = by_source.entry(source).or_default();
        entry.0 += 1;
        match verdict {
            Ok(named) => {
                entry.1 += 1;
                peer_approved += usize::from(*source == "peers");
                if seen.insert(line.clone()) {
                    approved.push((line.clone(), named));
                }
            }
            Err(why) if *source == "peers" => {
                if std::env::var_os("AIMON_READ_ONLY_VERBOSE").is_some() {
                    eprintln!("refused: {why} <= {line}");
                }
                // A program's name, and git's subcommand with it.
                let words: Vec<&str> = why.detail.split_whitespace().take(2).collect();
                let detail = if words.first() == Some(&"git") {
                    words.join(" ")
                } else {
                    words.first().map_or(String::new(), |w| (*w).to_owned())
                };
                *reasons.entry(format!("{}: {detail}", why.category)).or_default() += 1;
            }
            Err(_) => {}
        }
    }

    let root = tempfile::tempdir().unwrap();
    let template = template(root.path());
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    let timeouts = AtomicUsize::new(0);
    let started = Instant::now();
    std::thread::scope(|scope| {
        for worker in 0..WORKERS {
            let (approved, next, failures, timeouts, template) = (&approved, &next, &failures, &timeouts, &template);
            let dir = root.path().join(format!("w{worker}"));
            scope.spawn(move || {
                fresh_copy(template, &dir);
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some((line, named)) = approved.get(i) else { break };
                    let (bad, timed_out) = run_line(&dir, line, named);
                    timeouts.fetch_add(usize::from(timed_out), Ordering::Relaxed);
                    if !bad.is_empty() {
                        failures.lock().unwrap().push(format!("{line:?}\n    {}", bad.join("\n    ")));
                        fresh_copy(template, &dir);
                    }
                }
            });
        }
    });

    let mut summary = format!(
        "read-only oracle: {total} lines judged, {} distinct approved lines run in {:.0?} ({} timed out; git's \
         index lock taken {} times)\n",
        approved.len(),
        started.elapsed(),
        timeouts.load(Ordering::Relaxed),
        INDEX_REFRESHES.load(Ordering::Relaxed)
    );
    for (source, (n, ok)) in &by_source {
        summary += &format!("  {source}: {ok} of {n} approved ({:.1} %)\n", 100.0 * *ok as f64 / (*n).max(1) as f64);
    }
    let mut top: Vec<(String, usize)> = reasons.into_iter().collect();
    top.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    summary += "  the ten most common reasons a peers' allow-labelled line was not approved:\n";
    for (reason, n) in top.iter().take(10) {
        summary += &format!("    {n:5}  {reason}\n");
    }
    eprintln!("{summary}");
    let failures = failures.into_inner().unwrap();
    assert!(
        failures.is_empty(),
        "{} approved lines did what a read-only command must not:\n{}",
        failures.len(),
        failures.join("\n")
    );
    if !peers.is_empty() {
        let share = peer_approved as f64 / peers.len() as f64;
        assert!(share >= MIN_PEER_SHARE, "{:.1} % of the peers' allow-labelled lines approved", 100.0 * share);
    }
}
