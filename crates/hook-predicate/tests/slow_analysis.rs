//! Issue 36: a slow analysis is not a yes. Every client lets the tool run when a hook times out,
//! so a command built to be slow to analyse (`cd d1; cat f1; cd d2; cat f2; …` cost the cube of
//! its length under a Read rule: 243 s at 6.3 kB) must be answered, and past the analyser's work
//! budget it is uncertain: a deny rule holds. Times are the bench's (`benches/worst_case.rs`);
//! here only the verdicts, with a generous hang guard.

use std::sync::mpsc;
use std::time::Duration;

use hook_predicate::{Call, PathAnchors, Verdict, parse};
use serde_json::json;

const MB: usize = 1 << 20;

/// Not a budget: a guard so that a regression fails instead of hanging the suite.
const HANG_GUARD: Duration = Duration::from_secs(10);

/// `unit(i)` for i = 0, 1, … until the command would pass `len` bytes, then `tail`.
fn fill(len: usize, tail: &str, unit: impl Fn(usize) -> String) -> String {
    let mut out = String::new();
    for i in 0.. {
        let next = unit(i);
        if out.len() + next.len() + tail.len() > len {
            break;
        }
        out.push_str(&next);
    }
    out + tail
}

/// The issue's command: `cd dN; cat fN` pairs with distinct directories, then `git push`.
fn cd_cat(len: usize) -> String {
    fill(len, "git push", |i| format!("cd d{i}; cat f{i}; "))
}

/// The verdict of `rule` on the Bash command, on a thread of its own, or `None` past the guard.
fn verdict(rule: &'static str, command: String) -> Option<Verdict> {
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        let predicate = parse(rule, &PathAnchors::new("/proj").with_home("/home/u")).expect("the rule parses");
        let _ = sender.send(predicate.verdict(&Call::new("Bash", &json!({ "command": command }))));
    });
    receiver.recv_timeout(HANG_GUARD).ok()
}

