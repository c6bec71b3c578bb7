//! The store contract (the same table as hook-rewake's memory and SQLite store tests), run
//! against PostgreSQL, plus the migrations.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use hook_core::RewakeTrigger;
use hook_rewake::{Envelope, Lease, LeaseOutcome, RewakeStore};
use hook_rewake_postgres::PgStore;

use crate::support::fixtures::{HOUR, MIN, envelope_in, mail, next_attempt, plus, t0};
use crate::support::{admin, fresh_db};

fn store() -> PgStore {
    PgStore::connect(&fresh_db()).expect("connect")
}

#[test]
fn a_lease_is_exclusive_until_it_expires_and_then_anyone_takes_over() {
    let store = store();
    let e = envelope_in("/p", "h", 3);
    store.insert(&e).expect("insert");
    let a = Lease::new("a", plus(t0(), MIN));
    let b = Lease::new("b", plus(t0(), 3 * MIN));
    assert_eq!(store.lease(&e.id, 1, &a, t0(), None).expect("lease"), LeaseOutcome::Taken);
    assert_eq!(
        store.lease(&e.id, 1, &b, plus(t0(), MIN - Duration::from_secs(1)), None).expect("lease"),
        LeaseOutcome::Held(a.until),
        "a live lease is not taken"
    );
    assert_eq!(store.lease(&e.id, 1, &b, a.until, None).expect("lease"), LeaseOutcome::Taken, "takeover at expiry");
    assert!(!store.finish(&e.id, 1, "a", None).expect("finish"), "the old owner cannot finish");
    let row = store.load().expect("load").envelopes.pop().expect("row still stored");
    assert_eq!(row.lease, Some(b.clone()));
    assert!(store.finish(&e.id, 1, "b", None).expect("finish"));
    assert!(store.load().expect("load").envelopes.is_empty());
    assert_eq!(store.lease(&e.id, 1, &a, t0(), None).expect("lease"), LeaseOutcome::Gone);
}

#[test]
fn finishing_with_a_next_attempt_advances_the_row_and_clears_the_lease() {
    let store = store();
    let e = envelope_in("/p", "h", 3);
    store.insert(&e).expect("insert");
    let cursor = store.load().expect("load").cursor;
    let a = Lease::new("a", plus(t0(), MIN));
    assert_eq!(store.lease(&e.id, 1, &a, t0(), None).expect("lease"), LeaseOutcome::Taken);
    let next = next_attempt(&e);
    assert!(!store.finish(&e.id, 2, "a", Some(&next)).expect("finish"), "the wrong attempt is not finished");
    assert!(store.finish(&e.id, 1, "a", Some(&next)).expect("finish"));
    let changes = store.changes_since(cursor).expect("changes");
    assert_eq!(changes.envelopes.len(), 1, "the advanced row is a change");
    assert_eq!(changes.envelopes[0].envelope, next);
    assert_eq!(changes.envelopes[0].lease, None);
    assert!(changes.cursor > cursor);
    assert!(store.changes_since(changes.cursor).expect("changes").envelopes.is_empty());
    match store.lease(&e.id, 1, &a, t0(), None).expect("lease") {
        LeaseOutcome::Moved(row) => assert_eq!(row.envelope.attempt, 2),
        other => panic!("a stale attempt must answer Moved, got {other:?}"),
    }
}

#[test]
fn a_lease_with_a_body_stores_the_resolved_envelope_for_a_takeover() {
    let store = store();
    let mut e = envelope_in("/p", "h", 3);
    e.trigger = RewakeTrigger::Event { kind: "approval".into(), key: "k".into() };
    e.next_fire_at = None;
    store.insert(&e).expect("insert");
    let mut resolved = e.clone();
    resolved.payload.insert("approved".into(), "yes".into());
    resolved.next_fire_at = Some(t0());
    let a = Lease::new("a", plus(t0(), MIN));
    assert_eq!(store.lease(&e.id, 1, &a, t0(), Some(&resolved)).expect("lease"), LeaseOutcome::Taken);
    let row = store.load().expect("load").envelopes.pop().expect("row");
    assert_eq!(row.envelope, resolved);
}

#[test]
fn batch_insert_is_all_or_nothing_and_duplicates_are_refused() {
    let store = store();
    let batch: Vec<Envelope> = (0..100).map(|i| envelope_in("/p", &format!("h{i}"), 1)).collect();
    store.insert_batch(&batch).expect("batch");
    assert_eq!(store.load().expect("load").envelopes.len(), 100);
    let again = vec![envelope_in("/p", "new", 1), batch[0].clone()];
    let err = store.insert_batch(&again).expect_err("a duplicate id is refused");
    assert!(err.to_string().contains("duplicate key"), "{err}");
    assert_eq!(store.load().expect("load").envelopes.len(), 100, "nothing of the failed batch stayed");
    let twice = envelope_in("/p", "twice", 1);
    assert!(store.insert_batch(&[twice.clone(), twice]).is_err(), "a duplicate inside one batch is refused");
    assert_eq!(store.load().expect("load").envelopes.len(), 100);
}

#[test]
fn the_change_cursor_reports_only_rows_written_after_it() {
    let store = store();
    let first: Vec<Envelope> = (0..3).map(|i| envelope_in("/p", &format!("a{i}"), 1)).collect();
    store.insert_batch(&first).expect("insert");
    let snapshot = store.load().expect("load");
    assert_eq!(snapshot.envelopes.len(), 3);
    let second = envelope_in("/p", "b", 1);
    store.insert(&second).expect("insert");
    let changes = store.changes_since(snapshot.cursor).expect("changes");
    let ids: Vec<&str> = changes.envelopes.iter().map(|r| r.envelope.id.as_str()).collect();
    assert_eq!(ids, [second.id.as_str()]);
    assert_eq!(store.changes_since(changes.cursor).expect("changes").envelopes.len(), 0);
}

