#![no_main]
//! Fuzzes hook-predicate's `parse` and evaluation (R-PRED-6): no input may panic.
//!
//! The input is split at its first newline: the pattern, then a string used as a Bash command, a file
//! path, a search root, a Glob pattern, a JSON tool input and an event subject. Fixed Bash and path
//! rules (one `~/` rule parsed without a home directory) also run on every input, so the shell
//! analyser and the path rules see every input whatever the pattern.

use hook_predicate::{PathAnchors, ToolInputPredicate, parse};
use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};
use std::sync::OnceLock;

fn fixed() -> &'static [Box<dyn ToolInputPredicate>] {
    static FIXED: OnceLock<Vec<Box<dyn ToolInputPredicate>>> = OnceLock::new();
    FIXED.get_or_init(|| {
        let anchors = PathAnchors::new("/project").with_home("/home/u");
        let rules = ["Bash(git push:*)", r"Bash(command=^rm\s+-rf)", "Bash(npm test)", "Edit(src/**/*.rs)", "Read(~/.ssh/**)"];
        let homeless = PathAnchors::new("/project");
        let homeless_rules = ["Read(~/.aws/**)", "Read(//etc/**)", "Bash(kubectl delete:*)"];
        let with_home = rules.iter().filter_map(|p| parse(p, &anchors).ok());
        with_home.chain(homeless_rules.iter().filter_map(|p| parse(p, &homeless).ok())).collect()
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let (pattern, rest) = text.split_once('\n').unwrap_or((text, ""));
    let anchors = PathAnchors::new("/project").with_home("/home/u").with_tier_root("/tier");
    let predicate = match parse(pattern, &anchors) {
        Ok(p) => p,
        Err(e) => {
            let _ = (e.to_string(), e.pattern());
            e.fallback()
        }
    };
    let json_input = serde_json::from_str::<Value>(rest).unwrap_or(Value::Null);
    let calls = [
        ("Bash", json!({ "command": rest })),
        ("Edit", json!({ "file_path": rest })),
        ("Read", json!({ "path": rest, "nested": { "a": [rest, 1, true, null] } })),
        ("Grep", json!({ "pattern": "x", "path": rest })),
        ("Glob", json!({ "pattern": rest })),
        ("Glob", json!({ "pattern": rest, "path": "/home" })),
        ("mcp__x__y", json_input),
        (rest, Value::Null),
    ];
    for (tool, input) in &calls {
        let _ = predicate.test(tool, input);
        for p in fixed() {
            let _ = p.test(tool, input);
        }
    }
});
