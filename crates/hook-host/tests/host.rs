//! The fire host in process: a `claude`-style call enqueues, the host fires, the session's next
//! model-context call carries the answer exactly once (R-RW-11/11b/12, R-SRV-4).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use hook_core::{
    CancellationToken, EventVerdict, ExecutionHook, FnHook, HookContext, HookEngine, HookEventType, HookRegistry,
    HookResult, RewakeSpec, RewakeTrigger,
};
use hook_host::{CallHints, EnqueueSink, FireHost, Host, StoreLocation, answer_call, take_mail};
use hook_rewake::RewakeStore;
use hook_wire::Client;
use serde_json::{Value, json};

/// A host over one registry and one store, as the daemon is for one project.
struct OneProject {
    registry: Arc<HookRegistry>,
    store: Arc<dyn RewakeStore>,
}

impl Host for OneProject {
    type Project = ();

    fn home(&self) -> Option<&Path> {
        None
    }

    fn open(&self, _: &Path, _: HookEventType) -> Result<(), String> {
        Ok(())
    }

    fn registry<'a>(&'a self, (): &'a ()) -> &'a Arc<HookRegistry> {
        &self.registry
    }

    fn any_withheld(&self, (): &()) -> bool {
        false
    }

    fn trust_command(&self, (): &()) -> String {
        String::new()
    }

    async fn dispatch(&self, (): &(), ctx: &HookContext) -> EventVerdict {
        HookEngine::new(self.registry.clone()).run_event(ctx, &CancellationToken::new()).await
    }

    fn mailbox(&self) -> Result<Option<Arc<dyn RewakeStore>>, hook_host::Error> {
        Ok(Some(self.store.clone()))
    }
}

/// Claude Code's answer to a call of `event` in session `s1` of `project`, through the pipeline.
async fn claude_call(host: &OneProject, event: &str, project: &Path) -> hook_host::Answered {
    let payload = json!({"hook_event_name": event, "session_id": "s1", "tool_name": "Bash", "tool_input": {}});
    let hints = CallHints { explicit: Some(project), client_project_dir: None, base: Path::new("/"), guarded: false };
    answer_call(host, Client::Claude, payload.to_string().as_bytes(), "test", hints).await
}

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

    let host = OneProject { registry: Arc::new(HookRegistry::new()), store: store.clone() };
    let answered = claude_call(&host, "PostToolUse", &project).await;
    let taken = answered.mail.expect("the answer carries the mail");
    let stdout: Value = serde_json::from_str(&answered.answer.stdout).expect("a JSON answer");
    assert_eq!(
        stdout,
        json!({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "CI is green (attempt 1)"}})
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

#[tokio::test]
async fn a_rewake_answer_reaches_the_sessions_next_user_prompt_submit_and_post_tool_use_failure() {
    let dir = tempfile::tempdir().expect("temp dir");
    let project = PathBuf::from("/work/project");
    let location = StoreLocation::Sqlite(dir.path().join("rewake.db"));
    let store = location.open().expect("store");
    let hooks = registry();
    let host = FireHost::start(
        store.clone(),
        Arc::new(move |_: Option<&Path>| Some(hooks.clone())),
        Duration::from_millis(20),
    )
    .expect("host starts");
    let mut fires = host.subscribe();
    host.ready();
    let calls = OneProject { registry: Arc::new(HookRegistry::new()), store: store.clone() };
    for (event, key) in [("UserPromptSubmit", "UserPromptSubmit"), ("PostToolUseFailure", "PostToolUseFailure")] {
        let sink = Arc::new(EnqueueSink::new(location.clone()));
        HookEngine::new(registry()).with_rewake(sink).run_event(&call("s1", &project), &CancellationToken::new()).await;
        tokio::time::timeout(Duration::from_secs(10), fires.recv()).await.expect("fired in time").expect("fire");
        let answered = claude_call(&calls, event, &project).await;
        let stdout: Value = serde_json::from_str(&answered.answer.stdout).expect("a JSON answer");
        assert_eq!(stdout["hookSpecificOutput"]["hookEventName"], key, "{event}");
        let context = stdout["hookSpecificOutput"]["additionalContext"].as_str().unwrap_or_default();
        assert!(context.starts_with("CI is green"), "{event}: {stdout}");
        answered.mail.expect("the answer carries the mail").ack().expect("ack");
    }
}
