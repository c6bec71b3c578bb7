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

use std::path::PathBuf;
use std::time::{Duration, Instant};

use hook_predicate::{Call, PathAnchors, parse};
use serde_json::{Value, json};

/// The rules whose false alarms are measured.
const DENY_RULES: &[&str] = &["Bash(rm -rf:*)", "Bash(git push --force:*)", "Bash(git reset --hard:*)", "Read(./.env)"];

/// The outside corpus's lines as (command, allow-labelled), or `None` when the file is absent.
fn outside_lines() -> Option<Vec<(String, bool)>> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpora/peer-commands.jsonl");
    let text = std::fs::read_to_string(&path).ok()?;
    let lines = text
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter_map(|v| Some((v["command"].as_str()?.to_owned(), v["label"].as_str() == Some("safe"))))
        .collect();
    Some(lines)
}

fn false_alarms(lines: &[(String, bool)]) {
    let project = std::env::temp_dir().join("aimon-false-alarms");
    let anchors = PathAnchors::new(&project).with_home(project.join("home"));
    let rules: Vec<_> = DENY_RULES.iter().map(|r| parse(r, &anchors).expect("the rule parses")).collect();
    let allowed: Vec<&String> = lines.iter().filter(|(_, allow)| *allow).map(|(c, _)| c).collect();
    let denied = allowed
        .iter()
        .filter(|command| {
            let input = json!({ "command": command });
            rules.iter().any(|rule| rule.verdict(&Call::new("Bash", &input).in_dir(Some(&project))).matches())
        })
        .count();
    println!(
        "false alarms: {denied} of {} allow-labelled outside lines denied ({:.2} %) under {DENY_RULES:?}",
        allowed.len(),
        100.0 * denied as f64 / allowed.len().max(1) as f64
    );
}

fn main() {
    let mut seeds: Vec<String> = common::bash_cases().iter().map(|case| case.command.to_owned()).collect();
    match outside_lines() {
        Some(lines) => {
            false_alarms(&lines);
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
