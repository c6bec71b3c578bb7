//! A scripted model (axum), speaking the four wire APIs the clients use: the OpenAI Responses
//! API (`responses`, Codex), OpenAI Chat Completions (`chat`, Copilot and Qwen), Gemini
//! `generateContent`/`streamGenerateContent` (`gemini`) and the Anthropic Messages API
//! (`messages`, Claude Code), streamed as SSE when the client asks for it. It serves a Unix socket
//! ([`ScriptedModel::start`]: the clients suite bridges it to a TCP port on the loopback of the
//! client's own network namespace) or a port of 127.0.0.1 ([`ScriptedModel::start_tcp`]: the
//! claude_code suite, which shares this module).
//!
//! One vocabulary for all four: each agent request (one that offers tools) gets the script's
//! next [`Turn`], then `scripted-model: done`; requests without tools are side calls and get a
//! short text. Every request is recorded, so a test can check what reached the model.

mod chat;
mod gemini;
mod messages;
mod responses;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use tokio::task::JoinHandle;

/// What the model answers to one agent request.
#[derive(Debug, Clone)]
pub(crate) enum Turn {
    /// Call the client's shell tool with this command.
    Shell(String),
    /// Call the client's shell tool with this command given as the text of a JSON string, without
    /// its quotes, verbatim: it may hold what a `String` cannot, like a lone surrogate escape
    /// (`echo x\ud83d`).
    RawShell(String),
    /// End the turn with this text.
    Text(String),
    /// Call the offered tool `name` with `input`: a JSON object's text for a function tool, sent
    /// verbatim (it may hold a lone surrogate escape, which Claude Code's own JSON parser
    /// accepts); the raw text for a freeform one (the Responses API's `custom` tools, e.g.
    /// Codex's `apply_patch`).
    Tool { name: String, input: String },
}

impl Turn {
    pub(crate) fn text(text: &str) -> Self {
        Turn::Text(text.into())
    }

    /// Claude Code's `Bash` tool with this command.
    #[allow(dead_code, reason = "the claude_code suite uses it")]
    pub(crate) fn bash(command: &str) -> Self {
        Turn::Tool { name: "Bash".into(), input: json!({"command": command}).to_string() }
    }

    /// Claude Code's `Write` tool.
    #[allow(dead_code, reason = "the claude_code suite uses it")]
    pub(crate) fn write(file_path: &Path, content: &str) -> Self {
        Turn::Tool { name: "Write".into(), input: json!({"file_path": file_path, "content": content}).to_string() }
    }

    /// Claude Code's `Bash` tool with this JSON text as its input, verbatim.
    #[allow(dead_code, reason = "the claude_code suite uses it")]
    pub(crate) fn raw_bash(input: &str) -> Self {
        Turn::Tool { name: "Bash".into(), input: input.into() }
    }
}

/// One request as the client sent it.
#[derive(Debug, Clone)]
pub(crate) struct Recorded {
    pub(crate) method: String,
    pub(crate) path: String,
    /// The JSON body; the body's text as a string when it is not JSON a `Value` can hold.
    pub(crate) body: Value,
}

impl Recorded {
    /// An agent request: it offers tools (in any of the four APIs' shapes).
    pub(crate) fn offers_tools(&self) -> bool {
        self.body["tools"].as_array().is_some_and(|tools| !tools.is_empty())
    }

    /// The conversation part of the body (`input`, `messages` or `contents`), where tool results,
    /// hook context and deny reasons travel; not the tool definitions or the system prompt.
    pub(crate) fn conversation(&self) -> Vec<&str> {
        if let Value::String(raw) = &self.body {
            return vec![raw.as_str()];
        }
        ["input", "messages", "contents"].iter().flat_map(|key| strings(&self.body[*key])).collect()
    }
}

/// The shell tool the client offers, and the arguments it takes for `command` (as the inside of
/// a JSON object's text, so a raw command stays verbatim). `None` when no known shell tool is
/// offered.
pub(crate) fn shell_call(offered: &[String], command: &str, raw: bool) -> Option<(String, String)> {
    let quoted = if raw { format!("\"{command}\"") } else { Value::String(command.to_owned()).to_string() };
    let name = ["exec_command", "run_shell_command", "bash", "Bash", "shell"]
        .into_iter()
        .find(|name| offered.iter().any(|o| o == name))?;
    let args = match name {
        "exec_command" => format!("{{\"cmd\":{quoted}}}"),
        "shell" => format!("{{\"command\":[\"bash\",\"-c\",{quoted}]}}"),
        _ => format!("{{\"command\":{quoted},\"description\":\"scripted shell call\"}}"),
    };
    Some((name.to_owned(), args))
}

