//! Claude Code's settings, edited for `init claude` (R-CLI-10): pure functions over the parsed
//! file, so the caller owns the IO and a second run changes nothing.

use hook_core::{HandlerKind, HookEventType};
use serde_json::{Map, Value, json};

use super::PROJECT_DIR_ENV;
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

/// The `command` handler that runs `binary claude`, in shell form: GitHub Copilot CLI reads the
/// same file and runs `command` alone, so an exec form's `args` would be lost there. Claude Code
/// runs it through `CLAUDE_CODE_SHELL_PREFIX` (the guard), which knows it ([`is_route`]).
pub fn command_route(binary: &str) -> Value {
    command_route_for(binary, "claude")
}

/// The `command` handler that runs `binary subcommand` (every client with Claude Code's settings
/// shape: Gemini CLI, Qwen Code).
pub(crate) fn command_route_for(binary: &str, subcommand: &str) -> Value {
    json!({"type": HandlerKind::Command.config_name(), "command": format!("{} {subcommand}", quoted(binary))})
}

/// The key of an `http` handler listing the environment variables its headers may use (Claude
/// Code's `allowedEnvVars`): read by hook-config, rendered by hook-actions, written by
/// [`http_route`], spelled here only.
pub const ALLOWED_ENV_VARS: &str = "allowedEnvVars";

/// The `http` handler that posts to `url` with the daemon's bearer `token` and the project.
pub fn http_route(url: &str, token: &str) -> Value {
    json!({
        "type": HandlerKind::Http.config_name(),
        "url": url,
        "headers": {"Authorization": format!("Bearer {token}"), "X-Claude-Project-Dir": "$CLAUDE_PROJECT_DIR"},
        ALLOWED_ENV_VARS: [PROJECT_DIR_ENV],
    })
}

/// Whether `handler` is the route `ours` (same type, and the same URL or command line: an exec
/// form's `command` and `args` read as the shell form they stand for, so the exec-form route one
/// `init` wrote is replaced too).
pub fn is_route(handler: &Value, ours: &Value) -> bool {
    let key = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
    let kind = key(ours, "type");
    key(handler, "type") == kind
        && if kind.as_deref() == Some(HandlerKind::Http.config_name()) {
            key(handler, "url") == key(ours, "url")
        } else {
            command_line(handler).is_some() && command_line(handler) == command_line(ours)
        }
}

