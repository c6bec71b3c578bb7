//! A scripted model on loopback speaking a Messages-API-like protocol: `POST /v1/messages` with
//! `{"messages": […]}` answers `{"content": […], "stop_reason": …}`. Its script: try
//! `rm -rf build`, then `./deploy.sh`, then end the turn; on the next turn, repeat what the
//! hooks' mail in the user's message said (or say there is no news).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::{Json, Router, extract::State, routing::post};
use serde_json::{Value, json};

/// Starts the model on 127.0.0.1 (an ephemeral port); returns its messages URL.
pub(crate) async fn serve() -> std::io::Result<String> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}/v1/messages", listener.local_addr()?);
    let app = Router::new().route("/v1/messages", post(messages)).with_state(Arc::new(AtomicUsize::new(0)));
    tokio::spawn(async move { axum::serve(listener, app).await });
    Ok(url)
}

async fn messages(State(step): State<Arc<AtomicUsize>>, Json(request): Json<Value>) -> Json<Value> {
    let tool = |id: &str, command: &str| {
        json!({ "content": [{ "type": "tool_use", "id": id, "name": "Bash", "input": { "command": command } }],
                "stop_reason": "tool_use" })
    };
    let text = |text: String| json!({ "content": [{ "type": "text", "text": text }], "stop_reason": "end_turn" });
    Json(match step.fetch_add(1, Ordering::SeqCst) {
        0 => tool("t1", "rm -rf build"),
        1 => tool("t2", "./deploy.sh"),
        2 => text("Deploy started; I will tell you when it is done.".to_owned()),
        _ => {
            let user = request["messages"].as_array().and_then(|m| m.last()).cloned().unwrap_or_default();
            let said = user["content"].as_str().unwrap_or_default();
            let mail = said.split_once("<hook-mail>").and_then(|(_, rest)| rest.split_once("</hook-mail>"));
            text(match mail {
                Some((mail, _)) => format!("Yes: {mail}."),
                None => "No news yet.".to_owned(),
            })
        }
    })
}
