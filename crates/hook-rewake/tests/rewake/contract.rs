//! The store contract (R-RW-9/11/11b), run against every store: leases on `(id, attempt)`,
//! takeover after expiry, finish by the owner only, project-scoped hook removal, batch insert,
//! change cursor, and session mailboxes taken atomically and acknowledged. Plus the SQLite
//! migration from 0.1's unversioned schema.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, TimeDelta, Utc};
use hook_core::{HookEventType, RewakeTrigger};
use hook_rewake::{Envelope, Fire, Lease, LeaseOutcome, Mail, MemoryStore, RewakeStore, SqliteStore};

use crate::support::{HOUR, MIN, ctx, delay, spec, t0};

/// Each store under test, with the directory that keeps its file alive.
fn stores() -> Vec<(&'static str, Arc<dyn RewakeStore>, Option<tempfile::TempDir>)> {
    let dir = tempfile::tempdir().expect("tempdir");
    let sqlite = SqliteStore::open(dir.path().join("rewake.db")).expect("open sqlite");
    vec![("memory", Arc::new(MemoryStore::new()), None), ("sqlite", Arc::new(sqlite), Some(dir))]
}

fn envelope_in(project: &str, hook: &str) -> Envelope {
    let mut ctx = ctx(HookEventType::PRE_TOOL, "c");
    ctx.project_dir = Some(PathBuf::from(project));
    let mut envelope = Envelope::new(hook, ctx, spec(delay(MIN), HOUR, 3), 1);
    envelope.scheduled_at = Some(t0());
    envelope.next_fire_at = Some(t0() + TimeDelta::minutes(1));
    envelope.expires_at = Some(t0() + TimeDelta::hours(1));
    envelope
}

fn plus(t: DateTime<Utc>, d: Duration) -> DateTime<Utc> {
    t + TimeDelta::from_std(d).expect("delta")
}

#[test]
fn a_lease_is_exclusive_until_it_expires_and_then_anyone_takes_over() {
    for (name, store, _dir) in stores() {
        let e = envelope_in("/p", "h");
        store.insert(&e).expect("insert");
        let a = Lease::new("a", plus(t0(), MIN));
        let b = Lease::new("b", plus(t0(), 3 * MIN));
        assert_eq!(store.lease(&e.id, 1, &a, t0(), None).expect("lease"), LeaseOutcome::Taken, "{name}");
        assert_eq!(
            store.lease(&e.id, 1, &b, plus(t0(), MIN - Duration::from_secs(1)), None).expect("lease"),
            LeaseOutcome::Held(a.until),
            "{name}: a live lease is not taken"
        );
        assert_eq!(store.lease(&e.id, 1, &b, a.until, None).expect("lease"), LeaseOutcome::Taken, "{name}: takeover");
        assert!(!store.finish(&e.id, 1, "a", None).expect("finish"), "{name}: the old owner cannot finish");
        let row = store.load().expect("load").envelopes.pop().expect("row still stored");
        assert_eq!(row.lease, Some(b.clone()), "{name}");
        assert!(store.finish(&e.id, 1, "b", None).expect("finish"), "{name}");
        assert!(store.load().expect("load").envelopes.is_empty(), "{name}");
        assert_eq!(store.lease(&e.id, 1, &a, t0(), None).expect("lease"), LeaseOutcome::Gone, "{name}");
    }
}

