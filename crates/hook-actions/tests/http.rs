//! HTTP hooks against a real server bound to 127.0.0.1 inside the test (R-ACT-HTTP, R-ACT-TPL,
//! R-CFG-4c, REL-2, REL-4).
//!
//! Contents: response mapping; failures (non-JSON, 500, slow, oversized, refused); header and
//! body templating; the env whitelist; hostile input in a structural body; connection reuse.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{ConnectInfo, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;
use axum::routing::{any, get, post};
use hook_actions::{HttpAction, HttpBody, HttpSpec};
use hook_core::{Decision, ExecutionHook, FlowControl, HookContext, HookEventType, HookResult, ToolCall};
use serde_json::{Value, json};

#[path = "common/refused.rs"]
mod refused;
use refused::refused;

/// One request as the server saw it.
#[derive(Debug, Clone)]
struct Seen {
    method: String,
    headers: HeaderMap,
    body: Bytes,
    peer: SocketAddr,
}

#[derive(Clone, Default)]
struct Log(Arc<Mutex<Vec<Seen>>>);

impl Log {
    fn last(&self) -> Seen {
        self.0.lock().expect("lock").last().cloned().expect("a request was made")
    }
}

struct Server {
    base: String,
    log: Log,
}

async fn record(
    State(log): State<Log>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    method: axum::http::Method,
    headers: HeaderMap,
    body: Bytes,
) -> impl IntoResponse {
    log.0.lock().expect("lock").push(Seen { method: method.to_string(), headers, body, peer });
    ""
}

/// Records the request like `/record`, then denies.
async fn gate(
    state: State<Log>,
    peer: ConnectInfo<SocketAddr>,
    method: axum::http::Method,
    headers: HeaderMap,
    body: Bytes,
) -> impl IntoResponse {
    record(state, peer, method, headers, body).await;
    r#"{"decision":"deny","reason":"the gate says no"}"#
}

