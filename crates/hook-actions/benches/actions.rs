//! Hook overhead against a baseline measured in the same run (PERF-2, R-ACT-HTTP-4):
//!
//! - `command/hook` (a `ShellAction` running `true`: payload, env, process group, capture) vs
//!   `command/direct` (`sh -c true` spawned with tokio and its output collected, as an embedder
//!   that wants the answer would: stdout and stderr piped); goal ratio ≤ 1.15;
//! - `http/hook` (an `HttpAction` posting the payload and mapping the JSON answer) vs `http/bare`
//!   (a reqwest client posting a JSON body of the same size to the same 127.0.0.1 server); goal
//!   ratio ≤ 1.10.
//!
//! Criterion reports each measurement; the ratios printed at the end come from a separate
//! interleaved loop (baseline and hook alternate, round after round, which one goes first
//! alternating too), so load changes on a noisy machine hit both sides alike: the printed ratio is
//! the median over rounds of hook time / baseline time. Run:
//! `cargo bench -p hook-actions --bench actions -- --sample-size 20 --warm-up-time 1 --measurement-time 5`

use std::process::Stdio;
use std::time::{Duration, Instant};

use axum::Router;
use axum::routing::post;
use criterion::Criterion;
use hook_actions::{HttpAction, HttpSpec, ShellAction, ShellSpec};
use hook_core::{ExecutionHook, HookContext, HookEventType, ToolCall};
use serde_json::json;
use tokio::runtime::Runtime;

/// Rounds of the interleaved comparison.
const ROUNDS: usize = 60;

fn time(rt: &Runtime, iters: u64, f: &impl AsyncFn()) -> Duration {
    let start = Instant::now();
    rt.block_on(async {
        for _ in 0..iters {
            f().await;
        }
    });
    start.elapsed()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Prints the median over rounds of hook time / baseline time, each round timing both back to
/// back (alternating which goes first), with the median per-call times.
fn ratio(rt: &Runtime, what: &str, goal: f64, iters: u64, hook: &impl AsyncFn(), baseline: &impl AsyncFn()) {
    let (mut h, mut b, mut r) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..ROUNDS {
        let (hook_time, base_time) = if round % 2 == 0 {
            let base = time(rt, iters, baseline);
            (time(rt, iters, hook), base)
        } else {
            let hook = time(rt, iters, hook);
            (hook, time(rt, iters, baseline))
        };
        h.push(hook_time.as_secs_f64() / iters as f64);
        b.push(base_time.as_secs_f64() / iters as f64);
        r.push(hook_time.as_secs_f64() / base_time.as_secs_f64());
    }
    println!(
        "{what}: hook {:.1} µs, baseline {:.1} µs, ratio {:.3} (goal ≤ {goal})",
        median(h) * 1e6,
        median(b) * 1e6,
        median(r)
    );
}

fn ctx() -> HookContext {
    let mut ctx = HookContext::new(HookEventType::PRE_TOOL)
        .with_tool(ToolCall::new("Bash", json!({"command": "cargo test --workspace", "description": "run tests"})));
    ctx.session_id = Some("0b5f8a52-bench".into());
    ctx.iteration = Some(1);
    ctx
}

fn main() {
    let rt = Runtime::new().expect("runtime");
    let mut c = Criterion::default().configure_from_args();
    // `cargo bench` passes `--bench`; `cargo test --benches` runs each benchmark once, no ratios.
    let benching = std::env::args().any(|a| a == "--bench");
    let ctx = ctx();

    let shell = ShellAction::new("command@bench#0", "bench#0", ShellSpec::new("true"));
    let direct = async || {
        let output =
            tokio::process::Command::new("sh").args(["-c", "true"]).stdin(Stdio::null()).output().await.expect("spawn");
        assert!(output.status.success());
    };
    let hook = async || {
        let r = shell.execute(&ctx).await.expect("runs");
        assert!(r.failure.is_none());
    };
    let mut group = c.benchmark_group("command");
    group.bench_function("direct", |b| b.iter_custom(|iters| time(&rt, iters, &direct)));
    group.bench_function("hook", |b| b.iter_custom(|iters| time(&rt, iters, &hook)));
    group.finish();

    let url = rt.block_on(async {
        let app = Router::new().route("/hook", post(|| async { r#"{"decision":"allow"}"# }));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("addr");
        tokio::spawn(async move { axum::serve(listener, app).await.expect("serve") });
        format!("http://{addr}/hook")
    });
    let action = HttpAction::new("http@bench#0", "bench#0", HttpSpec::new(url.clone()));
    let client = reqwest::Client::new();
    let body = serde_json::to_vec(&json!({
        "event": "preTool", "hook_event_name": "PreToolUse", "session_id": "0b5f8a52-bench", "iteration": 1,
        "skill_name": "bench#0", "tool_name": "Bash",
        "tool_input": {"command": "cargo test --workspace", "description": "run tests"}
    }))
    .expect("json");
    let bare = async || {
        let response =
            client.post(&url).header("content-type", "application/json").body(body.clone()).send().await.expect("send");
        let answer: serde_json::Value = response.json().await.expect("json");
        assert_eq!(answer["decision"], "allow");
    };
    let http_hook = async || {
        let r = action.execute(&ctx).await.expect("runs");
        assert!(r.failure.is_none());
    };
    let mut group = c.benchmark_group("http");
    group.bench_function("bare", |b| b.iter_custom(|iters| time(&rt, iters, &bare)));
    group.bench_function("hook", |b| b.iter_custom(|iters| time(&rt, iters, &http_hook)));
    group.finish();
    c.final_summary();

    if benching {
        ratio(&rt, "command hook `true` vs `sh -c true`", 1.15, 10, &hook, &direct);
        ratio(&rt, "http hook vs bare reqwest", 1.10, 200, &http_hook, &bare);
    }
}
