//! kill -9 of a real `aimon-hooks serve` while rewake fires are in flight (R-RW-9, R-SRV-6):
//! at-least-once, never lost, duplicates only for fires that were in flight, each with the same
//! (id, attempt).
//!
//! The test writes 1,000 envelopes straight into the SQLite store (the store, not the daemon's
//! routes, so scheduling costs no hook run), due 1–3 s ahead, for a project whose PostToolUse
//! hook, when woken, appends `START id attempt`, works for 300 ms and appends `END id attempt`.
//! `serve` loads them and fires; once 300 fires have started it gets SIGKILL. A second `serve`
//! on the same store fires the rest at once and takes over the dead daemon's leases when they
//! expire: the hook's budget (the executor's 30 s net, as the hook declares less) + 35 s.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::{Duration, Instant};

use chrono::Utc;
use hook_core::{HookContext, HookEventType, RewakeSpec, RewakeTrigger, ToolCall};
use hook_rewake::{Envelope, RewakeStore, SqliteStore};
use serde_json::json;

use crate::daemon::Daemon;
use crate::support::{Outcome, Sandbox, one_hook};

const ENVELOPES: usize = 1_000;
const KILL_AFTER_STARTS: usize = 300;

/// `(kind, id, attempt)` per log line.
fn log_lines(path: &Path) -> Vec<(String, String, u32)> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .filter_map(|l| {
            let mut parts = l.split(' ');
            let (kind, id, attempt) = (parts.next()?, parts.next()?, parts.next()?.parse().ok()?);
            Some((kind.to_owned(), id.to_owned(), attempt))
        })
        .collect()
}

fn starts(lines: &[(String, String, u32)]) -> BTreeMap<String, Vec<u32>> {
    let mut starts: BTreeMap<String, Vec<u32>> = BTreeMap::new();
    for (kind, id, attempt) in lines {
        if kind == "START" {
            starts.entry(id.clone()).or_default().push(*attempt);
        }
    }
    starts
}

fn wait_until(what: &str, limit: Duration, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + limit;
    while !done() {
        assert!(Instant::now() < deadline, "{what} within {limit:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn kill_9_of_serve_mid_fire_loses_no_envelope_and_repeats_only_the_fires_in_flight() {
    let sandbox = Sandbox::new();
    let log = sandbox.root().join("fires.log");
    let hook = format!(
        r#"if [ -n "$AIMON_REWAKE_ID" ]; then echo "START $AIMON_REWAKE_ID $AIMON_REWAKE_ATTEMPT" >> {log}; sleep 0.3; echo "END $AIMON_REWAKE_ID $AIMON_REWAKE_ATTEMPT" >> {log}; fi"#,
        log = log.display()
    );
    sandbox.project_hooks(&one_hook("PostToolUse", "Bash", json!({"type": "command", "command": hook, "timeout": 5})));
    let listed = Outcome::of(sandbox.cmd().args(["list", "--json"]));
    let hook_id = listed.json()[0]["id"].as_str().expect("the hook's id").to_owned();

    let project = sandbox.project();
    let db = sandbox.root().join("rewake.db");
    let now = Utc::now();
    let envelopes: Vec<Envelope> = (0..ENVELOPES)
        .map(|n| {
            let mut ctx = HookContext::new(HookEventType::POST_TOOL)
                .with_tool(ToolCall::new("Bash", json!({"command": "git push"})));
            ctx.session_id = Some("s-crash".to_owned());
            ctx.project_dir = Some(project.clone());
            let delay = Duration::from_millis(1_000 + 2 * u64::try_from(n).expect("small"));
            let mut envelope =
                Envelope::new(hook_id.as_str(), ctx, RewakeSpec::new(RewakeTrigger::Delay(delay), "crash"), 1);
            envelope.stamp(now).expect("stamp");
            envelope
        })
        .collect();
    SqliteStore::open(&db).expect("store").insert_batch(&envelopes).expect("schedule 1,000");
    let ids: BTreeSet<String> = envelopes.iter().map(|e| e.id.clone()).collect();
    let began = Instant::now();

    let first = Daemon::start(&sandbox, &db);
    wait_until("300 fires start", Duration::from_secs(30), || {
        log_lines(&log).iter().filter(|(k, ..)| k == "START").count() >= KILL_AFTER_STARTS
    });
    first.kill_9();
    // Each hook runs in a process group of its own, so the hooks serve had started outlive it: one
    // started just before the kill may write its START a moment later. Read the log once they have
    // (well within the 0.3 s before any of them writes its END).
    std::thread::sleep(Duration::from_millis(150));
    let at_kill = log_lines(&log);
    let started: BTreeSet<String> = starts(&at_kill).into_keys().collect();
    let ended: BTreeSet<String> = at_kill.iter().filter(|(k, ..)| k == "END").map(|(_, id, _)| id.clone()).collect();
    let in_flight: BTreeSet<String> = started.difference(&ended).cloned().collect();
    assert!(!in_flight.is_empty(), "the kill caught fires in flight");

    let _second = Daemon::start(&sandbox, &db);
    wait_until("every envelope fires and the in-flight ones fire again", Duration::from_secs(100), || {
        let starts = starts(&log_lines(&log));
        ids.iter().all(|id| starts.contains_key(id)) && in_flight.iter().all(|id| starts[id].len() >= 2)
    });
    wait_until("the store empties", Duration::from_secs(20), || {
        SqliteStore::open(&db).and_then(|s| s.load()).is_ok_and(|s| s.envelopes.is_empty())
    });

    let starts = starts(&log_lines(&log));
    let repeated: BTreeSet<String> = starts.iter().filter(|(_, a)| a.len() > 1).map(|(id, _)| id.clone()).collect();
    assert_eq!(starts.keys().cloned().collect::<BTreeSet<_>>(), ids, "every (id, attempt) fired, no other id");
    assert!(repeated.is_superset(&in_flight), "every fire in flight at the kill fired again");
    // A fire whose hook ended just before the kill may not have had its finish committed yet:
    // that is in flight too. Nothing that had not started before the kill fires twice.
    assert!(repeated.is_subset(&started), "only fires that had started before the kill repeat: {repeated:?}");
    assert!(starts.values().flatten().all(|&attempt| attempt == 1), "each repeat carries the same attempt");
    assert!(starts.values().all(|a| a.len() <= 2), "no fire ran three times");
    eprintln!(
        "crash test: {} envelopes, {} started before the kill, {} in flight, {} repeated, {:.1} s",
        ids.len(),
        started.len(),
        in_flight.len(),
        repeated.len(),
        began.elapsed().as_secs_f64()
    );
}
