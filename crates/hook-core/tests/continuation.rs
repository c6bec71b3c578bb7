//! Continuation events (R-EVT-7, R-EVT-8) and `defer` (R-CC-2): the chain an embedder calls at
//! onStop/subagentStop/teammateIdle, and how a verdict reads them.

use std::sync::Arc;

use hook_core::{
    CancellationToken, Decision, Error, HookContext, HookEngine, HookEventType, HookExecutionPolicy, HookRegistry,
    HookResult, StopOutcome, Verdict,
};

fn engine(event: HookEventType, result: HookResult) -> HookEngine {
    let registry = Arc::new(HookRegistry::new());
    registry.register(
        event,
        hook_core::FnHook::new("h", move |_| {
            let result = result.clone();
            async move { Ok(result) }
        }),
    );
    HookEngine::new(registry)
}

fn stop_ctx(session: &str) -> HookContext {
    let mut ctx = HookContext::new(HookEventType::ON_STOP);
    ctx.session_id = Some(session.to_owned());
    ctx
}

async fn on_stop(engine: &HookEngine, session: &str) -> StopOutcome {
    engine.on_stop(&stop_ctx(session), &CancellationToken::new()).await.outcome
}

#[tokio::test]
async fn a_block_on_each_continuation_event_keeps_the_agent_working_with_the_reason() {
    for event in [HookEventType::ON_STOP, HookEventType::SUBAGENT_STOP, HookEventType::TEAMMATE_IDLE] {
        let engine = engine(event, HookResult::block("run the tests first"));
        let outcome = engine.on_stop(&HookContext::new(event), &CancellationToken::new()).await.outcome;
        assert_eq!(outcome, StopOutcome::KeepWorking { reason: "run the tests first".into() }, "{event}");
        let verdict = engine.run_event(&HookContext::new(event), &CancellationToken::new()).await;
        assert_eq!(verdict.outcome, Verdict::Blocked, "{event}: run reports a continuation as blocked");
    }
}

#[tokio::test]
async fn context_for_the_model_on_stop_also_keeps_the_turn_going() {
    let engine = engine(HookEventType::ON_STOP, HookResult::feedback("also update the changelog"));
    assert_eq!(on_stop(&engine, "s").await, StopOutcome::KeepWorking { reason: "also update the changelog".into() });
}

#[tokio::test]
async fn a_stop_request_means_stop_even_alongside_a_block() {
    let engine = engine(HookEventType::ON_STOP, HookResult::block("go on").with_stop("budget spent"));
    assert_eq!(on_stop(&engine, "s").await, StopOutcome::Stop { reason: Some("budget spent".into()) });
}

#[tokio::test]
async fn no_objection_lets_the_agent_stop() {
    let engine = engine(HookEventType::ON_STOP, HookResult::allow());
    assert_eq!(on_stop(&engine, "s").await, StopOutcome::Stop { reason: None });
}

#[tokio::test]
async fn consecutive_blocks_are_capped_per_session_and_the_count_starts_again_after_a_stop() {
    let engine = engine(HookEventType::ON_STOP, HookResult::block("again")).with_continuation_cap(3);
    for _ in 0..3 {
        assert!(matches!(on_stop(&engine, "a").await, StopOutcome::KeepWorking { .. }));
    }
    assert!(
        matches!(on_stop(&engine, "b").await, StopOutcome::KeepWorking { .. }),
        "another session has its own count"
    );
    assert_eq!(on_stop(&engine, "a").await, StopOutcome::Stop { reason: None }, "the fourth block in a row");
    assert!(matches!(on_stop(&engine, "a").await, StopOutcome::KeepWorking { .. }), "counting starts again");
}

#[tokio::test]
async fn a_failing_hook_under_a_fail_closed_policy_lets_the_agent_stop() {
    // R-EVT-8: failClosed never turns a failure into "keep working".
    let registry = Arc::new(HookRegistry::new());
    registry.register(
        HookEventType::ON_STOP,
        hook_core::FnHook::new("broken", |_| async {
            Err::<HookResult, _>(Error::ExecutionBlockedByHook { reason: "crashed".into() })
        }),
    );
    let engine = HookEngine::new(registry).with_policy(HookExecutionPolicy::fail_closed());
    assert_eq!(on_stop(&engine, "s").await, StopOutcome::Stop { reason: None });
}

#[tokio::test]
async fn a_cancelled_wait_on_stop_lets_the_agent_stop() {
    // R-EVT-8: the "cancelled wait → BLOCKED" rule does not apply to continuation events.
    let registry = Arc::new(HookRegistry::new());
    registry.register(
        HookEventType::ON_STOP,
        hook_core::FnHook::new("slow", |_| async {
            tokio::time::sleep(std::time::Duration::from_secs(60)).await;
            Ok(HookResult::block("too late"))
        }),
    );
    let engine = HookEngine::new(registry);
    let cancel = CancellationToken::new();
    cancel.cancel();
    let chained = engine.on_stop(&stop_ctx("s"), &cancel).await;
    assert_eq!(chained.outcome, StopOutcome::Stop { reason: None });
}

#[tokio::test]
async fn defer_outranks_ask_and_allow_and_reads_as_ask_on_pre_tool() {
    let merged =
        HookResult::merge([HookResult::explicit_allow(), HookResult::defer("client decides"), HookResult::ask("?")]);
    assert_eq!(merged.decision, Decision::Defer);
    assert_eq!(HookResult::merge([HookResult::defer("d"), HookResult::deny("no")]).decision, Decision::Deny);
    let engine = engine(HookEventType::PRE_TOOL, HookResult::defer("client decides"));
    let ctx =
        HookContext::new(HookEventType::PRE_TOOL).with_tool(hook_core::ToolCall::new("Bash", serde_json::json!({})));
    let verdict = engine.run_event(&ctx, &CancellationToken::new()).await;
    assert_eq!((verdict.outcome, verdict.report.merged.decision.as_str()), (Verdict::Ask, "defer"));
}
