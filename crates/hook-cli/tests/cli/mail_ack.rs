//! Session mail is deleted only once the answer carrying it is written (R-RW-11b): when the
//! answer cannot be written, the mail stays claimed and is delivered again after the claim.

use std::fs::File;
use std::io::Write as _;
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use chrono::{TimeDelta, Utc};
use hook_host::MAIL_CLAIM;
use hook_rewake::{Lease, RewakeStore, SqliteStore};
use serde_json::{Value, json};

use crate::daemon::Daemon;
use crate::rewake::mail;
use crate::support::{Sandbox, one_hook};

fn post_tool(session: &str, cwd: &Path) -> Value {
    json!({"session_id": session, "transcript_path": "/tmp/t.jsonl", "cwd": cwd, "hook_event_name": "PostToolUse",
           "tool_name": "Bash", "tool_input": {"command": "git push"}, "tool_response": {"stdout": ""},
           "tool_use_id": "toolu_1"})
}

/// The session's mail as the store holds it: `(taken now, taken once the claim expired)`.
fn mailbox(db: &Path, session: &str) -> (usize, usize) {
    let store = SqliteStore::open(db).expect("store");
    let now = Utc::now();
    let probe = Lease::new("test-probe", now + TimeDelta::seconds(1));
    let now_taken = store.take_mail(session, &probe, now).expect("take").len();
    let later = now + TimeDelta::from_std(MAIL_CLAIM).expect("claim") + TimeDelta::seconds(1);
    let later_taken = store.take_mail(session, &Lease::new("test-later", later), later).expect("take").len();
    (now_taken, later_taken)
}

#[test]
fn claude_that_cannot_write_its_answer_leaves_the_mail_to_be_delivered_again() {
    let sandbox = Sandbox::new();
    let db = sandbox.home().join(".aimon/rewake.db");
    std::fs::create_dir_all(db.parent().expect("dir")).expect("mkdir");
    mail(&db, "s1", "CI for the push is green");
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_aimon-hooks"))
        .args(["claude", "--no-serve"])
        .current_dir(sandbox.project())
        .env("HOME", sandbox.home())
        .env("CLAUDE_PROJECT_DIR", sandbox.project())
        .env_remove("AIMON_REWAKE_STORE")
        .env_remove("RUST_LOG")
        .stdin(Stdio::piped())
        // Every write to /dev/full fails (ENOSPC): the answer is never written.
        .stdout(File::create("/dev/full").expect("/dev/full"))
        .stderr(Stdio::null())
        .spawn()
        .and_then(|mut child| {
            let payload = post_tool("s1", &sandbox.project()).to_string();
            child.stdin.take().expect("stdin").write_all(payload.as_bytes())?;
            child.wait()
        })
        .expect("claude runs");
    assert!(status.success(), "{status:?}");
    assert_eq!(mailbox(&db, "s1"), (0, 1), "claimed by the failed answer, and delivered again after the claim");
}

#[test]
fn the_daemon_deletes_the_mail_of_a_written_answer_and_keeps_the_mail_of_a_client_that_hung_up() {
    let sandbox = Sandbox::new();
    // The hook takes a moment, so the client can be gone before the answer is written.
    sandbox.project_hooks(&one_hook(
        "PostToolUse",
        "Bash",
        json!({"type": "command", "command": "sleep 1", "timeout": 10}),
    ));
    let db = sandbox.root().join("rewake.db");
    mail(&db, "s-gone", "for a client that hung up");
    mail(&db, "s-read", "for a client that reads");
    let daemon = Daemon::start(&sandbox, &db);
    let project = sandbox.project();

    let request = |session: &str| {
        let body = post_tool(session, &project).to_string();
        format!(
            "POST /v1/claude HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\n\r\n{body}",
            body.len()
        )
    };
    let mut gone = UnixStream::connect(&daemon.socket).expect("connect");
    gone.write_all(request("s-gone").as_bytes()).expect("send");
    std::thread::sleep(Duration::from_millis(300));
    drop(gone);

    let mut read = UnixStream::connect(&daemon.socket).expect("connect");
    read.write_all(request("s-read").as_bytes()).expect("send");
    let mut answer = String::new();
    std::io::Read::read_to_string(&mut read, &mut answer).expect("read the answer");
    assert!(answer.contains("for a client that reads"), "{answer}");

    // Only s-gone's mail may be left (counted without touching claims: a probe would steal the
    // daemon's claim and its acknowledgement would then miss).
    let depth = || SqliteStore::open(&db).and_then(|s| s.mail_depth()).expect("depth");
    let deadline = Instant::now() + Duration::from_secs(10);
    while depth() != 1 {
        assert!(Instant::now() < deadline, "the written answer's mail was never deleted");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(mailbox(&db, "s-read"), (0, 0), "the written answer's mail is gone");
    // The daemon drops a request whose client hung up; whether or not it had taken the mail,
    // the mail is there for the session's next call once any claim expired. (The body that
    // acknowledges only once written is pinned in hook-server's tests/mail.rs.)
    assert_eq!(mailbox(&db, "s-gone").1, 1, "the mail of an answer never written is not lost");
}

#[test]
fn a_forwarded_claude_has_its_mail_deleted_only_once_it_printed_the_answer() {
    let sandbox = Sandbox::new();
    let db = sandbox.root().join("rewake.db");
    mail(&db, "s-full", "for a claude that cannot print");
    mail(&db, "s-printed", "for a claude that prints");
    let _daemon = Daemon::start(&sandbox, &db);
    let claude = |session: &str, stdout: Stdio| {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_aimon-hooks"))
            .arg("claude")
            .current_dir(sandbox.project())
            .env("HOME", sandbox.home())
            .env("CLAUDE_PROJECT_DIR", sandbox.project())
            .env_remove("AIMON_REWAKE_STORE")
            .env_remove("AIMON_NO_SERVE")
            .env_remove("RUST_LOG")
            .stdin(Stdio::piped())
            .stdout(stdout)
            .stderr(Stdio::null())
            .spawn()
            .expect("claude starts");
        let payload = post_tool(session, &sandbox.project()).to_string();
        child.stdin.take().expect("stdin").write_all(payload.as_bytes()).expect("send the payload");
        child.wait_with_output().expect("claude runs")
    };

    let printed = claude("s-printed", Stdio::piped());
    assert!(printed.status.success(), "{printed:?}");
    assert!(String::from_utf8_lossy(&printed.stdout).contains("for a claude that prints"), "{printed:?}");
    assert_eq!(mailbox(&db, "s-printed"), (0, 0), "printed, so the daemon deleted it");

    // Every write to /dev/full fails: the daemon answered, but the answer never reached Claude Code.
    let full = claude("s-full", Stdio::from(File::create("/dev/full").expect("/dev/full")));
    assert!(full.status.success(), "{full:?}");
    assert_eq!(mailbox(&db, "s-full"), (0, 1), "claimed by the lost answer, and delivered again after the claim");
}
