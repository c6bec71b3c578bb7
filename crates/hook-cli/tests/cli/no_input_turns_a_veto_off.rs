//! No payload value switches a veto off, in any front end (`claude`, `run`, serve's `/v1/claude`).
//!
//! Each case is one input the audit found to make a denied call proceed: a value serde_json
//! refuses (a lone surrogate, deep nesting, bytes that are not UTF-8), a value the environment
//! cannot carry when the hook is spawned (a NUL, 200 kB), a `cwd` that is missing or a file, a
//! templated http header past the server's limit. Each goes to three projects that deny
//! `Bash(touch:*)`: a `deny` handler, a shell hook that exits 2 (so the spawn path runs) and an
//! http hook with a templated header on a real 127.0.0.1 server whose header section is bounded.
//! The deny must hold, in the keys and exit codes Claude Code reads.

use std::io::{Read as _, Write as _};
use std::net::TcpListener;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::daemon::Daemon;
use crate::support::{Outcome, Sandbox, command, one_hook};

/// The largest request head the test's http hook server reads; past it, it answers 431 as real
/// servers do (8 KiB a line for nginx; hyper's whole buffer is some 400 KiB).
const SERVER_HEAD_LIMIT: usize = 16 << 10;

/// A policy project: its name, its handler, and the reason its deny carries.
struct Policy {
    name: &'static str,
    handler: Value,
    reason: &'static str,
}

/// An http hook server on 127.0.0.1 that denies every call; runs until the test ends.
fn deny_server() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            answer(stream);
        }
    });
    port
}

/// Reads one request (head bounded by [`SERVER_HEAD_LIMIT`], then the body) and answers it.
fn answer(mut stream: std::net::TcpStream) {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        if head.len() > SERVER_HEAD_LIMIT {
            let _ = stream.write_all(b"HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Length: 0\r\n\r\n");
            return;
        }
        match stream.read(&mut byte) {
            Ok(1) => head.push(byte[0]),
            _ => return,
        }
    }
    let head = String::from_utf8_lossy(&head).to_ascii_lowercase();
    let length = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|n| n.trim().parse::<usize>().ok())
        .unwrap_or(0);
    let mut body = vec![0u8; length];
    if stream.read_exact(&mut body).is_err() {
        return;
    }
    let deny = json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                             "permissionDecisionReason": "http says no"}})
    .to_string();
    let reply = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{deny}",
        deny.len()
    );
    let _ = stream.write_all(reply.as_bytes());
}

fn policies(port: u16) -> [Policy; 3] {
    let url = format!("http://127.0.0.1:{port}/gate");
    [
        Policy { name: "deny", handler: json!({"type": "deny", "reason": "no touching"}), reason: "no touching" },
        Policy { name: "shell", handler: command("echo 'shell says no' >&2; exit 2"), reason: "shell says no" },
        Policy {
            name: "http",
            handler: json!({"type": "http", "url": url, "timeout": 10,
                            "headers": {"X-Description": "${tool_input.description}", "X-Use": "${context.tool_name}"}}),
            reason: "http says no",
        },
    ]
}

/// A project directory of its own under the sandbox, with `handler` on `Bash(touch:*)`, and a
/// file in it (for the case whose `cwd` is a file).
fn project(sandbox: &Sandbox, policy: &Policy) -> PathBuf {
    let dir = sandbox.root().join("projects").join(policy.name);
    std::fs::create_dir_all(dir.join(".git")).expect("mkdir");
    let hooks = one_hook("PreToolUse", "Bash(touch:*)", policy.handler.clone());
    sandbox.write(&format!("projects/{}/.aimon/hooks.json", policy.name), &hooks.to_string());
    sandbox.write(&format!("projects/{}/file.txt", policy.name), "a file, not a directory");
    dir
}

/// The PreToolUse payload of `touch pwned.txt` in `project`, as raw bytes, with `edit` applied to
/// its JSON text (so a case can hold what serde_json cannot write).
fn payload(project: &Path, case: &Case) -> Vec<u8> {
    let mut value = json!({
        "session_id": "s-1", "transcript_path": "/tmp/t.jsonl", "cwd": project, "permission_mode": "default",
        "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": "touch pwned.txt", "description": "DESCRIPTION"}, "tool_use_id": "toolu_1",
        "note": "NOTE"
    });
    if let Some(cwd) = case.cwd {
        value["cwd"] = project.join(cwd).display().to_string().into();
    }
    let text = value.to_string();
    let text = text.replacen("\"DESCRIPTION\"", &case.description, 1).replacen("\"NOTE\"", &case.note, 1);
    let mut bytes = text.into_bytes();
    if case.invalid_utf8 {
        let at = bytes.windows(5).position(|w| w == b"touch").expect("the command");
        bytes.splice(at + 5..at + 5, *b" \xff\xfe");
        // `touch \xff\xfe pwned.txt` is still touch: the rule must still see it.
    }
    bytes
}

