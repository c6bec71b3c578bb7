//! Two worker processes on one PostgreSQL database, one killed with SIGKILL mid-run (R-RW-10).
//!
//! A `harness = false` test: run without `AIMON_PG_WORKER` it is the parent. It schedules
//! 10,000 envelopes (every other one with two attempts: 15,000 fires), re-executes its own
//! binary twice as workers (`AIMON_PG_WORKER=<url> <owner> <log>`), and kills the first with
//! SIGKILL once 3,000 fires are logged. Each worker leases, fires (appends `F id attempt` to its
//! log) and finishes (appends `D id attempt`), with 3 s leases. The survivor takes over the dead
//! worker's lease when it expires. Then: every (id, attempt) fired (0 lost), and an (id, attempt)
//! fired twice only if the killed worker had fired it without finishing (in flight).

#[path = "support/mod.rs"]
mod support;

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use hook_rewake::{Envelope, RewakeStore};
use hook_rewake_postgres::PgStore;

use crate::support::fixtures::envelope_in;
use crate::support::worker::{Order, Share, work};

const WORKER_ENV: &str = "AIMON_PG_WORKER";
const ENVELOPES: u32 = 10_000;
const KILL_AFTER: usize = 3_000;

fn main() {
    match std::env::var(WORKER_ENV) {
        Ok(args) => worker(&args),
        Err(_) => parent(),
    }
}

/// `F`/`D` lines of a worker's log.
fn log_line(log: &mut std::fs::File, kind: char, id: &str, attempt: u32) {
    // One write per line: a kill leaves whole lines.
    log.write_all(format!("{kind} {id} {attempt}\n").as_bytes()).expect("log");
}

fn worker(args: &str) {
    let mut parts = args.splitn(3, ' ');
    let (url, owner, log) = (parts.next().expect("url"), parts.next().expect("owner"), parts.next().expect("log"));
    let store = PgStore::connect(url).expect("worker connects");
    let order = if owner == "a" { Order::ById } else { Order::Reverse };
    let mut fires = std::fs::OpenOptions::new().append(true).create(true).open(log).expect("log");
    let mut dones = fires.try_clone().expect("log");
    let tally = work(
        &store,
        owner,
        Duration::from_secs(3),
        order,
        Share::ALL,
        |id, attempt| log_line(&mut fires, 'F', id, attempt),
        |id, attempt| log_line(&mut dones, 'D', id, attempt),
    );
    assert!(tally.errors.is_empty(), "{:?}", tally.errors);
}

fn spawn(url: &str, owner: &str, log: &Path) -> Child {
    Command::new(std::env::current_exe().expect("own binary"))
        .env(WORKER_ENV, format!("{url} {owner} {}", log.display()))
        .stdin(Stdio::null())
        .spawn()
        .expect("spawn worker")
}

/// `(kind, id, attempt)` of every whole line.
fn read_log(path: &Path) -> Vec<(char, String, u32)> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|line| {
            let mut f = line.split(' ');
            let kind = f.next()?.chars().next()?;
            let id = f.next()?.to_owned();
            Some((kind, id, f.next()?.parse().ok()?))
        })
        .collect()
}

fn fires(log: &[(char, String, u32)]) -> impl Iterator<Item = (String, u32)> + '_ {
    log.iter().filter(|(k, _, _)| *k == 'F').map(|(_, id, n)| (id.clone(), *n))
}

fn parent() {
    println!("running 1 test");
    let url = support::fresh_db();
    let dir = tempfile::tempdir().expect("tempdir");
    let (log_a, log_b) = (dir.path().join("a.log"), dir.path().join("b.log"));
    let store = PgStore::connect(&url).expect("connect");
    let batch: Vec<Envelope> = (0..ENVELOPES).map(|i| envelope_in("/p", &format!("h{i}"), 1 + i % 2)).collect();
    store.insert_batch(&batch).expect("schedule");
    let expected: HashSet<(String, u32)> =
        batch.iter().flat_map(|e| (1..=e.max_attempts).map(|n| (e.id.clone(), n))).collect();

    let mut a = spawn(&url, "a", &log_a);
    let mut b = spawn(&url, "b", &log_b);
    let start = Instant::now();
    while read_log(&log_a).len() + read_log(&log_b).len() < KILL_AFTER {
        assert!(start.elapsed() < Duration::from_secs(120), "the workers never got going");
        std::thread::sleep(Duration::from_millis(20));
    }
    a.kill().expect("SIGKILL worker a");
    a.wait().expect("reap a");
    let status = b.wait().expect("worker b");
    assert!(status.success(), "worker b failed: {status}");

    let (dead, survivor) = (read_log(&log_a), read_log(&log_b));
    let finished: HashSet<(String, u32)> =
        dead.iter().filter(|(k, _, _)| *k == 'D').map(|(_, id, n)| (id.clone(), *n)).collect();
    let in_flight: HashSet<(String, u32)> = fires(&dead).filter(|f| !finished.contains(f)).collect();
    let mut counts: HashMap<(String, u32), usize> = HashMap::new();
    for fire in fires(&dead).chain(fires(&survivor)) {
        *counts.entry(fire).or_default() += 1;
    }
    let lost: Vec<_> = expected.iter().filter(|f| !counts.contains_key(*f)).collect();
    assert!(lost.is_empty(), "{} fires lost, e.g. {:?}", lost.len(), lost.first());
    assert_eq!(counts.len(), expected.len(), "nothing fired that was not scheduled");
    let twice: Vec<_> = counts.iter().filter(|(_, n)| **n > 1).map(|(f, _)| f).collect();
    for fire in &twice {
        assert!(in_flight.contains(*fire), "{fire:?} fired twice but was not in flight in the killed worker");
    }
    assert!(in_flight.len() <= 1, "a one-at-a-time worker has at most one fire in flight: {in_flight:?}");
    assert!(store.load().expect("load").envelopes.is_empty(), "every envelope finished");
    println!(
        "test two_worker_processes_one_killed_mid_run_lose_nothing_and_repeat_only_in_flight_fires ... ok \
         ({} fires by the killed worker, {} by the survivor, {} repeated)",
        fires(&dead).count(),
        fires(&survivor).count(),
        twice.len()
    );
    println!("\ntest result: ok. 1 passed; 0 failed");
}
