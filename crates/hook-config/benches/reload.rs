//! Hot reload and loader figures (R-HOT-3, PERF-3, PERF-6).
//!
//! `cargo bench -p hook-config --bench reload` prints:
//! - edit → `onConfigReload` latency, p50/p95 over 50 edits, with file-system events and with
//!   polling only (default settings: 100 ms quiet window, 1 s poll interval); goal p50 ≤ 300 ms
//!   with events; each figure also as a ratio to the quiet window measured against
//!   (`AIMON_BENCH_SKIP_LATENCY=1` skips this part);
//! - PERF-6: the whole load of a 1 MB PROJECT hooks.json with a distinct matcher per entry —
//!   read, parse, validate and build the hooks, as hot reload and `list` do — as a ratio to a plain
//!   `serde_json::Value` parse of the same text, both medians of interleaved runs measured in the
//!   same process (goal ≤ 3×); `parse_config` alone likewise;
//! - criterion figures for the parts: the serde_json baseline, `parse_config` clean with a
//!   distinct matcher per entry, clean with `*` matchers (the loader's own cost), with one WARN
//!   (which builds the position index), and `load_tiers` + `into_hooks`.
//!
//! This binary allocates with the system's allocator (glibc's), as the one-shot commands do;
//! `--bench reload_jemalloc` runs the same figures with the daemon's allocator (jemalloc), which
//! is where large files are reloaded again and again.

use std::hint::black_box;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::Criterion;
use hook_config::{BuildEnv, HookHotReloadBootstrap, Tier, TierPaths, load_tiers, parse_config};
use hook_core::{ExecutionHook, FnHook, HookEventType, HookRegistry, HookResult};
use serde_json::json;
use tokio::sync::mpsc;

const EDITS: usize = 50;
const QUIET: Duration = Duration::from_millis(100);

fn config(version: usize) -> String {
    json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "deny", "reason": format!("v{version}")}]}]}})
        .to_string()
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let rank = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[rank.min(sorted.len() - 1)]
}

async fn latencies(file_events: bool) -> Vec<Duration> {
    let project = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(project.path().join(".aimon")).expect("mkdir");
    let paths = TierPaths::new(None, project.path());
    std::fs::write(paths.project_file(), config(0)).expect("write");
    let registry = Arc::new(HookRegistry::new());
    let (tx, mut rx) = mpsc::unbounded_channel();
    let listener: Arc<dyn ExecutionHook> = FnHook::new("bench-listener", move |_| {
        let tx = tx.clone();
        async move {
            let _ = tx.send(Instant::now());
            Ok(HookResult::allow())
        }
    });
    registry.register(HookEventType::ON_CONFIG_RELOAD, listener);
    let _handle = HookHotReloadBootstrap::builder()
        .paths(paths.clone())
        .registry(registry)
        .debounce(QUIET)
        .file_events(file_events)
        .start()
        .expect("starts");
    let mut out = Vec::with_capacity(EDITS);
    for i in 1..=EDITS {
        tokio::time::sleep(Duration::from_millis(30)).await;
        let edited = Instant::now();
        std::fs::write(paths.project_file(), config(i)).expect("write");
        let fired = tokio::time::timeout(Duration::from_secs(10), rx.recv()).await.expect("fired").expect("alive");
        out.push(fired - edited);
    }
    out.sort();
    out
}

fn report(label: &str, sorted: &[Duration]) {
    let (p50, p95) = (percentile(sorted, 0.50), percentile(sorted, 0.95));
    println!(
        "reload latency ({label}, {EDITS} edits): p50 {p50:?} ({:.2}x quiet window), p95 {p95:?} ({:.2}x), max {:?}",
        p50.as_secs_f64() / QUIET.as_secs_f64(),
        p95.as_secs_f64() / QUIET.as_secs_f64(),
        sorted[sorted.len() - 1]
    );
}

