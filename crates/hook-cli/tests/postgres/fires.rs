//! Many fires through two daemons: once each while both live; after a SIGKILL and a database
//! restart, nothing lost and only in-flight fires repeated.

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use hook_rewake::{Envelope, RewakeStore};
use hook_rewake_postgres::PgStore;

use crate::cluster::{Cluster, fresh_db};
use crate::serve_process::wait_until;
use crate::support::{Daemon, Scene, copies, counts, rows};

/// Asks each daemon, through its `/v1/claude` route, for `per_daemon` rewakes; returns one of the
/// envelopes they wrote (the template of the copies).
fn schedule_through_routes(scene: &Scene, daemons: &[&Daemon], per_daemon: usize, store: &PgStore) -> Envelope {
    for i in 0..per_daemon {
        for daemon in daemons {
            let (status, _) = daemon.post("/v1/claude", &scene.payload("PostToolUse", &format!("s-{i}")));
            assert_eq!(status, 200);
        }
    }
    let pending = rows(store);
    pending.into_iter().next().expect("the routes wrote envelopes to the shared store").envelope
}

#[test]
fn two_daemons_on_one_database_fire_10000_envelopes_once_each() {
    const ROUTED: usize = 100;
    const TOTAL: usize = 10_000;
    let url = fresh_db();
    let scene = Scene::new("3s", "");
    let (a, b) = (Daemon::start(&scene, "a", &url), Daemon::start(&scene, "b", &url));
    let store = PgStore::connect(&url).expect("the test connects");
    let started = Instant::now();
    // 200 rewakes asked through the daemons' routes (100 each); the other 9,800 are copies of one
    // of them written straight to the store: 9,800 hook processes asking over HTTP would double
    // the test's time on this machine, and the store is where the routes put them too.
    let template = schedule_through_routes(&scene, &[&a, &b], ROUTED, &store);
    let bulk = copies(&template, "bulk", TOTAL - 2 * ROUTED, Duration::from_secs(2), Duration::from_secs(12));
    store.insert_batch(&bulk).expect("the copies are written");

    wait_until(Duration::from_secs(90), "not every envelope fired", || {
        counts(&scene.fires()).len() >= TOTAL && rows(&store).is_empty()
    });
    let elapsed = started.elapsed();
    std::thread::sleep(Duration::from_secs(2));
    let fires = scene.fires();
    let counts = counts(&fires);
    assert_eq!(counts.len(), TOTAL, "every envelope fired, and nothing else");
    let bulk_ids: HashSet<&str> = bulk.iter().map(|e| e.id.as_str()).collect();
    assert!(bulk_ids.iter().all(|id| counts.contains_key(&(id.to_string(), 1))), "0 lost");
    let twice: Vec<_> = counts.iter().filter(|(_, n)| **n > 1).collect();
    assert!(twice.is_empty(), "{} (id, attempt) fired more than once, e.g. {:?}", twice.len(), twice.first());
    let by_a = fires.iter().filter(|f| f.2 == a.pid()).count();
    let by_b = fires.iter().filter(|f| f.2 == b.pid()).count();
    assert_eq!(by_a + by_b, TOTAL, "every fire ran in one of the two daemons");
    assert!(by_a > 0 && by_b > 0, "both daemons fired: a {by_a}, b {by_b}");
    eprintln!(
        "two daemons: {TOTAL} envelopes fired once each in {:.1} s (a {by_a}, b {by_b}), 0 repeated",
        elapsed.as_secs_f64()
    );
}

