//! Issue 36 under `serve`: a call whose command is slow to analyse cannot hold up another
//! session's call. Eight calls carry the worst commands (`cd dN; cat fN` pairs up to 1 MB, to a
//! project with a Read rule); while they are evaluated, another session's `git push` to another
//! project is answered, and denied. The heavy calls are denied too (their commands end in
//! `git push`, and past the analyser's budget they are uncertain). The latency is printed; the
//! assertion is only a hang guard.

use std::io::{Read as _, Write as _};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::daemon::Daemon;
use crate::support::Sandbox;

/// How many slow calls run at once.
const SLOW_CALLS: usize = 8;

/// Not a budget: a guard so that a regression fails instead of hanging the suite.
const HANG_GUARD: Duration = Duration::from_secs(10);

/// The policy of both projects: no `git push`, no reading `.env`.
fn policy() -> String {
    let deny = |reason: &str| json!([{"type": "deny", "reason": reason}]);
    json!({"hooks": {"PreToolUse": [
        {"matcher": "Bash(git push:*)", "hooks": deny("no pushing")},
        {"matcher": "Read(./.env)", "hooks": deny("no secrets")},
    ]}})
    .to_string()
}

fn project(sandbox: &Sandbox, name: &str) -> PathBuf {
    let dir = sandbox.root().join("projects").join(name);
    std::fs::create_dir_all(dir.join(".git")).expect("mkdir");
    sandbox.write(&format!("projects/{name}/.aimon/hooks.json"), &policy());
    dir
}

/// `cd dN; cat fN` pairs up to about `len` bytes, then `git push`.
fn cd_cat(len: usize) -> String {
    let mut out = String::new();
    for i in 0.. {
        let pair = format!("cd d{i}; cat f{i}; ");
        if out.len() + pair.len() + 8 > len {
            break;
        }
        out.push_str(&pair);
    }
    out + "git push"
}

/// The decision serve's `/v1/claude` gives a Bash call of `command` in `cwd` for `session`.
fn decide(socket: &Path, session: &str, cwd: &Path, command: &str) -> String {
    let body = json!({
        "session_id": session, "transcript_path": "/tmp/t.jsonl", "cwd": cwd, "permission_mode": "default",
        "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": command},
        "tool_use_id": "toolu_1",
    })
    .to_string();
    let mut stream = UnixStream::connect(socket).expect("connect to serve's socket");
    let head = format!(
        "POST /v1/claude HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).expect("send the head");
    stream.write_all(body.as_bytes()).expect("send the body");
    let mut raw = String::new();
    stream.read_to_string(&mut raw).expect("read the answer");
    let (_, json) = raw.split_once("\r\n\r\n").unwrap_or_else(|| panic!("no HTTP answer: {raw:.200}"));
    if json.is_empty() {
        return "(none)".to_owned(); // No hook decided: the client asks as usual.
    }
    let answer: Value = serde_json::from_str(json).unwrap_or_else(|e| panic!("not JSON ({e}): {json:.200}"));
    answer["hookSpecificOutput"]["permissionDecision"].as_str().unwrap_or("(none)").to_owned()
}

#[test]
fn another_session_is_answered_while_eight_slow_analyses_run() {
    let sandbox = Sandbox::new();
    let (slow, other) = (project(&sandbox, "slow"), project(&sandbox, "other"));
    let daemon = Daemon::start_with_env(&sandbox, &[("AIMON_TRUST_PROJECT_HOOKS", "1")]);
    // Warm both engines, so that the timed call pays no project load.
    assert_eq!(decide(&daemon.socket, "warm", &slow, "git push"), "deny");
    assert_eq!(decide(&daemon.socket, "warm", &other, "ls"), "(none)");

    let command = cd_cat(1_000_000);
    let heavy: Vec<_> = (0..SLOW_CALLS)
        .map(|i| {
            let (socket, slow, command) = (daemon.socket.clone(), slow.clone(), command.clone());
            std::thread::spawn(move || decide(&socket, &format!("slow-{i}"), &slow, &command))
        })
        .collect();
    // Let the slow calls reach the daemon first.
    std::thread::sleep(Duration::from_millis(300));
    let started = Instant::now();
    let decision = decide(&daemon.socket, "other-session", &other, "git push origin main");
    let waited = started.elapsed();
    let still_running = heavy.iter().filter(|h| !h.is_finished()).count();
    eprintln!(
        "another session's call answered in {waited:?}, {still_running} of {SLOW_CALLS} slow calls still running"
    );
    assert_eq!(decision, "deny", "another session's git push");
    assert!(waited < HANG_GUARD, "another session's call waited {waited:?} behind the slow ones");
    for h in heavy {
        assert_eq!(h.join().expect("a slow call's thread"), "deny", "a slow call ending in git push");
    }
}
