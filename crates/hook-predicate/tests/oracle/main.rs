//! The execution oracle (DESIGN-0.3 §1): every Bash case of the shared table (`common/`) also
//! runs, under `sh -c` and `bash -c`, in a fresh directory with stub programs (`sandbox.rs`) in
//! place of the programs rules are about. A case fails when a stub received the argv its rule
//! denies (`denied.rs`, the oracle's own reading of the rule) while the analyser said "no match",
//! or while the table said the rule must not match (then the table is wrong). Path rules
//! (`Read(./.env)`, `Edit(./.env)`) are judged by what `strace` saw the run open.
//!
//! Contents:
//! - `no_stub_receives_a_denied_argv_the_analyser_let_through`: the oracle over the whole table,
//!   with a summary (cases run, denied argvs recorded, skips and why) and every failing row.
//! - `the_search_from_the_table_finds_no_command_the_analyser_lets_through`: the searching oracle
//!   (`search.rs`) for a bounded time from the table's commands with a fixed seed.

#[path = "../common/mod.rs"]
mod common;
mod denied;
mod sandbox;
mod search;

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use hook_predicate::{Call, PathAnchors, parse};
use serde_json::json;

use crate::common::{Case, Exec, bash_cases};
use crate::denied::Rule;
use crate::sandbox::{Isolation, Sandbox};

/// What the oracle made of one case.
#[derive(Debug)]
enum Result {
    Skipped(String),
    Ran { denied_by: Vec<&'static str>, got: bool, timed_out: bool, judged: bool },
}

/// Without namespaces nothing stands between a case and the real programs but `PATH`: only a
/// case that names no path, no variable and no way around `PATH` runs then.
fn safe_without_namespace(command: &str) -> bool {
    let risky = [
        "/", "$", "`", "\\", "~", "env", "exec", "command", "PATH", "cd", "eval", "sh", "busybox", "hash", "sudo",
        "chroot",
    ];
    !risky.iter().any(|r| command.contains(r))
}

fn run_case(sandbox: &Sandbox, n: usize, case: &Case) -> Result {
    let shells: &[&'static str] = match case.exec {
        Exec::Skip(why) => return Result::Skipped(why.to_owned()),
        Exec::Shells => &["sh", "bash"],
        Exec::BashOnly => &["bash"],
    };
    if matches!(sandbox.isolation, Isolation::Plain(_)) && !safe_without_namespace(case.command) {
        return Result::Skipped("no namespace to keep it from the real programs".to_owned());
    }
    let rule = Rule::read(case.pattern);
    let mut got = false;
    let mut denied_by = Vec::new();
    let mut timed_out = false;
    for shell in shells {
        let dir = sandbox.case_dir(&format!("{n}-{shell}"));
        let project = dir.join("proj");
        let cwd = case.cwd.map_or(project.clone(), |sub| project.join(sub));
        let anchors = PathAnchors::new(&project).with_home(dir.join("home"));
        got = parse(case.pattern, &anchors).is_ok_and(|predicate| {
            let input = json!({ "command": case.command });
            predicate.verdict(&Call::new("Bash", &input).in_dir(Some(&cwd))).matches()
        });
        let traced = rule.as_ref().is_some_and(Rule::traced);
        let outcome = sandbox.run(&dir, &cwd, shell, case.command, traced);
        timed_out |= outcome.timed_out;
        let denied = rule.as_ref().is_some_and(|rule| {
            outcome.calls.iter().any(|call| rule.denies_call(call))
                || outcome.trace.as_deref().is_some_and(|trace| rule.denies_trace(trace, &project, &cwd))
        });
        if denied {
            denied_by.push(*shell);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    Result::Ran { denied_by, got, timed_out, judged: rule.is_some() }
}

fn require_strace() {
    let found = std::process::Command::new("strace").arg("-V").stdout(std::process::Stdio::null()).status();
    assert!(
        found.is_ok_and(|s| s.success()),
        "the oracle judges path rules by what strace sees opened: install strace"
    );
}

#[test]
fn no_stub_receives_a_denied_argv_the_analyser_let_through() {
    require_strace();
    let start = Instant::now();
    let cases = bash_cases();
    let sandbox = Sandbox::new();
    match &sandbox.isolation {
        Isolation::Namespace { .. } => {
            println!("oracle: in a user, mount, network and pid namespace, stubs bound over the real programs")
        }
        Isolation::Plain(why) => {
            println!("oracle: plain execution ({why}); cases that could reach a real program are skipped")
        }
    }
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result>>> = Mutex::new((0..cases.len()).map(|_| None).collect());
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get()).clamp(2, 4) * 3;
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(case) = cases.get(index) else { break };
                    let result = run_case(&sandbox, index, case);
                    results.lock().unwrap_or_else(std::sync::PoisonError::into_inner)[index] = Some(result);
                }
            });
        }
    });
    let results: Vec<Result> =
        results.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner).into_iter().flatten().collect();
    assert_eq!(results.len(), cases.len(), "every case has a result");

    let mut failures = Vec::new();
    let mut skipped: BTreeMap<String, usize> = BTreeMap::new();
    let (mut ran, mut recorded, mut unjudged, mut timeouts, mut must_match) = (0, 0, 0, 0, 0);
    let mut ran_per_class: BTreeMap<u8, usize> = BTreeMap::new();
    let verbose = std::env::var_os("AIMON_ORACLE_VERBOSE").is_some();
    for (case, result) in cases.iter().zip(&results) {
        if verbose {
            println!(
                "oracle: {} | {:?} | cwd {} | expected {} | {result:?}",
                case.pattern,
                case.command,
                case.cwd.unwrap_or("."),
                case.expected
            );
        }
        match result {
            Result::Skipped(why) => *skipped.entry(why.clone()).or_default() += 1,
            &Result::Ran { ref denied_by, got, timed_out, judged } => {
                ran += 1;
                *ran_per_class.entry(case.class).or_default() += 1;
                timeouts += usize::from(timed_out);
                unjudged += usize::from(!judged);
                must_match += usize::from(case.expected && judged);
                if denied_by.is_empty() {
                    continue;
                }
                recorded += 1;
                let why = match (got, case.expected) {
                    (false, _) => "the analyser said no match",
                    (true, false) => "the table says it must not match",
                    (true, true) => continue,
                };
                failures.push(format!(
                    "{} | {:?} | cwd {} | expected {} | got {} | denied argv recorded under {}: {why}",
                    case.pattern,
                    case.command,
                    case.cwd.unwrap_or("."),
                    case.expected,
                    got,
                    denied_by.join(" and ")
                ));
            }
        }
    }
    println!(
        "oracle: {} cases, {ran} ran ({ran_per_class:?} by class), {recorded} recorded a denied argv",
        cases.len()
    );
    println!("oracle: {unjudged} ran under a rule the oracle does not read; {timeouts} were stopped after the timeout");
    println!("oracle: {} stub calls lost their case; {:.1} s", sandbox.unclaimed(), start.elapsed().as_secs_f64());
    println!("oracle: {} skipped", skipped.values().sum::<usize>());
    for (why, count) in &skipped {
        println!("  {count} skipped: {why}");
    }
    assert!(failures.is_empty(), "{} cases failed the oracle:\n{}", failures.len(), failures.join("\n"));
    let plain = matches!(sandbox.isolation, Isolation::Plain(_));
    assert!(
        plain || recorded * 4 >= must_match,
        "only {recorded} of {must_match} must-match runs recorded a denied argv: are the stubs reached?"
    );
}

