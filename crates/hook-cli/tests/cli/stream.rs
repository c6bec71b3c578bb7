//! `GET /v1/stream` of a real `serve` over TCP: a rewake asked through `/v1/run` fires and its
//! fire arrives as a server-sent event; the stream needs the bearer token like every route; an
//! envelope a one-shot `run` writes is picked up through the store's wake signal, not a poll.

use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::daemon::Daemon;
use crate::support::{Outcome, Sandbox, one_hook};

/// POSTs `body` to `path` on TCP with the token; returns the status.
fn post(daemon: &Daemon, path: &str, body: &str) -> u16 {
    let mut stream = TcpStream::connect(("127.0.0.1", daemon.port)).expect("connect");
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nAuthorization: Bearer {}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        daemon.token,
        body.len()
    );
    stream.write_all(head.as_bytes()).expect("send");
    let mut raw = String::new();
    stream.read_to_string(&mut raw).expect("read");
    raw.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or_else(|| panic!("no status: {raw:?}"))
}

#[test]
fn a_rewake_scheduled_through_v1_run_arrives_on_the_stream_with_what_the_hook_said() {
    let sandbox = Sandbox::new();
    let hook = r#"if [ -n "$AIMON_REWAKE_ID" ]; then echo "{\"hookSpecificOutput\":{\"hookEventName\":\"PostToolUse\",\"additionalContext\":\"woken $AIMON_REWAKE_ATTEMPT\"}}"; fi"#;
    sandbox.project_hooks(&one_hook(
        "PostToolUse",
        "Bash",
        json!({"type": "command", "command": hook, "timeout": 10,
               "asyncRewake": {"trigger": {"delay": "1s"}, "maxAttempts": 1, "reason": "check CI"}}),
    ));
    let store = sandbox.root().join("rewake.db");
    let daemon = Daemon::start(&sandbox, &store);
    let project = sandbox.project();
    let mut stream = daemon.get_tcp(
        &format!("/v1/stream?session=s-9&project={}", project.display()),
        Some(&format!("Bearer {}", daemon.token)),
    );
    assert_eq!(stream.status, 200);
    assert_eq!(stream.header("content-type"), Some("text/event-stream"));

    let payload = json!({"session_id": "s-9", "transcript_path": "/tmp/t.jsonl", "cwd": project,
                         "hook_event_name": "PostToolUse", "tool_name": "Bash",
                         "tool_input": {"command": "git push"}, "tool_response": {"stdout": ""},
                         "tool_use_id": "toolu_1"});
    // Another session's fire is filtered out of this subscription.
    let mut other = payload.clone();
    other["session_id"] = "s-other".into();
    assert_eq!(post(&daemon, "/v1/run/postTool", &other.to_string()), 200);
    assert_eq!(post(&daemon, "/v1/run/postTool", &payload.to_string()), 200);

    let fire = stream.next_event();
    assert_eq!(fire.event, "fire");
    let data = fire.json();
    assert_eq!(fire.id.as_deref(), Some(format!("{}#1", data["id"].as_str().expect("an id")).as_str()));
    assert!(data["id"].as_str().is_some_and(|id| id.starts_with("rw-")), "{data}");
    assert!(data["hook_id"].as_str().is_some_and(|id| id.starts_with("command@project#0#")), "{data}");
    for (key, expected) in [
        ("attempt", json!(1)),
        ("event", json!("postTool")),
        ("project", json!(project.display().to_string())),
        ("session_id", json!("s-9")),
        ("reason", json!("check CI")),
        ("outcome", json!("ran")),
        ("decision", json!("allow")),
        ("blocked", json!(false)),
        ("feedback", json!("woken 1")),
        ("error", json!(null)),
    ] {
        assert_eq!(data[key], expected, "{key} in {data}");
    }
}

#[test]
fn the_stream_needs_the_bearer_token_on_tcp() {
    let sandbox = Sandbox::new();
    let daemon = Daemon::start(&sandbox, &sandbox.root().join("rewake.db"));
    for auth in [None, Some("Bearer wrong")] {
        let refused = daemon.get_tcp("/v1/stream", auth);
        assert_eq!(refused.status, 401, "{auth:?}");
        assert!(refused.body().contains("a valid bearer token is required"));
    }
    let accepted = daemon.get_tcp("/v1/stream", Some(&format!("Bearer {}", daemon.token)));
    assert_eq!(accepted.status, 200);
}

#[test]
fn sigterm_ends_open_streams_and_the_daemon_exits_without_waiting_out_its_grace() {
    let sandbox = Sandbox::new();
    let daemon = Daemon::start(&sandbox, &sandbox.root().join("rewake.db"));
    let mut stream = daemon.get_tcp("/v1/stream", Some(&format!("Bearer {}", daemon.token)));
    assert_eq!(stream.status, 200);
    let took = daemon.terminate();
    stream.read_to_end();
    // The grace for requests in flight is 5 s; a stream that never ended would hold it all.
    assert!(took < Duration::from_secs(4), "serve took {took:?} to stop with a stream open");
}

#[test]
fn a_rewake_a_one_shot_run_writes_to_the_store_fires_well_before_the_daemons_fallback_poll() {
    let sandbox = Sandbox::new();
    let hook = r#"if [ -n "$AIMON_REWAKE_ID" ]; then echo "woken"; fi"#;
    sandbox.project_hooks(&one_hook(
        "PostToolUse",
        "Bash",
        json!({"type": "command", "command": hook, "timeout": 10,
               "asyncRewake": {"trigger": {"delay": "1s"}, "maxAttempts": 1, "reason": "from a one-shot"}}),
    ));
    let store = sandbox.root().join("rewake.db");
    let daemon = Daemon::start(&sandbox, &store);
    let mut stream = daemon.get_tcp("/v1/stream", Some(&format!("Bearer {}", daemon.token)));
    assert_eq!(stream.status, 200);

    let payload = json!({"session_id": "s-1", "transcript_path": "/tmp/t.jsonl", "cwd": sandbox.project(),
                         "hook_event_name": "PostToolUse", "tool_name": "Bash",
                         "tool_input": {"command": "git push"}, "tool_response": {"stdout": ""}});
    let run = Outcome::of(
        sandbox
            .cmd()
            .args(["run", "PostToolUse"])
            .env("AIMON_REWAKE_STORE", format!("sqlite:{}", store.display()))
            .write_stdin(payload.to_string()),
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let written = Instant::now();
    let fire = stream.next_event();
    let took = written.elapsed();
    assert_eq!(fire.json()["reason"], "from a one-shot");
    // Due 1 s after the write; the daemon's fallback poll is every 10 s, so only the store's
    // wake signal can make it this early.
    assert!(took < Duration::from_secs(4), "fired {took:?} after the one-shot wrote it");
    eprintln!("one-shot envelope fired {took:?} after it was written (due after 1 s)");
}
