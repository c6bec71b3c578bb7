//! Side by side with the peers (issue 39): `cargo bench -p hook-cli --bench peers`.
//!
//! Installs dcg 0.16.0, longline 0.21.3 (crates) and cc-safety-net 2.4.5 (npm) under
//! `target/peers/` when they are missing, then runs every line of
//! `../shared/corpora/peer-commands.jsonl` (the three peers' own test suites; third-party data read
//! by path, never committed) through each of them and through `aimon-hooks claude` as a Claude Code
//! PreToolUse hook on Bash: the same payload on stdin, in a scratch project with a scratch HOME per
//! tool, so no tool reads the person's own configuration. Prints per tool × suite (dcg, longline,
//! ccsn, all): dangerous lines stopped by deny and by deny or ask, safe lines wrongly stopped (deny
//! or ask), longline's "other" (ask) lines in a column of their own (in neither rate), errors, and
//! the median and p95 wall time per call (spawn to exit). Labels corrected in `peers_labels.toml`
//! (beside this file) are counted with their corrected label.
//!
//! Environment: `PEERS_LIMIT=N` takes N lines per suite, evenly spread (a quick run);
//! `PEERS_TOOLS=aimon,dcg` picks tools (default all four); `PEERS_THREADS` (default: the number of
//! CPUs) calls at once; `PEERS_TIMEOUT_MS` per call (default 10000); `PEERS_CORPUS` another corpus
//! file; `PEERS_AIMON_CONFIG` another `.aimon/hooks.json` for aimon's project (default
//! [`AIMON_POLICY`]); `PEERS_SHOW=aimon` also prints the lines that tool gets wrong. Each call's
//! verdict goes to `target/peers/last-run.tsv` (source, id, label, tool, verdict, ms; no command).
//! Calls of the same line run back to back, tool after tool, so machine noise hits all alike.

#[path = "peers/labels.rs"]
mod labels;
#[path = "peers/tools.rs"]
mod tools;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use labels::{Label, Line};
use tools::{Scratch, Tool, Verdict, Watchdog};

/// The project policy `aimon-hooks claude` runs with: the built-in packs, as `init claude
/// --protect` writes them. The one place to change it (or set `PEERS_AIMON_CONFIG`).
const AIMON_POLICY: &str = r#"{"packs": ["aimon/destructive", "aimon/secrets", "aimon/exfiltration"]}"#;

const SUITES: [&str; 4] = ["dcg", "longline", "ccsn", "all"];

