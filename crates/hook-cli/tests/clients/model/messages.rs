//! The Anthropic Messages API (`POST /v1/messages`), as Claude Code 2.1.332 reads it
//! (`/work/shared/tools/fake-anthropic/README.md`): with `stream`, the SSE events
//! `message_start`, one content block (its input or text as one delta), `message_delta` with the
//! stop reason, `message_stop`. A tool result comes back as a `tool_result` block of a user
//! message; `…/count_tokens` is answered before this module is asked.

use serde_json::{Value, json};

use super::{Reply, sse};

/// The names of the tools the request offers.
pub(crate) fn offered(request: &Value) -> Vec<String> {
    request["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|tool| tool["name"].as_str().map(str::to_owned))
        .collect()
}

/// Stands for the tool input in the `Value` the answer is built from; the arguments' text
/// replaces it in the serialized answer, so a raw input stays verbatim.
const ARGS: &str = "scripted-model-arguments";

/// The body for `reply` (`None`: a side call, answered with a short text), and whether it is SSE.
pub(crate) fn answer(request: &Value, reply: Option<Reply>, n: usize, stream: bool) -> (String, bool) {
    let (block, stop, args) = match reply.unwrap_or(Reply::Text("ok".into())) {
        Reply::Call { name, args } => (
            json!({"type": "tool_use", "id": format!("toolu_scripted_{n}"), "name": name, "input": ARGS}),
            "tool_use",
            Some(args),
        ),
        Reply::Text(text) => (json!({"type": "text", "text": text}), "end_turn", None),
    };
    let mut message = json!({
        "id": format!("msg_scripted_{n}"), "type": "message", "role": "assistant",
        "model": request["model"].as_str().unwrap_or("scripted"),
        "content": [block], "stop_reason": stop, "stop_sequence": null,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    });
    if !stream {
        // In the message the input is JSON itself.
        let mut text = message.to_string();
        if let Some(args) = args {
            text = text.replace(&format!("\"{ARGS}\""), &args);
        }
        return (text, false);
    }
    message["content"] = json!([]);
    message["stop_reason"] = Value::Null;
    // In the stream the input is the text of a JSON string, escaped by serde.
    let (start, delta) = match args {
        Some(args) => {
            let mut start = block.clone();
            start["input"] = json!({});
            (start, json!({"type": "input_json_delta", "partial_json": args}))
        }
        None => (json!({"type": "text", "text": ""}), json!({"type": "text_delta", "text": block["text"]})),
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
    let names: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap_or_default()).collect();
    let data: Vec<String> = events.iter().map(Value::to_string).collect();
    (sse(data.iter().map(String::as_str), &names), true)
}
