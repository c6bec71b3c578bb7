//! R-PRED-6 / PERF-1: a tool call tested against 1,000 compiled predicates of mixed kinds, against a
//! naive baseline that compiles every pattern (its regexes and globs) on every call.
//!
//! Criterion reports both; `main` then measures both again, interleaved in the same run, and prints
//! ns per predicate test and the naive/compiled ratio (the machine is noisy: only the ratio matters).

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::Criterion;
use hook_predicate::{PathAnchors, ToolInputPredicate, parse};
use serde_json::{Value, json};

const PREDICATES: usize = 1_000;

/// Eight kinds in turn: exact names, name regex, MCP field test, Bash prefix rule, Bash command
/// regex, Edit glob, composite with an input test, Read glob.
fn patterns() -> Vec<String> {
    (0..PREDICATES)
        .map(|i| match i % 8 {
            0 => format!("Tool{i}|Other{i}"),
            1 => format!("mcp__server{i}__.*"),
            2 => format!("mcp__s{i}__t(payload.id=^a{i}$)"),
            3 => format!("Bash(tool{i} sub:*)"),
            4 => format!(r"Bash(command=^cmd{i}\s+--force)"),
            5 => format!("Edit(src/m{i}/**/*.rs)"),
            6 => format!(r"Bash & input.command~^run{i}\b"),
            _ => format!("Read(./secrets/{i}.env)"),
        })
        .collect()
}

fn calls() -> Vec<(&'static str, Value)> {
    vec![
        ("Bash", json!({ "command": "cd repo && FOO=1 git push origin main 2>&1 | tee log" })),
        ("Edit", json!({ "file_path": "/proj/src/m5/deep/lib.rs", "old_string": "a", "new_string": "b" })),
        ("mcp__s2__t", json!({ "payload": { "id": "a2" } })),
    ]
}

fn anchors() -> PathAnchors {
    PathAnchors::new("/proj").with_home("/home/u")
}

fn compiled(predicates: &[Box<dyn ToolInputPredicate>], calls: &[(&str, Value)]) -> usize {
    calls.iter().map(|(tool, input)| predicates.iter().filter(|p| p.test(tool, input)).count()).sum()
}

fn naive(patterns: &[String], calls: &[(&str, Value)], anchors: &PathAnchors) -> usize {
    calls
        .iter()
        .map(|(tool, input)| {
            patterns.iter().filter(|p| parse(p, anchors).is_ok_and(|pred| pred.test(tool, input))).count()
        })
        .sum()
}

fn bench(c: &mut Criterion, patterns: &[String], predicates: &[Box<dyn ToolInputPredicate>]) {
    let (calls, anchors) = (calls(), anchors());
    let mut group = c.benchmark_group("1000 predicates x 3 calls");
    group.bench_function("compiled", |b| b.iter(|| compiled(black_box(predicates), black_box(&calls))));
    group.bench_function("naive (compiled per call)", |b| {
        b.iter(|| naive(black_box(patterns), black_box(&calls), &anchors))
    });
    group.finish();
}

/// Median ns per predicate test of `f`, which performs `tests` tests per call.
fn per_test_ns(rounds: usize, repeat: usize, tests: usize, mut f: impl FnMut() -> usize) -> f64 {
    let mut samples: Vec<f64> = (0..rounds)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..repeat {
                black_box(f());
            }
            start.elapsed().as_nanos() as f64 / (repeat * tests) as f64
        })
        .collect();
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

fn main() {
    let patterns = patterns();
    let anchors = anchors();
    let predicates: Vec<Box<dyn ToolInputPredicate>> =
        patterns.iter().map(|p| parse(p, &anchors).expect("bench patterns parse")).collect();
    let calls = calls();
    assert_eq!(compiled(&predicates, &calls), naive(&patterns, &calls, &anchors), "both ways agree");
    assert_eq!(compiled(&predicates, &calls), 2, "the Edit glob and the MCP field test match");

    let mut criterion = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .configure_from_args();
    bench(&mut criterion, &patterns, &predicates);
    criterion.final_summary();

    let tests = PREDICATES * calls.len();
    let (mut fast, mut slow) = (Vec::new(), Vec::new());
    for _ in 0..5 {
        fast.push(per_test_ns(5, 200, tests, || compiled(&predicates, &calls)));
        slow.push(per_test_ns(3, 1, tests, || naive(&patterns, &calls, &anchors)));
    }
    fast.sort_by(f64::total_cmp);
    slow.sort_by(f64::total_cmp);
    let (fast, slow) = (fast[2], slow[2]);
    println!("compiled: {fast:.1} ns per predicate test ({PREDICATES} predicates x {} calls)", calls.len());
    println!("naive (compiled per call): {slow:.1} ns per predicate test");
    println!("ratio naive/compiled: {:.0}x", slow / fast);
}
