//! The searching oracle's long run (issue #38) and the false-alarm share on the outside corpus.
//!
//! Seeds: the matcher table's commands and the outside lines of
//! `../shared/corpora/peer-commands.jsonl` (read by path, never copied; skipped with a note when
//! absent). Runs for `AIMON_SEARCH_SECONDS` (default 600) from `AIMON_SEARCH_SEED` (default 38),
//! then prints candidates run, candidates/s and every minimised failure as a table row; first it
//! prints the share of allow-labelled outside lines that the four deny rules below match.

#[path = "../tests/common/mod.rs"]
#[allow(dead_code, reason = "shared with the oracle test target, which reads the rest")]
mod common;
#[path = "../tests/oracle/denied.rs"]
mod denied;
#[path = "../tests/oracle/sandbox.rs"]
#[allow(dead_code, reason = "shared with the oracle test target, which reads the rest")]
mod sandbox;
#[path = "../tests/oracle/search.rs"]
#[allow(dead_code, reason = "shared with the oracle test target, which reads the rest")]
mod search;

use std::time::{Duration, Instant};

fn main() {
    let mut seeds: Vec<String> = common::bash_cases().iter().map(|case| case.command.to_owned()).collect();
    match common::outside::lines() {
        Some(lines) => {
            println!("{}", common::outside::FalseAlarms::measure(&lines).summary());
            seeds.extend(lines.into_iter().map(|(command, _)| command));
        }
        None => println!("search: the outside corpus is absent; seeding from the table only"),
    }
    let seconds = std::env::var("AIMON_SEARCH_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(600);
    let seed = std::env::var("AIMON_SEARCH_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(38);
    let sandbox = sandbox::Sandbox::new();
    if let sandbox::Isolation::Plain(why) = &sandbox.isolation {
        println!("search: no namespace ({why}); the search needs one, stopping");
        return;
    }
    println!("search: {} seeds, seed {seed}, {seconds} s", seeds.len());
    let start = Instant::now();
    let found = search::search(&sandbox, &seeds, seed, Duration::from_secs(seconds));
    let elapsed = start.elapsed().as_secs_f64();
    let mut by_class = std::collections::BTreeMap::new();
    for failure in &found.failures {
        *by_class.entry(failure.class).or_insert(0) += 1;
    }
    println!(
        "search: {} candidates in {elapsed:.0} s ({:.2}/s), {} minimised failures, by class {by_class:?}",
        found.run,
        found.run as f64 / elapsed,
        found.failures.len()
    );
}