/// The sandbox itself: a program named by its absolute path, or found after `env -i` cleared
/// `PATH`, is the stub, and nothing outside the run's directory can be written.
#[test]
fn the_sandbox_puts_stubs_over_the_real_programs_and_keeps_the_rest_read_only() {
    let sandbox = Sandbox::new();
    let dir = sandbox.case_dir("self-check");
    let project = dir.join("proj");
    let escape = std::env::temp_dir().join(format!("aimon-oracle-escape-{}", std::process::id()));
    let command = match &sandbox.isolation {
        Isolation::Namespace { .. } => format!("/usr/bin/touch a; env -i touch b; touch c; : > {}", escape.display()),
        Isolation::Plain(_) => "touch c".to_owned(),
    };
    let outcome = sandbox.run(&dir, &project, "sh", &command, false);
    let names: Vec<String> = outcome.calls.iter().map(|call| String::from_utf8_lossy(&call[0]).into_owned()).collect();
    let wrote_outside = escape.exists();
    let _ = std::fs::remove_file(&escape);
    match &sandbox.isolation {
        Isolation::Namespace { .. } => {
            assert_eq!(names, ["touch", "touch", "touch"], "every touch reached the stub");
            assert!(!wrote_outside, "the namespace let a case write outside its directory");
        }
        Isolation::Plain(why) => {
            println!("oracle: plain execution ({why}): only the stub on PATH is checked");
            assert!(names.iter().filter(|n| *n == "touch").count() >= 1, "the stub on PATH is reached");
        }
    }
    assert!(["a", "b", "c"].iter().all(|f| !project.join(f).exists()), "no real touch ran");
}

/// The searching oracle's short run: the table's commands as seeds, a fixed seed, ~45 s.
#[test]
fn the_search_from_the_table_finds_no_command_the_analyser_lets_through() {
    let sandbox = Sandbox::new();
    if let Isolation::Plain(why) = &sandbox.isolation {
        println!("search: skipped, no namespace ({why}): mutations reach real programs");
        return;
    }
    let seeds: Vec<String> = bash_cases().iter().map(|case| case.command.to_owned()).collect();
    let start = Instant::now();
    let found = search::search(&sandbox, &seeds, 38, std::time::Duration::from_secs(45));
    println!(
        "search: {} candidates in {:.1} s, {} failures",
        found.run,
        start.elapsed().as_secs_f64(),
        found.failures.len()
    );
    let failures = &found.failures;
    assert!(failures.is_empty(), "the search found commands the analyser lets through: {failures:#?}");
}
