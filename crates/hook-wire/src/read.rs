//! Reading a payload as its client meant it (every front end and every client: lenient JSON).
//!
//! A client written in JavaScript (Claude Code) can send what serde_json refuses: a string with a
//! lone UTF-16 surrogate (`"x\ud83d"`: `JSON.stringify` escapes it, the client's own UTF-8
//! encoder would have written U+FFFD), nesting deeper than serde_json's recursion limit, or bytes
//! that are not UTF-8. None of it may turn a veto off, so the text is mended before it is parsed:
//!
//! - invalid UTF-8 is read lossily (U+FFFD), a leading byte-order mark is dropped;
//! - a `\uD800`–`\uDFFF` escape that is not half of a pair becomes `\uFFFD`; pairs are kept, and
//!   an escaped backslash before `u` (`"\\ud83d"`) is text, not an escape;
//! - an array or object nested deeper than [`MAX_DEPTH`] is kept as the JSON text of that subtree,
//!   a string: every later step (matching, cloning, serialising, dropping) recurses, and a payload
//!   must not be able to overflow a stack anywhere, so the value itself never gets deeper.
//!
//! Both passes are loops over the bytes, so no input can exhaust the stack here either. What is
//! still not a JSON object after that is an [`Error::Payload`] naming where it came from.

use std::borrow::Cow;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{Map, Value};

use crate::error::Error;

/// Arrays and objects nested deeper than this (the payload object is depth 1) are kept as their
/// JSON text; serde_json's own limit is 128.
pub const MAX_DEPTH: usize = 64;

/// Payloads read by this process (every [`parse_payload`] call), for the daemon's metrics: a
/// forwarded call is read once, by the daemon.
static PARSES: AtomicU64 = AtomicU64::new(0);

/// How many payloads this process has read with [`parse_payload`].
pub fn payload_reads() -> u64 {
    PARSES.load(Ordering::Relaxed)
}

/// Reads a payload; `name` says where it came from, for the error sentence. Empty input is `{}`.
pub fn parse_payload(bytes: impl AsRef<[u8]>, name: &str) -> Result<Map<String, Value>, Error> {
    PARSES.fetch_add(1, Ordering::Relaxed);
    let text = String::from_utf8_lossy(bytes.as_ref());
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    if text.trim().is_empty() {
        return Ok(Map::new());
    }
    let mended = mend_surrogates(text);
    let shallow = fold_deep(&mended);
    match serde_json::from_str::<Value>(&shallow) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(other) => Err(Error::Payload(format!("the payload in {name} must be a JSON object, not {}", kind(&other)))),
        Err(e) => Err(Error::Payload(format!("the payload in {name} is not valid JSON: {e}"))),
    }
}

pub(crate) fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The four hex digits at `at` as a UTF-16 code unit.
fn hex4(bytes: &[u8], at: usize) -> Option<u16> {
    let digits = std::str::from_utf8(bytes.get(at..at + 4)?).ok()?;
    u16::from_str_radix(digits, 16).ok()
}

fn is_high(unit: u16) -> bool {
    (0xD800..=0xDBFF).contains(&unit)
}

fn is_low(unit: u16) -> bool {
    (0xDC00..=0xDFFF).contains(&unit)
}

/// `text` with every lone surrogate escape inside a string replaced by `\uFFFD`.
fn mend_surrogates(text: &str) -> Cow<'_, str> {
    let bytes = text.as_bytes();
    let mut out = String::new();
    let mut copied = 0;
    let (mut i, mut in_string) = (0, false);
    while i < bytes.len() {
        match (in_string, bytes[i]) {
            (true, b'\\') if bytes.get(i + 1) == Some(&b'u') => {
                let Some(unit) = hex4(bytes, i + 2) else {
                    i += 2;
                    continue;
                };
                let paired =
                    is_high(unit) && bytes.get(i + 6..i + 8) == Some(b"\\u") && hex4(bytes, i + 8).is_some_and(is_low);
                if paired {
                    i += 12;
                } else if is_high(unit) || is_low(unit) {
                    // Every byte before `i` and the six of the escape are ASCII: char boundaries.
                    out.push_str(&text[copied..i]);
                    out.push_str("\\uFFFD");
                    i += 6;
                    copied = i;
                } else {
                    i += 6;
                }
            }
            (true, b'\\') => i += 2,
            (true, b'"') => {
                in_string = false;
                i += 1;
            }
            (false, b'"') => {
                in_string = true;
                i += 1;
            }
            _ => i += 1,
        }
    }
    if copied == 0 {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[copied..]);
    Cow::Owned(out)
}

