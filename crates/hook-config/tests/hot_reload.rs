//! Hot reload on real files in a temp dir (R-HOT-1…8, REL-3).
//!
//! Contents:
//! - `edits_of_every_kind_each_fire_on_config_reload`: in-place edit, rename-save, a tier that
//!   did not exist, a deleted tier, invalid JSON (R-HOT-1/2/3/4/5, R-REG-3);
//! - `a_failing_bootstrap_warns_and_later_reloads_still_happen` (R-HOT-5);
//! - `the_handle_tells_why_the_last_load_failed_until_one_succeeds`;
//! - `a_panicking_listener_does_not_stop_reloads` (R-HOT-7);
//! - `removed_hooks_lose_their_pending_rewake_envelopes` (R-HOT-8);
//! - `a_storm_of_edits_never_shows_a_mix_and_ends_on_the_last_valid_file` (R-HOT-4/6, REL-3);
//! - `mcp_json_edits_hot_reload_and_rebuild_mcp_hooks_against_the_new_servers` (REL-5).
//!
//! Bounds are generous (10 s) because these run in real time on a shared machine; the tight
//! latency figures are in `benches/reload.rs`.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use hook_config::{HookHotReloadBootstrap, HotReloadHandle, TierPaths};
use hook_core::{
    CancellationToken, ExecutionHook, FnHook, HookContext, HookEngine, HookEventType, HookRegistry, HookResult,
    RewakeSpec, RewakeTrigger, ToolCall,
};
use hook_rewake::{DefaultRewakeService, Envelope, Fire, FireFuture, RewakeFireListener, RewakeService};
use serde_json::{Value, json};
use tokio::sync::mpsc;

const BOUND: Duration = Duration::from_secs(10);

/// What an `onConfigReload` listener saw.
#[derive(Debug, Clone, PartialEq)]
struct Reload {
    successful: bool,
    failure_reason: String,
    counter: u64,
    source: String,
}

fn listen(registry: &HookRegistry) -> mpsc::UnboundedReceiver<Reload> {
    let (tx, rx) = mpsc::unbounded_channel();
    let hook: Arc<dyn ExecutionHook> = FnHook::new("reload-listener", move |ctx: HookContext| {
        let tx = tx.clone();
        async move {
            let field = |k: &str| ctx.fields.get(k).cloned().unwrap_or(Value::Null);
            let _ = tx.send(Reload {
                successful: field("successful").as_bool().unwrap_or_default(),
                failure_reason: field("failure_reason").as_str().unwrap_or("<absent>").to_owned(),
                counter: field("reload_counter").as_u64().unwrap_or_default(),
                source: field("config_source").as_str().unwrap_or_default().to_owned(),
            });
            Ok(HookResult::allow())
        }
    });
    registry.register(HookEventType::ON_CONFIG_RELOAD, hook);
    rx
}

async fn next(rx: &mut mpsc::UnboundedReceiver<Reload>) -> Reload {
    tokio::time::timeout(BOUND, rx.recv()).await.expect("onConfigReload within the bound").expect("listener alive")
}

fn deny_config(reasons: &[&str]) -> String {
    let handlers: Vec<Value> = reasons.iter().map(|r| json!({"type": "deny", "reason": r})).collect();
    json!({"hooks": {"PreToolUse": [{"matcher": "*", "hooks": handlers}]}}).to_string()
}

/// The feedback of every managed preTool hook, in dispatch order.
async fn live_reasons(engine: &HookEngine) -> Vec<String> {
    let ctx = HookContext::new(HookEventType::PRE_TOOL).with_tool(ToolCall::new("Bash", json!({"command": "ls"})));
    let report = engine.dispatch(&ctx, &CancellationToken::new()).await;
    report.runs.iter().filter_map(|r| r.result.feedback.clone()).collect()
}

fn start(paths: &TierPaths, registry: &Arc<HookRegistry>) -> HotReloadHandle {
    HookHotReloadBootstrap::builder()
        .paths(paths.clone())
        .registry(registry.clone())
        .debounce(Duration::from_millis(50))
        .poll_interval(Duration::from_millis(250))
        .start()
        .expect("starts")
}

