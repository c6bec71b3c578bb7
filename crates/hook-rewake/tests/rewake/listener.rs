//! The whole path: `HookEngine` → `RewakeSink` → timer or resolve → `DefaultRewakeFireListener`
//! → re-invocation of only the originating hook → chained follow-ups. Paused clock throughout.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use hook_core::{
    CancellationToken, Decision, ExecutionHook, FnHook, HookContext, HookEngine, HookEventType, HookRegistry,
    HookResult, HookRun, PreToolOutcome, RewakeSpec, ToolCall,
};
use hook_rewake::{
    DefaultRewakeFireListener, DefaultRewakeService, Envelope, Fire, RewakeRuntime, RewakeService, RuntimeRegistry,
};
use serde_json::json;
use tokio::sync::mpsc;
use tokio::time::sleep;

use crate::support::{HOUR, MIN, cron, ctx, delay, event, payload, spec, t0};

/// What a hook saw on one invocation.
#[derive(Clone, Debug, PartialEq)]
struct Seen {
    event: HookEventType,
    attempt: Option<u32>,
    payload: Option<BTreeMap<String, String>>,
    iteration: Option<u64>,
}

/// What the runtime was handed after a re-invocation.
#[derive(Clone, Debug, PartialEq)]
struct Delivered {
    hook_id: String,
    attempt: u32,
    decision: Decision,
    payload: BTreeMap<String, String>,
}

/// A runtime that re-hydrates the snapshot, marking the live state (iteration 99), and
/// forwards outcomes; `capable = false` is a stub runtime that cannot take rewakes.
#[derive(Debug)]
struct TestRuntime {
    capable: bool,
    tx: mpsc::UnboundedSender<Delivered>,
}

impl RewakeRuntime for TestRuntime {
    fn rehydrate(&self, snapshot: &HookContext) -> Option<HookContext> {
        self.capable.then(|| {
            let mut ctx = snapshot.clone();
            ctx.iteration = Some(99);
            ctx
        })
    }

    fn deliver(&self, fire: &Fire, run: &HookRun) {
        let delivered = Delivered {
            hook_id: run.hook_id.clone(),
            attempt: fire.envelope.attempt,
            decision: run.result.decision,
            payload: fire.payload.clone(),
        };
        self.tx.send(delivered).expect("test receiver alive");
    }
}

struct Rig {
    hooks: Arc<HookRegistry>,
    runtimes: Arc<RuntimeRegistry>,
    service: Arc<DefaultRewakeService>,
    engine: HookEngine,
    delivered: mpsc::UnboundedReceiver<Delivered>,
    tx: mpsc::UnboundedSender<Delivered>,
}

const AGENT: &str = "agent-1";

fn rig(bind: bool) -> Rig {
    let hooks = Arc::new(HookRegistry::new());
    let runtimes = Arc::new(RuntimeRegistry::new());
    let listener = Arc::new(DefaultRewakeFireListener::new(hooks.clone(), runtimes.clone()));
    let service = DefaultRewakeService::builder(listener.clone()).clock_start(t0()).start().expect("start");
    if bind {
        assert!(listener.bind_service(&service));
        assert!(!listener.bind_service(&service), "binding twice is refused");
    }
    let engine = HookEngine::new(hooks.clone()).with_rewake(service.clone());
    let (tx, delivered) = mpsc::unbounded_channel();
    runtimes.register(AGENT, Arc::new(TestRuntime { capable: true, tx: tx.clone() }));
    Rig { hooks, runtimes, service, engine, delivered, tx }
}

type Log = Arc<Mutex<Vec<Seen>>>;

/// A hook that records what it saw and returns `result(ctx)`.
fn hook(
    id: &str,
    log: &Log,
    result: impl Fn(&HookContext) -> HookResult + Send + Sync + 'static,
) -> Arc<dyn ExecutionHook> {
    let log = log.clone();
    FnHook::new(id, move |ctx: HookContext| {
        log.lock().expect("log").push(Seen {
            event: ctx.event,
            attempt: ctx.rewake.as_ref().map(|r| r.attempt),
            payload: ctx.rewake.as_ref().map(|r| r.payload.clone()),
            iteration: ctx.iteration,
        });
        let out = result(&ctx);
        async move { Ok(out) }
    })
}

/// A declarative-style hook: returns its configured spec on every run.
fn declarative(id: &str, log: &Log, spec: RewakeSpec) -> Arc<dyn ExecutionHook> {
    hook(id, log, move |_| HookResult::allow().with_rewake(spec.clone()))
}

fn attempts(log: &Log) -> Vec<Option<u32>> {
    log.lock().expect("log").iter().map(|s| s.attempt).collect()
}

fn bash(command: &str) -> HookContext {
    ctx(HookEventType::PRE_TOOL, AGENT).with_tool(ToolCall::new("Bash", json!({ "command": command })))
}

