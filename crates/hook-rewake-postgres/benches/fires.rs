//! Fires per second on the PostgreSQL store (PERF-7): two stores (as two processes) fire
//! 20,000 one-shot envelopes with an in-process hook (lease, fire, finish per envelope), and
//! the run checks that no (id, attempt) fired twice. Two shapes, each on a fresh database of a
//! throwaway cluster (or `AIMON_TEST_PG_URL`):
//!
//! 1. one firing thread per store, both walking the rows in the same order — every envelope is
//!    raced for, as when two services' timers fire at the same instant;
//! 2. four firing threads per store (a service fires concurrently; its threads split the rows),
//!    both stores still walking in the same order, so every envelope is raced for by two.
//!
//! 3. two processes, each running hook-rewake's `DefaultRewakeService` on its own `PgStore` with
//!    an in-process listener (the bench re-executes itself as the two workers): the service's
//!    timers, leases, fires and finishes, as two daemons run them. The envelopes are due at one
//!    instant a few seconds after the workers start; the rate is fires over the time from that
//!    instant until the database holds no envelope.
//!
//! Also printed: the batch insert rate of the 20,000 envelopes. Goal: ≥ 2,000 fires/s with 0
//! duplicates. Run: `cargo bench -p hook-rewake-postgres --bench fires`.

#[path = "../tests/support/mod.rs"]
mod support;

use std::collections::HashMap;
use std::io::Write as _;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::{TimeDelta, Utc};
use hook_rewake::{DefaultRewakeService, Envelope, Fire, FireFuture, RewakeFireListener, RewakeStore};
use hook_rewake_postgres::PgStore;

use crate::support::fixtures::{MIN, envelope_in};
use crate::support::worker::{Order, Share, work};

const ENVELOPES: u32 = 20_000;
const GOAL: f64 = 2_000.0;
/// Set in the re-executed bench: `<url> <log>` of a service worker.
const WORKER_ENV: &str = "AIMON_PG_BENCH_WORKER";

