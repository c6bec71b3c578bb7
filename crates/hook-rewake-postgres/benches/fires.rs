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
//! Also printed: the batch insert rate of the 20,000 envelopes. Goal: ≥ 2,000 fires/s with 0
//! duplicates. Run: `cargo bench -p hook-rewake-postgres --bench fires`.

#[path = "../tests/support/mod.rs"]
mod support;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use hook_rewake::{Envelope, RewakeStore};
use hook_rewake_postgres::PgStore;

use crate::support::fixtures::{MIN, envelope_in};
use crate::support::worker::{Order, Share, work};

const ENVELOPES: u32 = 20_000;
const GOAL: f64 = 2_000.0;

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

fn main() {
    let raced = run("two stores, one thread each, same order", 1);
    let concurrent = run("two stores, four threads each", 4);
    println!("fires/s: {raced:.0} raced, {concurrent:.0} concurrent (goal {GOAL:.0})");
}