#[tokio::test(start_paused = true)]
async fn max_attempts_3_gives_one_first_fire_plus_two_chained_and_never_more_per_r_rw_5() {
    let rig = rig(true);
    let log = Log::default();
    rig.hooks.register(HookEventType::PRE_TOOL, declarative("decl", &log, spec(delay(MIN), HOUR, 3)));

    let chained = rig.engine.pre_tool(&bash("ls"), &CancellationToken::new()).await;
    assert!(matches!(chained.outcome, PreToolOutcome::Proceed { .. }), "the turn is not held (R-RW-1)");
    let pending = rig.service.pending();
    assert_eq!((pending.len(), pending[0].attempt), (1, 1));

    sleep(24 * HOUR).await;
    assert_eq!(attempts(&log), [None, Some(1), Some(2), Some(3)]);
    assert!(rig.service.pending().is_empty());
}

#[tokio::test(start_paused = true)]
async fn a_cron_envelope_never_chains_so_one_envelope_stays_live_across_fires_per_r_rw_5() {
    let mut rig = rig(true);
    let log = Log::default();
    let cron_spec = spec(cron("* * * * *", "UTC"), 24 * HOUR, 5);
    rig.hooks.register(HookEventType::PRE_TOOL, declarative("cron", &log, cron_spec));
    rig.engine.pre_tool(&bash("ls"), &CancellationToken::new()).await;

    let mut live_after_each_fire = Vec::new();
    for _ in 0..5 {
        rig.delivered.recv().await.expect("fire");
        tokio::task::yield_now().await;
        live_after_each_fire.push(rig.service.pending().len());
    }
    assert_eq!(live_after_each_fire, [1, 1, 1, 1, 0]);
    sleep(24 * HOUR).await;
    assert_eq!(attempts(&log), [None, Some(1), Some(2), Some(3), Some(4), Some(5)]);
    assert!(rig.service.pending().is_empty());
}

#[tokio::test(start_paused = true)]
async fn every_rewake_capable_event_is_re_dispatched_to_its_hook_per_r_rw_4() {
    let rig = rig(true);
    let capable: Vec<HookEventType> = HookEventType::ALL.iter().copied().filter(|e| e.spec().rewake).collect();
    let names: Vec<&str> = capable.iter().map(|e| e.name()).collect();
    assert_eq!(names.len(), 10, "{names:?}");
    let logs: Vec<Log> = capable.iter().map(|_| Log::default()).collect();
    for (ev, log) in capable.iter().zip(&logs) {
        rig.hooks.register(*ev, declarative(&format!("h-{ev}"), log, spec(delay(MIN), HOUR, 1)));
        rig.engine.dispatch(&ctx(*ev, AGENT), &CancellationToken::new()).await;
    }
    assert_eq!(rig.service.pending().len(), names.len());
    sleep(HOUR).await;
    for (ev, log) in capable.iter().zip(&logs) {
        let seen = log.lock().expect("log").clone();
        let rewoken: Vec<(HookEventType, Option<u32>, Option<u64>)> =
            seen.iter().map(|s| (s.event, s.attempt, s.iteration)).collect();
        assert_eq!(rewoken, [(*ev, None, None), (*ev, Some(1), Some(99))], "{ev}");
    }
    assert!(rig.service.pending().is_empty());
}

#[tokio::test(start_paused = true)]
async fn an_envelope_on_an_event_without_rewake_is_dropped_at_fire_time() {
    let rig = rig(true);
    let log = Log::default();
    rig.hooks.register(HookEventType::POST_COMPACT, declarative("post", &log, spec(delay(MIN), HOUR, 1)));
    let envelope = Envelope::new("post", ctx(HookEventType::POST_COMPACT, AGENT), spec(delay(MIN), HOUR, 1), 1);
    rig.service.schedule(envelope).expect("schedule");
    sleep(HOUR).await;
    assert!(attempts(&log).is_empty());
    assert!(rig.service.pending().is_empty());
}

#[tokio::test(start_paused = true)]
async fn only_the_originating_hook_is_re_invoked_and_siblings_are_not_per_r_rw_4() {
    let rig = rig(true);
    let (asker, sibling) = (Log::default(), Log::default());
    rig.hooks.register(HookEventType::PRE_TOOL, hook("sibling-before", &sibling, |_| HookResult::allow()));
    rig.hooks.register(HookEventType::PRE_TOOL, declarative("asker", &asker, spec(delay(MIN), HOUR, 1)));
    rig.hooks.register(HookEventType::PRE_TOOL, hook("sibling-after", &sibling, |_| HookResult::allow()));
    rig.engine.pre_tool(&bash("ls"), &CancellationToken::new()).await;
    sleep(HOUR).await;
    assert_eq!(attempts(&asker), [None, Some(1)]);
    assert_eq!(attempts(&sibling), [None, None]);
}