/// `(rule, what, command, expected)` checked together, failures listed.
fn check(cases: Vec<(&'static str, &'static str, String, Verdict)>) {
    let total = cases.len();
    let failures: Vec<String> = cases
        .into_iter()
        .filter_map(|(rule, what, command, want)| {
            let bytes = command.len();
            match verdict(rule, command) {
                Some(got) if got == want => None,
                got => Some(format!("{rule} | {what} ({bytes} bytes) | expected {want:?} | got {got:?}")),
            }
        })
        .collect();
    assert!(failures.is_empty(), "{} of {total} cases failed:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn the_issue_s_cd_and_cat_command_is_answered_and_a_deny_rule_holds() {
    use Verdict::{Match, NoMatch, Uncertain};
    let issue = cd_cat(6_300);
    assert!(issue.len() > 6_200 && issue.ends_with("; git push"), "{}", issue.len());
    check(vec![
        ("Bash(git push:*)", "6.3 kB of cd/cat", issue.clone(), Match),
        // Past the resolution budget: every path rule is uncertain, so a Read deny holds.
        ("Read(./.env)", "6.3 kB of cd/cat", issue.clone(), Uncertain),
        ("Edit(./.aimon/**)", "6.3 kB of cd/cat", issue.clone(), Uncertain),
        ("Read(./.env)", "6.3 kB of cd/cat reading .env first", format!("cat .env; {issue}"), Match),
        ("Read(./.env)", "6.3 kB of cd/cat reading .env last", format!("{issue}; cat /proj/.env"), Uncertain),
        // The common case stays certain: a few `cd` steps are resolved exactly.
        ("Read(./.env)", "1 kB of cd/cat", cd_cat(1_000), NoMatch),
        ("Read(./.env)", "1 kB of cd/cat, then ../.env", format!("{}; cat ../.env", cd_cat(1_000)), Match),
        ("Read(./.env)", "cd back up to .env", "cd a; cd b; cd ../..; cat .env".to_owned(), Match),
    ]);
}

#[test]
fn a_one_megabyte_command_of_any_shape_is_answered_and_a_deny_rule_holds() {
    use Verdict::{Match, NoMatch, Uncertain};
    let depth = MB / 4;
    // Under a Read rule: each goes past a budget, and is uncertain.
    let worst: Vec<(&str, String, Verdict)> = vec![
        ("cd/cat", cd_cat(MB), Uncertain),
        ("cd ../cat", fill(MB, "git push", |i| format!("cd ../d{i}/x; cat ../f{i}/.env; ")), Uncertain),
        ("a;", fill(MB, "git push", |_| "a;".to_owned()), Uncertain),
        ("nested $( )", format!("{}git push{}", "$(".repeat(depth), ")".repeat(depth)), Uncertain),
        ("nested $( ) naming .env", format!("{}cat .env{}", "$(".repeat(depth), ")".repeat(depth)), Uncertain),
        ("eval chain", fill(MB, "git push", |_| "eval ".to_owned()), Uncertain),
        ("100k words", fill(MB, "; git push", |i| format!("w{i} ")), Uncertain),
        ("pipeline", fill(MB, "git push", |i| format!("cat f{i} | ")), Uncertain),
        ("here-documents", fill(MB, "git push", |_| "cat <<E; ".to_owned()), Uncertain),
        ("bash -c", fill(MB, "git push", |i| format!("bash -c 'cd d{i}; cat f{i}'; ")), Uncertain),
        ("doubling variable", format!("A=.env; {}cat $A; git push", "A=$A$A; ".repeat(40)), Uncertain),
    ];
    let mut cases = Vec::new();
    for (what, command, read) in worst {
        assert!(command.len() <= MB + 16, "{what}: {}", command.len());
        if command.ends_with("git push") {
            // Read to the end, or given up on past the budget (uncertain): the deny holds either way.
            let past_the_cap =
                ["a;", "eval chain", "here-documents", "cd/cat", "cd ../cat", "100k words", "pipeline", "bash -c"];
            let push = if past_the_cap.contains(&what) { Uncertain } else { Match };
            cases.push(("Bash(git push:*)", what, command.clone(), push));
        }
        cases.push(("Read(./.env)", what, command, read));
    }
    // Plain but dense: past the cap on any command's work, so uncertain (a deny holds); 100 kB of
    // the same is still read to the end, and certain.
    cases.push(("Bash(git push:*)", "1 MB of echo", fill(MB, "", |_| "echo a; ".to_owned()), Uncertain));
    cases.push(("Read(./.env)", "1 MB of echo", fill(MB, "", |_| "echo a; ".to_owned()), Uncertain));
    cases.push(("Bash(git push:*)", "100 kB of echo", fill(100 << 10, "", |_| "echo a; ".to_owned()), NoMatch));
    cases.push(("Read(./.env)", "100 kB of echo", fill(100 << 10, "", |_| "echo a; ".to_owned()), NoMatch));
    check(cases);
}

/// An exec's argv, as the guard asks about it, is read to its end however long: the kernel bounds
/// it, and past a budget a long benign argv (`xargs`, a linker's objects) would be refused. The
/// budgets still grow with the length, so nothing can make the check take unbounded time.
#[test]
fn an_execs_whole_argv_is_read_to_its_end_however_long() {
    use Verdict::{Match, NoMatch, Uncertain};
    let many = |program: &str, last: &str| format!("{program} {}{last}", "a ".repeat(190_000));
    let cases: Vec<(&str, &str, String, Verdict, Verdict)> = vec![
        // (rule, what, argv, as a tool call's text, as an exec's whole argv)
        ("Bash(touch:*)", "a program no rule names", many("count", "b"), Uncertain, NoMatch),
        ("Read(./.env)", "a program no rule names", many("count", "b"), Uncertain, NoMatch),
        ("Read(./.env)", "cat of many files", many("cat", "b"), Uncertain, NoMatch),
        ("Read(./.env)", "cat of many files, .env last", many("cat", ".env"), Uncertain, Match),
        ("Bash(touch:*)", "touch of many files", many("touch", "b"), Uncertain, Match),
        ("Bash(touch:*)", "an unmodelled program naming touch last", many("make", "touch"), Uncertain, Uncertain),
        // `cd` chains multiply the uses to resolve: past a budget linear in the length, still.
        ("Read(./.env)", "6.3 kB of cd/cat", cd_cat(6_300), Uncertain, Uncertain),
    ];
    let mut failures = Vec::new();
    for (rule, what, argv, text, whole) in cases {
        let (sender, receiver) = mpsc::channel();
        std::thread::spawn(move || {
            let predicate = parse(rule, &PathAnchors::new("/proj").with_home("/home/u")).expect("the rule parses");
            let input = json!({ "command": argv });
            let call = Call::new("Bash", &input);
            let as_text = predicate.verdict(&call);
            let _scope = hook_predicate::WholeArgv::enter();
            let _ = sender.send((as_text, predicate.verdict(&call)));
        });
        match receiver.recv_timeout(HANG_GUARD) {
            Ok(got) if got == (text, whole) => {}
            got => failures.push(format!("{rule} | {what} | expected {:?} | got {got:?}", (text, whole))),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
