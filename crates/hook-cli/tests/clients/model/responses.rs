//! The OpenAI Responses API (`POST …/responses`), as Codex 0.171.0 reads it: with `stream`, the
//! SSE events `response.created`, `response.output_item.added`, `response.output_item.done` and
//! `response.completed`. A tool result comes back as a `function_call_output` input item.

use serde_json::{Value, json};

use super::{Reply, sse};

/// The names of the tools the request offers.
pub(crate) fn offered(request: &Value) -> Vec<String> {
    request["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|tool| tool["name"].as_str().or(tool["type"].as_str()).map(str::to_owned))
        .collect()
}

/// Whether the request offers `name` as a freeform (`custom`) tool, whose call carries raw text.
fn is_custom(request: &Value, name: &str) -> bool {
    request["tools"].as_array().into_iter().flatten().any(|t| t["type"] == "custom" && t["name"] == name)
}

/// The body for `reply` (`None`: a side call, answered with a short text), and whether it is SSE.
pub(crate) fn answer(request: &Value, reply: Option<Reply>, n: usize, stream: bool) -> (String, bool) {
    let id = format!("resp_scripted_{n}");
    let item = match reply.unwrap_or(Reply::Text("ok".into())) {
        Reply::Call { name, args } if is_custom(request, &name) => json!({
            "type": "custom_tool_call", "id": format!("ctc_{id}"), "status": "completed",
            "call_id": format!("call_{id}"), "name": name, "input": args,
        }),
        Reply::Call { name, args } => json!({
            "type": "function_call", "id": format!("fc_{id}"), "status": "completed",
            "call_id": format!("call_{id}"), "name": name, "arguments": args,
        }),
        Reply::Text(text) => json!({
            "type": "message", "role": "assistant", "id": format!("msg_{id}"), "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}],
        }),
    };
    let response = json!({
        "id": id, "object": "response", "created_at": 0, "status": "completed",
        "model": request["model"].as_str().unwrap_or("scripted"), "output": [item],
        "usage": {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15,
                  "input_tokens_details": {"cached_tokens": 0},
                  "output_tokens_details": {"reasoning_tokens": 0}},
    });
    if !stream {
        return (response.to_string(), false);
    }
    let mut created = response.clone();
    created["status"] = json!("in_progress");
    created["output"] = json!([]);
    let events = [
        json!({"type": "response.created", "response": created}),
        json!({"type": "response.output_item.added", "output_index": 0, "item": item}),
        json!({"type": "response.output_item.done", "output_index": 0, "item": item}),
        json!({"type": "response.completed", "response": response}),
    ];
    let names: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap_or_default()).collect();
    let data: Vec<String> = events.iter().map(Value::to_string).collect();
    (sse(data.iter().map(String::as_str), &names), true)
}