#[test]
fn finishing_with_a_next_attempt_advances_the_row_and_clears_the_lease() {
    for (name, store, _dir) in stores() {
        let e = envelope_in("/p", "h");
        store.insert(&e).expect("insert");
        let cursor = store.load().expect("load").cursor;
        let a = Lease::new("a", plus(t0(), MIN));
        assert_eq!(store.lease(&e.id, 1, &a, t0(), None).expect("lease"), LeaseOutcome::Taken);
        let mut next = e.clone();
        next.attempt = 2;
        next.next_fire_at = Some(plus(t0(), HOUR));
        assert!(store.finish(&e.id, 1, "a", Some(&next)).expect("finish"), "{name}");
        let changes = store.changes_since(cursor).expect("changes");
        assert_eq!(changes.envelopes.len(), 1, "{name}: the advanced row is a change");
        assert_eq!(changes.envelopes[0].envelope, next, "{name}");
        assert_eq!(changes.envelopes[0].lease, None, "{name}");
        assert!(store.changes_since(changes.cursor).expect("changes").envelopes.is_empty(), "{name}");
        match store.lease(&e.id, 1, &a, t0(), None).expect("lease") {
            LeaseOutcome::Moved(row) => assert_eq!(row.envelope.attempt, 2, "{name}"),
            other => panic!("{name}: a stale attempt must answer Moved, got {other:?}"),
        }
    }
}

#[test]
fn a_lease_with_a_body_stores_the_resolved_envelope_for_a_takeover() {
    for (name, store, _dir) in stores() {
        let mut e = envelope_in("/p", "h");
        e.trigger = RewakeTrigger::Event { kind: "approval".into(), key: "k".into() };
        e.next_fire_at = None;
        store.insert(&e).expect("insert");
        let mut resolved = e.clone();
        resolved.payload.insert("approved".into(), "yes".into());
        resolved.next_fire_at = Some(t0());
        let a = Lease::new("a", plus(t0(), MIN));
        assert_eq!(store.lease(&e.id, 1, &a, t0(), Some(&resolved)).expect("lease"), LeaseOutcome::Taken);
        let row = store.load().expect("load").envelopes.pop().expect("row");
        assert_eq!(row.envelope, resolved, "{name}");
    }
}

#[test]
fn batch_insert_is_all_or_nothing_and_duplicates_are_refused() {
    for (name, store, _dir) in stores() {
        let batch: Vec<Envelope> = (0..100).map(|i| envelope_in("/p", &format!("h{i}"))).collect();
        store.insert_batch(&batch).expect("batch");
        assert_eq!(store.load().expect("load").envelopes.len(), 100, "{name}");
        let again = vec![envelope_in("/p", "new"), batch[0].clone()];
        assert!(store.insert_batch(&again).is_err(), "{name}: a duplicate id is refused");
        assert_eq!(store.load().expect("load").envelopes.len(), 100, "{name}: nothing of the failed batch stayed");
    }
}

#[test]
fn removing_a_hook_is_scoped_to_its_project() {
    for (name, store, _dir) in stores() {
        let here = envelope_in("/here", "command@project#0");
        let there = envelope_in("/there", "command@project#0");
        let other = envelope_in("/here", "command@project#1");
        store.insert_batch(&[here.clone(), there.clone(), other]).expect("insert");
        let removed = store.remove_hook(Some(Path::new("/here")), "command@project#0").expect("remove");
        assert_eq!(removed, [here.id], "{name}");
        let mut left: Vec<String> = store.load().expect("load").envelopes.into_iter().map(|r| r.envelope.id).collect();
        left.sort();
        assert_eq!(left.len(), 2, "{name}");
        assert!(left.contains(&there.id), "{name}: the other project's envelope stays");
    }
}

fn mail(session: &str, text: &str, minutes: i64) -> Mail {
    let e = envelope_in("/p", &format!("h-{text}"));
    let fire = Fire::new(e, plus(t0(), Duration::from_secs(60 * minutes as u64)));
    Mail::new(&fire, session, text, false, plus(t0(), Duration::from_secs(60 * minutes as u64)), Mail::DEFAULT_TTL)
}

