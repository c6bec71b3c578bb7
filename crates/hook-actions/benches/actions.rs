//! Hook overhead against a baseline measured in the same run (PERF-2, R-ACT-HTTP-4):
//!
//! - `command/hook` (a `ShellAction` running `true`: payload, env, process group, capture) vs
//!   `command/direct` (`sh -c true` spawned and awaited with tokio); goal ratio ≤ 1.15;
//! - `http/hook` (an `HttpAction` posting the payload and mapping the JSON answer) vs `http/bare`
//!   (a reqwest client posting a JSON body of the same size to the same 127.0.0.1 server); goal
//!   ratio ≤ 1.10.
//!
//! Each criterion sample also records its mean time per iteration; the ratios printed at the end
//! are ratios of the median sample means. Run:
//! `cargo bench -p hook-actions --bench actions -- --sample-size 20 --warm-up-time 1 --measurement-time 5`

use std::cell::RefCell;
use std::process::Stdio;
use std::time::{Duration, Instant};

use axum::Router;
use axum::routing::post;
use criterion::Criterion;
use hook_actions::{HttpAction, HttpSpec, ShellAction, ShellSpec};
use hook_core::{ExecutionHook, HookContext, HookEventType, ToolCall};
use serde_json::json;
use tokio::runtime::Runtime;

/// Mean nanoseconds per iteration of each sample.
#[derive(Default)]
struct Samples(RefCell<Vec<f64>>);

impl Samples {
    fn time(&self, iters: u64, rt: &Runtime, mut f: impl AsyncFnMut()) -> Duration {
        let start = Instant::now();
        rt.block_on(async {
            for _ in 0..iters {
                f().await;
            }
        });
        let elapsed = start.elapsed();
        self.0.borrow_mut().push(elapsed.as_nanos() as f64 / iters.max(1) as f64);
        elapsed
    }

    fn median(&self) -> Option<f64> {
        let mut v = self.0.borrow().clone();
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied()
    }
}

fn ctx() -> HookContext {
    let mut ctx = HookContext::new(HookEventType::PRE_TOOL)
        .with_tool(ToolCall::new("Bash", json!({"command": "cargo test --workspace", "description": "run tests"})));
    ctx.session_id = Some("0b5f8a52-bench".into());
    ctx.iteration = Some(1);
    ctx
}

fn report(what: &str, hook: &Samples, baseline: &Samples, goal: f64) {
    match (hook.median(), baseline.median()) {
        (Some(h), Some(b)) if b > 0.0 => println!(
            "{what}: hook {:.1} µs, baseline {:.1} µs, ratio {:.3} (goal ≤ {goal})",
            h / 1e3,
            b / 1e3,
            h / b
        ),
        _ => println!("{what}: no samples (run with `cargo bench`)"),
    }
}

fn main() {
    let rt = Runtime::new().expect("runtime");
    let mut c = Criterion::default().configure_from_args();

    let ctx = ctx();
    let (hook, direct) = (Samples::default(), Samples::default());
    let shell = ShellAction::new("command@bench#0", "bench#0", ShellSpec::new("true"));
    let mut group = c.benchmark_group("command");
    group.bench_function("direct", |b| {
        b.iter_custom(|iters| {
            direct.time(iters, &rt, async || {
                let status = tokio::process::Command::new("sh")
                    .args(["-c", "true"])
                    .stdin(Stdio::null())
                    .status()
                    .await
                    .expect("spawn");
                assert!(status.success());
            })
        })
    });
    group.bench_function("hook", |b| {
        b.iter_custom(|iters| {
            hook.time(iters, &rt, async || {
                let r = shell.execute(&ctx).await.expect("runs");
                assert!(r.failure.is_none());
            })
        })
    });
    group.finish();

    let url = rt.block_on(async {
        let app = Router::new().route("/hook", post(|| async { r#"{"decision":"allow"}"# }));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("addr");
        tokio::spawn(async move { axum::serve(listener, app).await.expect("serve") });
        format!("http://{addr}/hook")
    });
    let (http_hook, bare) = (Samples::default(), Samples::default());
    let action = HttpAction::new("http@bench#0", "bench#0", HttpSpec::new(url.clone()));
    let client = reqwest::Client::new();
    let body = serde_json::to_vec(&json!({
        "event": "preTool", "hook_event_name": "PreToolUse", "session_id": "0b5f8a52-bench", "iteration": 1,
        "skill_name": "bench#0", "tool_name": "Bash",
        "tool_input": {"command": "cargo test --workspace", "description": "run tests"}
    }))
    .expect("json");
    let mut group = c.benchmark_group("http");
    group.bench_function("bare", |b| {
        b.iter_custom(|iters| {
            bare.time(iters, &rt, async || {
                let response = client
                    .post(&url)
                    .header("content-type", "application/json")
                    .body(body.clone())
                    .send()
                    .await
                    .expect("send");
                let answer: serde_json::Value = response.json().await.expect("json");
                assert_eq!(answer["decision"], "allow");
            })
        })
    });
    group.bench_function("hook", |b| {
        b.iter_custom(|iters| {
            http_hook.time(iters, &rt, async || {
                let r = action.execute(&ctx).await.expect("runs");
                assert!(r.failure.is_none());
            })
        })
    });
    group.finish();

    c.final_summary();
    report("command hook `true` vs `sh -c true`", &hook, &direct, 1.15);
    report("http hook vs bare reqwest", &http_hook, &bare, 1.10);
}
