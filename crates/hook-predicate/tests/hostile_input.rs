//! Issue 23, class 1 at the predicate level: NUL bytes, replacement characters, 1 MB commands and
//! 100,000-deep nesting. The analyser must not panic (nor overflow its stack), and a deny rule must
//! match whenever the denied program is in the text; a command whose text does not hold the
//! rule's program never matches, unless it is past the analysis' cap on work (uncertain).

use std::sync::mpsc;
use std::time::Duration;

use hook_predicate::{PathAnchors, parse};
use serde_json::json;

const PUSH: &str = "Bash(git push:*)";
const TOUCH: &str = "Bash(touch:*)";
const MB: usize = 1 << 20;
const DEEP: usize = 100_000;

/// `(what, rule, command, expected)`.
fn cases() -> Vec<(&'static str, &'static str, String, bool)> {
    let filler = "echo a; ".repeat(MB / 8);
    vec![
        ("a NUL after the command", PUSH, "git push\0".to_owned(), true),
        ("a NUL before the command", PUSH, "\0git push".to_owned(), true),
        ("a NUL between the arguments", PUSH, "git push\0--force".to_owned(), true),
        ("a NUL in an earlier command", TOUCH, "echo a\0b; touch x".to_owned(), true),
        ("a NUL inside quotes", TOUCH, "echo 'a\0'; touch x".to_owned(), true),
        ("replacement characters after", PUSH, "git push \u{FFFD}\u{FFFD}".to_owned(), true),
        ("replacement characters before", PUSH, "\u{FFFD}\u{FFFD} && git push".to_owned(), true),
        ("a replacement character in quotes", TOUCH, "echo '\u{FFFD}'; touch x".to_owned(), true),
        ("a lone surrogate as JavaScript sends it", TOUCH, "echo x\u{FFFD}; touch pwned.txt".to_owned(), true),
        ("1 MB of commands before", PUSH, format!("{filler}git push"), true),
        ("1 MB of commands after", PUSH, format!("git push; {filler}"), true),
        ("a 1 MB argument", TOUCH, format!("touch {}", "x".repeat(MB)), true),
        // A reserved word that skips words past the last one (found by the search: it panicked).
        ("`function` with no name", TOUCH, "function".to_owned(), false),
        ("`function` with no name, then a command", TOUCH, "function\ntouch x".to_owned(), true),
        ("a 1 MB unterminated quote on a later line", TOUCH, format!("touch x\necho '{}", "y".repeat(MB)), true),
        (
            "a 1 MB unterminated quote on the first line (bash runs none of it)",
            TOUCH,
            format!("touch x; echo '{}", "y".repeat(MB)),
            false,
        ),
        // Past the cap on any command's work: uncertain, so the deny holds (a false alarm no
        // person meets); 100 kB is read to the end.
        ("1 MB without the program", PUSH, filler.clone(), true),
        ("100 kB without the program", PUSH, "echo a; ".repeat(100 << 7), false),
        ("100k subshells", TOUCH, format!("{}touch x{}", "(".repeat(DEEP), ")".repeat(DEEP)), true),
        ("100k command substitutions", PUSH, format!("{}git push{}", "$(".repeat(DEEP), ")".repeat(DEEP)), true),
        ("100k groups", TOUCH, format!("{}touch x;{}", "{ ".repeat(DEEP), " }".repeat(DEEP)), true),
        ("100k ifs", TOUCH, format!("{}touch x; {}", "if true; then ".repeat(DEEP), "fi; ".repeat(DEEP)), true),
        (
            "100k arithmetic expansions",
            TOUCH,
            format!("echo {}$(touch x){}", "$((".repeat(DEEP), "))".repeat(DEEP)),
            true,
        ),
        ("100k nested quotes", TOUCH, format!("{}touch x{}", "\"$(echo ".repeat(DEEP), ")\"".repeat(DEEP)), true),
        ("100k unclosed subshells", TOUCH, format!("{}touch x", "(".repeat(DEEP)), true),
        ("100k closing parentheses", TOUCH, format!("touch x{}", ")".repeat(DEEP)), true),
    ]
}

/// How long one evaluation may take: an analysis that does not end is a veto that never comes.
const BUDGET: Duration = Duration::from_secs(10);

/// The verdict on `command`, evaluated on a thread of its own (the default 2 MB stack), or `None`
/// when it takes longer than [`BUDGET`] (the thread is left behind).
fn within_budget(rule: &'static str, command: String) -> Option<bool> {
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        let predicate = parse(rule, &PathAnchors::new("/proj")).expect("the rules parse");
        let _ = sender.send(predicate.test("Bash", &json!({ "command": command })));
    });
    receiver.recv_timeout(BUDGET).ok()
}

#[test]
fn hostile_commands_neither_panic_nor_turn_a_deny_rule_off() {
    let cases = cases();
    let total = cases.len();
    let failures: Vec<String> = cases
        .into_iter()
        .filter_map(|(what, rule, command, expected)| {
            let bytes = command.len();
            match within_budget(rule, command) {
                Some(got) if got == expected => None,
                Some(got) => Some(format!("{rule} | {what} ({bytes} bytes) | expected {expected} | got {got}")),
                None => {
                    Some(format!("{rule} | {what} ({bytes} bytes) | expected {expected} | no answer within {BUDGET:?}"))
                }
            }
        })
        .collect();
    assert!(failures.is_empty(), "{} of {total} hostile cases failed:\n{}", failures.len(), failures.join("\n"));
}