fn env_or<T: std::str::FromStr>(key: &str, default: T) -> T {
    std::env::var(key).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn main() {
    if let Err(e) = run() {
        eprintln!("peers: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let corpus_path = std::env::var_os("PEERS_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("../shared/corpora/peer-commands.jsonl"));
    let corpus_path = std::fs::canonicalize(&corpus_path).unwrap_or(corpus_path);
    let labels_path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("benches/peers_labels.toml");
    let mut all = labels::corpus(&corpus_path)?;
    let (corrected, warnings) = labels::correct(&mut all, &labels_path)?;
    for warning in &warnings {
        eprintln!("peers: warning: {warning}");
    }
    let limit = env_or("PEERS_LIMIT", usize::MAX);
    let lines = sample(&all, limit);

    let names: Vec<&'static str> = match std::env::var("PEERS_TOOLS") {
        Ok(list) => list
            .split(',')
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .map(|n| tools::ALL.iter().copied().find(|t| *t == n).ok_or(format!("unknown tool {n:?}")))
            .collect::<Result<_, _>>()?,
        Err(_) => tools::ALL.to_vec(),
    };
    let tools = tools::prepare(&names)?;
    let threads = env_or("PEERS_THREADS", std::thread::available_parallelism().map_or(2, |n| n.get())).max(1);
    let timeout = Duration::from_millis(env_or("PEERS_TIMEOUT_MS", 10_000));

    // Under target/, not /tmp: the suites take a project that `/tmp` does not hold (`rm -rf
    // /tmp/*` is safe to them), as a person's projects are.
    let scratch_parent = tools::peers_dir().join("scratch");
    std::fs::create_dir_all(&scratch_parent).map_err(|e| format!("{}: {e}", scratch_parent.display()))?;
    let scratch_root = tempfile::tempdir_in(&scratch_parent).map_err(|e| format!("scratch dir: {e}"))?;
    // Each tool's TMPDIR, in the system's temporary directory as a person's is.
    let tmp_root = tempfile::tempdir().map_err(|e| format!("temporary dir: {e}"))?;
    let policy = match std::env::var_os("PEERS_AIMON_CONFIG") {
        Some(path) => std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", Path::new(&path).display()))?,
        None => AIMON_POLICY.to_string(),
    };
    let scratches: Vec<Scratch> = tools
        .iter()
        .map(|t| scratch(scratch_root.path(), tmp_root.path(), t.name, &policy))
        .collect::<Result<_, _>>()?;

    println!(
        "peers: {} ({} lines; {} label(s) corrected by peers_labels.toml)",
        corpus_path.display(),
        all.len(),
        corrected
    );
    let counts: Vec<String> =
        SUITES[..3].iter().map(|s| format!("{s} {}", lines.iter().filter(|l| l.source == *s).count())).collect();
    let limit_note = if limit == usize::MAX { String::new() } else { format!(" (PEERS_LIMIT={limit})") };
    println!("lines run: {}{limit_note}; {threads} thread(s); timeout {timeout:?} per call", counts.join(", "));
    for (tool, scratch) in tools.iter().zip(&scratches) {
        println!("  {:<9} {}", tool.name, tool.version);
        if tool.name == "aimon" {
            println!("            policy: {}", policy.split_whitespace().collect::<Vec<_>>().join(" "));
            for note in aimon_validate(tool, scratch) {
                println!("            validate: {note}");
            }
        }
    }
    // First calls pay for cold caches (node's compile cache, the page cache): not measured.
    let warm_up = Watchdog::new(timeout);
    for (tool, scratch) in tools.iter().zip(&scratches) {
        for _ in 0..3 {
            tool.call(scratch, "ls -la", &warm_up);
        }
    }

    let started = Instant::now();
    let results = run_all(&tools, &scratches, &lines, threads, timeout);
    println!("{} calls in {:.0?}\n", results.len(), started.elapsed());
    print_table(&tools, &lines, &results);
    write_tsv(&tools, &lines, &results)?;
    if let Ok(show) = std::env::var("PEERS_SHOW") {
        show_misses(&tools, &lines, &results, &show);
    }
    Ok(())
}

/// `limit` lines of each suite, evenly spread over it (every line when `limit` is larger).
fn sample(all: &[Line], limit: usize) -> Vec<Line> {
    let mut out = Vec::new();
    for suite in &SUITES[..3] {
        let of: Vec<&Line> = all.iter().filter(|l| l.source == *suite).collect();
        let take = limit.min(of.len());
        out.extend((0..take).map(|i| of[i * of.len() / take].clone()));
    }
    out
}

/// A project (a git repository; aimon's has the policy), a home and a TMPDIR (under `tmp`) for
/// one tool.
fn scratch(root: &Path, tmp: &Path, name: &str, policy: &str) -> Result<Scratch, String> {
    let (home, project, tmp) = (root.join(name).join("home"), root.join(name).join("project"), tmp.join(name));
    for dir in [&home, &project, &tmp] {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let _ = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(&project)
        .env("HOME", &home)
        .stderr(std::process::Stdio::null())
        .status();
    if name == "aimon" {
        std::fs::create_dir_all(project.join(".aimon")).map_err(|e| e.to_string())?;
        std::fs::write(project.join(".aimon/hooks.json"), policy).map_err(|e| e.to_string())?;
    }
    Ok(Scratch { home, project, tmp })
}

/// `aimon-hooks validate` on aimon's scratch project: its warnings and summary (a binary without
/// the packs warns that `packs` is an unknown field, and then its rows measure an empty policy).
fn aimon_validate(tool: &Tool, scratch: &Scratch) -> Vec<String> {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_aimon-hooks"))
        .arg("validate")
        .arg("--project")
        .arg(&scratch.project)
        .env("HOME", &scratch.home)
        .env_remove("RUST_LOG")
        .output();
    let Ok(out) = out else { return vec![format!("{} validate did not run", tool.name)] };
    let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    text.lines()
        .filter(|l| l.contains("warning") || l.contains("error") || l.contains("checked") || l.contains("pack"))
        .map(|l| l.replace(&*scratch.project.to_string_lossy(), "<project>"))
        .collect()
}

/// One call's result: (line index, tool index, verdict, wall time).
type Outcome = (usize, usize, Verdict, Duration);

fn run_all(tools: &[Tool], scratches: &[Scratch], lines: &[Line], threads: usize, timeout: Duration) -> Vec<Outcome> {
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let watchdog = Watchdog::new(timeout);
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(line) = lines.get(i) else { break };
                        // Tool order turns with the line, so none is always first after a pause.
                        for k in 0..tools.len() {
                            let t = (i + k) % tools.len();
                            let (verdict, elapsed) = tools[t].call(&scratches[t], &line.command, &watchdog);
                            mine.push((i, t, verdict, elapsed));
                        }
                        let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                        if n.is_multiple_of(250) || n == lines.len() {
                            eprintln!("peers: {n}/{} lines", lines.len());
                        }
                    }
                    mine
                })
            })
            .collect();
        workers.into_iter().flat_map(|w| w.join().expect("a worker panicked")).collect()
    })
}

