//! GitHub Copilot CLI's hook wire, in its PascalCase ("VS Code compatible") dialect: events named
//! as Claude Code names them (`PreToolUse`), a snake_case payload with `hook_event_name`,
//! `tool_name: "Bash"` and `tool_input`, so reading a payload is Claude Code's reading. Answers are
//! Claude Code's, with the decision and the context also at the top level
//! (`permissionDecision`, `permissionDecisionReason`, `additionalContext`), the form of Copilot's
//! own camelCase dialect, which it reads too.
//!
//! `init copilot` writes `.github/hooks/aimon.json` in this dialect. The camelCase dialect
//! (`preToolUse`) is not routed: its payload names no event. Copilot also runs a project's
//! `.claude/settings.json` hooks, so a project with `init claude --project` and `init copilot`
//! runs the policy twice on each call (same verdict; the first deny wins).
//!
//! [`crate::Client::Copilot`] calls into it.

use std::path::Path;

use hook_core::{EventVerdict, HookContext, HookEventType};
use serde_json::{Map, Value, json};

use crate::answer::{Answer, Extras};
use crate::error::Error;

/// The environment variable naming the project of a command hook's call.
pub(crate) const PROJECT_DIR_ENV: &str = "COPILOT_PROJECT_DIR";

/// The PascalCase events `init copilot` routes (those Copilot fires in this dialect).
pub const ROUTED_EVENTS: &[&str] =
    &["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd"];

/// The event `payload` names.
pub(crate) fn event(payload: &Map<String, Value>) -> Result<Option<HookEventType>, Answer> {
    crate::claude::event(payload).map_err(lifted)
}

/// The working directory the payload names.
pub(crate) fn cwd(payload: &Map<String, Value>) -> Option<&Path> {
    crate::claude::cwd(payload)
}

/// The context of a call.
pub(crate) fn context(event: HookEventType, payload: Map<String, Value>, project: &Path) -> Result<HookContext, Error> {
    crate::claude::context(event, payload, project)
}

/// Claude Code's answer, with the decision and context also at the top level.
pub(crate) fn answer(event: HookEventType, outcome: Result<&EventVerdict, &str>, extras: &Extras) -> (Answer, bool) {
    let (answer, carried) = crate::claude::answer(event, outcome, extras);
    (lifted(answer), carried)
}

/// The refusal of a payload that could not be read (Claude Code's: exit 2 where it may veto).
pub(crate) fn unreadable(event: Option<HookEventType>, error: &str) -> Answer {
    lifted(crate::claude::unreadable(event, error))
}

/// `answer` with `hookSpecificOutput`'s decision, reason and context copied to the top level.
fn lifted(mut answer: Answer) -> Answer {
    let Ok(Value::Object(mut out)) = serde_json::from_str::<Value>(&answer.stdout) else { return answer };
    let specific = out.get("hookSpecificOutput").cloned().unwrap_or(Value::Null);
    for key in ["permissionDecision", "permissionDecisionReason", "additionalContext"] {
        if let Some(value) = specific.get(key) {
            out.entry(key.to_owned()).or_insert_with(|| value.clone());
        }
    }
    answer.stdout = format!("{}\n", Value::Object(out));
    answer
}

/// The `command` handler that runs `binary copilot`, in Copilot's flat handler shape.
pub fn command_route(binary: &str) -> Value {
    let quoted = if binary.contains([' ', '\'', '"']) {
        format!("'{}'", binary.replace('\'', "'\\''"))
    } else {
        binary.to_owned()
    };
    json!({"type": "command", "bash": format!("{quoted} copilot"), "timeoutSec": 600})
}

/// Routes `ROUTED_EVENTS` to `route` (or, with `remove`, only removes it) in a Copilot hooks
/// file: our earlier handlers are replaced, everything else is kept.
pub fn edit_routes(file: &mut Value, route: &Value, remove: bool) -> Result<(), Error> {
    let Some(root) = file.as_object_mut() else {
        return Err(Error::Settings("the hooks file is not a JSON object".to_owned()));
    };
    root.entry("version").or_insert(json!(1));
    let Some(hooks) = root.entry("hooks").or_insert_with(|| json!({})).as_object_mut() else {
        return Err(Error::Settings("\"hooks\" in the hooks file is not an object".to_owned()));
    };
    for handlers in hooks.values_mut().filter_map(Value::as_array_mut) {
        handlers.retain(|h| h.get("bash") != route.get("bash"));
    }
    if !remove {
        for event in ROUTED_EVENTS {
            let handlers = hooks.entry((*event).to_owned()).or_insert_with(|| json!([]));
            let Some(handlers) = handlers.as_array_mut() else {
                return Err(Error::Settings(format!("\"hooks.{event}\" is not an array")));
            };
            handlers.push(route.clone());
        }
    }
    hooks.retain(|_, h| h.as_array().is_none_or(|h| !h.is_empty()));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> Vec<u8> {
        let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/copilot").join(name);
        std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    #[test]
    fn every_captured_pascal_case_payload_names_its_event_and_maps_bash() {
        for (file, want) in [
            ("PreToolUse.json", HookEventType::PRE_TOOL),
            ("PostToolUse.json", HookEventType::POST_TOOL),
            ("SessionStart.json", HookEventType::ON_SESSION_START),
            ("UserPromptSubmit.json", HookEventType::USER_PROMPT_SUBMIT),
            ("Stop.json", HookEventType::ON_STOP),
        ] {
            let payload = crate::parse_payload(fixture(file), file).expect(file);
            assert_eq!(event(&payload), Ok(Some(want)), "{file}");
            let ctx = context(want, payload, Path::new("/p")).expect(file);
            if want.spec().matcher == hook_core::MatchSubject::Tool {
                assert_eq!(ctx.tool.as_ref().map(|t| t.name.as_str()), Some("Bash"), "{file}");
            }
        }
    }

    #[test]
    fn a_deny_is_given_in_both_forms_and_an_unreadable_call_is_refused() {
        let claude = Answer {
            stdout: json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                                  "permissionDecisionReason": "no"}})
            .to_string(),
            ..Answer::default()
        };
        let out: Value = serde_json::from_str(&lifted(claude).stdout).expect("json");
        assert_eq!(
            (out["permissionDecision"].as_str(), out["permissionDecisionReason"].as_str()),
            (Some("deny"), Some("no"))
        );
        assert_eq!(out["hookSpecificOutput"]["permissionDecision"], "deny");
        assert_eq!(unreadable(Some(HookEventType::PRE_TOOL), "bad").exit, 2);
    }

    #[test]
    fn routing_twice_changes_nothing_and_removing_keeps_other_hooks() {
        let route = command_route("/bin/aimon-hooks");
        let mine = json!({"type": "command", "bash": "./mine.sh"});
        let mut file = json!({"version": 1, "hooks": {"PreToolUse": [mine.clone()]}});
        edit_routes(&mut file, &route, false).expect("object");
        let once = file.clone();
        edit_routes(&mut file, &route, false).expect("object");
        assert_eq!(file, once);
        assert_eq!(file["hooks"]["PreToolUse"], json!([mine.clone(), route.clone()]));
        edit_routes(&mut file, &route, true).expect("object");
        assert_eq!(file, json!({"version": 1, "hooks": {"PreToolUse": [mine]}}));
    }
}