fn setup() -> (tempfile::TempDir, tempfile::TempDir, TierPaths) {
    let home = tempfile::tempdir().expect("home");
    let project = tempfile::tempdir().expect("project");
    std::fs::create_dir_all(project.path().join(".aimon")).expect("mkdir");
    let paths = TierPaths::new(Some(home.path().to_owned()), project.path());
    (home, project, paths)
}

fn rename_save(path: &Path, text: &str) {
    let tmp = path.with_extension("json.tmp~");
    std::fs::write(&tmp, text).expect("write temp");
    std::fs::rename(&tmp, path).expect("rename");
}

/// A host asks the handle whether the files on disk load, and why not, instead of parsing them
/// again: the initial load's failure, then each reload's, in the words `onConfigReload` carries.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_handle_tells_why_the_last_load_failed_until_one_succeeds() {
    let (_home, _project, paths) = setup();
    std::fs::write(paths.project_file(), "{ \"hooks\": ").expect("write");
    let registry = Arc::new(HookRegistry::new());
    let mut reloads = listen(&registry);
    let handle = start(&paths, &registry);
    let at_start = handle.last_failure().unwrap_or_default();
    assert!(at_start.starts_with(&format!("{}:1:", paths.project_file().display())), "{at_start:?}");

    std::fs::write(paths.project_file(), deny_config(&["good"])).expect("write");
    let r = next(&mut reloads).await;
    assert!(r.successful, "{r:?}");
    assert_eq!(handle.last_failure(), None, "a good reload clears the failure");

    std::fs::write(paths.project_file(), "{ \"hooks\": [").expect("write");
    let r = next(&mut reloads).await;
    assert!(!r.successful, "{r:?}");
    assert_eq!(handle.last_failure().as_deref(), Some(r.failure_reason.as_str()), "the reload's own reason");

    std::fs::write(paths.local_file(), deny_config(&["local"])).expect("write");
    let r = next(&mut reloads).await;
    assert!(!r.successful, "the project tier is still broken: {r:?}");
    let still = handle.last_failure().unwrap_or_default();
    assert!(still.starts_with(&format!("{}:1:", paths.project_file().display())), "{still:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn edits_of_every_kind_each_fire_on_config_reload() {
    let (_home, _project, paths) = setup();
    std::fs::write(paths.project_file(), deny_config(&["v1"])).expect("write");
    let registry = Arc::new(HookRegistry::new());
    let programmatic: Arc<dyn ExecutionHook> =
        FnHook::new("programmatic", |_| async { Ok(HookResult::feedback("programmatic")) });
    registry.register(HookEventType::PRE_TOOL, programmatic);
    let mut reloads = listen(&registry);
    let engine = HookEngine::new(registry.clone());
    let handle = start(&paths, &registry);
    assert!(handle.file_events_active());
    assert_eq!(live_reasons(&engine).await, ["programmatic", "v1"], "the initial load swaps in silently");
    assert_eq!(handle.reload_counter(), 0, "the initial load fires nothing (R-HOT-5)");

    // 1. Edit in place.
    std::fs::write(paths.project_file(), deny_config(&["v2"])).expect("write");
    let r = next(&mut reloads).await;
    assert_eq!((r.successful, r.failure_reason.as_str(), r.counter), (true, "", 1), "{r:?}");
    assert_eq!(r.source, paths.project_file().display().to_string());
    assert_eq!(live_reasons(&engine).await, ["programmatic", "v2"]);

    // 2. Save by write-temp-then-rename (vim, IDEs).
    rename_save(&paths.project_file(), &deny_config(&["v3", "v3b"]));
    let r = next(&mut reloads).await;
    assert_eq!((r.successful, r.counter), (true, 2), "{r:?}");
    assert_eq!(live_reasons(&engine).await, ["programmatic", "v3", "v3b"]);

    // 3. Create a tier that did not exist.
    std::fs::write(paths.local_file(), deny_config(&["local"])).expect("write");
    let r = next(&mut reloads).await;
    assert_eq!((r.successful, r.counter), (true, 3), "{r:?}");
    assert_eq!(r.source, paths.local_file().display().to_string());
    assert_eq!(live_reasons(&engine).await, ["programmatic", "v3", "v3b", "local"]);

    // 4. Delete one.
    std::fs::remove_file(paths.project_file()).expect("delete");
    let r = next(&mut reloads).await;
    assert_eq!((r.successful, r.counter), (true, 4), "{r:?}");
    assert_eq!(live_reasons(&engine).await, ["programmatic", "local"]);

    // 5. Invalid JSON: no swap, a failed reload with the parser's file:line:col.
    std::fs::write(paths.local_file(), "{ \"hooks\": ").expect("write");
    let r = next(&mut reloads).await;
    assert!(!r.successful, "{r:?}");
    assert_eq!(r.counter, 5);
    assert!(r.failure_reason.starts_with(&format!("{}:1:", paths.local_file().display())), "{r:?}");
    assert_eq!(live_reasons(&engine).await, ["programmatic", "local"], "previous hooks stay live (R-HOT-4)");

    // 6. A tier whose directory does not exist yet (USER): found by polling once it appears.
    let user = paths.user_file().expect("home");
    std::fs::create_dir_all(user.parent().expect("parent")).expect("mkdir");
    std::fs::write(&user, deny_config(&["user"])).expect("write");
    std::fs::write(paths.local_file(), deny_config(&["local2"])).expect("write");
    let r = next(&mut reloads).await;
    assert!(r.successful, "{r:?}");
    let mut reasons = live_reasons(&engine).await;
    while reasons != ["programmatic", "user", "local2"] {
        let r = next(&mut reloads).await;
        assert!(r.successful, "{r:?}");
        reasons = live_reasons(&engine).await;
    }
    drop(handle);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_bootstrap_warns_and_later_reloads_still_happen() {
    let (_home, _project, paths) = setup();
    std::fs::write(paths.project_file(), "{ not json").expect("write");
    let registry = Arc::new(HookRegistry::new());
    let mut reloads = listen(&registry);
    let engine = HookEngine::new(registry.clone());
    let _handle = start(&paths, &registry);
    assert!(live_reasons(&engine).await.is_empty());
    std::fs::write(paths.project_file(), deny_config(&["fixed"])).expect("write");
    let r = next(&mut reloads).await;
    assert_eq!((r.successful, r.counter), (true, 1), "{r:?}");
    assert_eq!(live_reasons(&engine).await, ["fixed"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panicking_listener_does_not_stop_reloads() {
    let (_home, _project, paths) = setup();
    let registry = Arc::new(HookRegistry::new());
    let panicked = Arc::new(AtomicBool::new(false));
    let flag = panicked.clone();
    let bomb: Arc<dyn ExecutionHook> = FnHook::new("bomb", move |_| {
        let flag = flag.clone();
        async move {
            flag.store(true, Ordering::SeqCst);
            panic!("listener bug")
        }
    });
    registry.register(HookEventType::ON_CONFIG_RELOAD, bomb);
    let mut reloads = listen(&registry);
    let _handle = start(&paths, &registry);
    for (i, reason) in ["a", "b"].into_iter().enumerate() {
        std::fs::write(paths.project_file(), deny_config(&[reason])).expect("write");
        let r = next(&mut reloads).await;
        assert_eq!((r.successful, r.counter), (true, i as u64 + 1), "{r:?}");
    }
    assert!(panicked.load(Ordering::SeqCst));
}

/// A fire listener for a service whose envelopes must never fire during the test.
#[derive(Debug)]
struct NeverFires;

impl RewakeFireListener for NeverFires {
    fn on_fire(self: Arc<Self>, fire: Fire) -> FireFuture {
        Box::pin(async move { panic!("unexpected fire: {fire:?}") })
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn removed_hooks_lose_their_pending_rewake_envelopes() {
    let (_home, _project, paths) = setup();
    std::fs::write(paths.project_file(), deny_config(&["keep", "drop"])).expect("write");
    let registry = Arc::new(HookRegistry::new());
    let mut reloads = listen(&registry);
    let service = DefaultRewakeService::builder(Arc::new(NeverFires)).start().expect("service");
    let _handle = HookHotReloadBootstrap::builder()
        .paths(paths.clone())
        .registry(registry.clone())
        .rewake(service.clone())
        .debounce(Duration::from_millis(50))
        .start()
        .expect("starts");
    let ids: Vec<String> = registry.hooks(HookEventType::PRE_TOOL).iter().map(|h| h.id().to_owned()).collect();
    assert_eq!(ids.len(), 2);
    let spec = RewakeSpec::new(RewakeTrigger::Delay(Duration::from_secs(3600)), "later");
    for id in &ids {
        let mut ctx = HookContext::new(HookEventType::PRE_TOOL);
        ctx.project_dir = Some(paths.project.clone());
        let envelope = Envelope::new(id.clone(), ctx, spec.clone(), 1);
        service.schedule(envelope).expect("scheduled");
    }
    std::fs::write(paths.project_file(), deny_config(&["keep"])).expect("write");
    assert!(next(&mut reloads).await.successful);
    let pending: Vec<String> = service.pending().into_iter().map(|e| e.hook_id).collect();
    assert_eq!(pending, [ids[0].clone()], "only the removed hook's envelope is cancelled");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_storm_of_edits_never_shows_a_mix_and_ends_on_the_last_valid_file() {
    const HANDLERS: usize = 4;
    let (_home, _project, paths) = setup();
    let config = |version: usize| {
        let reasons: Vec<String> = (0..HANDLERS).map(|h| format!("v{version}-h{h}")).collect();
        let refs: Vec<&str> = reasons.iter().map(String::as_str).collect();
        deny_config(&refs)
    };
    std::fs::write(paths.project_file(), config(0)).expect("write");
    let registry = Arc::new(HookRegistry::new());
    let mut reloads = listen(&registry);
    let engine = HookEngine::new(registry.clone());
    let _handle = start(&paths, &registry);

    // A dispatcher that checks every dispatch sees exactly one config version.
    let stop = Arc::new(AtomicBool::new(false));
    let dispatcher = {
        let (engine, stop) = (engine.clone(), stop.clone());
        tokio::spawn(async move {
            let mut dispatches = 0u64;
            while !stop.load(Ordering::SeqCst) {
                let reasons = live_reasons(&engine).await;
                assert_eq!(reasons.len(), HANDLERS, "a dispatch saw {reasons:?}");
                let version = reasons[0].split('-').next().unwrap_or_default().to_owned();
                assert!(reasons.iter().all(|r| r.starts_with(&format!("{version}-"))), "a mix: {reasons:?}");
                dispatches += 1;
                tokio::task::yield_now().await;
            }
            dispatches
        })
    };

    // Every third edit is broken (alternately invalid JSON and a half-written file); the last
    // edit is valid, so it must go live (no final edit lost, R-HOT-6).
    for i in 1..=300usize {
        let text = config(i);
        match i % 6 {
            1 => std::fs::write(paths.project_file(), "{ \"hooks\": { nope").expect("invalid"),
            4 => std::fs::write(paths.project_file(), &text[..text.len() / 2]).expect("half-written"),
            _ => std::fs::write(paths.project_file(), &text).expect("valid"),
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    let expected: Vec<String> = (0..HANDLERS).map(|h| format!("v300-h{h}")).collect();
    let deadline = tokio::time::Instant::now() + BOUND;
    while live_reasons(&engine).await != expected {
        assert!(tokio::time::Instant::now() < deadline, "live hooks never settled on v300");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // A broken edit after the storm fails and leaves the last valid file live (R-HOT-4).
    while reloads.try_recv().is_ok() {}
    let text = config(301);
    std::fs::write(paths.project_file(), &text[..text.len() / 2]).expect("half-written");
    loop {
        let r = next(&mut reloads).await;
        if !r.successful {
            break;
        }
    }
    assert_eq!(live_reasons(&engine).await, expected);
    stop.store(true, Ordering::SeqCst);
    let dispatches = dispatcher.await.expect("the dispatcher never saw a mix");
    assert!(dispatches > 0);
}

/// Why the managed mcp hook's call failed (`failure` of its result).
async fn mcp_failure(engine: &HookEngine) -> String {
    let ctx = HookContext::new(HookEventType::PRE_TOOL).with_tool(ToolCall::new("Bash", json!({"command": "ls"})));
    let report = engine.dispatch(&ctx, &CancellationToken::new()).await;
    let run = report.runs.iter().find(|r| r.hook_id.starts_with("mcp@")).expect("the mcp hook ran");
    run.result.failure.clone().or_else(|| run.error.clone()).unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_json_edits_hot_reload_and_rebuild_mcp_hooks_against_the_new_servers() {
    let (_home, _project, paths) = setup();
    let hooks = json!({"hooks": {"PreToolUse": [{"hooks": [
        {"type": "mcp", "server": "policy", "tool": "check", "timeoutMs": 3000}
    ]}]}});
    std::fs::write(paths.project_file(), hooks.to_string()).expect("write");
    let registry = Arc::new(HookRegistry::new());
    let mut reloads = listen(&registry);
    let engine = HookEngine::new(registry.clone());
    let _handle = start(&paths, &registry);
    assert!(mcp_failure(&engine).await.contains("unknown mcp server 'policy'"));

    // A registry appears declaring the server (at a port nothing listens on): the hook is rebuilt
    // against the new table, so the call now reaches for the server instead of not knowing it.
    let port = std::net::TcpListener::bind("127.0.0.1:0").expect("bind").local_addr().expect("addr").port();
    let registry_file = paths.mcp_files().pop().expect("the project's mcp.json");
    let declared = json!({"mcpServers": {"policy": {"type": "http", "url": format!("http://127.0.0.1:{port}/mcp")}}});
    rename_save(&registry_file, &declared.to_string());
    let r = next(&mut reloads).await;
    assert_eq!((r.successful, r.counter, r.source.as_str()), (true, 1, registry_file.to_str().expect("utf-8")));
    let failure = mcp_failure(&engine).await;
    assert!(!failure.is_empty() && !failure.contains("unknown mcp server"), "{failure}");

    // Caught half-written: the reload fails and the previous servers and hooks stay.
    std::fs::write(&registry_file, "{\"mcpServers\": {\"policy\": ").expect("write");
    let r = next(&mut reloads).await;
    assert!(!r.successful, "{r:?}");
    assert!(r.failure_reason.contains("mcp.json: invalid JSON"), "{r:?}");
    assert!(!mcp_failure(&engine).await.contains("unknown mcp server"));
    rename_save(&registry_file, &declared.to_string());
    assert!(next(&mut reloads).await.successful);

    // The home registry declares it too, then the project's goes: still known, from the home.
    let home_file = paths.mcp_files().remove(0);
    std::fs::create_dir_all(home_file.parent().expect("parent")).expect("mkdir");
    std::fs::write(&home_file, declared.to_string()).expect("write");
    let r = next(&mut reloads).await;
    assert!(r.successful && r.source.contains(home_file.to_str().expect("utf-8")), "{r:?}");
    std::fs::remove_file(&registry_file).expect("remove");
    let r = next(&mut reloads).await;
    assert!(r.successful, "{r:?}");
    assert!(!mcp_failure(&engine).await.contains("unknown mcp server"));

    // No registry declares it any more: unknown again.
    std::fs::remove_file(&home_file).expect("remove");
    let r = next(&mut reloads).await;
    assert!(r.successful, "{r:?}");
    assert!(mcp_failure(&engine).await.contains("unknown mcp server 'policy'"));
}
