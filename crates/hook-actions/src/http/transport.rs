//! The request: one process-wide client, rendered headers and body, a bounded response
//! (R-ACT-HTTP-2…4).

use std::sync::OnceLock;

use hook_core::HookContext;
use reqwest::header::{CONTENT_TYPE, HeaderName, HeaderValue};
use reqwest::{Client, Method};
use serde_json::Value;

use crate::answer::{Answer, Reply};
use crate::http::{HttpBody, HttpSpec};
use crate::payload::Payload;
use crate::template::{render_template, render_value};

/// Response bodies above this many bytes are refused.
pub(crate) const MAX_RESPONSE: usize = 1 << 20;

/// The one client every http hook shares, so connections are reused (R-ACT-HTTP-4).
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

/// The most bytes of one header value after templating. Servers refuse a request whose header
/// section is past their limit (8 KiB a line is common), and a refused request is "no usable
/// decision": tool input rendered into a header must not be able to do that.
pub(crate) const MAX_HEADER_VALUE: usize = 8 << 10;

/// A rendered header value cut to [`MAX_HEADER_VALUE`] bytes on a character boundary, with every
/// control character (CR, LF, NUL, DEL, …) replaced by a space: tool input rendered into a header
/// can never make the request invalid or too large, and so can never turn a gate's answer into
/// "no usable decision" (REL-4). Other characters pass as they are (UTF-8 bytes are valid header
/// bytes).
fn header_value(rendered: &str) -> Result<HeaderValue, reqwest::header::InvalidHeaderValue> {
    let mut end = rendered.len().min(MAX_HEADER_VALUE);
    while !rendered.is_char_boundary(end) {
        end -= 1;
    }
    let clean: String = rendered[..end].chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    HeaderValue::from_bytes(clean.as_bytes())
}

/// Sends the request for `ctx` and reads the answer.
pub(crate) async fn call(spec: &HttpSpec, ctx: &HookContext, source: &str) -> Reply {
    match send(spec, ctx, source).await {
        Ok(reply) => reply,
        Err(cause) => Reply::Failed(cause),
    }
}

async fn send(spec: &HttpSpec, ctx: &HookContext, source: &str) -> Result<Reply, String> {
    let client = client()?;
    let method = Method::from_bytes(spec.method.to_ascii_uppercase().as_bytes())
        .map_err(|_| format!("invalid method '{}'", spec.method))?;
    let allowed = &spec.allowed_env_vars;
    let mut request = client.request(method, &spec.url);
    let mut has_content_type = false;
    for (name, template) in &spec.headers {
        let name = HeaderName::from_bytes(name.as_bytes()).map_err(|_| format!("invalid header name '{name}'"))?;
        let value = header_value(&render_template(template, ctx, source, allowed))
            .map_err(|_| format!("invalid value for header '{name}'"))?;
        has_content_type |= name == CONTENT_TYPE;
        request = request.header(name, value);
    }
    let body = match &spec.body {
        Some(HttpBody::Template(t)) => render_template(t, ctx, source, allowed).into_bytes(),
        Some(HttpBody::Structured(v)) => {
            serde_json::to_vec(&render_value(v, ctx, source, allowed)).map_err(|e| format!("body: {e}"))?
        }
        None => Payload::new(ctx, source).body(),
    };
    if !has_content_type {
        request = request.header(CONTENT_TYPE, "application/json");
    }
    let mut response = request.body(body).send().await.map_err(|e| format!("transport error: {e}"))?;
    let status = response.status();
    if !status.is_success() {
        return Err(format!("http status {status}"));
    }
    if response.content_length().is_some_and(|n| n > MAX_RESPONSE as u64) {
        return Err(format!("response body exceeds {MAX_RESPONSE} bytes"));
    }
    let mut bytes = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| format!("transport error: {e}"))? {
        if bytes.len() + chunk.len() > MAX_RESPONSE {
            return Err(format!("response body exceeds {MAX_RESPONSE} bytes"));
        }
        bytes.extend_from_slice(&chunk);
    }
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(Reply::Answer(Answer::default()));
    }
    let value: Value = serde_json::from_slice(&bytes).map_err(|_| "malformed response: not JSON".to_owned())?;
    Ok(Reply::Answer(Answer::from_json(&value, ctx.event).unwrap_or_default()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rendered_header_is_bounded_and_holds_no_control_character() {
        let cases: [(String, String); 4] = [
            ("a\r\nX-Evil: 1\0".to_owned(), "a  X-Evil: 1 ".to_owned()),
            ("x".repeat(1 << 20), "x".repeat(MAX_HEADER_VALUE)),
            (format!("a{}", "é".repeat(MAX_HEADER_VALUE)), format!("a{}", "é".repeat(MAX_HEADER_VALUE / 2 - 1))),
            ("plain value".to_owned(), "plain value".to_owned()),
        ];
        for (rendered, want) in cases {
            let value = header_value(&rendered).expect("always a valid header value");
            assert_eq!(value.as_bytes(), want.as_bytes(), "{}", &rendered[..rendered.len().min(20)]);
        }
    }
}
