//! The event a Claude Code payload names (its `hook_event_name`), read or, from a payload that
//! could not be read, found in its bytes.

use hook_core::HookEventType;
use serde_json::{Map, Value};

use super::reply::{Reply, unreadable};

use super::fields::PayloadKey;

/// The key of the event's name in a payload.
const EVENT_KEY: &str = PayloadKey::HOOK_EVENT_NAME;

/// The event `payload` names: `Ok(None)` for an event we lack (nothing to do), `Err` with the
/// refusal (exit 2) when it names none: the call may be one that vetoes.
pub(crate) fn event(payload: &Map<String, Value>) -> Result<Option<HookEventType>, Reply> {
    let Some(name) = payload.get(EVENT_KEY).and_then(Value::as_str) else {
        return Err(unreadable(None, "aimon-hooks: the payload has no \"hook_event_name\" string"));
    };
    match HookEventType::resolve(name) {
        Ok(event) => Ok(Some(event)),
        Err(_) => {
            tracing::debug!("hooks: Claude Code event '{name}' has no AIMON counterpart; nothing to do");
            Ok(None)
        }
    }
}

/// The event a payload that could not be read names, found by looking for
/// `"hook_event_name": "…"` in the bytes (all of them, or the prefix that was read).
pub(crate) fn sniff_event(bytes: &[u8]) -> Option<HookEventType> {
    HookEventType::resolve(&sniff_name(bytes)?).ok()
}

/// The event name found by looking for `"hook_event_name": "…"` in the bytes (a client whose
/// payloads share this key but not Claude Code's event names resolves it itself).
pub(crate) fn sniff_name(bytes: &[u8]) -> Option<String> {
    let key = format!("\"{EVENT_KEY}\"");
    let key = key.as_bytes();
    let at = bytes.windows(key.len()).position(|w| w == key)? + key.len();
    let rest = String::from_utf8_lossy(&bytes[at..]);
    let rest = rest.trim_start().strip_prefix(':')?.trim_start().strip_prefix('"')?;
    Some(rest[..rest.find('"')?].to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_event_of_a_broken_payload_is_found_by_its_key() {
        let cases: [(&[u8], Option<HookEventType>); 5] = [
            (br#"{"hook_event_name": "PreToolUse", "tool_input": {"#, Some(HookEventType::PRE_TOOL)),
            (br#"{"session_id":"s","hook_event_name":"PreCompact""#, Some(HookEventType::PRE_COMPACT)),
            (br#"{"hook_event_name": "NoSuchEvent""#, None),
            (br#"{"tool_name": "Bash""#, None),
            (b"\xff\xfe garbage", None),
        ];
        for (prefix, event) in cases {
            assert_eq!(sniff_event(prefix), event, "{}", String::from_utf8_lossy(prefix));
        }
    }

    #[test]
    fn a_payload_without_an_event_name_is_refused_and_an_unknown_one_is_silent() {
        let mut payload = Map::new();
        assert!(matches!(event(&payload), Err(Reply::Stderr(2, _))), "a call that may veto is refused");
        payload.insert("hook_event_name".into(), 7.into());
        assert!(matches!(event(&payload), Err(Reply::Stderr(2, _))));
        payload.insert("hook_event_name".into(), "NoSuchEvent".into());
        assert_eq!(event(&payload), Ok(None));
        payload.insert("hook_event_name".into(), "PreToolUse".into());
        assert_eq!(event(&payload), Ok(Some(HookEventType::PRE_TOOL)));
    }
}