/// A command handler's command line: `command`, then each of `args` (exec form) as a word.
fn command_line(handler: &Value) -> Option<String> {
    let command = handler.get("command").and_then(Value::as_str)?;
    match handler.get("args").and_then(Value::as_array) {
        None => Some(command.to_owned()),
        Some(args) => {
            let words: Option<Vec<&str>> = args.iter().map(Value::as_str).collect();
            Some(
                std::iter::once(quoted(command))
                    .chain(words?.into_iter().map(str::to_owned))
                    .collect::<Vec<_>>()
                    .join(" "),
            )
        }
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
                handlers.retain(|h| !is_route(h, route));
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

/// The settings key of the environment Claude Code sets for its tools, and the variable whose
/// value it puts in front of every Bash command (with the whole snippet as one argument).
const ENV: &str = "env";
/// The variable (a settings `env` key, which Claude Code also hands to its hooks) whose value it
/// puts in front of every Bash command.
pub const SHELL_PREFIX: &str = "CLAUDE_CODE_SHELL_PREFIX";

/// The shell prefix running every Bash command under the guard (`init claude --guard`):
/// `binary --guard`. Claude Code (2.1.332) takes everything before the prefix's last ` -` as the
/// program, quoted as one word, puts the rest after it and then the whole shell snippet as one
/// argument: the binary's path must come alone, then flags only.
pub fn guard_prefix(binary: &str) -> String {
    format!("{binary} --guard")
}

/// Whether `prefix` (the value of [`SHELL_PREFIX`] Claude Code runs with) runs every Bash command
/// under the guard of `binary`: [`guard_prefix`] of a path that is the same file.
pub fn prefix_guards(prefix: &str, binary: &std::path::Path) -> bool {
    let Some(program) = prefix.strip_suffix(" --guard") else { return false };
    let same = |a: &std::path::Path, b: &std::path::Path| match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    same(std::path::Path::new(program), binary)
}

/// Sets `env.CLAUDE_CODE_SHELL_PREFIX` to `prefix`; the other `env` keys stay.
pub fn set_shell_prefix(settings: &mut Value, prefix: &str) -> Result<(), Error> {
    env_object(settings)?.insert(SHELL_PREFIX.to_owned(), Value::String(prefix.to_owned()));
    Ok(())
}

/// Removes `env.CLAUDE_CODE_SHELL_PREFIX` when it is `prefix` (another prefix is not ours); an
/// `env` left empty is removed too.
pub fn remove_shell_prefix(settings: &mut Value, prefix: &str) -> Result<(), Error> {
    if settings.get(ENV).is_none() {
        return Ok(());
    }
    let env = env_object(settings)?;
    if env.get(SHELL_PREFIX).and_then(Value::as_str) == Some(prefix) {
        env.remove(SHELL_PREFIX);
    }
    if env.is_empty()
        && let Some(root) = settings.as_object_mut()
    {
        root.remove(ENV);
    }
    Ok(())
}

fn env_object(settings: &mut Value) -> Result<&mut Map<String, Value>, Error> {
    let Some(root) = settings.as_object_mut() else {
        return Err(Error::Settings("the settings file is not a JSON object".to_owned()));
    };
    match root.entry(ENV).or_insert_with(|| Value::Object(Map::new())) {
        Value::Object(env) => Ok(env),
        _ => Err(Error::Settings("\"env\" in the settings file is not an object".to_owned())),
    }
}

/// `binary` single-quoted for a shell when it holds a space or a quote.
fn quoted(binary: &str) -> String {
    if binary.contains([' ', '\'', '"']) { format!("'{}'", binary.replace('\'', "'\\''")) } else { binary.to_owned() }
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

    #[test]
    fn the_shell_prefix_is_set_and_removed_and_other_env_keys_stay() {
        let mut s = json!({"env": {"FOO": "1"}, "model": "x"});
        let prefix = guard_prefix("/opt/my bin/aimon-hooks");
        assert_eq!(prefix, "/opt/my bin/aimon-hooks --guard", "Claude Code quotes the program itself");
        set_shell_prefix(&mut s, &prefix).expect("set");
        assert_eq!(s, json!({"env": {"FOO": "1", "CLAUDE_CODE_SHELL_PREFIX": prefix}, "model": "x"}));
        remove_shell_prefix(&mut s, "someone else's").expect("remove");
        assert_eq!(s["env"]["CLAUDE_CODE_SHELL_PREFIX"], json!(prefix), "another prefix is not ours");
        remove_shell_prefix(&mut s, &prefix).expect("remove");
        assert_eq!(s, json!({"env": {"FOO": "1"}, "model": "x"}));
        let mut alone = json!({});
        set_shell_prefix(&mut alone, "p").expect("set");
        remove_shell_prefix(&mut alone, "p").expect("remove");
        assert_eq!(alone, json!({}));
        assert!(set_shell_prefix(&mut json!({"env": []}), "p").is_err());
    }

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
        assert_eq!(
            once["hooks"]["PreToolUse"][1]["hooks"][0],
            json!({"type": "command", "command": "/usr/local/bin/aimon-hooks claude"}),
            "shell form: Copilot CLI reads this file and runs command alone"
        );
        assert_eq!(once["hooks"].as_object().map(Map::len), Some(31));
    }

    #[test]
    fn an_exec_form_route_an_earlier_init_wrote_is_replaced_not_doubled() {
        let mut s = settings();
        let exec = json!({"type": "command", "command": "/opt/my bin/aimon-hooks", "args": ["claude"]});
        add_routes(&mut s, &["Stop"], &exec).expect("object");
        let route = command_route("/opt/my bin/aimon-hooks");
        assert_eq!(route["command"], "'/opt/my bin/aimon-hooks' claude");
        assert!(is_route(&exec, &route) && !is_route(&json!({"type": "command", "command": "./guard.sh"}), &route));
        add_routes(&mut s, &["Stop"], &route).expect("object");
        assert_eq!(s["hooks"]["Stop"], json!([{"hooks": [route]}]));
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
