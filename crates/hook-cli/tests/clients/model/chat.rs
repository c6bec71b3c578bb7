//! OpenAI Chat Completions (`POST …/chat/completions`), as Copilot CLI 1.0.102 and Qwen Code
//! 0.24.4 read it: with `stream`, one `chat.completion.chunk` holding the whole delta, one with
//! the finish reason, one with usage, then `[DONE]`. A tool result comes back as a `tool` message.

use serde_json::{Value, json};

use super::{Reply, sse};

/// The names of the functions the request offers.
pub(crate) fn offered(request: &Value) -> Vec<String> {
    request["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|tool| tool["function"]["name"].as_str().map(str::to_owned))
        .collect()
}

/// The body for `reply` (`None`: a side call, answered with a short text), and whether it is SSE.
pub(crate) fn answer(request: &Value, reply: Option<Reply>, n: usize, stream: bool) -> (String, bool) {
    let id = format!("chatcmpl-scripted-{n}");
    let model = request["model"].as_str().unwrap_or("scripted");
    let (message, finish) = match reply.unwrap_or(Reply::Text("ok".into())) {
        Reply::Call { name, args } => (
            json!({"role": "assistant", "content": null, "tool_calls": [{
                "index": 0, "id": format!("call_scripted_{n}"), "type": "function",
                "function": {"name": name, "arguments": args}}]}),
            "tool_calls",
        ),
        Reply::Text(text) => (json!({"role": "assistant", "content": text}), "stop"),
    };
    let usage = json!({"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15});
    if !stream {
        let body = json!({"id": id, "object": "chat.completion", "created": 0, "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": finish}], "usage": usage});
        return (body.to_string(), false);
    }
    let chunk = |choices: Value| json!({"id": id, "object": "chat.completion.chunk", "created": 0, "model": model, "choices": choices});
    let mut last = chunk(json!([]));
    last["usage"] = usage;
    let events = [
        chunk(json!([{"index": 0, "delta": message, "finish_reason": null}])).to_string(),
        chunk(json!([{"index": 0, "delta": {}, "finish_reason": finish}])).to_string(),
        last.to_string(),
        "[DONE]".to_owned(),
    ];
    (sse(events.iter().map(String::as_str), &[]), true)
}
