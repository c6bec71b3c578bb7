//! Restarts from a durable store under the paused clock (R-RW-9) and two services sharing one
//! store (the claim contract R-RW-10 relies on).

use std::sync::Arc;

use hook_rewake::{DefaultRewakeService, MemoryStore, RewakeService, RewakeStore, SqliteStore};
use tokio::time::sleep;

use crate::support::{HOUR, MIN, at, cron, delay, drain, envelope, event, recorder, spec, t0};

#[tokio::test(start_paused = true)]
async fn a_restart_from_sqlite_fires_what_became_due_once_discards_the_expired_and_never_fires_twice() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("rewake.db");
    let (first_listener, mut first_rx) = recorder();
    let first = DefaultRewakeService::builder(first_listener)
        .store(Arc::new(SqliteStore::open(&path).expect("open")))
        .clock_start(t0())
        .start()
        .expect("start");
    let due = first.schedule(envelope("due", "c", spec(delay(10 * MIN), 3 * HOUR, 3))).expect("s").expect("id");
    let later = first.schedule(envelope("later", "c", spec(delay(3 * HOUR), 4 * HOUR, 3))).expect("s").expect("id");
    first.schedule(envelope("expired", "c", spec(event("approval", "k"), 30 * MIN, 1))).expect("s");
    let hourly =
        first.schedule(envelope("hourly", "c", spec(cron("0 * * * *", "UTC"), 24 * HOUR, 5))).expect("s").expect("id");
    drop(first);
    assert!(drain(&mut first_rx).is_empty());

    // Down from 00:00 to 02:00: `due` (00:10) and the 01:00 tick of `hourly` became due.
    let (listener, mut rx) = recorder();
    let second = DefaultRewakeService::builder(listener)
        .store(Arc::new(SqliteStore::open(&path).expect("reopen")))
        .clock_start(at("2026-03-01T02:00:00Z"))
        .start()
        .expect("restart");
    sleep(MIN).await;
    let mut fired: Vec<(String, u32)> =
        drain(&mut rx).into_iter().map(|f| (f.envelope.id, f.envelope.attempt)).collect();
    fired.sort();
    let mut expected = vec![(due.clone(), 1), (hourly.clone(), 1)];
    expected.sort();
    assert_eq!(fired, expected);
    let pending: Vec<(String, u32)> = second.pending().into_iter().map(|e| (e.id, e.attempt)).collect();
    let mut expected_pending = vec![(later.clone(), 1), (hourly.clone(), 2)];
    expected_pending.sort();
    let mut pending_sorted = pending.clone();
    pending_sorted.sort();
    assert_eq!(pending_sorted, expected_pending);
    drop(second);

    // A second restart at the same instant fires nothing again.
    let (listener, mut rx) = recorder();
    let third = DefaultRewakeService::builder(listener)
        .store(Arc::new(SqliteStore::open(&path).expect("reopen")))
        .clock_start(at("2026-03-01T02:00:30Z"))
        .start()
        .expect("restart");
    sleep(MIN).await;
    assert!(drain(&mut rx).is_empty(), "an envelope fired twice across restarts");
    assert_eq!(third.pending().len(), 2);
    // And what is still pending fires on time: hourly at 03:00 (attempt 2) and `later` at 03:00.
    sleep(HOUR).await;
    let mut fired: Vec<(String, u32)> =
        drain(&mut rx).into_iter().map(|f| (f.envelope.id, f.envelope.attempt)).collect();
    fired.sort();
    let mut expected = vec![(later, 1), (hourly, 2)];
    expected.sort();
    assert_eq!(fired, expected);
}

#[tokio::test(start_paused = true)]
async fn cancel_and_fire_remove_rows_from_the_sqlite_store() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Arc::new(SqliteStore::open(dir.path().join("rewake.db")).expect("open"));
    let (listener, mut rx) = recorder();
    let service =
        DefaultRewakeService::builder(listener).store(store.clone()).clock_start(t0()).start().expect("start");
    let fires = service.schedule(envelope("a", "c", spec(delay(MIN), HOUR, 3))).expect("s").expect("id");
    let cancelled = service.schedule(envelope("b", "c", spec(delay(MIN), HOUR, 3))).expect("s").expect("id");
    service.schedule(envelope("c", "c", spec(event("k", "v"), HOUR, 3))).expect("s");
    assert_eq!(store.load().expect("load").envelopes.len(), 3);
    assert!(service.cancel(&cancelled));
    assert_eq!(service.cancel_by_hook_id(None, "c"), 1);
    assert_eq!(store.load().expect("load").envelopes.len(), 1);
    rx.recv().await.expect("fire");
    assert_eq!(drain(&mut rx).len(), 0);
    assert!(store.load().expect("load").envelopes.is_empty(), "{fires} still stored after firing");
}