/// Runs one shape; returns fires/s.
fn run(name: &str, threads_per_store: usize) -> f64 {
    let url = support::fresh_db();
    let stores = [Arc::new(PgStore::connect(&url).expect("a")), Arc::new(PgStore::connect(&url).expect("b"))];
    let batch: Vec<Envelope> = (0..ENVELOPES).map(|i| envelope_in("/bench", &format!("h{i}"), 1)).collect();
    let started = Instant::now();
    stores[0].insert_batch(&batch).expect("insert");
    let insert = started.elapsed();
    println!(
        "{name}: batch insert of {ENVELOPES} envelopes: {:.0} ms ({:.0} envelopes/s)",
        insert.as_secs_f64() * 1e3,
        f64::from(ENVELOPES) / insert.as_secs_f64()
    );
    let started = Instant::now();
    let workers: Vec<_> = stores
        .iter()
        .enumerate()
        .flat_map(|(s, store)| (0..threads_per_store).map(move |t| (s, t, store.clone())))
        .map(|(s, t, store)| {
            let share = Share { index: t, of: threads_per_store };
            std::thread::spawn(move || {
                let hook = |id: &str, attempt: u32| {
                    std::hint::black_box((id, attempt));
                };
                work(store.as_ref(), &format!("store{s}-t{t}"), 10 * MIN, Order::ById, share, hook, |_, _| {})
            })
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
    let elapsed = started.elapsed();
    let fires: usize = counts.values().sum();
    let duplicates = fires - counts.len();
    let rate = fires as f64 / elapsed.as_secs_f64();
    println!(
        "{name}: {fires} fires in {:.2} s = {rate:.0} fires/s ({:.2}x the {GOAL:.0}/s goal), {duplicates} duplicate (id, attempt)",
        elapsed.as_secs_f64(),
        rate / GOAL
    );
    assert_eq!(counts.len(), ENVELOPES as usize, "every envelope fired");
    assert_eq!(duplicates, 0, "an (id, attempt) fired twice while no process died");
    rate
}

/// Counts each fire into the worker's log, one `write` per line.
#[derive(Debug)]
struct Counting {
    log: Mutex<std::fs::File>,
}

impl RewakeFireListener for Counting {
    fn on_fire(self: Arc<Self>, fire: Fire) -> FireFuture {
        let line = format!("{} {}\n", fire.envelope.id, fire.envelope.attempt);
        self.log.lock().expect("log").write_all(line.as_bytes()).expect("log line");
        Box::pin(std::future::ready(()))
    }

    fn budget(&self, _: &Envelope) -> Duration {
        Duration::from_secs(10)
    }
}

/// A worker process: a rewake service on the store at `url`, firing into `log`, until killed.
fn service_worker(args: &str) {
    let (url, log) = args.split_once(' ').expect("AIMON_PG_BENCH_WORKER=<url> <log>");
    let store = Arc::new(PgStore::connect(url).expect("the worker connects"));
    let log = std::fs::OpenOptions::new().append(true).create(true).open(log).expect("log");
    let listener = Arc::new(Counting { log: Mutex::new(log) });
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    runtime.block_on(async {
        let _service = DefaultRewakeService::builder(listener).store(store).start().expect("the service starts");
        std::future::pending::<()>().await;
    });
}

/// How many envelopes the database at `url` holds.
fn pending(url: &str) -> i64 {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    runtime.block_on(async {
        let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls).await.expect("connect");
        tokio::spawn(connection);
        client.query_one("SELECT count(*) FROM rewake_envelope", &[]).await.expect("count").get(0)
    })
}

/// Shape 3: two service processes; returns fires/s.
fn two_service_processes() -> f64 {
    let name = "two processes, a rewake service each";
    let url = support::fresh_db();
    let dir = tempfile::tempdir().expect("tempdir");
    let store = PgStore::connect(&url).expect("connect");
    let due = Utc::now() + TimeDelta::seconds(4);
    let batch: Vec<Envelope> = (0..ENVELOPES)
        .map(|i| {
            let mut e = envelope_in("/bench", &format!("h{i}"), 1);
            e.next_fire_at = Some(due);
            e.expires_at = Some(due + TimeDelta::hours(1));
            e
        })
        .collect();
    store.insert_batch(&batch).expect("insert");
    let logs = [dir.path().join("a.log"), dir.path().join("b.log")];
    let mut workers: Vec<Child> = logs
        .iter()
        .map(|log| {
            Command::new(std::env::current_exe().expect("own binary"))
                .env(WORKER_ENV, format!("{url} {}", log.display()))
                .stdin(Stdio::null())
                .spawn()
                .expect("spawn a worker")
        })
        .collect();
    let wait = (due - Utc::now()).to_std().unwrap_or_default();
    std::thread::sleep(wait);
    let started = Instant::now();
    while pending(&url) > 0 {
        assert!(started.elapsed() < Duration::from_secs(120), "{name}: the workers did not fire everything");
        std::thread::sleep(Duration::from_millis(50));
    }
    let elapsed = started.elapsed();
    for worker in &mut workers {
        worker.kill().expect("stop a worker");
        worker.wait().expect("reap a worker");
    }
    let mut counts: HashMap<String, usize> = HashMap::new();
    let mut per_process = Vec::new();
    for log in &logs {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        per_process.push(text.lines().count());
        for line in text.lines() {
            *counts.entry(line.to_owned()).or_default() += 1;
        }
    }
    let fires: usize = counts.values().sum();
    let duplicates = fires - counts.len();
    let rate = fires as f64 / elapsed.as_secs_f64();
    println!(
        "{name}: {fires} fires ({} + {}) in {:.2} s = {rate:.0} fires/s ({:.2}x the {GOAL:.0}/s goal), {duplicates} duplicate (id, attempt)",
        per_process[0],
        per_process[1],
        elapsed.as_secs_f64(),
        rate / GOAL
    );
    assert_eq!(counts.len(), ENVELOPES as usize, "every envelope fired");
    assert_eq!(duplicates, 0, "an (id, attempt) fired twice while no process died");
    rate
}

fn main() {
    if let Ok(args) = std::env::var(WORKER_ENV) {
        return service_worker(&args);
    }
    let raced = run("two stores, one thread each, same order", 1);
    let concurrent = run("two stores, four threads each", 4);
    let processes = two_service_processes();
    println!(
        "fires/s: {raced:.0} raced, {concurrent:.0} concurrent, {processes:.0} by two service processes (goal {GOAL:.0})"
    );
}