#[tokio::test(start_paused = true)]
async fn a_vanished_or_stub_context_drops_the_fire_per_r_rw_4() {
    let mut rig = rig(true);
    let log = Log::default();
    rig.hooks.register(HookEventType::PRE_TOOL, declarative("decl", &log, spec(delay(MIN), HOUR, 3)));
    rig.engine.pre_tool(&bash("ls"), &CancellationToken::new()).await;
    assert!(rig.runtimes.unregister(AGENT));
    sleep(2 * MIN).await;
    assert_eq!(attempts(&log), [None]);
    assert!(rig.service.pending().is_empty());

    rig.runtimes.register(AGENT, Arc::new(TestRuntime { capable: false, tx: rig.tx.clone() }));
    rig.engine.pre_tool(&bash("ls"), &CancellationToken::new()).await;
    sleep(2 * MIN).await;
    assert_eq!(attempts(&log), [None, None]);
    assert!(rig.service.pending().is_empty());
    assert!(rig.delivered.try_recv().is_err());
}

#[tokio::test(start_paused = true)]
async fn a_fire_for_a_hook_no_longer_registered_is_dropped() {
    let rig = rig(true);
    let log = Log::default();
    let decl = declarative("decl", &log, spec(delay(MIN), HOUR, 3));
    rig.hooks.register(HookEventType::PRE_TOOL, decl.clone());
    rig.engine.pre_tool(&bash("ls"), &CancellationToken::new()).await;
    assert!(rig.hooks.unregister(HookEventType::PRE_TOOL, &decl));
    sleep(HOUR).await;
    assert_eq!(attempts(&log), [None]);
    assert!(rig.service.pending().is_empty());
}

#[tokio::test(start_paused = true)]
async fn without_a_bound_service_the_first_fire_happens_and_follow_ups_are_dropped_per_r_rw_5() {
    let rig = rig(false);
    let log = Log::default();
    rig.hooks.register(HookEventType::PRE_TOOL, declarative("decl", &log, spec(delay(MIN), HOUR, 3)));
    rig.engine.pre_tool(&bash("ls"), &CancellationToken::new()).await;
    sleep(HOUR).await;
    assert_eq!(attempts(&log), [None, Some(1)]);
    assert!(rig.service.pending().is_empty());
}

#[tokio::test(start_paused = true)]
async fn an_event_follow_up_chains_until_resolved_max_attempts_times() {
    let rig = rig(true);
    let log = Log::default();
    rig.hooks.register(HookEventType::PRE_TOOL, declarative("ci", &log, spec(event("ci", "build"), HOUR, 2)));
    rig.engine.pre_tool(&bash("make"), &CancellationToken::new()).await;
    assert_eq!(rig.service.resolve("ci", "build", payload(&[])), 1);
    assert_eq!(rig.service.resolve("ci", "build", payload(&[])), 0, "the fired envelope left the pending list");
    sleep(MIN).await;
    assert_eq!(rig.service.resolve("ci", "build", payload(&[])), 1, "attempt 2 was chained");
    sleep(MIN).await;
    assert_eq!(rig.service.resolve("ci", "build", payload(&[])), 0, "attempt 3 exceeds maxAttempts 2");
    assert_eq!(attempts(&log), [None, Some(1), Some(2)]);
}

#[tokio::test(start_paused = true)]
async fn seed_example_6_an_approval_resolve_re_invokes_the_hook_which_decides_per_r_rw_3() {
    let mut rig = rig(true);
    let log = Log::default();
    let approval = spec(event("approval", "prod-kubectl-apply"), HOUR, 1).with_payload(payload(&[("ticket", "T-123")]));
    let asker = hook("mcp@local#approval", &log, move |ctx| match &ctx.rewake {
        None => HookResult::allow().with_rewake(approval.clone()),
        Some(wake) if wake.payload.get("decision").map(String::as_str) == Some("approved") => {
            HookResult::allow().with_rewake(approval.clone())
        }
        Some(_) => HookResult::deny("not approved").with_rewake(approval.clone()),
    });
    rig.hooks.register(HookEventType::PRE_TOOL, asker);
    let outcome = rig.engine.pre_tool(&bash("kubectl apply -f x-prod"), &CancellationToken::new()).await;
    assert!(matches!(outcome.outcome, PreToolOutcome::Proceed { .. }));

    assert_eq!(rig.service.resolve("approval", "prod-kubectl-apply", payload(&[("decision", "approved")])), 1);
    let delivered = rig.delivered.recv().await.expect("delivered");
    assert_eq!(
        delivered,
        Delivered {
            hook_id: "mcp@local#approval".into(),
            attempt: 1,
            decision: Decision::Allow,
            payload: payload(&[("decision", "approved"), ("ticket", "T-123")]),
        }
    );
    sleep(HOUR).await;
    assert!(rig.service.pending().is_empty(), "maxAttempts 1: the re-attached spec is not chained");
    assert_eq!(log.lock().expect("log").len(), 2);
}
