//! The server goes away and comes back. Each test runs its own cluster, so stopping it does
//! not disturb the other tests.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use hook_rewake::{Envelope, RewakeStore};
use hook_rewake_postgres::PgStore;
use tokio::time::timeout;

use crate::support::Cluster;
use crate::support::fixtures::envelope_in;
use crate::support::worker::{Order, Share, work};

#[test]
fn the_server_restarted_under_load_both_stores_reconnect_and_nothing_is_lost() {
    let cluster = Cluster::start();
    let url = cluster.create_db();
    let a = Arc::new(PgStore::connect(&url).expect("a"));
    let b = Arc::new(PgStore::connect(&url).expect("b"));
    let batch: Vec<Envelope> = (0..3_000).map(|i| envelope_in("/p", &format!("h{i}"), 1 + i % 2)).collect();
    a.insert_batch(&batch).expect("insert");
    let fired = Arc::new(AtomicUsize::new(0));
    let workers: Vec<_> = [(a.clone(), "a", Order::ById), (b.clone(), "b", Order::Reverse)]
        .into_iter()
        .map(|(store, owner, order)| {
            let fired = fired.clone();
            std::thread::spawn(move || {
                let slow_hook = |_: &str, _: u32| {
                    fired.fetch_add(1, Ordering::Relaxed);
                    std::thread::sleep(Duration::from_millis(1));
                };
                work(store.as_ref(), owner, Duration::from_secs(5), order, Share::ALL, slow_hook, |_, _| {})
            })
        })
        .collect();
    let start = Instant::now();
    while fired.load(Ordering::Relaxed) < 600 {
        assert!(start.elapsed() < Duration::from_secs(60), "the workers never got going");
        std::thread::sleep(Duration::from_millis(10));
    }
    cluster.restart();
    let mut counts: HashMap<(String, u32), usize> = HashMap::new();
    let (mut errors, mut lost_finishes) = (Vec::new(), 0);
    for worker in workers {
        let tally = worker.join().expect("worker");
        errors.extend(tally.errors);
        lost_finishes += tally.lost_finishes;
        for fire in tally.fired {
            *counts.entry(fire).or_default() += 1;
        }
    }
    assert!(!errors.is_empty(), "the restart under load was noticed by the callers");
    for err in &errors {
        assert!(
            err.starts_with("rewake store failed: ")
                && (err.contains("unreachable") || err.contains("closed") || err.contains("postgres")),
            "an outage error says what happened: {err}"
        );
    }
    assert_eq!(counts.len(), 4_500, "every attempt of every envelope fired after the restart");
    let twice = counts.values().filter(|n| **n > 1).count();
    assert!(twice <= lost_finishes, "{twice} double fires but only {lost_finishes} finishes lost to a takeover");
    assert!(a.load().expect("a reconnected").envelopes.is_empty());
    assert!(b.load().expect("b reconnected").envelopes.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_while_the_server_is_down_fail_loudly_and_work_again_once_it_is_back() {
    let cluster = Cluster::start();
    let url = cluster.create_db();
    let a = PgStore::connect(&url).expect("a");
    let b = PgStore::connect(&url).expect("b");
    let kept = envelope_in("/p", "kept", 1);
    a.insert(&kept).expect("insert");
    cluster.stop();
    let err = a.insert(&envelope_in("/p", "during", 1)).expect_err("an insert while the server is down fails");
    assert!(matches!(err, hook_rewake::Error::Store(_)));
    let text = err.to_string();
    assert!(text.contains("unreachable") || text.contains("closed"), "{text}");
    let err = b.load().expect_err("a load while the server is down fails");
    assert!(err.to_string().starts_with("rewake store failed: "), "{err}");

    cluster.start_again();
    let deadline = Instant::now() + Duration::from_secs(20);
    let rows = loop {
        match a.load() {
            Ok(snapshot) => break snapshot.envelopes,
            Err(err) => assert!(Instant::now() < deadline, "the store never reconnected: {err}"),
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let ids: Vec<&str> = rows.iter().map(|r| r.envelope.id.as_str()).collect();
    assert_eq!(ids, [kept.id.as_str()], "what was committed survived; the failed insert left nothing");

    // The LISTEN connection came back by itself: an insert through a wakes b again.
    let signal = b.wake_signal().expect("signal");
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        a.insert(&envelope_in("/p", "after", 1)).expect("insert after the restart");
        if timeout(Duration::from_millis(500), signal.notified()).await.is_ok() {
            break;
        }
        assert!(Instant::now() < deadline, "the LISTEN connection never came back");
    }
}
