//! A session's mail across daemons, the one-shot commands on the shared store, and a database
//! that is down when `serve` starts.

use std::process::Stdio;
use std::time::{Duration, Instant};

use hook_rewake_postgres::PgStore;
use serde_json::Value;

use crate::cluster::{Cluster, fresh_db};
use crate::support::{Daemon, Scene, rows};

const MARKER: &str = "ci-is-green-marker";

/// Asks `daemon` for the session's next SessionStart answer until it carries the marker.
fn wait_for_mail(daemon: &Daemon, scene: &Scene, session: &str, limit: Duration) -> Value {
    let deadline = Instant::now() + limit;
    loop {
        let (status, answer) = daemon.post("/v1/claude", &scene.payload("SessionStart", session));
        assert_eq!(status, 200);
        if answer.to_string().contains(MARKER) {
            return answer;
        }
        assert!(Instant::now() < deadline, "the rewake's answer never reached the session: {answer}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn a_sessions_mail_scheduled_through_one_daemon_is_delivered_through_the_other_once() {
    let url = fresh_db();
    let scene = Scene::new("1s", MARKER);
    let (a, b) = (Daemon::start(&scene, "a", &url), Daemon::start(&scene, "b", &url));
    let (status, first) = a.post("/v1/claude", &scene.payload("PostToolUse", "s-mail"));
    assert_eq!(status, 200);
    assert!(!first.to_string().contains(MARKER), "the first answer cannot know yet: {first}");

    let delivered = wait_for_mail(&b, &scene, "s-mail", Duration::from_secs(30));
    assert_eq!(delivered["hookSpecificOutput"]["hookEventName"], "SessionStart");
    for daemon in [&a, &b] {
        let (_, again) = daemon.post("/v1/claude", &scene.payload("SessionStart", "s-mail"));
        assert!(!again.to_string().contains(MARKER), "mail is delivered once: {again}");
    }
    let (_, other) = b.post("/v1/claude", &scene.payload("SessionStart", "s-other"));
    assert!(!other.to_string().contains(MARKER), "another session gets none of it");
    assert_eq!(scene.fires().len(), 1, "one fire, in one of the two daemons");
}

#[test]
fn run_and_rewake_list_and_cancel_use_the_postgres_store_named_by_aimon_rewake_store() {
    let url = fresh_db();
    let scene = Scene::new("1h", "");
    let mut run = scene.command();
    run.args(["run", "PostToolUse"]).env("AIMON_REWAKE_STORE", &url).stdin(Stdio::piped());
    let mut child = run.stdout(Stdio::null()).stderr(Stdio::piped()).spawn().expect("run starts");
    let payload = scene.payload("PostToolUse", "s-run").to_string();
    std::io::Write::write_all(&mut child.stdin.take().expect("stdin"), payload.as_bytes()).expect("payload");
    let out = child.wait_with_output().expect("run ends");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("rewake envelopes are written to postgres://"), "{stderr}");

    let store = PgStore::connect(&url).expect("the test connects");
    let pending = rows(&store);
    assert_eq!(pending.len(), 1, "run wrote its rewake to the database");
    let id = pending[0].envelope.id.clone();

    let list =
        scene.command().args(["rewake", "list", "--json"]).env("AIMON_REWAKE_STORE", &url).output().expect("list");
    assert_eq!(list.status.code(), Some(0), "{}", String::from_utf8_lossy(&list.stderr));
    let listed: Value = serde_json::from_slice(&list.stdout).expect("JSON");
    assert_eq!(listed[0]["id"], id.as_str());
    assert_eq!(listed[0]["session_id"], "s-run");

    let cancel =
        scene.command().args(["rewake", "cancel", &id]).env("AIMON_REWAKE_STORE", &url).output().expect("cancel");
    assert_eq!(cancel.status.code(), Some(0), "{}", String::from_utf8_lossy(&cancel.stderr));
    assert_eq!(String::from_utf8_lossy(&cancel.stdout).trim(), format!("cancelled {id}"));
    assert!(rows(&store).is_empty(), "cancel removed it from the database");
}

#[test]
fn with_the_database_down_at_start_serve_answers_decisions_refuses_rewakes_loudly_and_recovers() {
    let cluster = Cluster::start();
    let url = cluster.create_db();
    cluster.stop();
    let scene = Scene::new("1s", MARKER);
    let daemon = Daemon::start(&scene, "a", &url);

    // Decisions are served.
    let mut rm = scene.payload("PreToolUse", "s-down");
    rm["tool_name"] = "Bash".into();
    rm["tool_input"] = serde_json::json!({"command": "rm -rf /srv"});
    let (status, answer) = daemon.post("/v1/claude", &rm);
    assert_eq!(status, 200);
    assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "deny", "{answer}");

    // A hook asking for a rewake is answered, and its rewake refused with a WARN.
    let (status, _) = daemon.post("/v1/claude", &scene.payload("PostToolUse", "s-down"));
    assert_eq!(status, 200);
    let log = daemon.stderr();
    let down: Vec<&str> = log.lines().filter(|l| l.contains("rewake is not running")).collect();
    assert_eq!(down.len(), 1, "one WARN says rewake waits for the store: {log}");
    assert!(
        down[0].starts_with("WARN hooks: rewake is not running: cannot open the rewake store postgres://"),
        "{log}"
    );
    assert!(log.contains("no RewakeService is wired"), "the refused rewake is reported: {log}");

    // The one-shot commands fail loudly too.
    let list = scene.command().args(["rewake", "list"]).env("AIMON_REWAKE_STORE", &url).output().expect("list");
    let stderr = String::from_utf8_lossy(&list.stderr);
    assert_eq!(list.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("cannot open the rewake store postgres://"), "{stderr}");

    // The database comes back: the daemon starts rewake by itself, and rewakes work end to end.
    cluster.start_again();
    let deadline = Instant::now() + Duration::from_secs(30);
    while scene.fires().is_empty() {
        let (status, _) = daemon.post("/v1/claude", &scene.payload("PostToolUse", "s-back"));
        assert_eq!(status, 200);
        assert!(Instant::now() < deadline, "rewake never started after the database came back: {}", daemon.stderr());
        std::thread::sleep(Duration::from_secs(1));
    }
    wait_for_mail(&daemon, &scene, "s-back", Duration::from_secs(30));
}