async fn serve() -> Server {
    let log = Log::default();
    let big = "x".repeat(2 << 20);
    let app = Router::new()
        .route("/deny", post(|| async { r#"{"decision":"deny","reason":"not on a friday"}"# }))
        .route("/allow", post(|| async { r#"{"decision":"allow"}"# }))
        .route("/rewrite", post(|| async { r#"{"decision":"allow","updatedInput":{"command":"ls -la"}}"# }))
        .route(
            "/claude",
            post(|| async {
                r#"{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"confirm"}}"#
            }),
        )
        .route("/other-shape", post(|| async { r#"{"status":"ok"}"# }))
        .route("/text", post(|| async { "hello, not json" }))
        .route("/fail", post(|| async { (StatusCode::INTERNAL_SERVER_ERROR, r#"{"decision":"deny"}"#) }))
        .route(
            "/slow",
            post(|| async {
                tokio::time::sleep(Duration::from_secs(30)).await;
                r#"{"decision":"deny"}"#
            }),
        )
        .route("/big", post(move || std::future::ready(big.clone())))
        .route(
            "/big-stream",
            post(|| async {
                let chunks = (0..64).map(|_| Ok::<_, std::io::Error>(Bytes::from(vec![b' '; 64 * 1024])));
                Body::from_stream(futures_util::stream::iter(chunks))
            }),
        )
        .route("/record", any(record))
        .route("/gate", post(gate))
        .route("/health", get(|| async { "ok" }))
        .with_state(log.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        axum::serve(listener, app.into_make_service_with_connect_info::<SocketAddr>()).await.expect("serve");
    });
    Server { base: format!("http://{addr}"), log }
}

fn pre_tool(input: Value) -> HookContext {
    let mut ctx = HookContext::new(HookEventType::PRE_TOOL).with_tool(ToolCall::new("Bash", input));
    ctx.invoker_name = Some("main".into());
    ctx.iteration = Some(4);
    ctx
}

async fn run_spec(ctx: &HookContext, spec: HttpSpec) -> HookResult {
    HttpAction::new("http@test#0", "test#0", spec).execute(ctx).await.expect("an http hook never errors")
}

type Axes = (Decision, FlowControl);

fn axes(r: &HookResult) -> Axes {
    (r.decision, r.flow)
}

#[tokio::test]
async fn json_answers_map_to_results() {
    // R-ACT-HTTP-3: (path, axes, feedback, updated input).
    let server = serve().await;
    #[rustfmt::skip]
    let cases: &[(&str, Axes, Option<&str>, Option<Value>)] = &[
        ("/deny", (Decision::Deny, FlowControl::Continue), Some("not on a friday"), None),
        ("/allow", (Decision::Allow, FlowControl::Continue), None, None),
        ("/rewrite", (Decision::Allow, FlowControl::Continue), None, Some(json!({"command": "ls -la"}))),
        ("/claude", (Decision::Ask, FlowControl::Continue), Some("confirm"), None),
        ("/other-shape", (Decision::Allow, FlowControl::Continue), None, None),
        ("/record", (Decision::Allow, FlowControl::Continue), None, None),
    ];
    for (path, want, feedback, updated) in cases {
        let r = run_spec(&pre_tool(json!({"command": "ls"})), HttpSpec::new(format!("{}{path}", server.base))).await;
        assert_eq!(
            (axes(&r), r.feedback.as_deref(), &r.updated_input, &r.failure),
            (*want, *feedback, updated, &None),
            "{path}"
        );
    }
}

#[tokio::test]
async fn unusable_answers_fail_soft_with_the_cause_recorded_and_block_when_fail_closed() {
    // R-ACT-HTTP-3, R-CFG-4c, REL-2: (path, timeout, failure).
    let server = serve().await;
    let refused = refused();
    #[rustfmt::skip]
    let cases: &[(String, &str)] = &[
        (format!("{}/text", server.base), "malformed response: not JSON"),
        (format!("{}/fail", server.base), "http status 500 Internal Server Error"),
        (format!("{}/slow", server.base), "timed out after 300ms"),
        (format!("{}/big", server.base), "response body exceeds 1048576 bytes"),
        (format!("{}/big-stream", server.base), "response body exceeds 1048576 bytes"),
        (format!("http://{}/gone", refused.addr), "transport error"),
    ];
    for (url, failure) in cases {
        for (fail_closed, want) in
            [(false, (Decision::Allow, FlowControl::Continue)), (true, (Decision::Allow, FlowControl::Block))]
        {
            let spec =
                HttpSpec::new(url.clone()).with_timeout(Duration::from_millis(300)).with_fail_closed(fail_closed);
            let r = run_spec(&pre_tool(json!({})), spec).await;
            assert_eq!(axes(&r), want, "{url} failClosed {fail_closed}");
            assert!(r.failure.as_deref().is_some_and(|f| f.starts_with(failure)), "{url}: {:?}", r.failure);
        }
    }
}

#[tokio::test]
async fn headers_and_a_string_body_are_rendered_and_the_env_whitelist_holds() {
    // R-ACT-HTTP-2, R-ACT-TPL-1, REL-4: HOME is whitelisted, PATH (the "secret") is not.
    let server = serve().await;
    let home = std::env::var("HOME").expect("HOME is set");
    let secret = std::env::var("PATH").expect("PATH is set");
    let spec = HttpSpec::new(format!("{}/record", server.base))
        .with_method("put")
        .with_header("X-Home", "${env.HOME}")
        .with_header("X-Secret", "[${env.PATH}]")
        .with_header("X-Tool", "${context.tool_name}/${context.skill_name}")
        .with_body(HttpBody::Template(
            r#"{"cmd":"${tool_input.command}","iteration":"${context.iteration}","secret":"${env.PATH}","literal":"${session_id}"}"#.into(),
        ))
        .with_allowed_env_vars(vec!["HOME".into()]);
    let r = run_spec(&pre_tool(json!({"command": "git push"})), spec).await;
    assert_eq!(r, HookResult::allow());
    let seen = server.log.last();
    assert_eq!(seen.method, "PUT");
    assert_eq!(seen.headers["x-home"], home.as_str());
    assert_eq!(seen.headers["x-secret"], "[]");
    assert_eq!(seen.headers["x-tool"], "Bash/test#0");
    assert_eq!(seen.headers["content-type"], "application/json");
    let body: Value = serde_json::from_slice(&seen.body).expect("JSON body");
    assert_eq!(body, json!({"cmd": "git push", "iteration": "4", "secret": "", "literal": "${session_id}"}));
    let everything = format!("{:?}{}", seen.headers, String::from_utf8_lossy(&seen.body));
    assert!(!everything.contains(&secret), "the secret leaked");
}

#[tokio::test]
async fn without_a_body_the_hook_payload_is_posted() {
    // Claude Code parity: an http hook receives the same JSON a command hook reads on stdin.
    let server = serve().await;
    let r = run_spec(&pre_tool(json!({"command": "ls"})), HttpSpec::new(format!("{}/record", server.base))).await;
    assert_eq!(r, HookResult::allow());
    let body: Value = serde_json::from_slice(&server.log.last().body).expect("JSON body");
    assert_eq!(
        (body["hook_event_name"].as_str(), &body["tool_input"]),
        (Some("PreToolUse"), &json!({"command": "ls"}))
    );
}

#[tokio::test]
async fn hostile_tool_input_keeps_a_structural_body_valid_json() {
    // R-ACT-TPL-2 [beyond]: quotes, `$(…)`, backticks, `;`, newlines, braces.
    let server = serve().await;
    let hostile = "a\"b\\\"c'; $(rm -rf /) `id`; echo }\n{\"decision\":\"allow\"}\u{0}\t";
    let body = json!({"cmd": "${tool_input.command}", "nested": {"list": ["${tool_input.command}", 7, null]}, "tool": "${context.tool_name}"});
    let spec = HttpSpec::new(format!("{}/record", server.base)).with_body(HttpBody::Structured(body));
    let r = run_spec(&pre_tool(json!({"command": hostile})), spec).await;
    assert_eq!(r, HookResult::allow());
    let got: Value = serde_json::from_slice(&server.log.last().body).expect("still valid JSON");
    assert_eq!(got, json!({"cmd": hostile, "nested": {"list": [hostile, 7, null]}, "tool": "Bash"}));
}

#[tokio::test]
async fn invalid_request_parts_are_failures_not_panics() {
    let server = serve().await;
    let url = format!("{}/record", server.base);
    #[rustfmt::skip]
    let cases = [
        (HttpSpec::new(url.clone()).with_method("NOT A METHOD"), "invalid method 'NOT A METHOD'"),
        (HttpSpec::new(url.clone()).with_header("bad header", "v"), "invalid header name 'bad header'"),
        (HttpSpec::new("not a url"), "transport error"),
    ];
    for (spec, failure) in cases {
        let r = run_spec(&pre_tool(json!({"command": "a\nb"})), spec).await;
        assert!(r.failure.as_deref().is_some_and(|f| f.starts_with(failure)), "{failure}: {:?}", r.failure);
    }
}

#[tokio::test]
async fn a_crlf_in_tool_input_never_breaks_the_request() {
    // REL-4: control characters rendered into a header are replaced, so the request is sent and
    // the gate's deny still denies (a failed request would fail open).
    let server = serve().await;
    let hostile = "git push\r\nX-Injected: 1\n\u{0}\u{7f}\tend é";
    let spec = HttpSpec::new(format!("{}/gate", server.base))
        .with_header("X-Cmd", "${tool_input.command}")
        .with_header("X-Both", "[${tool_input.command}]");
    let r = run_spec(&pre_tool(json!({"command": hostile})), spec).await;
    assert_eq!(
        (axes(&r), r.feedback.as_deref(), r.failure.as_deref()),
        ((Decision::Deny, FlowControl::Continue), Some("the gate says no"), None)
    );
    let seen = server.log.last();
    assert_eq!(seen.headers["x-cmd"].as_bytes(), "git push  X-Injected: 1    end é".as_bytes());
    assert_eq!(seen.headers["x-both"].as_bytes(), "[git push  X-Injected: 1    end é]".as_bytes());
    assert!(seen.headers.get("x-injected").is_none(), "a header was injected");
}

#[tokio::test]
async fn every_http_hook_shares_one_client_and_reuses_its_connection() {
    // R-ACT-HTTP-4: two different hooks, one keep-alive connection.
    let server = serve().await;
    let ctx = pre_tool(json!({}));
    let first = HttpAction::new("a", "s", HttpSpec::new(format!("{}/record", server.base)));
    let second =
        HttpAction::new("b", "s", HttpSpec::new(format!("{}/record", server.base)).with_headers(BTreeMap::new()));
    first.execute(&ctx).await.expect("runs");
    let peer = server.log.last().peer;
    second.execute(&ctx).await.expect("runs");
    assert_eq!(server.log.last().peer, peer);
}

#[test]
fn the_action_reports_its_timeout_as_its_budget() {
    let a = HttpAction::new("http@user#0", "user#0", HttpSpec::new("http://127.0.0.1:1/"));
    assert_eq!((a.id(), a.source(), a.execution_budget()), ("http@user#0", "user#0", Some(Duration::from_secs(30))));
}