#[test]
fn a_daemon_killed_with_sigkill_and_the_database_restarted_under_load_lose_no_fire() {
    const TOTAL: usize = 3_000;
    // A cluster of this test's own: it is restarted mid-run.
    let cluster = Cluster::start();
    let url = cluster.create_db();
    let scene = Scene::new("1h", "");
    let (mut a, b) = (Daemon::start(&scene, "a", &url), Daemon::start(&scene, "b", &url));
    let store = PgStore::connect(&url).expect("the test connects");
    let template = schedule_through_routes(&scene, &[&a], 1, &store);
    store.remove(&template.id).expect("the template is not one of the counted envelopes");
    let spread = Duration::from_secs(10);
    let batch = copies(&template, "load", TOTAL, Duration::from_secs(2), spread);
    let due: HashMap<String, chrono::DateTime<chrono::Utc>> =
        batch.iter().map(|e| (e.id.clone(), e.next_fire_at.expect("due"))).collect();
    store.insert_batch(&batch).expect("the envelopes are written");

    // SIGKILL a mid-run. What it had leased and not finished is in flight: only those may repeat.
    wait_until(Duration::from_secs(60), "the daemons never got going", || scene.fires().len() >= 600);
    let dead = a.pid();
    a.kill_9();
    let owner = format!("rw-{dead:x}-");
    let in_flight_at_kill: HashSet<String> = rows(&store)
        .into_iter()
        .filter(|r| r.lease.as_ref().is_some_and(|l| l.owner.starts_with(&owner)))
        .map(|r| r.envelope.id)
        .collect();
    // a comes back as a new process (a service manager restarts it).
    let a2 = Daemon::start(&scene, "a2", &url);

    // Restart the database under load. What was leased when it came back may repeat too (a fire
    // that could not be finished fires again when its lease expires).
    wait_until(Duration::from_secs(60), "the fires stopped after the kill", || scene.fires().len() >= 1_200);
    cluster.restart();
    let back = chrono::Utc::now();
    let mut in_flight_at_restart = HashSet::new();
    wait_until(Duration::from_secs(20), "the test could not read the store after the restart", || match store.load() {
        Ok(snapshot) => {
            in_flight_at_restart.extend(
                snapshot
                    .envelopes
                    .into_iter()
                    .filter(|r| r.lease.as_ref().is_some_and(|l| l.until > back))
                    .map(|r| r.envelope.id),
            );
            true
        }
        Err(_) => false,
    });

    wait_until(Duration::from_secs(150), "not every envelope fired after the kill and the restart", || {
        counts(&scene.fires()).len() >= TOTAL && rows(&store).is_empty()
    });
    let fires = scene.fires();
    let counts = counts(&fires);
    let lost: Vec<&String> = due.keys().filter(|id| !counts.contains_key(&((*id).clone(), 1))).collect();
    assert!(lost.is_empty(), "{} envelopes never fired, e.g. {:?}", lost.len(), lost.first());
    assert_eq!(counts.len(), TOTAL, "nothing fired that was not scheduled");
    let repeated: Vec<&String> = counts.iter().filter(|(_, n)| **n > 1).map(|((id, _), _)| id).collect();
    for id in &repeated {
        assert!(
            in_flight_at_kill.contains(*id) || in_flight_at_restart.contains(*id),
            "{id} fired twice but was in flight neither in the killed daemon nor at the restart"
        );
    }
    // Both live daemons reconnected: each fired envelopes that fell due after the restart.
    let after = |pid: u32| fires.iter().filter(|f| f.2 == pid && due[&f.0] > back).count();
    let (by_b, by_a2) = (after(b.pid()), after(a2.pid()));
    assert!(by_b > 0 && by_a2 > 0, "both daemons fired after the restart: b {by_b}, a2 {by_a2}");
    let outage = "rewake calls fail until it is back";
    assert!(
        b.stderr().contains(outage) || a2.stderr().contains(outage),
        "a daemon said the store was unreachable: {}",
        b.stderr()
    );
    eprintln!(
        "kill -9 + restart: {TOTAL} envelopes, 0 lost; {} in flight in the killed daemon, {} leased when the \
         database came back, {} repeated; after the restart b fired {by_b}, a2 {by_a2}; outage WARNs: b {}, a2 {}",
        in_flight_at_kill.len(),
        in_flight_at_restart.len(),
        repeated.len(),
        b.stderr().matches(outage).count(),
        a2.stderr().matches(outage).count(),
    );
}
