use std::path::PathBuf;
use std::sync::Arc;

use hook_core::{CancellationToken, FnHook, HookEngine, HookRegistry, HookResult, ToolCall};
use serde_json::json;

use super::*;

fn fixture(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/codex").join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

async fn verdict(result: HookResult) -> EventVerdict {
    let registry = Arc::new(HookRegistry::new());
    registry.register(
        HookEventType::PRE_TOOL,
        FnHook::new("project#0", move |_| {
            let result = result.clone();
            async move { Ok(result) }
        }),
    );
    let ctx = HookContext::new(HookEventType::PRE_TOOL).with_tool(ToolCall::new("Bash", json!({"command": "ls"})));
    HookEngine::new(registry).run_event(&ctx, &CancellationToken::new()).await
}

fn decision(answer: &Answer) -> (Value, Value) {
    let out: Value = serde_json::from_str(&answer.stdout).unwrap_or(Value::Null);
    let specific = &out["hookSpecificOutput"];
    (specific["permissionDecision"].clone(), specific["permissionDecisionReason"].clone())
}

#[test]
fn every_captured_codex_payload_names_its_event_and_gives_a_context() {
    for (file, event) in [
        ("PreToolUse.json", HookEventType::PRE_TOOL),
        ("PostToolUse.json", HookEventType::POST_TOOL),
        ("SessionStart.json", HookEventType::ON_SESSION_START),
        ("UserPromptSubmit.json", HookEventType::USER_PROMPT_SUBMIT),
        ("Stop.json", HookEventType::ON_STOP),
    ] {
        let payload = crate::parse_payload(fixture(file), file).expect(file);
        assert_eq!(crate::Client::Codex.event(&payload), Ok(Some(event)), "{file}");
        let ctx = context(event, payload, Path::new("/p")).expect(file);
        if event.spec().matcher == hook_core::MatchSubject::Tool {
            assert_eq!(ctx.tool.as_ref().map(|t| t.name.as_str()), Some("Bash"), "{file}");
        }
    }
}

#[tokio::test]
async fn what_codex_refuses_is_answered_as_a_deny_with_a_reason() {
    let rows = [
        (HookResult::deny("pushes go through review"), Some("pushes go through review")),
        (HookResult::ask("sure?"), Some("a person must approve")),
        (HookResult::allow().with_updated_input(json!({"command": "ls -a"})), Some("rewrote this call's input")),
        (HookResult::allow().with_stop("enough"), Some("enough")),
        (HookResult::allow(), None),
    ];
    for (result, reason) in rows {
        let label = format!("{result:?}");
        let (answer, _) = answer(HookEventType::PRE_TOOL, Ok(&verdict(result).await), &Extras::default());
        let (word, why) = decision(&answer);
        match reason {
            Some(part) => {
                assert_eq!(word, "deny", "{label}: {answer:?}");
                assert!(why.as_str().is_some_and(|w| w.contains(part)), "{label}: {answer:?}");
                assert!(!answer.stdout.contains("continue") && !answer.stdout.contains("updatedInput"), "{label}");
            }
            None => assert!(answer.is_silent(), "{label}: {answer:?}"),
        }
    }
    let allowed = HookResult::explicit_allow().with_updated_input(json!({"command": "ls -a"}));
    let (answer, _) = answer(HookEventType::PRE_TOOL, Ok(&verdict(allowed).await), &Extras::default());
    assert_eq!(decision(&answer).0, "allow", "an allowed rewrite stays an allow with its input");
}

#[test]
fn an_unreadable_pre_tool_payload_and_a_failed_evaluation_refuse() {
    let lone = fixture("PreToolUse.json");
    assert!(crate::parse_payload(&lone, "x").is_ok());
    let refused = unreadable(Some(HookEventType::PRE_TOOL), "cannot read");
    assert_eq!((refused.exit, refused.stderr.contains("cannot read")), (2, true));
    let (failed, _) = answer(HookEventType::PRE_TOOL, Err("bad config"), &Extras::default());
    assert_eq!(failed.exit, 2, "{failed:?}");
}

#[test]
fn the_trust_entries_name_our_handlers_where_codex_looks_for_them() {
    let route = command_route("/bin/aimon-hooks");
    let mut settings =
        json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./mine"}]}]}});
    crate::claude::add_routes(&mut settings, ROUTED_EVENTS, &route).expect("object");
    let hooks_json = Path::new("/p/.codex/hooks.json");
    let entries = trusted_hashes(&settings, hooks_json, &route);
    assert_eq!(entries.len(), ROUTED_EVENTS.len());
    assert!(entries.iter().any(|(k, _)| k == "/p/.codex/hooks.json:pre_tool_use:1:0"), "{entries:?}");
    let (_, hash) = entries.iter().find(|(k, _)| k.ends_with(":session_end:0:0")).expect("SessionEnd");
    assert_eq!(hash, &trust_hash("SessionEnd", None, "/bin/aimon-hooks codex", 3), "SessionEnd's timeout is clamped");
    assert!(hash.starts_with("sha256:") && hash.len() == 7 + 64);
}