/// The answer to one agent request, in the API's own terms.
#[derive(Debug)]
pub(crate) enum Reply {
    /// Call tool `name` with `args` (a JSON object's text).
    Call {
        name: String,
        args: String,
    },
    Text(String),
}

impl Reply {
    fn for_turn(turn: &Turn, offered: &[String]) -> Reply {
        let (command, raw) = match turn {
            Turn::Text(text) => return Reply::Text(text.clone()),
            Turn::Tool { name, input } if offered.contains(name) => {
                return Reply::Call { name: name.clone(), args: input.clone() };
            }
            Turn::Tool { name, .. } => {
                return Reply::Text(format!("scripted-model: no tool {name} among the offered tools {offered:?}"));
            }
            Turn::Shell(command) => (command, false),
            Turn::RawShell(command) => (command, true),
        };
        match shell_call(offered, command, raw) {
            Some((name, args)) => Reply::Call { name, args },
            None => Reply::Text(format!("scripted-model: no shell tool among the offered tools {offered:?}")),
        }
    }
}

#[derive(Debug)]
struct Script {
    turns: Vec<Turn>,
    next: usize,
    requests: Vec<Recorded>,
}

type Shared = Arc<Mutex<Script>>;

/// Where the model listens.
#[derive(Debug)]
enum Endpoint {
    Unix(PathBuf),
    Tcp(SocketAddr),
}

/// The running server; stops when dropped.
#[derive(Debug)]
pub(crate) struct ScriptedModel {
    endpoint: Endpoint,
    script: Shared,
    server: JoinHandle<()>,
}

impl ScriptedModel {
    /// Serves `turns` on a fresh Unix socket at `socket`.
    pub(crate) async fn start(socket: &Path, turns: Vec<Turn>) -> Self {
        let (script, app) = Self::app(turns);
        let _ = std::fs::remove_file(socket);
        let listener = tokio::net::UnixListener::bind(socket)
            .unwrap_or_else(|e| panic!("cannot bind the scripted model to {}: {e}", socket.display()));
        let server = tokio::spawn(async move {
            axum::serve(listener, app).await.expect("the scripted model serves");
        });
        ScriptedModel { endpoint: Endpoint::Unix(socket.to_owned()), script, server }
    }

    /// Serves `turns` on a fresh port of 127.0.0.1.
    #[allow(dead_code, reason = "the claude_code suite uses it")]
    pub(crate) async fn start_tcp(turns: Vec<Turn>) -> Self {
        let (script, app) = Self::app(turns);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind 127.0.0.1:0");
        let addr = listener.local_addr().expect("local addr");
        let server = tokio::spawn(async move {
            axum::serve(listener, app).await.expect("the scripted model serves");
        });
        ScriptedModel { endpoint: Endpoint::Tcp(addr), script, server }
    }

    fn app(turns: Vec<Turn>) -> (Shared, Router) {
        let script = Arc::new(Mutex::new(Script { turns, next: 0, requests: Vec::new() }));
        let app = Router::new().fallback(answer).with_state(Arc::clone(&script));
        (script, app)
    }

    /// The Unix socket of a model [`start`](Self::start)ed on one.
    pub(crate) fn socket(&self) -> &Path {
        match &self.endpoint {
            Endpoint::Unix(socket) => socket,
            Endpoint::Tcp(addr) => panic!("the scripted model listens on {addr}, not on a Unix socket"),
        }
    }

