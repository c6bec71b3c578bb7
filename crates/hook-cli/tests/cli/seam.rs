//! One pipeline behind `aimon-hooks claude` in process and `serve`'s `POST /v1/claude`: session
//! mail reaches every event the events table gives a mail channel (R-RW-11: userPromptSubmit and
//! postToolFailure too), by either front end, and a forwarded call's payload is read once, by
//! the daemon.

use std::path::Path;

use serde_json::{Value, json};

use crate::daemon::Daemon;
use crate::rewake::mail;
use crate::support::{Outcome, Sandbox};

fn call(event: &str, cwd: &Path) -> Value {
    let mut p = json!({"session_id": "s1", "transcript_path": "/tmp/t.jsonl", "cwd": cwd, "hook_event_name": event});
    if event == "PostToolUseFailure" {
        p["tool_name"] = "Bash".into();
        p["tool_input"] = json!({"command": "cargo test"});
        p["tool_use_id"] = "toolu_1".into();
        p["error"] = "exit status 101".into();
    } else {
        p["prompt"] = "go on".into();
    }
    p
}

fn claude(sandbox: &Sandbox, payload: &Value, extra: &[&str]) -> Outcome {
    Outcome::of(
        sandbox
            .cmd()
            .arg("claude")
            .args(extra)
            .env("CLAUDE_PROJECT_DIR", sandbox.project())
            .write_stdin(payload.to_string()),
    )
}

/// Leaves mail for session `s1` in `db`, answers `event` with `claude`, and checks the answer
/// carries it as the event's additional context, once.
fn mail_reaches(sandbox: &Sandbox, db: &Path, event: &str, extra: &[&str]) {
    let text = format!("CI is green (for {event})");
    mail(db, "s1", &text);
    let out = claude(sandbox, &call(event, &sandbox.project()), extra);
    assert_eq!(out.code, 0, "{event}: {}", out.stderr);
    assert_eq!(
        out.json(),
        json!({"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}),
        "{event}"
    );
    let again = claude(sandbox, &call(event, &sandbox.project()), extra);
    assert_eq!((again.code, again.stdout.as_str()), (0, ""), "{event}: delivered once: {}", again.stderr);
}

#[test]
fn a_rewake_answer_reaches_the_sessions_next_user_prompt_submit_and_post_tool_use_failure_in_process() {
    let sandbox = Sandbox::new();
    let db = sandbox.home().join(".aimon").join("rewake.db");
    std::fs::create_dir_all(db.parent().expect("dir")).expect("mkdir");
    for event in ["UserPromptSubmit", "PostToolUseFailure"] {
        mail_reaches(&sandbox, &db, event, &["--no-serve"]);
    }
}

#[test]
fn through_serve_the_same_answers_come_and_each_forwarded_payload_is_read_once() {
    let sandbox = Sandbox::new();
    let db = sandbox.root().join("rewake.db");
    mail(&db, "nobody", "makes the store file");
    let daemon = Daemon::start(&sandbox, &db);
    let metric = |name: &str| -> u64 {
        let text = daemon.get_tcp("/metrics", Some(&format!("Bearer {}", daemon.token))).body();
        let line = text.lines().find(|l| l.starts_with(name)).unwrap_or_else(|| panic!("no {name} in:\n{text}"));
        line.rsplit(' ').next().and_then(|v| v.parse().ok()).unwrap_or_else(|| panic!("{line}"))
    };
    let before = metric("hook_server_payload_reads ");
    for event in ["UserPromptSubmit", "PostToolUseFailure"] {
        mail_reaches(&sandbox, &db, event, &[]);
    }
    assert_eq!(metric("hook_server_payload_reads "), before + 4, "four forwarded calls, each read once, by the daemon");
    let forwarded: u64 = daemon
        .get_tcp("/metrics", Some(&format!("Bearer {}", daemon.token)))
        .body()
        .lines()
        .filter(|l| l.starts_with("hook_server_requests_total{route=\"/v1/claude\""))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<u64>().ok())
        .sum();
    assert_eq!(forwarded, 4, "the calls went to the daemon");
}