/// `text` with every array or object that opens deeper than [`MAX_DEPTH`] replaced by a JSON
/// string holding its text. An unclosed one runs to the end of the text, so a text that was not
/// JSON does not become JSON: the containers around it stay unclosed.
fn fold_deep(text: &str) -> Cow<'_, str> {
    let bytes = text.as_bytes();
    let mut out = String::new();
    let mut copied = 0;
    let (mut i, mut depth) = (0, 0usize);
    while i < bytes.len() {
        match bytes[i] {
            b'"' => i = string_end(bytes, i),
            b'[' | b'{' if depth == MAX_DEPTH => {
                let end = container_end(bytes, i);
                out.push_str(&text[copied..i]);
                // Serialising a string is a loop; it cannot fail.
                out.push_str(&Value::String(text[i..end].to_owned()).to_string());
                i = end;
                copied = end;
            }
            b'[' | b'{' => {
                depth += 1;
                i += 1;
            }
            b']' | b'}' => {
                depth = depth.saturating_sub(1);
                i += 1;
            }
            _ => i += 1,
        }
    }
    if copied == 0 {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[copied..]);
    Cow::Owned(out)
}

/// The index just past the string that opens at `start` (or the end of the text).
fn string_end(bytes: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

/// The index just past the array or object that opens at `start` (or the end of the text).
fn container_end(bytes: &[u8], start: usize) -> usize {
    let (mut i, mut depth) = (start, 0usize);
    while i < bytes.len() {
        match bytes[i] {
            b'"' => i = string_end(bytes, i),
            b'[' | b'{' => {
                depth += 1;
                i += 1;
            }
            b']' | b'}' => {
                depth -= 1;
                i += 1;
                if depth == 0 {
                    return i;
                }
            }
            _ => i += 1,
        }
    }
    bytes.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(text: &str) -> Value {
        Value::Object(parse_payload(text, "test").unwrap_or_else(|e| panic!("{text}: {e}")))
    }

    #[test]
    fn a_lone_surrogate_becomes_the_replacement_character_wherever_it_stands() {
        let cases = [
            (r#"{"d": "x\ud83d"}"#, "x\u{fffd}"),
            (r#"{"d": "\udc00y"}"#, "\u{fffd}y"),
            (r#"{"d": "\uD83D\uD83D\uDE00"}"#, "\u{fffd}\u{1f600}"),
            (r#"{"d": "\ud83da"}"#, "\u{fffd}a"),
            (r#"{"d": "\ud83d\u0041"}"#, "\u{fffd}A"),
            (r#"{"d": "a\ud83d\\"}"#, "a\u{fffd}\\"),
        ];
        for (text, want) in cases {
            assert_eq!(read(text), json!({"d": want}), "{text}");
        }
        assert_eq!(read(r#"{"k\udfff": 1}"#), json!({"k\u{fffd}": 1}), "keys are strings too");
    }

    #[test]
    fn a_surrogate_pair_is_kept_and_an_escaped_backslash_before_u_is_text() {
        assert_eq!(read(r#"{"d": "\ud83d\ude00"}"#), json!({"d": "\u{1f600}"}));
        assert_eq!(read(r#"{"d": "\\ud83d"}"#), json!({"d": "\\ud83d"}));
        assert_eq!(read(r#"{"d": "\\\ud83d"}"#), json!({"d": "\\\u{fffd}"}));
        let untouched = r#"{"d": "\\ud83d \u00e9 \ud83d\ude00"}"#;
        assert!(matches!(mend_surrogates(untouched), Cow::Borrowed(_)), "nothing to mend, nothing copied");
    }

    #[test]
    fn escapes_outside_strings_are_left_to_the_parser() {
        assert!(parse_payload(r#"{"d": 1} \ud83d"#, "test").is_err());
    }

    #[test]
    fn bytes_that_are_not_utf8_are_read_as_the_replacement_character() {
        let mut bytes = br#"{"d": "a"#.to_vec();
        bytes.extend_from_slice(b"\xff\xfe");
        bytes.extend_from_slice(br#"b"}"#);
        assert_eq!(read(&String::from_utf8_lossy(&bytes)), json!({"d": "a\u{fffd}\u{fffd}b"}));
        let parsed = parse_payload(&bytes, "test").expect("lossy");
        assert_eq!(parsed["d"], "a\u{fffd}\u{fffd}b");
        assert_eq!(parse_payload("\u{feff}{\"a\": 1}", "test").expect("a BOM")["a"], 1);
    }

    #[test]
    fn depth_100000_is_read_and_the_value_stays_shallow() {
        let depth = 100_000;
        let text = format!(
            r#"{{"tool_input": {{"command": "touch x", "deep": {}{}}}}}"#,
            "[".repeat(depth),
            "]".repeat(depth)
        );
        let payload = parse_payload(&text, "test").expect("deep nesting is no reason to fail");
        assert_eq!(payload["tool_input"]["command"], "touch x");
        let mut value = &payload["tool_input"]["deep"];
        let mut levels = 2;
        while let Some(inner) = value.as_array().and_then(|a| a.first()) {
            value = inner;
            levels += 1;
        }
        assert_eq!(levels, MAX_DEPTH, "the arrays below the payload object and tool_input");
        let folded = value.as_str().expect("the rest is kept as its text");
        assert_eq!(folded.len(), 2 * (depth - (MAX_DEPTH - 2)));
        assert!(folded.starts_with("[[") && folded.ends_with("]]"));
    }

    #[test]
    fn a_folded_subtree_keeps_its_strings_and_their_escapes() {
        let inner = r#"{"s": "a\"]}\\", "n": [1, {"x": null}]}"#;
        let text = format!(r#"{{"a": {}{inner}{}}}"#, "[".repeat(MAX_DEPTH - 1), "]".repeat(MAX_DEPTH - 1));
        let mut value = &read(&text)["a"];
        while let Some(first) = value.as_array().and_then(|a| a.first()) {
            value = first;
        }
        assert_eq!(value.as_str(), Some(inner));
        let shallow = format!(r#"{{"a": {}1{}}}"#, "[".repeat(MAX_DEPTH - 1), "]".repeat(MAX_DEPTH - 1));
        assert!(matches!(fold_deep(&shallow), Cow::Borrowed(_)), "depth 64 is kept as it is");
    }

    #[test]
    fn text_that_is_not_json_stays_refused_even_when_deep() {
        let cases = [
            format!(r#"{{"a": {}"#, "[".repeat(1000)),
            format!(r#"{{"a": {}}}"#, "[".repeat(1000)),
            "{".to_owned(),
            "not json".to_owned(),
            r#"{"a": "\ud83d"#.to_owned(),
        ];
        for text in cases {
            let err = parse_payload(&text, "p.json").expect_err(&text);
            assert!(err.to_string().contains("not valid JSON"), "{err}");
        }
    }

    #[test]
    fn payload_texts_that_are_not_objects_are_refused_with_a_sentence() {
        for (text, needle) in [("[1]", "an array"), ("{", "not valid JSON"), ("\"x\"", "a string")] {
            let err = parse_payload(text, "p.json").expect_err(text);
            assert!(err.to_string().contains(needle), "{text}: {err}");
        }
        assert!(parse_payload("  \n", "stdin").expect("empty is {}").is_empty());
    }
}