#[test]
fn a_mailbox_is_taken_atomically_oldest_first_and_deleted_on_acknowledgement() {
    for (name, store, _dir) in stores() {
        let (first, second, elsewhere) = (mail("s1", "first", 1), mail("s1", "second", 2), mail("s2", "x", 1));
        for m in [&second, &first, &elsewhere] {
            assert!(store.put_mail(m).expect("put"), "{name}");
        }
        assert!(!store.put_mail(&first).expect("put"), "{name}: the same (id, attempt) does not mail twice");
        assert_eq!(store.mail_depth().expect("depth"), 3, "{name}");
        let now = plus(t0(), 5 * MIN);
        let claim = Lease::new("a", plus(now, MIN));
        let taken = store.take_mail("s1", &claim, now).expect("take");
        assert_eq!(taken, [first.clone(), second.clone()], "{name}");
        assert!(store.take_mail("s1", &Lease::new("b", plus(now, MIN)), now).expect("take").is_empty(), "{name}");
        let ids: Vec<String> = taken.iter().map(|m| m.id.clone()).collect();
        assert_eq!(store.ack_mail("b", &ids).expect("ack"), 0, "{name}: only the claimant acknowledges");
        assert_eq!(store.ack_mail("a", &ids[..1]).expect("ack"), 1, "{name}");
        // The unacknowledged one comes back once the claim expires.
        let later = plus(now, 2 * MIN);
        let again = store.take_mail("s1", &Lease::new("b", plus(later, MIN)), later).expect("take");
        assert_eq!(again, [second], "{name}");
        assert_eq!(store.mail_depth().expect("depth"), 2, "{name}");
    }
}

#[test]
fn mail_expires_after_a_day_by_default() {
    for (name, store, _dir) in stores() {
        let m = mail("s1", "old", 0);
        assert_eq!(m.expires_at, plus(t0(), 24 * HOUR), "{name}");
        store.put_mail(&m).expect("put");
        let day = plus(t0(), 24 * HOUR);
        assert!(store.take_mail("s1", &Lease::new("a", plus(day, MIN)), day).expect("take").is_empty(), "{name}");
        assert_eq!(store.purge_mail(day).expect("purge"), 1, "{name}");
        assert_eq!(store.mail_depth().expect("depth"), 0, "{name}");
    }
}

#[test]
fn a_sqlite_file_of_the_unversioned_schema_migrates_and_keeps_its_envelopes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("rewake.db");
    let e = envelope_in("/legacy", "command@project#0");
    // 0.1's schema and a row as 0.1 wrote it (the body is the same record format).
    let body = {
        let scratch = dir.path().join("scratch.db");
        let store = SqliteStore::open(&scratch).expect("scratch");
        store.insert(&e).expect("insert");
        let conn = rusqlite::Connection::open(&scratch).expect("raw");
        conn.query_row("SELECT body FROM rewake_envelope", [], |r| r.get::<_, String>(0)).expect("body")
    };
    let conn = rusqlite::Connection::open(&path).expect("raw");
    conn.execute_batch(
        "CREATE TABLE rewake_envelope (id TEXT PRIMARY KEY, hook_id TEXT NOT NULL, context_id TEXT,
             attempt INTEGER NOT NULL, next_fire_at_us INTEGER, expires_at_us INTEGER, body TEXT NOT NULL);
         CREATE INDEX rewake_envelope_due ON rewake_envelope (next_fire_at_us);
         CREATE INDEX rewake_envelope_hook ON rewake_envelope (hook_id);",
    )
    .expect("v1 schema");
    conn.execute(
        "INSERT INTO rewake_envelope (id, hook_id, context_id, attempt, body) VALUES (?1, ?2, 'c', 1, ?3)",
        rusqlite::params![e.id, e.hook_id, body],
    )
    .expect("v1 row");
    drop(conn);

    let store = SqliteStore::open(&path).expect("migrate");
    let version: i64 = rusqlite::Connection::open(&path)
        .expect("raw")
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .expect("version");
    assert_eq!(version, 2);
    let rows = store.load().expect("load").envelopes;
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].envelope, e);
    assert_eq!(rows[0].lease, None);
    assert_eq!(store.remove_hook(Some(Path::new("/legacy")), &e.hook_id).expect("remove"), [e.id]);
    drop(store);
    SqliteStore::open(&path).expect("a migrated file opens again");
}
