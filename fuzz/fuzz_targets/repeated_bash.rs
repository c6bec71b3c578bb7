#![no_main]
//! Fuzzes the shell analyser's cost (issue 36: a slow analysis is a yes): the input's first byte
//! picks a length, the rest (decoded lossily as UTF-8, at most 64 bytes) is a unit repeated up to
//! that length (up to 128 KiB), so that what the fuzzer grows is the shape, and any cost that is
//! not linear in the repetitions shows at once. Run with a short `-timeout` (2 s): every analysis
//! has a work budget linear in the command's length, so an input that takes longer is a finding.
//! Besides no panic, what runs first still matches past any budget: `git push` on a line of its
//! own before the repetitions matches `Bash(git push:*)`, and `cat .env` so matches `Read(./.env)`
//! and `Read(.env)`, certainly or uncertainly.

use std::sync::OnceLock;

use hook_predicate::{Call, PathAnchors, ToolInputPredicate, parse};
use libfuzzer_sys::fuzz_target;
use serde_json::json;

const RULES: [&str; 4] = ["Bash(git push:*)", "Read(./.env)", "Read(.env)", "Edit(./.aimon/**)"];

fn rules() -> &'static [Box<dyn ToolInputPredicate>] {
    static RULES_PARSED: OnceLock<Vec<Box<dyn ToolInputPredicate>>> = OnceLock::new();
    RULES_PARSED.get_or_init(|| {
        let anchors = PathAnchors::new("/project").with_home("/home/u");
        RULES.iter().map(|rule| parse(rule, &anchors).expect("the fuzzed rules parse")).collect()
    })
}

fn matches(rule: usize, command: &str) -> bool {
    let input = json!({ "command": command });
    rules()[rule].verdict(&Call::new("Bash", &input)).matches()
}

fuzz_target!(|data: &[u8]| {
    let Some((&size, unit)) = data.split_first() else { return };
    let unit = String::from_utf8_lossy(&unit[..unit.len().min(64)]);
    if unit.is_empty() {
        return;
    }
    let len = 512 * (usize::from(size) + 1);
    let repeated = unit.repeat(len / unit.len() + 1);
    for rule in 0..RULES.len() {
        let _ = matches(rule, &repeated);
    }
    let push = format!("git push\n{repeated}");
    assert!(matches(0, &push), "Bash(git push:*) did not match git push before {} bytes of {unit:?}", repeated.len());
    let read = format!("cat .env\n{repeated}");
    assert!(matches(1, &read), "Read(./.env) did not match cat .env before {} bytes of {unit:?}", repeated.len());
    assert!(matches(2, &read), "Read(.env) did not match cat .env before {} bytes of {unit:?}", repeated.len());
});