#[test]
fn removing_a_hook_is_scoped_to_its_project_and_remove_reports_what_it_deleted() {
    let store = store();
    let here = envelope_in("/here", "command@project#0", 1);
    let there = envelope_in("/there", "command@project#0", 1);
    let other = envelope_in("/here", "command@project#1", 1);
    store.insert_batch(&[here.clone(), there.clone(), other.clone()]).expect("insert");
    let removed = store.remove_hook(Some(Path::new("/here")), "command@project#0").expect("remove");
    assert_eq!(removed, [here.id]);
    let mut left: Vec<String> = store.load().expect("load").envelopes.into_iter().map(|r| r.envelope.id).collect();
    left.sort();
    let mut expected = vec![there.id.clone(), other.id.clone()];
    expected.sort();
    assert_eq!(left, expected, "the other project's envelope stays");
    assert!(store.remove(&other.id).expect("remove"));
    assert!(!store.remove(&other.id).expect("remove"), "a second remove finds nothing");
}

#[test]
fn a_mailbox_is_taken_atomically_oldest_first_and_deleted_on_acknowledgement() {
    let store = store();
    let (first, second, elsewhere) = (mail("s1", "first", 1), mail("s1", "second", 2), mail("s2", "x", 1));
    for m in [&second, &first, &elsewhere] {
        assert!(store.put_mail(m).expect("put"));
    }
    assert!(!store.put_mail(&first).expect("put"), "the same (id, attempt) does not mail twice");
    assert_eq!(store.mail_depth().expect("depth"), 3);
    let now = plus(t0(), 5 * MIN);
    let claim = Lease::new("a", plus(now, MIN));
    let taken = store.take_mail("s1", &claim, now).expect("take");
    assert_eq!(taken, [first.clone(), second.clone()]);
    assert!(store.take_mail("s1", &Lease::new("b", plus(now, MIN)), now).expect("take").is_empty());
    let ids: Vec<String> = taken.iter().map(|m| m.id.clone()).collect();
    assert_eq!(store.ack_mail("b", &ids).expect("ack"), 0, "only the claimant acknowledges");
    assert_eq!(store.ack_mail("a", &ids[..1]).expect("ack"), 1);
    // The unacknowledged one comes back once the claim expires.
    let later = plus(now, 2 * MIN);
    let again = store.take_mail("s1", &Lease::new("b", plus(later, MIN)), later).expect("take");
    assert_eq!(again, [second]);
    assert_eq!(store.mail_depth().expect("depth"), 2);
}

#[test]
fn mail_expires_after_a_day_by_default() {
    let store = store();
    let m = mail("s1", "old", 0);
    assert_eq!(m.expires_at, plus(t0(), 24 * HOUR));
    store.put_mail(&m).expect("put");
    let day = plus(t0(), 24 * HOUR);
    assert!(store.take_mail("s1", &Lease::new("a", plus(day, MIN)), day).expect("take").is_empty());
    assert_eq!(store.purge_mail(day).expect("purge"), 1);
    assert_eq!(store.mail_depth().expect("depth"), 0);
}

#[test]
fn migrations_apply_once_even_when_eight_processes_start_at_the_same_time() {
    let url = fresh_db();
    let starters: Vec<_> = (0..8)
        .map(|_| {
            let url = url.clone();
            std::thread::spawn(move || PgStore::connect(&url).map(|_| ()))
        })
        .collect();
    for starter in starters {
        starter.join().expect("thread").expect("every concurrent starter connects");
    }
    let store = Arc::new(PgStore::connect(&url).expect("again"));
    let e = envelope_in("/p", "h", 1);
    store.insert(&e).expect("insert");
    drop(store);
    let store = PgStore::connect(&url).expect("a migrated database opens again");
    assert_eq!(store.load().expect("load").envelopes.len(), 1, "reconnecting keeps the rows");
}

#[test]
fn a_database_from_a_newer_build_is_refused_with_a_sentence() {
    let url = fresh_db();
    drop(PgStore::connect(&url).expect("create"));
    admin(&url, "INSERT INTO rewake_schema_migrations (version) VALUES (99)");
    let err = PgStore::connect(&url).expect_err("newer schema refused");
    assert!(err.to_string().contains("schema version 99, newer than this build's 1"), "{err}");
}

#[test]
fn an_unreachable_server_or_a_bad_url_is_a_store_error_not_a_panic() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").expect("port").local_addr().expect("addr").port();
    let err = PgStore::connect(&format!("postgres://nobody@127.0.0.1:{port}/none")).expect_err("nobody listens");
    assert!(matches!(err, hook_rewake::Error::Store(_)));
    assert!(err.to_string().contains("unreachable"), "{err}");
    let err = PgStore::connect("postgres://[bad").expect_err("bad url");
    assert!(err.to_string().contains("invalid PostgreSQL URL"), "{err}");
}

#[test]
fn an_unreadable_row_is_skipped_and_the_rest_still_load() {
    let url = fresh_db();
    let store = PgStore::connect(&url).expect("connect");
    store.insert(&envelope_in("/p", "good", 1)).expect("insert");
    admin(
        &url,
        "INSERT INTO rewake_envelope (id, hook_id, attempt, seq, body) VALUES ('rw-bad', 'h', 1, 0, '{\"not\": 1}')",
    );
    let hooks: Vec<String> = store.load().expect("load").envelopes.into_iter().map(|r| r.envelope.hook_id).collect();
    assert_eq!(hooks, ["good"]);
}
