//! A driver for instruction counts (issue 23's cost goal): evaluates each line of a command file
//! once under one rule, inside `measured` so that
//! `valgrind --tool=callgrind --toggle-collect='*measured*'` counts only the evaluations.
//!
//! `bash_cost RULE FILE [--with-read-rule]`: FILE holds one command per line (`#` lines skipped), or ends in `.json`
//! and holds a JSON list of commands. A warm-up pass first evaluates every command with a trailing
//! space, so one-time initialisation is not counted and the memo of the last analysis never answers. Uses only the API the baseline b5920db also has, so the
//! same file runs on both sides.

use std::hint::black_box;

use hook_predicate::{PathAnchors, ToolInputPredicate, parse};
use serde_json::{Value, json};

#[inline(never)]
fn measured(predicate: &dyn ToolInputPredicate, inputs: &[Value]) -> usize {
    inputs.iter().filter(|input| predicate.test("Bash", black_box(input))).count()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(rule), Some(file)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: bash_cost RULE FILE [--with-read-rule]");
        std::process::exit(2);
    };
    let text = std::fs::read_to_string(file).expect("the command file reads");
    let anchors = PathAnchors::new("/proj").with_home("/home/u");
    let predicate = parse(rule, &anchors).expect("the rule parses");
    // `--with-read-rule`: a Read rule exists too (a Bash analysis then also records file uses).
    let _read_rule = args.iter().any(|a| a == "--with-read-rule").then(|| parse("Read(./.env)", &anchors));
    let inputs: Vec<Value> = if file.ends_with(".json") {
        serde_json::from_str::<Vec<String>>(&text)
            .expect("a JSON list of commands")
            .into_iter()
            .map(|c| json!({ "command": c }))
            .collect()
    } else {
        text.lines().filter(|l| !l.is_empty() && !l.starts_with('#')).map(|l| json!({ "command": l })).collect()
    };
    // A warm-up pass on other spellings (a trailing space: read the same, but not the memo's last
    // command), so one-time initialisation is not counted.
    let warm: Vec<Value> =
        inputs.iter().map(|i| json!({ "command": format!("{} ", i["command"].as_str().unwrap_or("")) })).collect();
    black_box(warm.iter().filter(|input| predicate.test("Bash", input)).count());
    let matched = measured(predicate.as_ref(), &inputs);
    println!("{rule}: {} commands, {matched} matched", inputs.len());
}