    /// The base URL (`ANTHROPIC_BASE_URL`) of a model [`start_tcp`](Self::start_tcp)ed on a port.
    #[allow(dead_code, reason = "the claude_code suite uses it")]
    pub(crate) fn base_url(&self) -> String {
        match &self.endpoint {
            Endpoint::Tcp(addr) => format!("http://{addr}"),
            Endpoint::Unix(socket) => panic!("the scripted model listens on {}, not on a port", socket.display()),
        }
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

/// Which wire API a request path belongs to.
enum Api {
    Responses,
    Chat,
    Gemini { stream: bool },
    Messages,
}

fn api_of(path: &str) -> Option<Api> {
    let path = path.split('?').next().unwrap_or_default();
    if path.ends_with("/responses") {
        Some(Api::Responses)
    } else if path.ends_with("/chat/completions") {
        Some(Api::Chat)
    } else if path.contains(":streamGenerateContent") {
        Some(Api::Gemini { stream: true })
    } else if path.contains(":generateContent") {
        Some(Api::Gemini { stream: false })
    } else if path.ends_with("/messages") {
        Some(Api::Messages)
    } else {
        None
    }
}

async fn answer(State(script): State<Shared>, method: Method, uri: Uri, body: Bytes) -> Response {
    let path = uri.to_string();
    let api = api_of(&path);
    let request = match body.trim_ascii() {
        b"" => Value::Null,
        text => match serde_json::from_slice(text) {
            Ok(request) => request,
            // Read as Claude Code meant it: a request may echo a tool input holding a lone
            // surrogate, which its own JSON parser accepts.
            Err(_) if matches!(api, Some(Api::Messages)) => {
                hook_wire::parse_payload(text, "the request").map_or(Value::Null, Value::Object)
            }
            Err(_) => Value::String(String::from_utf8_lossy(text).into()),
        },
    };
    let recorded = Recorded { method: method.to_string(), path: path.clone(), body: request.clone() };
    // Claude Code counts the tokens of its agent requests: tools offered, no turn taken.
    let agent = recorded.offers_tools() && !path.contains("count_tokens");
    let (n, turn) = {
        let mut script = script.lock().expect("script lock");
        script.requests.push(recorded);
        let n = script.requests.len();
        let turn = agent.then(|| {
            let turn = script.turns.get(script.next).cloned().unwrap_or_else(|| Turn::text("scripted-model: done"));
            script.next += 1;
            turn
        });
        (n, turn)
    };
    if method == Method::GET {
        // Model listings (`/v1/models`): one model.
        return axum::Json(json!({"object": "list", "data": [{"id": "scripted", "object": "model", "owned_by": "scripted"}], "models": []}))
            .into_response();
    }
    if path.contains(":countTokens") {
        return axum::Json(json!({"totalTokens": 10})).into_response();
    }
    if path.contains("count_tokens") {
        return axum::Json(json!({"input_tokens": 10})).into_response();
    }
    let Some(api) = api else {
        return (
            StatusCode::NOT_FOUND,
            axum::Json(json!({"error": {"message": format!("scripted model: no route {path}")}})),
        )
            .into_response();
    };
    let stream = match api {
        Api::Gemini { stream } => stream,
        _ => request["stream"].as_bool() == Some(true),
    };
    let (body, sse) = match api {
        Api::Responses => {
            let reply = turn.map(|t| Reply::for_turn(&t, &responses::offered(&request)));
            responses::answer(&request, reply, n, stream)
        }
        Api::Chat => {
            let reply = turn.map(|t| Reply::for_turn(&t, &chat::offered(&request)));
            chat::answer(&request, reply, n, stream)
        }
        Api::Gemini { stream } => {
            let reply = turn.map(|t| Reply::for_turn(&t, &gemini::offered(&request)));
            gemini::answer(&request, reply, stream)
        }
        Api::Messages if request.is_null() => ("{}".to_owned(), false),
        Api::Messages => {
            let reply = turn.map(|t| Reply::for_turn(&t, &messages::offered(&request)));
            messages::answer(&request, reply, n, stream)
        }
    };
    let content_type = if sse { "text/event-stream" } else { "application/json" };
    ([(header::CONTENT_TYPE, content_type)], body).into_response()
}

/// `events` as SSE: `event: <type>` lines when `named`, then `data: <json>`.
pub(crate) fn sse<'a>(events: impl IntoIterator<Item = &'a str>, named: &[&str]) -> String {
    events
        .into_iter()
        .enumerate()
        .map(|(i, data)| match named.get(i) {
            Some(name) => format!("event: {name}\ndata: {data}\n\n"),
            None => format!("data: {data}\n\n"),
        })
        .collect()
}

/// Every string inside `value`, depth first.
pub(crate) fn strings(value: &Value) -> Vec<&str> {
    match value {
        Value::String(s) => vec![s.as_str()],
        Value::Array(items) => items.iter().flat_map(strings).collect(),
        Value::Object(map) => map.values().flat_map(strings).collect(),
        _ => Vec::new(),
    }
}
