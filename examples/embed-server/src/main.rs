//! Mount `hook-server`'s routes in your own axum app, behind your own authentication: the hook
//! engine of every project is served under `/hooks`, next to the app's own routes, and only a
//! request carrying the app's API key reaches it. Run it with `cargo run -p example-embed-server`:
//! it serves on 127.0.0.1 (an ephemeral port), makes three calls to itself and prints what each
//! got.

use axum::Router;
use axum::extract::Request;
use axum::http::StatusCode;
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use hook_server::{HookService, ServiceOptions};
use serde_json::{Value, json};

/// The app's own credential (from a secret store in a real app).
const API_KEY: &str = "demo-key";

/// The app's authentication: hook-server's router has none of its own (the daemon adds a
/// bearer check on TCP; an embedder brings its own).
async fn require_api_key(request: Request, next: Next) -> Response {
    match request.headers().get("x-api-key") {
        Some(key) if key.as_bytes() == API_KEY.as_bytes() => next.run(request).await,
        _ => (StatusCode::UNAUTHORIZED, "missing or wrong x-api-key").into_response(),
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // A project with one hook, and an empty home (its `.aimon/` is every project's USER tier).
    let dir = tempfile::tempdir()?;
    let (home, project) = (dir.path().join("home"), dir.path().join("project"));
    std::fs::create_dir_all(project.join(".aimon"))?;
    std::fs::create_dir_all(&home)?;
    let hooks = json!({ "hooks": { "PreToolUse": [{ "matcher": "Bash(command=^rm\\s+-rf)",
        "hooks": [{ "type": "deny", "reason": "rm -rf is not allowed" }] }] } });
    std::fs::write(project.join(".aimon/hooks.json"), hooks.to_string())?;

    let hooks = HookService::new(ServiceOptions::new(Some(home), project.clone()));
    let app = Router::new()
        .route("/status", get(|| async { "my app is up" }))
        .nest("/hooks", hooks.router().layer(middleware::from_fn(require_api_key)));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let base = format!("http://{}", listener.local_addr()?);
    tokio::spawn(async move { axum::serve(listener, app).await });

    let http = reqwest::Client::new();
    let status = http.get(format!("{base}/status")).send().await?;
    println!("GET /status: {} {}", status.status(), status.text().await?);

    let call = json!({ "session_id": "s1", "hook_event_name": "PreToolUse", "cwd": project,
        "tool_name": "Bash", "tool_input": { "command": "rm -rf build" } });
    let url = format!("{base}/hooks/v1/run/PreToolUse");
    let denied = http.post(&url).json(&call).send().await?;
    println!("POST /hooks/v1/run/PreToolUse without a key: {}", denied.status());

    let answer = http.post(&url).header("x-api-key", API_KEY).json(&call).send().await?;
    let status = answer.status();
    let body: Value = answer.json().await?;
    println!(
        "POST /hooks/v1/run/PreToolUse with the key: {status} outcome={} reason={}",
        body["outcome"], body["reason"]
    );
    Ok(())
}
