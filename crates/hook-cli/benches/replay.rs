//! `aimon-hooks replay` of a 10,000-call Claude Code transcript made by concatenating copies of a
//! real one (`tests/fixtures/replay/claude-session.jsonl`, kept from a session of the real Claude
//! Code suite with `AIMON_KEEP_TRANSCRIPT`), each copy's tool-use ids and session renamed so the
//! calls stay distinct. The policy denies `git push`; the figure is the wall time of the whole
//! command, which must stay within 2 s.
//!
//! `cargo bench -p hook-cli --bench replay` (release profile).

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

const CALLS: usize = 10_000;
const BUDGET: Duration = Duration::from_secs(2);

fn main() {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let real = std::fs::read_to_string(manifest.join("tests/fixtures/replay/claude-session.jsonl"))
        .expect("the real transcript");
    let per_copy = real.matches(r#""type":"tool_use""#).count();
    assert!(per_copy > 0, "the fixture holds tool calls");
    let dir = tempfile::tempdir().expect("dir");
    let project = dir.path().join("project");
    std::fs::create_dir_all(project.join(".aimon")).expect("mkdir");
    std::fs::write(
        project.join(".aimon/hooks.json"),
        r#"{"hooks": {"PreToolUse": [{"matcher": "Bash(git push:*)", "hooks": [{"type": "deny", "reason": "pushes are reviewed"}]}]}}"#,
    )
    .expect("policy");
    let mut text = String::new();
    let copies = CALLS.div_ceil(per_copy);
    for k in 0..copies {
        text.push_str(
            &real
                .replace("toolu_", &format!("toolu_{k}_"))
                .replace(r#""sessionId":""#, &format!(r#""sessionId":"{k}-"#)),
        );
        if !text.ends_with('\n') {
            text.push('\n');
        }
    }
    let transcript = dir.path().join("big.jsonl");
    std::fs::write(&transcript, &text).expect("write");
    let started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_aimon-hooks"))
        .args(["replay", "--json", "--project"])
        .arg(&project)
        .arg(&transcript)
        .env("HOME", dir.path())
        .output()
        .expect("replay runs");
    let elapsed = started.elapsed();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let pre = report["summary"]["preTool"]["calls"].as_u64().unwrap_or(0);
    println!(
        "replay: {} copies of a {per_copy}-call transcript ({} MB): {pre} preTool calls, {} calls in all, {} differences, {:.0} ms (budget {} ms)",
        copies,
        text.len() / 1_000_000,
        report["calls"],
        report["differences"].as_array().map_or(0, Vec::len),
        elapsed.as_secs_f64() * 1000.0,
        BUDGET.as_millis()
    );
    assert!(pre as usize >= CALLS, "{pre} tool calls replayed");
    assert!(elapsed <= BUDGET, "replay took {elapsed:?}, over {BUDGET:?}");
}