#[derive(Debug, Default)]
struct Cell {
    dangerous: usize,
    deny: usize,
    deny_ask: usize,
    safe: usize,
    safe_stopped: usize,
    other: usize,
    other_stopped: usize,
    errors: usize,
    times: Vec<Duration>,
}

impl Cell {
    fn add(&mut self, label: Label, verdict: &Verdict, elapsed: Duration) {
        let stopped = matches!(verdict, Verdict::Deny | Verdict::Ask);
        match label {
            Label::Dangerous => {
                self.dangerous += 1;
                self.deny += usize::from(*verdict == Verdict::Deny);
                self.deny_ask += usize::from(stopped);
            }
            Label::Safe => {
                self.safe += 1;
                self.safe_stopped += usize::from(stopped);
            }
            Label::Other => {
                self.other += 1;
                self.other_stopped += usize::from(stopped);
            }
        }
        self.errors += usize::from(matches!(verdict, Verdict::Error(_)));
        self.times.push(elapsed);
    }

    fn percentile_ms(&mut self, p: f64) -> f64 {
        if self.times.is_empty() {
            return f64::NAN;
        }
        self.times.sort_unstable();
        let index = ((self.times.len() - 1) as f64 * p).round() as usize;
        self.times[index].as_secs_f64() * 1000.0
    }
}

fn pct(part: usize, whole: usize) -> String {
    if whole == 0 { "     -".to_string() } else { format!("{:5.1}%", 100.0 * part as f64 / whole as f64) }
}

