//! The worst case of one tool call's analysis (DESIGN-0.4 §7: any command up to 1 MB analysed in
//! ≤ 100 ms), over generated families of hostile commands, against a trivial command in the same
//! run (the machine is noisy: the ratio is the figure to compare across commits).
//!
//! Each family grows one dimension — `cd dN; cat fN` pairs, nested `$( … )`, pipelines, words,
//! `;`-separated commands, variables that double, `eval` chains — up to 1 MB. One call is the
//! command tested against the rules a policy would hold together: `Bash(git push:*)`,
//! `Read(./.env)`, `Read(.env)` and `Edit(./.aimon/**)`. Each command alternates with a copy of
//! itself plus a trailing space, so the per-thread memo of the last analysis never answers.
//! Prints, per command, the median of `AIMON_BENCH_ROUNDS` (default 3) calls, its verdicts, and the
//! worst case against the budget; exits non-zero when a verdict lets `git push` through.

use std::hint::black_box;
use std::time::{Duration, Instant};

use hook_predicate::{Call, PathAnchors, ToolInputPredicate, Verdict, parse};
use serde_json::{Value, json};

const RULES: [&str; 4] = ["Bash(git push:*)", "Read(./.env)", "Read(.env)", "Edit(./.aimon/**)"];
const BUDGET: Duration = Duration::from_millis(100);
const MB: usize = 1 << 20;

/// `unit` repeated until the command reaches `len` bytes, then `tail`.
fn fill(len: usize, tail: &str, mut unit: impl FnMut(usize) -> String) -> String {
    let mut out = String::new();
    let mut i = 0;
    while out.len() + tail.len() < len {
        out.push_str(&unit(i));
        i += 1;
    }
    out.push_str(tail);
    out
}

fn cd_cat(len: usize) -> String {
    fill(len, "git push", |i| format!("cd d{i}; cat f{i}; "))
}

/// The generated families: (family, size, command).
fn family() -> Vec<(&'static str, usize, String)> {
    let mut out = Vec::new();
    for len in [1_000, 3_700, 6_300, 20_000, 100_000, MB] {
        out.push(("cd/cat", len, cd_cat(len)));
        out.push(("cd ../cat", len, fill(len, "git push", |i| format!("cd ../d{i}/x; cat ../f{i}/.env; "))));
        out.push(("cd then cats", len, {
            let cds = fill(len / 2, "", |i| format!("cd d{i}; "));
            fill(len, "git push", |i| if i == 0 { cds.clone() } else { format!("cat f{i}; ") })
        }));
    }
    for len in [10_000, 100_000, MB] {
        let depth = len / 4;
        out.push(("nested $( )", len, format!("{}git push{}", "$(".repeat(depth), ")".repeat(depth))));
        out.push(("nested $(cat …)", len, fill(len, "git push", |_| "echo $(cat $(cat $(cat f))); ".to_owned())));
        out.push(("pipeline", len, fill(len, "git push", |i| format!("cat f{i} | "))));
        out.push(("a;", len, fill(len, "git push", |_| "a;".to_owned())));
        out.push(("echo a;", len, fill(len, "git push", |_| "echo a; ".to_owned())));
        out.push(("words", len, fill(len, "; git push", |i| format!("w{i} "))));
        out.push((
            "cat words",
            len,
            fill(len, "; git push", |i| if i == 0 { "cat ".into() } else { format!("f{i} ") }),
        ));
        out.push(("bash -c", len, fill(len, "git push", |i| format!("bash -c 'cd d{i}; cat f{i}'; "))));
        out.push(("eval", len, fill(len, "git push", |_| "eval ".to_owned())));
        out.push(("here-documents", len, fill(len, "git push", |_| "cat <<E; ".to_owned())));
        out.push(("assignments", len, fill(len, "cat $V; git push", |i| format!("V{i}=x "))));
    }
    for doublings in [10, 20, 40] {
        out.push(("doubling var", doublings, format!("A=x; {}cat $A; git push", "A=$A$A; ".repeat(doublings))));
    }
    out
}

/// One call: the command against every rule. The verdicts, in the order of [`RULES`].
fn call(rules: &[Box<dyn ToolInputPredicate>], input: &Value) -> Vec<Verdict> {
    rules.iter().map(|r| r.verdict(&Call::new("Bash", black_box(input)))).collect()
}

fn median_call(rules: &[Box<dyn ToolInputPredicate>], command: &str, rounds: usize) -> (Duration, Vec<Verdict>) {
    let inputs = [json!({ "command": command }), json!({ "command": format!("{command} ") })];
    let mut verdicts = Vec::new();
    let mut times: Vec<Duration> = (0..rounds)
        .map(|i| {
            let start = Instant::now();
            verdicts = call(rules, &inputs[i % 2]);
            start.elapsed()
        })
        .collect();
    times.sort();
    (times[times.len() / 2], verdicts)
}

fn main() {
    let rounds = std::env::var("AIMON_BENCH_ROUNDS").ok().and_then(|r| r.parse().ok()).unwrap_or(3).max(1);
    let only = std::env::var("AIMON_BENCH_ONLY").ok();
    // A project that exists, as a real one does (the `cd` targets below it do not).
    let project = std::env::temp_dir().join("aimon-worst-case-bench");
    std::fs::create_dir_all(&project).expect("a scratch project directory");
    let anchors = PathAnchors::new(&project).with_home("/home/u");
    let rules: Vec<Box<dyn ToolInputPredicate>> =
        RULES.iter().map(|p| parse(p, &anchors).expect("rules parse")).collect();
    let (baseline, _) = median_call(&rules, "ls -la", 101);
    println!("baseline: `ls -la` against {} rules: {baseline:?} per call", RULES.len());
    println!(
        "{:<16} {:>9} {:>12} {:>10}  verdicts ({})",
        "family",
        "bytes",
        "per call",
        "÷ baseline",
        RULES.join(", ")
    );
    let mut worst = (Duration::ZERO, String::new());
    let mut let_through = 0;
    for (name, size, command) in family() {
        if only.as_deref().is_some_and(|o| !name.contains(o)) {
            continue;
        }
        let (time, verdicts) = median_call(&rules, &command, rounds);
        let ratio = time.as_secs_f64() / baseline.as_secs_f64();
        println!("{name:<16} {:>9} {time:>12.2?} {ratio:>10.0}  {verdicts:?}", command.len());
        let _ = size;
        if !verdicts[0].matches() {
            let_through += 1;
        }
        if time > worst.0 {
            worst = (time, format!("{name} at {} bytes", command.len()));
        }
    }
    let verdict = if worst.0 <= BUDGET { "within" } else { "OVER" };
    println!(
        "worst: {:?} ({}), {verdict} the {BUDGET:?} budget; {:.0}× the baseline",
        worst.0,
        worst.1,
        worst.0.as_secs_f64() / baseline.as_secs_f64()
    );
    assert_eq!(let_through, 0, "a command ending in `git push` was let through");
}
