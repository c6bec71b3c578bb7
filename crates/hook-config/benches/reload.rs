//! Hot reload and loader figures (R-HOT-3, PERF-3).
//!
//! `cargo bench -p hook-config --bench reload` prints:
//! - edit → `onConfigReload` latency, p50/p95 over 50 edits, with file-system events and with
//!   polling only (default settings: 100 ms quiet window, 1 s poll interval); goal p50 ≤ 300 ms
//!   with events; each figure also as a ratio to the quiet window measured against;
//! - load+parse time of a 1 MB hooks.json (criterion), next to a plain `serde_json::Value` parse
//!   of the same text as the baseline measured in the same run: clean with a distinct matcher per
//!   entry (each is compiled by hook-predicate to validate it), clean with `*` matchers (the
//!   loader's own cost), and with one WARN (which builds the position index).

use std::hint::black_box;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::Criterion;
use hook_config::{HookHotReloadBootstrap, Tier, TierPaths, parse_config};
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

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    report("file-system events", &runtime.block_on(latencies(true)));
    report("polling only, 1 s interval", &runtime.block_on(latencies(false)));
    drop(runtime);

    let clean = big_config(false, true);
    let warned = big_config(true, true);
    let any = big_config(false, false);
    println!("1 MB hooks.json: {} bytes", clean.len());
    let mut c = Criterion::default().configure_from_args().sample_size(20);
    let path = Path::new("hooks.json");
    c.bench_function("baseline: serde_json::Value parse of 1 MB", |b| {
        b.iter(|| black_box(serde_json::from_str::<serde_json::Value>(black_box(&clean)).expect("valid")))
    });
    c.bench_function("parse_config of 1 MB (clean)", |b| {
        b.iter(|| black_box(parse_config(black_box(&clean), path, Tier::Project).expect("valid")))
    });
    c.bench_function("parse_config of 1 MB (clean, every matcher '*')", |b| {
        b.iter(|| black_box(parse_config(black_box(&any), path, Tier::Project).expect("valid")))
    });
    c.bench_function("parse_config of 1 MB (one WARN: position index)", |b| {
        b.iter(|| black_box(parse_config(black_box(&warned), path, Tier::Project).expect("valid")))
    });
    let project = tempfile::tempdir().expect("tempdir");
    let paths = TierPaths::new(None, project.path());
    std::fs::create_dir_all(project.path().join(".aimon")).expect("mkdir");
    std::fs::write(paths.project_file(), &clean).expect("write");
    c.bench_function("load_tiers of a 1 MB PROJECT file (read + parse)", |b| {
        b.iter(|| black_box(hook_config::load_tiers(&paths).expect("valid")))
    });
    c.final_summary();
}