/// One input, as it appears in the payload text.
struct Case {
    name: &'static str,
    /// The description's JSON text (raw: it may hold an escape serde_json refuses).
    description: String,
    /// The top-level `note` field's JSON text: a client field every shell hook gets as `AIMON_NOTE`.
    note: String,
    /// The payload's `cwd`, relative to the project (`None`: the project).
    cwd: Option<&'static str>,
    invalid_utf8: bool,
}

fn cases() -> Vec<Case> {
    let case = |name, description: &str, note: &str, cwd| Case {
        name,
        description: description.to_owned(),
        note: note.to_owned(),
        cwd,
        invalid_utf8: false,
    };
    let deep = format!("[{}\"x\"{}]", "[".repeat(100_000), "]".repeat(100_000));
    vec![
        case("a lone surrogate in the description", r#""x\ud83d""#, r#""n""#, None),
        case("a lone low surrogate in the description", r#""\udc00 x""#, r#""n""#, None),
        case("nesting 100000 deep", &deep, r#""n""#, None),
        case("a NUL in a field the environment carries", r#""d""#, r#""a\u0000b""#, None),
        case("a 200 kB field the environment carries", r#""d""#, &format!("\"{}\"", "n".repeat(200_000)), None),
        case("a cwd that does not exist", r#""d""#, r#""n""#, Some("gone/away")),
        case("a cwd that is a file", r#""d""#, r#""n""#, Some("file.txt")),
        case("a 300 kB description in a templated header", &format!("\"{}\"", "h".repeat(300_000)), r#""n""#, None),
        case("a description full of line breaks and NULs", r#""a\r\nX-Evil: 1\u0000b""#, r#""n""#, None),
        Case { invalid_utf8: true, ..case("bytes that are not UTF-8 in the command", r#""d""#, r#""n""#, None) },
    ]
}

/// A minimal HTTP/1.1 POST over the daemon's socket; the status and the body.
fn post(socket: &Path, path: &str, headers: &[(&str, &str)], body: &[u8]) -> (u16, String) {
    let mut stream = UnixStream::connect(socket).expect("connect to the socket");
    let mut head =
        format!("POST {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Length: {}\r\n", body.len());
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).expect("send the head");
    stream.write_all(body).expect("send the body");
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or_else(|| panic!("no HTTP answer: {text:?}"));
    let status = head.split(' ').nth(1).and_then(|s| s.parse().ok()).expect("a status line");
    (status, body.to_owned())
}

/// Claude Code's PreToolUse deny, as it reads it: exit 0 and this JSON, the reason holding `reason`.
fn assert_claude_deny(json: &Value, reason: &str, what: &str) {
    let out = &json["hookSpecificOutput"];
    assert_eq!(out["hookEventName"], "PreToolUse", "{what}: {json}");
    assert_eq!(out["permissionDecision"], "deny", "{what}: {json}");
    let said = out["permissionDecisionReason"].as_str().unwrap_or_default();
    assert!(said.contains(reason), "{what}: the reason {said:?} should hold {reason:?}");
}

fn claude(sandbox: &Sandbox, project: &Path, bytes: &[u8]) -> Outcome {
    Outcome::of(sandbox.cmd().arg("claude").arg("--no-serve").env("CLAUDE_PROJECT_DIR", project).write_stdin(bytes))
}

fn run(sandbox: &Sandbox, project: &Path, bytes: &[u8]) -> Outcome {
    Outcome::of(sandbox.cmd().args(["run", "preTool", "--project"]).arg(project).write_stdin(bytes))
}

#[test]
fn every_class_one_input_leaves_the_deny_standing_in_claude_run_and_serve() {
    let sandbox = Sandbox::new();
    let policies = policies(deny_server());
    let projects: Vec<PathBuf> = policies.iter().map(|p| project(&sandbox, p)).collect();
    for dir in &projects {
        let out = Outcome::of(sandbox.cmd().arg("trust").arg("--project").arg(dir));
        assert_eq!(out.code, 0, "trust failed: {}", out.stderr);
    }
    let daemon = Daemon::start_with_env(&sandbox, &[("AIMON_TRUST_PROJECT_HOOKS", "1")]);
    for case in cases() {
        for (policy, dir) in policies.iter().zip(&projects) {
            let bytes = payload(dir, &case);
            let what = format!("{} ({} hook)", case.name, policy.name);

            let out = claude(&sandbox, dir, &bytes);
            assert_eq!(out.code, 0, "claude, {what}: {}", out.stderr);
            assert_claude_deny(&out.json(), policy.reason, &format!("claude, {what}"));

            let out = run(&sandbox, dir, &bytes);
            assert_eq!(out.code, 2, "run, {what}: {}\n{}", out.stdout, out.stderr);
            let v = out.json();
            assert!(matches!(v["outcome"].as_str(), Some("denied" | "blocked")), "run, {what}: {v}");
            assert!(v["reason"].as_str().is_some_and(|r| r.contains(policy.reason)), "run, {what}: {v}");

            let project_header = dir.display().to_string();
            let (status, body) =
                post(&daemon.socket, "/v1/claude", &[("X-Claude-Project-Dir", project_header.as_str())], &bytes);
            assert_eq!(status, 200, "serve, {what}: {body}");
            let v: Value = serde_json::from_str(&body).unwrap_or_else(|e| panic!("serve, {what}: {e}: {body:?}"));
            assert_claude_deny(&v, policy.reason, &format!("serve, {what}"));
        }
    }
    assert!(!projects.iter().any(|p| p.join("pwned.txt").exists()), "no hook ran the command");
}

#[test]
fn a_payload_that_is_not_json_is_refused_with_the_reason_in_every_front_end() {
    let sandbox = Sandbox::new();
    let policies = policies(deny_server());
    let dir = project(&sandbox, &policies[0]);
    let out = Outcome::of(sandbox.cmd().arg("trust").arg("--project").arg(&dir));
    assert_eq!(out.code, 0, "trust failed: {}", out.stderr);
    let daemon = Daemon::start_with_env(&sandbox, &[("AIMON_TRUST_PROJECT_HOOKS", "1")]);
    let header = dir.display().to_string();
    let headers = [("X-Claude-Project-Dir", header.as_str())];
    // (the payload, its event as Claude Code would read a refusal of it)
    let cases: [(&[u8], Option<&str>); 4] = [
        (
            br#"{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "touch x"#,
            Some("PreToolUse"),
        ),
        (br#"{"hook_event_name": "PreToolUse", "tool_name": "Bash" "tool_input": {}}"#, Some("PreToolUse")),
        (b"\x00\x01 not JSON at all", None),
        (br#"{"tool_name": "Bash", "tool_input": {"command": "touch x"}}"#, None),
    ];
    for (bytes, event) in cases {
        let what = String::from_utf8_lossy(bytes).into_owned();
        let out = claude(&sandbox, &dir, bytes);
        assert_eq!(out.code, 2, "claude refuses with exit 2 (blocking), {what}: {}", out.stdout);
        assert!(out.stderr.contains("aimon-hooks:"), "the reason is on stderr, {what}: {}", out.stderr);
        let (status, body) = post(&daemon.socket, "/v1/claude", &headers, bytes);
        assert_eq!(status, 200, "a non-2xx answer is a non-blocking error in Claude Code, {what}");
        let v: Value = serde_json::from_str(&body).unwrap_or_else(|e| panic!("{what}: {e}: {body:?}"));
        match event {
            Some(_) => assert_claude_deny(&v, "not valid JSON", &format!("serve, {what}")),
            None => {
                assert_eq!(v["decision"], "block", "serve, {what}: {v}");
                assert!(v["reason"].as_str().is_some_and(|r| r.starts_with("aimon-hooks:")), "{v}");
            }
        }
        if event.is_some() {
            assert!(out.stderr.contains("not valid JSON"), "claude, {what}: {}", out.stderr);
            let out = run(&sandbox, &dir, bytes);
            assert_eq!(out.code, 2, "run, {what}: {}", out.stderr);
            let v = out.json();
            assert_eq!(v["outcome"], "denied", "{v}");
            assert!(v["reason"].as_str().is_some_and(|r| r.contains("not valid JSON")), "{v}");
            let (status, body) = post(&daemon.socket, "/v1/run/preTool", &headers, bytes);
            let v: Value = serde_json::from_str(&body).unwrap_or_else(|e| panic!("{what}: {e}: {body:?}"));
            assert_eq!((status, v["outcome"].as_str()), (200, Some("denied")), "/v1/run, {what}: {v}");
        }
    }
}