fn print_table(tools: &[Tool], lines: &[Line], results: &[Outcome]) {
    let mut cells: Vec<Vec<Cell>> = SUITES.iter().map(|_| tools.iter().map(|_| Cell::default()).collect()).collect();
    let mut errors: Vec<Vec<String>> = tools.iter().map(|_| Vec::new()).collect();
    for (i, t, verdict, elapsed) in results {
        let line = &lines[*i];
        let suite = SUITES.iter().position(|s| *s == line.source).unwrap_or(3);
        cells[suite][*t].add(line.label, verdict, *elapsed);
        cells[3][*t].add(line.label, verdict, *elapsed);
        if let Verdict::Error(why) = verdict {
            errors[*t].push(format!("{} {}: {why}", line.source, line.id));
        }
    }
    println!(
        "{:<9} {:<9} | {:>5} {:>7} {:>9} | {:>5} {:>8} | {:>5} {:>8} | {:>6} | {:>9} {:>9}",
        "suite", "tool", "dang.", "deny", "deny+ask", "safe", "stopped", "other", "stopped", "errors", "median", "p95"
    );
    for (s, suite) in SUITES.iter().enumerate() {
        println!("{}", "-".repeat(108));
        for (t, tool) in tools.iter().enumerate() {
            let c = &mut cells[s][t];
            let (median, p95) = (c.percentile_ms(0.5), c.percentile_ms(0.95));
            println!(
                "{:<9} {:<9} | {:>5} {:>7} {:>9} | {:>5} {:>8} | {:>5} {:>8} | {:>6} | {:>6.1} ms {:>6.1} ms",
                suite,
                tool.name,
                c.dangerous,
                pct(c.deny, c.dangerous),
                pct(c.deny_ask, c.dangerous),
                c.safe,
                pct(c.safe_stopped, c.safe),
                c.other,
                pct(c.other_stopped, c.other),
                c.errors,
                median,
                p95
            );
        }
    }
    println!(
        "\ndang. deny / deny+ask: dangerous lines stopped by deny / by deny or ask. safe stopped: safe lines \
         denied or asked\n(wrongly stopped). other: longline's ask-labelled lines, in neither rate; their \
         stopped = deny or ask.\nerrors: exit other than 0/2, output not Claude Code's JSON, or a timeout; \
         counted as not stopped\n(Claude Code goes on with the call). median/p95: wall time per call, spawn to exit."
    );
    let corrected = lines.iter().filter(|l| l.corrected).count();
    if corrected > 0 {
        println!("{corrected} line(s) counted with the label peers_labels.toml gives them.");
    }
    for (t, tool) in tools.iter().enumerate() {
        for e in errors[t].iter().take(5) {
            println!("error {}: {e}", tool.name);
        }
        if errors[t].len() > 5 {
            println!("error {}: … and {} more (target/peers/last-run.tsv)", tool.name, errors[t].len() - 5);
        }
    }
}

fn write_tsv(tools: &[Tool], lines: &[Line], results: &[Outcome]) -> Result<(), String> {
    let path = tools::peers_dir().join("last-run.tsv");
    let mut out = String::from("source\tid\tlabel\ttool\tverdict\tms\n");
    for (i, t, verdict, elapsed) in results {
        let line = &lines[*i];
        out += &format!(
            "{}\t{}\t{}\t{}\t{}\t{:.2}\n",
            line.source,
            line.id,
            line.label.word(),
            tools[*t].name,
            verdict.word(),
            elapsed.as_secs_f64() * 1000.0
        );
    }
    std::fs::write(&path, out).map_err(|e| format!("{}: {e}", path.display()))?;
    println!("per call: {}", path.display());
    Ok(())
}

/// The dangerous lines `name` lets through and the safe lines it stops, with their command.
fn show_misses(tools: &[Tool], lines: &[Line], results: &[Outcome], name: &str) {
    let Some(t) = tools.iter().position(|tool| tool.name == name) else {
        eprintln!("peers: PEERS_SHOW={name}: not among the tools run");
        return;
    };
    let mut rows: Vec<(&Line, &Verdict)> = results
        .iter()
        .filter(|(_, tool, ..)| *tool == t)
        .map(|(i, _, verdict, _)| (&lines[*i], verdict))
        .filter(|(line, verdict)| {
            let stopped = matches!(verdict, Verdict::Deny | Verdict::Ask);
            (line.label == Label::Dangerous && !stopped) || (line.label == Label::Safe && stopped)
        })
        .collect();
    rows.sort_by(|a, b| (a.0.label.word(), &a.0.source, &a.0.id).cmp(&(b.0.label.word(), &b.0.source, &b.0.id)));
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "\n{name} gets {} line(s) wrong:", rows.len());
    for (line, verdict) in rows {
        let command: String = line.command.replace('\n', "⏎").chars().take(160).collect();
        let _ = writeln!(
            out,
            "{:<9} {:<5} {:<8} {:<40} {command}",
            line.label.word(),
            verdict.word(),
            line.source,
            line.id
        );
    }
}
