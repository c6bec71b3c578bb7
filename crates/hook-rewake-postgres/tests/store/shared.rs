//! Two stores on one database, as two processes use it.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use hook_rewake::{Envelope, Lease, RewakeStore};
use hook_rewake_postgres::PgStore;
use tokio::time::timeout;

use crate::support::fixtures::{MIN, envelope_in, mail, next_attempt, plus, t0};
use crate::support::fresh_db;
use crate::support::worker::{Order, Share, work};

#[test]
fn two_stores_leasing_ten_thousand_envelopes_concurrently_fire_each_id_and_attempt_once() {
    let url = fresh_db();
    let a = Arc::new(PgStore::connect(&url).expect("a"));
    let b = Arc::new(PgStore::connect(&url).expect("b"));
    // Every other envelope fires twice (advanced to attempt 2 by whoever fires attempt 1).
    let batch: Vec<Envelope> = (0..10_000).map(|i| envelope_in("/p", &format!("h{i}"), 1 + i % 2)).collect();
    a.insert_batch(&batch).expect("insert");
    let workers: Vec<_> = [
        (a.clone(), "a1", Order::ById),
        (a, "a2", Order::Reverse),
        (b.clone(), "b1", Order::ById),
        (b, "b2", Order::Reverse),
    ]
    .into_iter()
    .map(|(store, owner, order)| {
        std::thread::spawn(move || work(store.as_ref(), owner, 10 * MIN, order, Share::ALL, |_, _| {}, |_, _| {}))
    })
    .collect();
    let mut counts: HashMap<(String, u32), usize> = HashMap::new();
    for worker in workers {
        let tally = worker.join().expect("worker");
        assert!(tally.errors.is_empty(), "{:?}", tally.errors);
        for fire in tally.fired {
            *counts.entry(fire).or_default() += 1;
        }
    }
    let twice: Vec<_> = counts.iter().filter(|(_, n)| **n > 1).collect();
    assert!(twice.is_empty(), "fired more than once: {twice:?}");
    assert_eq!(counts.len(), 15_000, "every attempt of every envelope fired");
    for e in &batch {
        assert!(counts.contains_key(&(e.id.clone(), 1)), "{} attempt 1 lost", e.id);
        if e.max_attempts == 2 {
            assert!(counts.contains_key(&(e.id.clone(), 2)), "{} attempt 2 lost", e.id);
        }
    }
}

#[test]
fn mail_put_through_one_store_is_taken_through_the_other_once() {
    let url = fresh_db();
    let a = PgStore::connect(&url).expect("a");
    let b = PgStore::connect(&url).expect("b");
    let m = mail("session-9", "the build is green", 1);
    assert!(a.put_mail(&m).expect("put"));
    assert!(!b.put_mail(&m).expect("put"), "a re-fire elsewhere does not mail twice");
    let now = plus(t0(), 2 * MIN);
    let taken = b.take_mail("session-9", &Lease::new("b", plus(now, MIN)), now).expect("take");
    assert_eq!(taken, std::slice::from_ref(&m));
    assert!(a.take_mail("session-9", &Lease::new("a", plus(now, MIN)), now).expect("take").is_empty());
    assert_eq!(b.ack_mail("b", &[m.id]).expect("ack"), 1);
    assert_eq!(a.mail_depth().expect("depth"), 0);
}

#[test]
fn concurrent_takers_of_one_mailbox_never_get_the_same_mail() {
    let url = fresh_db();
    let a = Arc::new(PgStore::connect(&url).expect("a"));
    let b = Arc::new(PgStore::connect(&url).expect("b"));
    let mails: Vec<_> = (0..200).map(|i| mail("s", &format!("m{i}"), 1)).collect();
    for m in &mails {
        a.put_mail(m).expect("put");
    }
    let now = plus(t0(), 2 * MIN);
    let takers: Vec<_> = [(a, "a"), (b, "b")]
        .into_iter()
        .flat_map(|(store, name)| (0..3).map(move |i| (store.clone(), format!("{name}{i}"))))
        .map(|(store, owner)| {
            std::thread::spawn(move || {
                let mut got = Vec::new();
                for _ in 0..20 {
                    got.extend(store.take_mail("s", &Lease::new(owner.clone(), plus(now, MIN)), now).expect("take"));
                }
                got
            })
        })
        .collect();
    let mut ids: Vec<String> = takers.into_iter().flat_map(|t| t.join().expect("taker")).map(|m| m.id).collect();
    let taken = ids.len();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), taken, "a mail was taken twice");
    assert_eq!(taken, 200, "every mail was taken");
}

/// Waits until `store`'s LISTEN connection is up (an insert elsewhere wakes it), then drains
/// stored permits.
async fn listening(signal: &tokio::sync::Notify, other: &PgStore) {
    for _ in 0..100 {
        other.insert(&envelope_in("/warm", "warm-up", 1)).expect("insert");
        if timeout(Duration::from_millis(200), signal.notified()).await.is_ok() {
            while timeout(Duration::from_millis(100), signal.notified()).await.is_ok() {}
            return;
        }
    }
    panic!("the LISTEN connection never came up");
}

#[tokio::test]
async fn an_envelope_scheduled_or_advanced_through_one_store_wakes_the_other() {
    let url = fresh_db();
    let a = PgStore::connect(&url).expect("a");
    let b = PgStore::connect(&url).expect("b");
    let signal = b.wake_signal().expect("a postgres store has a wake signal");
    listening(&signal, &a).await;
    assert!(timeout(Duration::from_millis(300), signal.notified()).await.is_err(), "no change, no wake-up");

    let e = envelope_in("/p", "h", 2);
    a.insert(&e).expect("insert");
    timeout(Duration::from_secs(2), signal.notified()).await.expect("the insert woke the other store");
    let cursor = b.load().expect("load").cursor;

    let lease = Lease::new("a", plus(t0(), MIN));
    assert_eq!(a.lease(&e.id, 1, &lease, t0(), None).expect("lease"), hook_rewake::LeaseOutcome::Taken);
    assert!(a.finish(&e.id, 1, "a", Some(&next_attempt(&e))).expect("finish"));
    timeout(Duration::from_secs(2), signal.notified()).await.expect("the advance woke the other store");
    let changes = b.changes_since(cursor).expect("changes");
    assert_eq!(changes.envelopes.len(), 1);
    assert_eq!(changes.envelopes[0].envelope.attempt, 2);
}
