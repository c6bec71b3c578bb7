//! Where a fire's answer goes when nobody can be re-entered: engine-level envelopes fire with
//! their snapshot as built-in context (R-RW-12); a fallback [`MailboxRuntime`] rebuilds the
//! context from the envelope and mails the hook's answer to the session (R-RW-4b/11/11b).

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::TimeDelta;
use hook_core::{FnHook, HookContext, HookEventType, HookRegistry, HookResult};
use hook_rewake::{
    DefaultRewakeFireListener, DefaultRewakeService, Envelope, Lease, MailboxRuntime, MemoryStore, RewakeService,
    RewakeStore, RuntimeRegistry,
};
use tokio::time::sleep;

use crate::support::{HOUR, MIN, delay, spec, t0};

type Seen = Arc<Mutex<Vec<HookContext>>>;

struct Rig {
    hooks: Arc<HookRegistry>,
    runtimes: Arc<RuntimeRegistry>,
    store: Arc<MemoryStore>,
    service: Arc<DefaultRewakeService>,
}

fn rig() -> Rig {
    let hooks = Arc::new(HookRegistry::new());
    let runtimes = Arc::new(RuntimeRegistry::new());
    let store = Arc::new(MemoryStore::new());
    let listener = Arc::new(DefaultRewakeFireListener::new(hooks.clone(), runtimes.clone()));
    let service =
        DefaultRewakeService::builder(listener).store(store.clone()).clock_start(t0()).start().expect("start");
    Rig { hooks, runtimes, store, service }
}

fn answering(rig: &Rig, event: HookEventType, id: &str, answer: HookResult) -> Seen {
    let seen = Seen::default();
    let log = seen.clone();
    rig.hooks.register(
        event,
        FnHook::new(id, move |ctx: HookContext| {
            log.lock().expect("seen").push(ctx);
            let answer = answer.clone();
            async move { Ok(answer) }
        }),
    );
    seen
}

fn session_envelope(event: HookEventType, hook: &str, session: &str) -> Envelope {
    let mut ctx = HookContext::new(event);
    ctx.context_id = Some("process-that-is-gone".into());
    ctx.session_id = Some(session.into());
    ctx.project_dir = Some(PathBuf::from("/work/project"));
    Envelope::new(hook, ctx, spec(delay(MIN), HOUR, 1), 1)
}

fn take_all(rig: &Rig, session: &str) -> Vec<hook_rewake::Mail> {
    let now = rig.service.now();
    rig.store.take_mail(session, &Lease::new("reader", now + TimeDelta::minutes(1)), now).expect("take mail")
}

#[tokio::test(start_paused = true)]
async fn an_engine_level_envelope_fires_with_its_snapshot_as_built_in_context() {
    let rig = rig();
    let seen = answering(&rig, HookEventType::ON_CONFIG_RELOAD, "command@project#0", HookResult::allow());
    let ctx = HookContext::new(HookEventType::ON_CONFIG_RELOAD).with_field("reload_counter", 7);
    let id = rig
        .service
        .schedule(Envelope::new("command@project#0", ctx, spec(delay(MIN), HOUR, 1), 1))
        .expect("schedule")
        .expect("id");
    sleep(2 * MIN).await;
    let seen = seen.lock().expect("seen").clone();
    assert_eq!(seen.len(), 1, "the engine-level rewake fired");
    let rewake = seen[0].rewake.clone().expect("a rewake invocation");
    assert_eq!((rewake.envelope_id, rewake.attempt), (id, 1));
    assert_eq!(seen[0].fields["reload_counter"], 7);
}

#[tokio::test(start_paused = true)]
async fn a_fire_whose_process_is_gone_mails_the_hooks_feedback_to_its_session() {
    let rig = rig();
    rig.runtimes.set_fallback(Arc::new(MailboxRuntime::new(rig.store.clone())));
    let seen = answering(&rig, HookEventType::POST_TOOL, "command@project#1", HookResult::feedback("CI is green"));
    let id = rig
        .service
        .schedule(session_envelope(HookEventType::POST_TOOL, "command@project#1", "s-1"))
        .expect("schedule")
        .expect("id");
    sleep(2 * MIN).await;
    assert_eq!(
        seen.lock().expect("seen")[0].project_dir,
        Some(PathBuf::from("/work/project")),
        "rebuilt from the envelope"
    );
    assert!(take_all(&rig, "s-other").is_empty());
    let mail = take_all(&rig, "s-1");
    assert_eq!(mail.len(), 1);
    assert_eq!(mail[0].id, format!("{id}#1"));
    assert_eq!(mail[0].text, "CI is green");
    assert!(!mail[0].block);
    assert_eq!(mail[0].hook_id, "command@project#1");
    assert_eq!(mail[0].expires_at - mail[0].created_at, TimeDelta::hours(24));
}

#[tokio::test(start_paused = true)]
async fn a_blocking_answer_is_mailed_as_a_block_and_silence_mails_nothing() {
    let rig = rig();
    rig.runtimes.set_fallback(Arc::new(MailboxRuntime::new(rig.store.clone()).with_ttl(Duration::from_secs(600))));
    answering(&rig, HookEventType::ON_STOP, "command@project#2", HookResult::block("tests still fail"));
    answering(&rig, HookEventType::SUBAGENT_STOP, "command@project#3", HookResult::allow());
    rig.service.schedule(session_envelope(HookEventType::ON_STOP, "command@project#2", "s-1")).expect("schedule");
    rig.service.schedule(session_envelope(HookEventType::SUBAGENT_STOP, "command@project#3", "s-1")).expect("schedule");
    sleep(2 * MIN).await;
    let mail = take_all(&rig, "s-1");
    assert_eq!(mail.len(), 1, "{mail:?}");
    assert!(mail[0].block);
    assert_eq!(mail[0].text, "tests still fail");
    assert_eq!(mail[0].expires_at - mail[0].created_at, TimeDelta::minutes(10));
}

#[tokio::test(start_paused = true)]
async fn without_a_fallback_a_fire_for_an_unregistered_context_is_dropped() {
    let rig = rig();
    let seen = answering(&rig, HookEventType::POST_TOOL, "command@project#1", HookResult::feedback("x"));
    rig.service.schedule(session_envelope(HookEventType::POST_TOOL, "command@project#1", "s-1")).expect("schedule");
    sleep(2 * MIN).await;
    assert!(seen.lock().expect("seen").is_empty());
    assert_eq!(rig.store.mail_depth().expect("depth"), 0);
    assert!(rig.service.pending().is_empty(), "the dropped fire still finished its envelope");
}
