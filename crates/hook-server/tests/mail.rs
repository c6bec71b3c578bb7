//! Session mail in `/v1/claude` answers is deleted once the answer is written, not when it is
//! built (R-RW-11b): an answer dropped unwritten (the daemon died, the connection failed) leaves
//! the mail claimed, to be delivered again when the claim expires.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::http::Request;
use chrono::{TimeDelta, Utc};
use hook_core::{HookContext, HookEventType, RewakeSpec, RewakeTrigger};
use hook_host::MAIL_CLAIM;
use hook_rewake::{Envelope, Fire, Lease, Mail, RewakeStore, SqliteStore};
use hook_server::{HookService, ServiceOptions};
use http_body_util::BodyExt as _;
use hyper::service::Service as _;
use hyper_util::service::TowerToHyperService;
use serde_json::json;

fn put_mail(store: &SqliteStore, session: &str, text: &str) {
    let mut ctx = HookContext::new(HookEventType::POST_TOOL);
    ctx.session_id = Some(session.to_owned());
    let spec = RewakeSpec::new(RewakeTrigger::Delay(Duration::from_secs(1)), "check CI");
    let fire = Fire::new(Envelope::new("project#0", ctx, spec, 1), Utc::now());
    let mail = Mail::new(&fire, session, text, false, Utc::now(), Mail::DEFAULT_TTL);
    assert!(store.put_mail(&mail).expect("put mail"));
}

/// `(taken now, taken once the claim expired)`: probes that claim, so call once per session.
fn mailbox(store: &SqliteStore, session: &str) -> (usize, usize) {
    let now = Utc::now();
    let now_taken = store.take_mail(session, &Lease::new("probe", now + TimeDelta::seconds(1)), now).expect("take");
    let later = now + TimeDelta::from_std(MAIL_CLAIM).expect("claim") + TimeDelta::seconds(1);
    let later_taken = store.take_mail(session, &Lease::new("probe-later", later), later).expect("take");
    (now_taken.len(), later_taken.len())
}

fn post_tool(session: &str, project: &Path) -> Request<Body> {
    let payload = json!({"session_id": session, "transcript_path": "/tmp/t.jsonl", "cwd": project,
                         "hook_event_name": "PostToolUse", "tool_name": "Bash",
                         "tool_input": {"command": "git push"}, "tool_response": {"stdout": ""}});
    Request::post("/v1/claude").body(Body::from(payload.to_string())).expect("request")
}

#[tokio::test]
async fn a_claude_answer_deletes_its_mail_only_once_its_body_is_written() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (home, project) = (dir.path().join("home"), dir.path().join("project"));
    std::fs::create_dir_all(project.join(".git")).expect("project");
    let db = dir.path().join("rewake.db");
    let store = SqliteStore::open(&db).expect("store");
    put_mail(&store, "s-unwritten", "for an answer never written");
    put_mail(&store, "s-written", "for an answer written");

    let service = HookService::new(ServiceOptions::new(Some(home), project.clone()));
    service.start_rewake(Arc::new(SqliteStore::open(&db).expect("store")), Duration::from_secs(60)).expect("rewake");
    let router = TowerToHyperService::new(service.router());

    let unwritten = router.call(post_tool("s-unwritten", &project)).await.expect("answer");
    assert_eq!(unwritten.status(), 200);
    drop(unwritten);
    assert_eq!(
        mailbox(&store, "s-unwritten"),
        (0, 1),
        "taken for the answer (claimed), not deleted, and delivered again once the claim expires"
    );

    let written = router.call(post_tool("s-written", &project)).await.expect("answer");
    let body = written.into_body().collect().await.expect("the whole body").to_bytes();
    let text = String::from_utf8_lossy(&body);
    assert!(text.contains("for an answer written"), "{text}");
    assert_eq!(mailbox(&store, "s-written"), (0, 0), "written, so deleted");
}
