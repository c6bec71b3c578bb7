//! Fire leases under the paused clock (R-RW-9): a fire holds its lease until the hook
//! finishes, a dead owner's lease is taken over after it expires and the same (id, attempt)
//! fires again, a live lease is never taken; overdue envelopes wait for `ready`; one-shot
//! processes' envelopes are picked up by polling (R-RW-12); cancel by hook id is per project.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use chrono::TimeDelta;
use hook_rewake::{
    DefaultRewakeService, Envelope, Fire, FireFuture, Lease, LeaseOutcome, MemoryStore, RewakeFireListener,
    RewakeService, RewakeStore,
};
use tokio::sync::{Semaphore, mpsc};
use tokio::time::sleep;

use crate::support::{HOUR, MIN, delay, drain, envelope, event, payload, recorder, spec, t0};

/// A listener whose fires stay in flight until the test adds permits (or forever), with a
/// declared budget.
#[derive(Debug)]
struct Gate {
    tx: mpsc::UnboundedSender<Fire>,
    open: Arc<Semaphore>,
    budget: Duration,
}

impl RewakeFireListener for Gate {
    fn on_fire(self: Arc<Self>, fire: Fire) -> FireFuture {
        self.tx.send(fire).expect("test receiver alive");
        Box::pin(async move {
            self.open.acquire().await.expect("gate open").forget();
        })
    }

    fn budget(&self, _envelope: &Envelope) -> Duration {
        self.budget
    }
}

fn gate(budget: Duration) -> (Arc<Gate>, mpsc::UnboundedReceiver<Fire>, Arc<Semaphore>) {
    let (tx, rx) = mpsc::unbounded_channel();
    let open = Arc::new(Semaphore::new(0));
    (Arc::new(Gate { tx, open: open.clone(), budget }), rx, open)
}

fn start(
    listener: Arc<dyn RewakeFireListener>,
    store: &Arc<MemoryStore>,
    wall: chrono::DateTime<chrono::Utc>,
) -> Arc<DefaultRewakeService> {
    DefaultRewakeService::builder(listener).store(store.clone()).clock_start(wall).start().expect("start")
}

#[tokio::test(start_paused = true)]
async fn a_fire_holds_a_lease_of_budget_plus_35_s_and_the_row_leaves_only_when_the_hook_finishes() {
    let store = Arc::new(MemoryStore::new());
    let (listener, mut rx, open) = gate(Duration::from_secs(100));
    let service = start(listener, &store, t0());
    let id = service.schedule(envelope("h", "c", spec(delay(MIN), HOUR, 3))).expect("s").expect("id");
    let fire = rx.recv().await.expect("fire");
    assert_eq!((fire.envelope.id.as_str(), fire.envelope.attempt), (id.as_str(), 1));
    let rows = store.load().expect("load").envelopes;
    assert_eq!(rows.len(), 1, "the envelope stays stored while its hook runs");
    let lease = rows[0].lease.clone().expect("leased");
    assert_eq!(lease.owner, service.owner());
    assert_eq!(lease.until, fire.fired_at + TimeDelta::seconds(135), "budget 100 s + 5 s grace + 30 s");
    assert_eq!(service.pending().len(), 1, "in flight is still pending");

    open.add_permits(1);
    sleep(Duration::from_millis(1)).await;
    assert!(store.load().expect("load").envelopes.is_empty(), "a finished fire deletes the envelope");
    assert!(service.pending().is_empty());
}

#[tokio::test(start_paused = true)]
async fn an_owner_that_dies_mid_fire_is_taken_over_after_its_lease_expires_with_the_same_id_and_attempt() {
    let store = Arc::new(MemoryStore::new());
    let (hanging, mut first_rx, _never) = gate(Duration::from_secs(30));
    let first = start(hanging, &store, t0());
    let id = first.schedule(envelope("h", "c", spec(delay(MIN), HOUR, 3))).expect("s").expect("id");
    let fire = first_rx.recv().await.expect("first fire");
    let lease_until = store.load().expect("load").envelopes[0].lease.clone().expect("leased").until;
    assert_eq!(lease_until, fire.fired_at + TimeDelta::seconds(65));
    drop(first); // the process "dies": its fire never finishes

    let (listener, mut rx) = recorder();
    let restarted = start(listener, &store, fire.fired_at + TimeDelta::seconds(1));
    assert_eq!(restarted.pending().len(), 1, "the in-flight envelope was not lost");
    sleep(Duration::from_secs(63)).await;
    assert!(drain(&mut rx).is_empty(), "a live lease was taken over early");
    sleep(Duration::from_secs(2)).await;
    let again = drain(&mut rx);
    assert_eq!(again.len(), 1, "fired again once the lease expired");
    assert_eq!((again[0].envelope.id.as_str(), again[0].envelope.attempt), (id.as_str(), 1));
    sleep(Duration::from_millis(1)).await;
    assert!(store.load().expect("load").envelopes.is_empty());
    sleep(HOUR).await;
    assert!(drain(&mut rx).is_empty(), "fired a third time");
}

