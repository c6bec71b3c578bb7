//! The Gemini API (`POST …/models/<model>:generateContent`, `:streamGenerateContent?alt=sse`),
//! as Gemini CLI 0.61.0 reads it: one candidate whose part is a `functionCall` or a `text`; the
//! stream is that one response as one SSE `data:` event. A tool result comes back as a
//! `functionResponse` part. Side calls asking for JSON (`responseMimeType`) get a JSON text.

use serde_json::{Value, json};

use super::{Reply, sse};

/// The names of the function declarations the request offers.
pub(crate) fn offered(request: &Value) -> Vec<String> {
    request["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|tool| tool["functionDeclarations"].as_array().into_iter().flatten())
        .filter_map(|declaration| declaration["name"].as_str().map(str::to_owned))
        .collect()
}

/// Stands for the arguments object in the `Value` the answer is built from; the arguments' text
/// replaces it in the serialized answer, so a raw command stays verbatim.
const ARGS: &str = "scripted-model-arguments";

/// The body for `reply` (`None`: a side call), and whether it is SSE.
pub(crate) fn answer(request: &Value, reply: Option<Reply>, stream: bool) -> (String, bool) {
    let config = &request["generationConfig"];
    let wants_json = config["responseMimeType"] == "application/json"
        || !config["responseSchema"].is_null()
        || !config["responseJsonSchema"].is_null();
    let (part, args) = match reply {
        Some(Reply::Call { name, args }) => (json!({"functionCall": {"name": name, "args": ARGS}}), Some(args)),
        Some(Reply::Text(text)) => (json!({"text": text}), None),
        None if wants_json => {
            (json!({"text": json!({"reasoning": "scripted", "next_speaker": "user"}).to_string()}), None)
        }
        None => (json!({"text": "ok"}), None),
    };
    let response = json!({
        "candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
        "modelVersion": "scripted",
    });
    let mut text = response.to_string();
    if let Some(args) = args {
        text = text.replace(&format!("\"{ARGS}\""), &args);
    }
    if stream { (sse([text.as_str()], &[]), true) } else { (text, false) }
}