/// About 1 MB of valid hooks.json: many entries with a few handlers each, each entry with its
/// own matcher (compiled once by hook-predicate to validate it) or all with `*`.
fn big_config(with_warning: bool, distinct_matchers: bool) -> String {
    let mut entries = Vec::new();
    let mut size = 0;
    let mut i = 0;
    while size < 1_000_000 {
        let matcher = if distinct_matchers { format!("Bash(command=^tool{i}\\s)") } else { "*".to_owned() };
        let entry = json!({"matcher": matcher, "hooks": [
            {"type": "command", "command": format!("/usr/local/bin/check --rule {i} --verbose"), "timeout": 5},
            {"type": "deny", "reason": format!("rule {i} forbids this command in this project")},
            {"type": "http", "url": format!("https://audit.internal/hooks/{i}"), "headers": {"X-Rule": format!("{i}")}, "body": {"tool": "${context.tool_name}"}}
        ]});
        size += entry.to_string().len();
        entries.push(entry);
        i += 1;
    }
    let mut root = json!({"hooks": {"PreToolUse": entries}});
    if with_warning {
        root["hooks"]["PreToolUze"] = json!([]);
    }
    root.to_string()
}

/// The median of `runs` timings of `f`, interleaved with `g` so machine noise hits both alike.
fn interleaved_medians(runs: usize, mut f: impl FnMut(), mut g: impl FnMut()) -> (Duration, Duration) {
    let (mut a, mut b) = (Vec::with_capacity(runs), Vec::with_capacity(runs));
    for _ in 0..runs {
        let t = Instant::now();
        f();
        a.push(t.elapsed());
        let t = Instant::now();
        g();
        b.push(t.elapsed());
    }
    a.sort();
    b.sort();
    (percentile(&a, 0.5), percentile(&b, 0.5))
}

fn ratio(label: &str, baseline: Duration, measured: Duration) {
    println!(
        "{label}: median {measured:.3?} vs serde_json parse {baseline:.3?} = {:.2}x (goal <= 3x)",
        measured.as_secs_f64() / baseline.as_secs_f64()
    );
}

pub(crate) fn main() {
    if std::env::var_os("AIMON_BENCH_SKIP_LATENCY").is_none_or(|v| v != "1") {
        let runtime =
            tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
        report("file-system events", &runtime.block_on(latencies(true)));
        report("polling only, 1 s interval", &runtime.block_on(latencies(false)));
    }

    let clean = big_config(false, true);
    let warned = big_config(true, true);
    let any = big_config(false, false);
    println!("1 MB hooks.json: {} bytes", clean.len());
    let path = Path::new("hooks.json");
    let project = tempfile::tempdir().expect("tempdir");
    let paths = TierPaths::new(None, project.path());
    std::fs::create_dir_all(project.path().join(".aimon")).expect("mkdir");
    std::fs::write(paths.project_file(), &clean).expect("write");
    let env = BuildEnv::new(&paths);
    let serde_parse = || {
        black_box(serde_json::from_str::<serde_json::Value>(black_box(&clean)).expect("valid"));
    };
    let load_and_build = || {
        let (config, _) = load_tiers(&paths).expect("valid");
        black_box(config.into_hooks(&env));
    };
    let runs: usize = std::env::var("AIMON_BENCH_RUNS").ok().and_then(|v| v.parse().ok()).unwrap_or(15);
    let (baseline, whole) = interleaved_medians(runs, serde_parse, load_and_build);
    ratio("PERF-6 load + build of 1 MB (a matcher per entry)", baseline, whole);
    let (baseline, parsed) = interleaved_medians(runs, serde_parse, || {
        black_box(parse_config(black_box(&clean), path, Tier::Project).expect("valid"));
    });
    ratio("parse_config of 1 MB (a matcher per entry)", baseline, parsed);

    let mut c = Criterion::default().configure_from_args().sample_size(10);
    c.bench_function("baseline: serde_json::Value parse of 1 MB", |b| b.iter(serde_parse));
    c.bench_function("parse_config of 1 MB (clean)", |b| {
        b.iter(|| black_box(parse_config(black_box(&clean), path, Tier::Project).expect("valid")))
    });
    c.bench_function("parse_config of 1 MB (clean, every matcher '*')", |b| {
        b.iter(|| black_box(parse_config(black_box(&any), path, Tier::Project).expect("valid")))
    });
    c.bench_function("parse_config of 1 MB (one WARN: position index)", |b| {
        b.iter(|| black_box(parse_config(black_box(&warned), path, Tier::Project).expect("valid")))
    });
    c.bench_function("load_tiers + into_hooks of a 1 MB PROJECT file", |b| b.iter(load_and_build));
    c.final_summary();
}
