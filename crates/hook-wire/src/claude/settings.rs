//! Claude Code's settings, edited for `init claude` (R-CLI-10): pure functions over the parsed
//! file, so the caller owns the IO and a second run changes nothing.

use hook_core::{HandlerKind, HookEventType};
use serde_json::{Map, Value, json};

use crate::error::Error;

/// The Claude Code events `init claude` routes: every one the events table routes on init
/// ([`hook_core::EventSpec::routed_on_init`]), and those in `named`.
pub fn routed_events(named: &[HookEventType]) -> Vec<&'static str> {
    HookEventType::ALL
        .iter()
        .filter(|e| e.spec().routed_on_init || named.contains(e))
        .filter_map(|e| e.claude_name())
        .collect()
}

/// The `command` handler that runs `binary claude`.
pub fn command_route(binary: &str) -> Value {
    command_route_for(binary, "claude")
}

/// The `command` handler that runs `binary subcommand` (every client with Claude Code's settings
/// shape: Gemini CLI, Qwen Code).
pub(crate) fn command_route_for(binary: &str, subcommand: &str) -> Value {
    let quoted = if binary.contains([' ', '\'', '"']) {
        format!("'{}'", binary.replace('\'', "'\\''"))
    } else {
        binary.to_owned()
    };
    json!({"type": HandlerKind::Command.config_name(), "command": format!("{quoted} {subcommand}")})
}

/// The `http` handler that posts to `url` with the daemon's bearer `token` and the project.
pub fn http_route(url: &str, token: &str) -> Value {
    json!({
        "type": HandlerKind::Http.config_name(),
        "url": url,
        "headers": {"Authorization": format!("Bearer {token}"), "X-Claude-Project-Dir": "$CLAUDE_PROJECT_DIR"},
        "allowedEnvVars": ["CLAUDE_PROJECT_DIR"],
    })
}

/// Whether `handler` is the route `ours` (same type and same command or URL).
fn is_ours(handler: &Value, ours: &Value) -> bool {
    let key = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
    let kind = key(ours, "type");
    key(handler, "type") == kind
        && if kind.as_deref() == Some(HandlerKind::Http.config_name()) {
            key(handler, "url") == key(ours, "url")
        } else {
            key(handler, "command") == key(ours, "command")
        }
}

/// Routes `events` to `route`: our earlier entries are replaced, everything else is untouched.
pub fn add_routes(settings: &mut Value, events: &[&str], route: &Value) -> Result<(), Error> {
    remove_routes(settings, route)?;
    let hooks = hooks_object(settings)?;
    for event in events {
        let groups = hooks.entry((*event).to_owned()).or_insert_with(|| Value::Array(Vec::new()));
        let Some(groups) = groups.as_array_mut() else {
            return Err(Error::Settings(format!("\"hooks.{event}\" is not an array")));
        };
        groups.push(json!({"hooks": [route.clone()]}));
    }
    Ok(())
}

/// Removes every handler that is `route` (by command or URL); groups and event keys left empty
/// by that are removed too, and so is a `hooks` object left empty.
pub fn remove_routes(settings: &mut Value, route: &Value) -> Result<(), Error> {
    let hooks = hooks_object(settings)?;
    for groups in hooks.values_mut().filter_map(Value::as_array_mut) {
        for group in groups.iter_mut() {
            if let Some(handlers) = group.get_mut("hooks").and_then(Value::as_array_mut) {
                handlers.retain(|h| !is_ours(h, route));
            }
        }
        groups.retain(|g| g.get("hooks").and_then(Value::as_array).is_none_or(|h| !h.is_empty()));
    }
    hooks.retain(|_, groups| groups.as_array().is_none_or(|g| !g.is_empty()));
    if hooks.is_empty()
        && let Some(root) = settings.as_object_mut()
    {
        root.remove("hooks");
    }
    Ok(())
}

fn hooks_object(settings: &mut Value) -> Result<&mut Map<String, Value>, Error> {
    let Some(root) = settings.as_object_mut() else {
        return Err(Error::Settings("the settings file is not a JSON object".to_owned()));
    };
    match root.entry("hooks").or_insert_with(|| Value::Object(Map::new())) {
        Value::Object(hooks) => Ok(hooks),
        _ => Err(Error::Settings("\"hooks\" in the settings file is not an object".to_owned())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings() -> Value {
        json!({
            "model": "opus",
            "permissions": {"allow": ["Bash(ls:*)"]},
            "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh"}]}]}
        })
    }

    #[test]
    fn routing_twice_gives_the_same_file_and_leaves_other_hooks_and_keys_alone() {
        let route = command_route("/usr/local/bin/aimon-hooks");
        let events = routed_events(&[]);
        let mut once = settings();
        add_routes(&mut once, &events, &route).expect("object");
        let mut twice = once.clone();
        add_routes(&mut twice, &events, &route).expect("object");
        assert_eq!(twice, once);
        assert_eq!(once["model"], "opus");
        assert_eq!(once["hooks"]["PreToolUse"][0], settings()["hooks"]["PreToolUse"][0]);
        assert_eq!(once["hooks"]["PreToolUse"][1]["hooks"][0]["command"], "/usr/local/bin/aimon-hooks claude");
        assert_eq!(once["hooks"].as_object().map(Map::len), Some(31));
    }

    #[test]
    fn removing_restores_the_file() {
        let route = http_route("http://127.0.0.1:7787/v1/claude", "t0k");
        let mut s = settings();
        add_routes(&mut s, &routed_events(&[]), &route).expect("object");
        remove_routes(&mut s, &route).expect("object");
        assert_eq!(s, settings());
        let mut empty = json!({});
        add_routes(&mut empty, &["Stop"], &route).expect("object");
        remove_routes(&mut empty, &route).expect("object");
        assert_eq!(empty, json!({}));
    }

    #[test]
    fn the_three_costly_events_are_routed_only_when_named() {
        let all = routed_events(&[]);
        assert_eq!(all.len(), 31);
        assert!(!all.contains(&"WorktreeCreate"));
        let named = routed_events(&[HookEventType::WORKTREE_CREATE]);
        assert!(named.contains(&"WorktreeCreate") && !named.contains(&"MessageDisplay"));
    }

    #[test]
    fn an_http_route_sends_the_token_and_the_project_dir() {
        let route = http_route("http://h/v1/claude", "secret");
        assert_eq!(route["headers"]["Authorization"], "Bearer secret");
        assert_eq!(route["headers"]["X-Claude-Project-Dir"], "$CLAUDE_PROJECT_DIR");
        assert_eq!(route["allowedEnvVars"], json!(["CLAUDE_PROJECT_DIR"]));
    }
}
