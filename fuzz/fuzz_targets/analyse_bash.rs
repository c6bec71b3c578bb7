#![no_main]
//! Fuzzes the shell analyser behind Bash rules (R-PRED-6, issue 23): the input (decoded lossily as
//! UTF-8) is a Bash command, tested against a few parsed rules — two word rules, a `command=` regex
//! and a Read path rule, which also looks at the files a Bash command opens — from the project
//! root and from a subdirectory. No input may panic, and two invariants hold:
//!
//! - `git push` before anything always matches `Bash(git push:*)` (certainly or uncertainly), in
//!   the two forms where bash has started `git push` whatever follows: on a line of its own
//!   (`git push` + newline + the input: bash runs a line before it reads the next), and with the
//!   input as one single-quoted argument (`git push '…'`, its `'` written `'\''`). A bare suffix
//!   (`git push ` + the input) is no such invariant: bash parses a whole line before running any of
//!   it, and a line that is a syntax error (`git push f() { :; }`) runs nothing;
//! - the per-thread memo of the last analysis never changes an answer: a command tested again after
//!   another one gets the verdict it got the first time.

use std::path::Path;
use std::sync::OnceLock;

use hook_predicate::{Call, PathAnchors, ToolInputPredicate, Verdict, parse};
use libfuzzer_sys::fuzz_target;
use serde_json::json;

const RULES: [&str; 4] = ["Bash(git push:*)", "Bash(rm -rf:*)", r"Bash(command=^rm\s+-rf)", "Read(./.env)"];

fn rules() -> &'static [Box<dyn ToolInputPredicate>] {
    static RULES_PARSED: OnceLock<Vec<Box<dyn ToolInputPredicate>>> = OnceLock::new();
    RULES_PARSED.get_or_init(|| {
        let anchors = PathAnchors::new("/project").with_home("/home/u");
        RULES.iter().map(|rule| parse(rule, &anchors).expect("the fuzzed rules parse")).collect()
    })
}

/// Every rule's verdict on `command`, run from `cwd`.
fn verdicts(command: &str, cwd: Option<&Path>) -> Vec<Verdict> {
    let input = json!({ "command": command });
    let call = Call::new("Bash", &input).in_dir(cwd);
    rules().iter().map(|rule| rule.verdict(&call)).collect()
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let first = verdicts(&text, None);
    let _ = verdicts(&text, Some(Path::new("/project/sub")));

    let quoted = text.replace('\'', "'\\''");
    for push in [format!("git push\n{text}"), format!("git push '{quoted}'")] {
        let pushed = verdicts(&push, None);
        assert!(pushed[0].matches(), "Bash(git push:*) did not match {push:?}");
    }

    assert_eq!(verdicts(&text, None), first, "the memo changed the verdicts on {text:?}");
});
