//! The fire host in process: a `claude`-style call enqueues, the host fires, the session's next
//! model-context call carries the answer exactly once (R-RW-11/11b/12, R-SRV-4).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use hook_claude::{Answer, with_mail};
use hook_core::{
    CancellationToken, ExecutionHook, FnHook, HookContext, HookEngine, HookEventType, HookRegistry, HookResult,
    RewakeSpec, RewakeTrigger,
};
use hook_host::{EnqueueSink, FireHost, StoreLocation, take_mail};
use serde_json::json;

fn call(session: &str, project: &Path) -> HookContext {
    let mut ctx = HookContext::new(HookEventType::POST_TOOL);
    ctx.session_id = Some(session.to_owned());
    ctx.project_dir = Some(project.to_owned());
    ctx
}

/// A postTool hook that asks to be woken in 200 ms and, when woken, reports CI.
fn registry() -> Arc<HookRegistry> {
    let registry = Arc::new(HookRegistry::new());
    let hook: Arc<dyn ExecutionHook> = FnHook::new("project#0", |ctx: HookContext| async move {
        Ok(match ctx.rewake {
            None => HookResult::allow().with_rewake(RewakeSpec::new(
                RewakeTrigger::Delay(Duration::from_millis(200)),
                "check CI after the push",
            )),
            Some(rewake) => HookResult::feedback(format!("CI is green (attempt {})", rewake.attempt)),
        })
    });
    registry.register(HookEventType::POST_TOOL, hook);
    registry
}

#[tokio::test]
async fn a_fire_reaches_the_next_post_tool_call_of_its_session_exactly_once() {
    let dir = tempfile::tempdir().expect("temp dir");
    let project = PathBuf::from("/work/project");
    let location = StoreLocation::Sqlite(dir.path().join("rewake.db"));
    let registry = registry();

    // The one-shot call: its rewake lands in the store, not in this process's timers.
    let sink = Arc::new(EnqueueSink::new(location.clone()));
    let engine = HookEngine::new(registry.clone()).with_rewake(sink.clone());
    engine.run_event(&call("s1", &project), &CancellationToken::new()).await;
    assert_eq!(sink.written(), 1, "the rewake is enqueued");

    let store = location.open().expect("store");
    let registries: hook_host::ProjectRegistries = {
        let registry = registry.clone();
        let project = project.clone();
        Arc::new(move |dir: Option<&Path>| (dir == Some(project.as_path())).then(|| registry.clone()))
    };
    let host = FireHost::start(store.clone(), registries, Duration::from_millis(20)).expect("host starts");
    let mut fires = host.subscribe();
    host.ready();
    let event =
        tokio::time::timeout(Duration::from_secs(10), fires.recv()).await.expect("fired in time").expect("fire");
    assert_eq!(event.fire.envelope.session_id(), Some("s1"));
    assert_eq!(event.fire.envelope.project_dir(), Some(project.as_path()));
    let run = event.run.expect("the hook ran");
    assert_eq!(run.result.feedback.as_deref(), Some("CI is green (attempt 1)"), "subscribers see what the hook said");

    assert!(take_mail(&store, &call("s2", &project)).expect("take").is_none(), "another session gets nothing");
    let mut pre_tool = call("s1", &project);
    pre_tool.event = HookEventType::PRE_TOOL;
    assert!(take_mail(&store, &pre_tool).expect("take").is_none(), "preTool has no model-context channel");

    let taken = take_mail(&store, &call("s1", &project)).expect("take").expect("mail for s1");
    let (answer, carried) = with_mail(Answer::Silent, HookEventType::POST_TOOL, &taken.text());
    assert!(carried);
    assert_eq!(
        answer,
        Answer::Json(
            json!({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "CI is green (attempt 1)"}})
        )
    );
    assert_eq!(taken.ack().expect("ack"), 1);
    assert!(take_mail(&store, &call("s1", &project)).expect("take").is_none(), "delivered once");
    assert!(store.load().expect("load").envelopes.is_empty(), "the fired envelope left the store");
}

#[tokio::test]
async fn a_subagent_call_leaves_the_mail_for_the_main_agent() {
    let dir = tempfile::tempdir().expect("temp dir");
    let project = PathBuf::from("/work/project");
    let location = StoreLocation::Sqlite(dir.path().join("rewake.db"));
    let sink = Arc::new(EnqueueSink::new(location.clone()));
    HookEngine::new(registry()).with_rewake(sink).run_event(&call("s1", &project), &CancellationToken::new()).await;
    let store = location.open().expect("store");
    let registry = registry();
    let host = FireHost::start(
        store.clone(),
        Arc::new(move |_: Option<&Path>| Some(registry.clone())),
        Duration::from_millis(20),
    )
    .expect("host starts");
    let mut fires = host.subscribe();
    host.ready();
    tokio::time::timeout(Duration::from_secs(10), fires.recv()).await.expect("fired in time").expect("fire");

    let mut subagent = call("s1", &project);
    subagent.fields.insert("agent_id".into(), "agent-7".into());
    assert!(take_mail(&store, &subagent).expect("take").is_none(), "a subagent does not drain its parent's mail");
    let taken = take_mail(&store, &call("s1", &project)).expect("take").expect("the main agent gets it");
    assert_eq!(taken.mails().len(), 1);
    taken.ack().expect("ack");
}

#[tokio::test]
async fn unacknowledged_mail_is_not_handed_out_twice_while_claimed() {
    let dir = tempfile::tempdir().expect("temp dir");
    let location = StoreLocation::Sqlite(dir.path().join("rewake.db"));
    let project = PathBuf::from("/p");
    let sink = Arc::new(EnqueueSink::new(location.clone()));
    HookEngine::new(registry()).with_rewake(sink).run_event(&call("s1", &project), &CancellationToken::new()).await;
    let store = location.open().expect("store");
    let registry = registry();
    let host = FireHost::start(
        store.clone(),
        Arc::new(move |_: Option<&Path>| Some(registry.clone())),
        Duration::from_millis(20),
    )
    .expect("host starts");
    let mut fires = host.subscribe();
    host.ready();
    tokio::time::timeout(Duration::from_secs(10), fires.recv()).await.expect("fired in time").expect("fire");
    let first = take_mail(&store, &call("s1", &project)).expect("take").expect("mail");
    assert!(take_mail(&store, &call("s1", &project)).expect("take").is_none(), "claimed by the first call");
    drop(first);
}