#[tokio::test(start_paused = true)]
async fn two_services_sharing_one_store_fire_each_envelope_once() {
    let store = Arc::new(MemoryStore::new());
    let (listener_a, mut rx_a) = recorder();
    let a = DefaultRewakeService::builder(listener_a).store(store.clone()).clock_start(t0()).start().expect("a");
    for hook in ["x", "y", "z"] {
        a.schedule(envelope(hook, "c", spec(delay(MIN), HOUR, 3))).expect("schedule");
    }
    a.schedule(envelope("tick", "c", spec(cron("* * * * *", "UTC"), HOUR, 3))).expect("schedule");
    let (listener_b, mut rx_b) = recorder();
    let b = DefaultRewakeService::builder(listener_b).store(store.clone()).clock_start(t0()).start().expect("b");
    assert_eq!(b.pending().len(), 4, "b loaded the shared rows");

    sleep(10 * MIN).await;
    let mut fired: Vec<(String, u32)> = drain(&mut rx_a)
        .into_iter()
        .chain(drain(&mut rx_b))
        .map(|f| (f.envelope.hook_id, f.envelope.attempt))
        .collect();
    fired.sort();
    let expected: Vec<(String, u32)> =
        [("tick", 1), ("tick", 2), ("tick", 3), ("x", 1), ("y", 1), ("z", 1)].map(|(h, n)| (h.to_owned(), n)).into();
    assert_eq!(fired, expected);
    assert!(store.load().expect("load").envelopes.is_empty());
}

#[tokio::test(start_paused = true)]
async fn an_unreadable_row_is_skipped_and_the_service_still_starts_with_the_rest() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("rewake.db");
    let (listener, _rx) = recorder();
    let first = DefaultRewakeService::builder(listener)
        .store(Arc::new(SqliteStore::open(&path).expect("open")))
        .clock_start(t0())
        .start()
        .expect("start");
    first.schedule(envelope("good", "c", spec(delay(MIN), HOUR, 3))).expect("schedule");
    drop(first);
    let conn = rusqlite::Connection::open(&path).expect("raw open");
    conn.execute(
        "INSERT INTO rewake_envelope (id, hook_id, attempt, body) VALUES ('rw-bad', 'h', 1, '{\"not\": \"an envelope\"}')",
        [],
    )
    .expect("insert garbage");
    drop(conn);

    let (listener, mut rx) = recorder();
    let second = DefaultRewakeService::builder(listener)
        .store(Arc::new(SqliteStore::open(&path).expect("open")))
        .clock_start(t0())
        .start()
        .expect("start");
    let pending: Vec<String> = second.pending().into_iter().map(|e| e.hook_id).collect();
    assert_eq!(pending, ["good"]);
    assert_eq!(rx.recv().await.expect("fire").envelope.hook_id, "good");
}

/// Another process's insert (a second connection to the file, as `aimon-hooks claude` has) is
/// read through the store's wake signal: this service polls never, so nothing else could.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_envelope_another_connection_writes_to_sqlite_fires_without_any_poll() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("rewake.db");
    let (listener, mut rx) = recorder();
    let service = DefaultRewakeService::builder(listener)
        .store(Arc::new(SqliteStore::open(&path).expect("open")))
        .start()
        .expect("start");
    let other = SqliteStore::open(&path).expect("a second connection");
    let mut due_now = envelope("from-elsewhere", "c", spec(delay(std::time::Duration::ZERO), HOUR, 1));
    due_now.stamp(chrono::Utc::now()).expect("stamp");
    let written = std::time::Instant::now();
    other.insert(&due_now).expect("insert through the other connection");
    let fire = tokio::time::timeout(std::time::Duration::from_secs(5), rx.recv())
        .await
        .expect("picked up within 5 s with no poll")
        .expect("a fire");
    assert_eq!(fire.envelope.id, due_now.id);
    eprintln!("picked up and fired {:?} after the other connection's commit", written.elapsed());
    drop(service);
}