#[tokio::test(start_paused = true)]
async fn two_services_never_fire_the_same_attempt_while_its_lease_is_live() {
    let store = Arc::new(MemoryStore::new());
    let (slow_a, mut rx_a, open_a) = gate(Duration::from_secs(30));
    let (slow_b, mut rx_b, open_b) = gate(Duration::from_secs(30));
    let a = start(slow_a, &store, t0());
    for hook in ["x", "y", "z"] {
        a.schedule(envelope(hook, "c", spec(delay(MIN), HOUR, 3))).expect("schedule");
    }
    let b = start(slow_b, &store, t0());
    assert_eq!(b.pending().len(), 3);
    sleep(MIN + Duration::from_secs(10)).await;
    let fired = drain(&mut rx_a).len() + drain(&mut rx_b).len();
    assert_eq!(fired, 3, "each envelope fired by exactly one service");
    open_a.add_permits(3);
    open_b.add_permits(3);
    sleep(10 * MIN).await;
    assert_eq!(drain(&mut rx_a).len() + drain(&mut rx_b).len(), 0, "a finished fire never repeats");
    assert!(store.load().expect("load").envelopes.is_empty());
}

#[tokio::test(start_paused = true)]
async fn a_resolved_event_taken_over_after_a_crash_fires_with_the_resolved_payload() {
    let store = Arc::new(MemoryStore::new());
    let (hanging, mut first_rx, _never) = gate(Duration::from_secs(30));
    let first = start(hanging, &store, t0());
    first.schedule(envelope("h", "c", spec(event("approval", "k"), HOUR, 3))).expect("schedule");
    assert_eq!(first.resolve("approval", "k", payload(&[("approved", "yes")])), 1);
    let fire = first_rx.recv().await.expect("fire");
    drop(first);

    let (listener, mut rx) = recorder();
    let _restarted = start(listener, &store, fire.fired_at);
    sleep(Duration::from_secs(66)).await;
    let again = drain(&mut rx);
    assert_eq!(again.len(), 1);
    assert_eq!(again[0].payload, fire.payload);
    assert_eq!(again[0].payload["approved"], "yes");
}

#[tokio::test(start_paused = true)]
async fn envelopes_overdue_at_start_wait_for_ready_and_then_fire_once() {
    let store = Arc::new(MemoryStore::new());
    let (listener, _rx) = recorder();
    let first = start(listener, &store, t0());
    let id = first.schedule(envelope("h", "c", spec(delay(MIN), HOUR, 3))).expect("s").expect("id");
    drop(first);

    let (listener, mut rx) = recorder();
    let service = DefaultRewakeService::builder(listener)
        .store(store.clone())
        .clock_start(t0() + TimeDelta::minutes(30))
        .wait_for_ready()
        .start()
        .expect("start");
    sleep(10 * MIN).await;
    assert!(drain(&mut rx).is_empty(), "fired before the runtimes were ready");
    assert_eq!(service.pending().len(), 1, "an overdue envelope is kept, not dropped");
    service.ready();
    let fire = rx.recv().await.expect("fires once ready");
    assert_eq!(fire.envelope.id, id);
    sleep(HOUR).await;
    assert!(drain(&mut rx).is_empty());
}

#[tokio::test(start_paused = true)]
async fn a_polling_service_fires_what_a_one_shot_process_enqueued_in_the_store() {
    let store = Arc::new(MemoryStore::new());
    let (listener, mut rx) = recorder();
    let daemon = DefaultRewakeService::builder(listener)
        .store(store.clone())
        .clock_start(t0())
        .poll_store(Duration::from_secs(1))
        .start()
        .expect("start");
    // A one-shot process (`run`) schedules into the same store and exits.
    let (quiet, _quiet_rx) = recorder();
    let one_shot = start(quiet, &store, t0());
    let id = one_shot.schedule(envelope("h", "c", spec(delay(MIN), HOUR, 3))).expect("s").expect("id");
    drop(one_shot);
    sleep(Duration::from_secs(2)).await;
    assert_eq!(daemon.pending().len(), 1, "the daemon picked the row up");
    let fire = rx.recv().await.expect("fires");
    assert_eq!(fire.envelope.id, id);
    assert_eq!(daemon.sync().expect("sync"), 0, "nothing new");
}

#[tokio::test(start_paused = true)]
async fn cancel_by_hook_id_cancels_only_in_the_given_project() {
    let store = Arc::new(MemoryStore::new());
    let (listener, mut rx) = recorder();
    let service = start(listener, &store, t0());
    let in_project = |project: &str| {
        let mut e = envelope("command@project#0", "c", spec(delay(MIN), HOUR, 3));
        e.context.project_dir = Some(project.into());
        e
    };
    service.schedule(in_project("/a")).expect("schedule");
    let kept = service.schedule(in_project("/b")).expect("s").expect("id");
    assert_eq!(service.cancel_by_hook_id(Some(Path::new("/a")), "command@project#0"), 1);
    assert_eq!(service.cancel_by_hook_id(None, "command@project#0"), 0, "no project-less envelope");
    sleep(2 * MIN).await;
    let fired: Vec<String> = drain(&mut rx).into_iter().map(|f| f.envelope.id).collect();
    assert_eq!(fired, [kept]);
}

#[tokio::test(start_paused = true)]
async fn a_lease_the_store_reports_held_is_retried_at_its_expiry() {
    let store = Arc::new(MemoryStore::new());
    let (listener, mut rx) = recorder();
    let service = start(listener, &store, t0());
    let id = service.schedule(envelope("h", "c", spec(delay(MIN), HOUR, 3))).expect("s").expect("id");
    // Another process leased it first, for two minutes from 00:00:30.
    let other = Lease::new("other", t0() + TimeDelta::seconds(150));
    assert_eq!(store.lease(&id, 1, &other, t0() + TimeDelta::seconds(30), None).expect("lease"), LeaseOutcome::Taken);
    sleep(2 * MIN).await;
    assert!(drain(&mut rx).is_empty(), "fired under another owner's live lease");
    sleep(MIN).await;
    assert_eq!(drain(&mut rx).len(), 1, "taken over at the lease's expiry");
}
