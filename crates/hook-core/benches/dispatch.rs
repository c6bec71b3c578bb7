//! Dispatch overhead (PERF-1): one preTool event through 0 hooks and through 1,000 registered
//! hooks that all decline (their matcher says no). Prints the per-hook cost as a ratio against the
//! empty dispatch measured in the same run.

use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use hook_core::{
    CancellationToken, ExecutionHook, HookContext, HookEngine, HookEventType, HookFuture, HookRegistry, HookResult,
    ToolCall,
};
use serde_json::json;

#[derive(Debug)]
struct Declining(String);

impl ExecutionHook for Declining {
    fn id(&self) -> &str {
        &self.0
    }
    fn matches(&self, ctx: &HookContext) -> bool {
        ctx.tool_name() == Some("NeverCalled")
    }
    fn execute<'a>(&'a self, _ctx: &'a HookContext) -> HookFuture<'a> {
        Box::pin(async { Ok(HookResult::allow()) })
    }
}

fn engine(n: usize) -> HookEngine {
    let registry = Arc::new(HookRegistry::new());
    for i in 0..n {
        registry
            .register(HookEventType::PRE_TOOL, Arc::new(Declining(format!("declining-{i}"))) as Arc<dyn ExecutionHook>);
    }
    HookEngine::new(registry)
}

fn mean_dispatch(rt: &tokio::runtime::Runtime, engine: &HookEngine, ctx: &HookContext, iters: u32) -> Duration {
    let cancel = CancellationToken::new();
    let started = Instant::now();
    for _ in 0..iters {
        rt.block_on(engine.run_event(ctx, &cancel));
    }
    started.elapsed() / iters
}

fn dispatch(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
    let ctx = HookContext::new(HookEventType::PRE_TOOL).with_tool(ToolCall::new("Bash", json!({"command": "ls"})));
    let cancel = CancellationToken::new();
    let mut group = c.benchmark_group("dispatch_pre_tool");
    for n in [0usize, 1000] {
        let engine = engine(n);
        group.bench_function(format!("{n}_declining_hooks"), |b| {
            b.iter(|| rt.block_on(engine.run_event(&ctx, &cancel)))
        });
    }
    group.finish();

    let (empty, full) = (engine(0), engine(1000));
    let base = mean_dispatch(&rt, &empty, &ctx, 20_000);
    let loaded = mean_dispatch(&rt, &full, &ctx, 2_000);
    println!(
        "dispatch: 0 hooks {base:?}, 1000 declining hooks {loaded:?} ({:.1} ns per declining hook; ratio {:.1}x the empty dispatch)",
        (loaded.saturating_sub(base)).as_nanos() as f64 / 1000.0,
        loaded.as_nanos() as f64 / base.as_nanos().max(1) as f64
    );
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_secs(1));
    targets = dispatch
}
criterion_main!(benches);
