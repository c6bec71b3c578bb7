//! A scripted Anthropic Messages API on 127.0.0.1 (axum), speaking the streaming wire format
//! Claude Code 2.1.332 reads (`/work/shared/tools/fake-anthropic/README.md`).
//!
//! Each request that offers `tools` is an agent turn and gets the script's next [`Turn`] (then a
//! final "scripted-model: done"); requests without tools are side calls (titles, summaries) and
//! get a short text. Every request body is recorded, so a test can check what Claude Code sent
//! back to the model.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{Uri, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use tokio::task::JoinHandle;

/// What the model answers to one agent request.
#[derive(Debug, Clone)]
pub(crate) enum Turn {
    /// Call one tool with this input.
    Tool { name: String, input: Value },
    /// Call one tool with the input given as the JSON text the API sends, verbatim: it may hold
    /// what a `Value` cannot, like a lone surrogate escape (`"x\ud83d"`), which Claude Code's own
    /// JSON parser accepts.
    RawTool { name: String, input: String },
    /// End the turn with this text.
    Text(String),
}

impl Turn {
    pub(crate) fn bash(command: &str) -> Self {
        Turn::Tool { name: "Bash".into(), input: json!({"command": command}) }
    }

    pub(crate) fn write(file_path: &std::path::Path, content: &str) -> Self {
        Turn::Tool { name: "Write".into(), input: json!({"file_path": file_path, "content": content}) }
    }

    /// A Bash call whose input is this JSON text.
    pub(crate) fn raw_bash(input: &str) -> Self {
        Turn::RawTool { name: "Bash".into(), input: input.into() }
    }

    pub(crate) fn text(text: &str) -> Self {
        Turn::Text(text.into())
    }
}

/// One request as Claude Code sent it.
#[derive(Debug, Clone)]
pub(crate) struct Recorded {
    pub(crate) path: String,
    pub(crate) body: Value,
}

impl Recorded {
    /// An agent request (it offers tools), as opposed to a side call.
    pub(crate) fn offers_tools(&self) -> bool {
        self.body["tools"].as_array().is_some_and(|tools| !tools.is_empty())
    }
}

#[derive(Debug)]
struct Script {
    turns: Vec<Turn>,
    next: usize,
    requests: Vec<Recorded>,
}

type Shared = Arc<Mutex<Script>>;

/// The running server; stops when dropped.
#[derive(Debug)]
pub(crate) struct ScriptedModel {
    addr: SocketAddr,
    script: Shared,
    server: JoinHandle<()>,
}

impl ScriptedModel {
    /// Serves `turns` on a fresh port of 127.0.0.1.
    pub(crate) async fn start(turns: Vec<Turn>) -> Self {
        let script = Arc::new(Mutex::new(Script { turns, next: 0, requests: Vec::new() }));
        let app = Router::new().fallback(answer).with_state(Arc::clone(&script));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind 127.0.0.1:0");
        let addr = listener.local_addr().expect("local addr");
        let server = tokio::spawn(async move {
            axum::serve(listener, app).await.expect("the scripted model serves");
        });
        ScriptedModel { addr, script, server }
    }

    /// The value for `ANTHROPIC_BASE_URL`.
    pub(crate) fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Every request so far, in arrival order.
    pub(crate) fn requests(&self) -> Vec<Recorded> {
        self.script.lock().expect("script lock").requests.clone()
    }
}

impl Drop for ScriptedModel {
    fn drop(&mut self) {
        self.server.abort();
    }
}

async fn answer(State(script): State<Shared>, uri: Uri, body: Bytes) -> Response {
    // Read as Claude Code meant it: a request may echo a tool input holding a lone surrogate.
    let request = match body.trim_ascii() {
        b"" => Value::Null,
        text => hook_wire::parse_payload(text, "the request").map_or(Value::Null, Value::Object),
    };
    let path = uri.to_string();
    let (n, turn) = {
        let mut script = script.lock().expect("script lock");
        let recorded = Recorded { path: path.clone(), body: request.clone() };
        let agent = recorded.offers_tools() && !path.contains("count_tokens");
        script.requests.push(recorded);
        let n = script.requests.len();
        let turn = if agent {
            let turn = script.turns.get(script.next).cloned().unwrap_or_else(|| Turn::text("scripted-model: done"));
            script.next += 1;
            turn
        } else {
            Turn::text("ok")
        };
        (n, turn)
    };
    if path.contains("count_tokens") {
        return axum::Json(json!({"input_tokens": 10})).into_response();
    }
    if request.is_null() {
        return axum::Json(json!({})).into_response();
    }
    let model = request["model"].as_str().unwrap_or("scripted").to_owned();
    // A raw input travels as a placeholder in the `Value`s and is put back into the texts.
    let (turn, raw) = match turn {
        Turn::RawTool { name, input } => (Turn::Tool { name, input: json!(RAW_INPUT) }, Some(input)),
        turn => (turn, None),
    };
    let (block, stop) = match turn {
        Turn::Tool { name, input } => {
            (json!({"type": "tool_use", "id": format!("toolu_scripted_{n}"), "name": name, "input": input}), "tool_use")
        }
        Turn::Text(text) => (json!({"type": "text", "text": text}), "end_turn"),
        Turn::RawTool { .. } => unreachable!("a raw tool call became a placeholder above"),
    };
    let message = json!({
        "id": format!("msg_scripted_{n}"), "type": "message", "role": "assistant", "model": model,
        "content": [block], "stop_reason": stop, "stop_sequence": null,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    });
    let json = [(header::CONTENT_TYPE, "application/json")];
    let stream = [(header::CONTENT_TYPE, "text/event-stream")];
    match (request["stream"].as_bool() == Some(true), raw) {
        (false, None) => axum::Json(message).into_response(),
        (true, None) => (stream, sse(message, block, stop)).into_response(),
        // In the message the input is JSON itself; in the stream it is the text of a JSON string.
        (false, Some(raw)) => (json, message.to_string().replace(&format!("\"{RAW_INPUT}\""), &raw)).into_response(),
        (true, Some(raw)) => {
            let quoted = Value::String(raw).to_string();
            let escaped_placeholder = Value::String(format!("\"{RAW_INPUT}\"")).to_string();
            let inner = &escaped_placeholder[1..escaped_placeholder.len() - 1];
            (stream, sse(message, block, stop).replace(inner, &quoted[1..quoted.len() - 1])).into_response()
        }
    }
}

/// Stands for a raw tool input inside the `Value`s the answer is built from.
const RAW_INPUT: &str = "scripted-model-raw-input";

/// The streamed form of `message`: start, one content block (its input or text as one delta),
/// the stop reason, stop.
fn sse(mut message: Value, block: Value, stop: &str) -> String {
    message["content"] = json!([]);
    message["stop_reason"] = Value::Null;
    let (start, delta) = if block["type"] == "tool_use" {
        let mut start = block.clone();
        start["input"] = json!({});
        (start, json!({"type": "input_json_delta", "partial_json": block["input"].to_string()}))
    } else {
        (json!({"type": "text", "text": ""}), json!({"type": "text_delta", "text": block["text"]}))
    };
    let events = [
        json!({"type": "message_start", "message": message}),
        json!({"type": "content_block_start", "index": 0, "content_block": start}),
        json!({"type": "content_block_delta", "index": 0, "delta": delta}),
        json!({"type": "content_block_stop", "index": 0}),
        json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null},
               "usage": {"output_tokens": 5}}),
        json!({"type": "message_stop"}),
    ];
    events.iter().map(|e| format!("event: {}\ndata: {e}\n\n", e["type"].as_str().unwrap_or_default())).collect()
}
