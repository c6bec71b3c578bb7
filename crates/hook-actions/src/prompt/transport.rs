//! The model call: one conversation, written for the Anthropic Messages API or an
//! OpenAI-compatible Chat Completions API; the only code here that talks to the model.

use std::sync::OnceLock;

use hook_wire::claude::PayloadKey;
use reqwest::Client;
use serde_json::{Value, json};

use crate::prompt::spec::{ModelApi, ModelEndpoint};

/// Response bodies above this many bytes are refused.
const MAX_RESPONSE: usize = 4 << 20;
/// The most tokens one answer may take.
const MAX_TOKENS: u32 = 1024;

/// One message of the conversation, API-neutral.
#[derive(Debug, Clone)]
pub(crate) enum Message {
    /// The person's side: the question.
    User(String),
    /// The model's turn: its text and the tools it called.
    Assistant { text: String, calls: Vec<ToolUse> },
    /// What each called tool returned, by call id.
    Results(Vec<(String, String)>),
}

/// A tool the model called.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ToolUse {
    pub(crate) id: String,
    pub(crate) name: String,
    pub(crate) input: Value,
}

/// A tool offered to the model.
pub(crate) struct ToolDef {
    pub(crate) name: &'static str,
    pub(crate) description: &'static str,
    pub(crate) schema: Value,
}

/// The model's answer to one request.
#[derive(Debug)]
pub(crate) struct Turn {
    pub(crate) text: String,
    pub(crate) calls: Vec<ToolUse>,
}

fn client() -> Result<&'static Client, String> {
    static CLIENT: OnceLock<Result<Client, String>> = OnceLock::new();
    CLIENT
        .get_or_init(|| {
            Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .map_err(|e| format!("http client unavailable: {e}"))
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// Sends the conversation; `Err` is the cause of a failure (no key, transport, status, shape).
pub(crate) async fn ask(
    endpoint: &ModelEndpoint,
    model: &str,
    system: &str,
    messages: &[Message],
    tools: &[ToolDef],
) -> Result<Turn, String> {
    let key_env = endpoint.key_env();
    let key = std::env::var(key_env).map_err(|_| format!("the model key variable {key_env} is not set"))?;
    let request = client()?.post(endpoint.url());
    let request = match endpoint.api {
        ModelApi::Anthropic => request
            .header("x-api-key", key)
            .header("anthropic-version", "2023-06-01")
            .json(&anthropic_body(model, system, messages, tools)),
        ModelApi::Openai => request.bearer_auth(key).json(&openai_body(model, system, messages, tools)),
    };
    let mut response = request.send().await.map_err(|e| format!("model unreachable: {e}"))?;
    let status = response.status();
    if !status.is_success() {
        return Err(format!("model answered http status {status}"));
    }
    let mut bytes = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| format!("model transport error: {e}"))? {
        if bytes.len() + chunk.len() > MAX_RESPONSE {
            return Err(format!("model response exceeds {MAX_RESPONSE} bytes"));
        }
        bytes.extend_from_slice(&chunk);
    }
    let value: Value = serde_json::from_slice(&bytes).map_err(|_| "model response is not JSON".to_owned())?;
    match endpoint.api {
        ModelApi::Anthropic => anthropic_turn(&value),
        ModelApi::Openai => openai_turn(&value),
    }
    .ok_or_else(|| format!("model response has no message: {}", cut(&value.to_string())))
}

fn cut(text: &str) -> String {
    text.chars().take(200).collect()
}

fn anthropic_body(model: &str, system: &str, messages: &[Message], tools: &[ToolDef]) -> Value {
    let messages: Vec<Value> = messages
        .iter()
        .map(|m| match m {
            Message::User(text) => json!({"role": "user", "content": text}),
            Message::Assistant { text, calls } => {
                let mut content: Vec<Value> = Vec::new();
                if !text.is_empty() {
                    content.push(json!({"type": "text", "text": text}));
                }
                content.extend(
                    calls.iter().map(|c| json!({"type": "tool_use", "id": c.id, "name": c.name, "input": c.input})),
                );
                json!({"role": "assistant", "content": content})
            }
            Message::Results(results) => json!({"role": "user", "content": results.iter().map(|(id, out)| {
                // Claude Code's payload key is the Messages API's own name for a call's id.
                json!({"type": "tool_result", PayloadKey::TOOL_USE_ID: id, "content": out})
            }).collect::<Vec<_>>()}),
        })
        .collect();
    let mut body = json!({"model": model, "max_tokens": MAX_TOKENS, "system": system, "messages": messages});
    if !tools.is_empty() {
        body["tools"] = tools
            .iter()
            .map(|t| json!({"name": t.name, "description": t.description, "input_schema": t.schema}))
            .collect();
    }
    body
}

fn anthropic_turn(value: &Value) -> Option<Turn> {
    let mut turn = Turn { text: String::new(), calls: Vec::new() };
    for block in value.get("content")?.as_array()? {
        match block.get("type").and_then(Value::as_str) {
            Some("text") => turn.text.push_str(block.get("text").and_then(Value::as_str).unwrap_or_default()),
            Some("tool_use") => turn.calls.push(ToolUse {
                id: block.get("id")?.as_str()?.to_owned(),
                name: block.get("name")?.as_str()?.to_owned(),
                input: block.get("input").cloned().unwrap_or(Value::Null),
            }),
            _ => {}
        }
    }
    Some(turn)
}

fn openai_body(model: &str, system: &str, messages: &[Message], tools: &[ToolDef]) -> Value {
    let mut out = vec![json!({"role": "system", "content": system})];
    for m in messages {
        match m {
            Message::User(text) => out.push(json!({"role": "user", "content": text})),
            Message::Assistant { text, calls } => {
                let mut message = json!({"role": "assistant", "content": text});
                if !calls.is_empty() {
                    message["tool_calls"] = calls
                        .iter()
                        .map(|c| {
                            json!({"id": c.id, "type": "function",
                                "function": {"name": c.name, "arguments": c.input.to_string()}})
                        })
                        .collect();
                }
                out.push(message);
            }
            Message::Results(results) => out.extend(
                results.iter().map(|(id, content)| json!({"role": "tool", "tool_call_id": id, "content": content})),
            ),
        }
    }
    let mut body = json!({"model": model, "max_tokens": MAX_TOKENS, "messages": out});
    if !tools.is_empty() {
        body["tools"] = tools
            .iter()
            .map(|t| {
                json!({"type": "function",
                    "function": {"name": t.name, "description": t.description, "parameters": t.schema}})
            })
            .collect();
    }
    body
}

fn openai_turn(value: &Value) -> Option<Turn> {
    let message = value.get("choices")?.get(0)?.get("message")?;
    let text = message.get("content").and_then(Value::as_str).unwrap_or_default().to_owned();
    let mut calls = Vec::new();
    for call in message.get("tool_calls").and_then(Value::as_array).into_iter().flatten() {
        let function = call.get("function")?;
        let arguments = function.get("arguments").and_then(Value::as_str).unwrap_or("{}");
        calls.push(ToolUse {
            id: call.get("id")?.as_str()?.to_owned(),
            name: function.get("name")?.as_str()?.to_owned(),
            input: serde_json::from_str(arguments).unwrap_or(Value::Null),
        });
    }
    Some(Turn { text, calls })
}
