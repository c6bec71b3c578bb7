//! A rewake that reaches the agent through the real Claude Code: a PostToolUse hook asks to be
//! woken two seconds after a push; `aimon-hooks serve` (reached by `aimon-hooks claude` over its
//! socket) fires it while the agent's next tool runs, and that tool's PostToolUse answer carries
//! the woken hook's words to the model — and so does a failed tool's PostToolUseFailure answer.

use serde_json::json;

use crate::hooks::on;
use crate::model::Turn;
use crate::runner::{Route, Scenario, on_both_routes};

on_both_routes!(
    a_rewake_asked_after_a_push_reaches_the_model_on_the_sessions_next_tool_call,
    a_rewake_answer_reaches_the_model_with_the_sessions_next_failed_tool_call,
);

async fn a_rewake_asked_after_a_push_reaches_the_model_on_the_sessions_next_tool_call(route: Route) {
    let woken = r#"if [ -n "$AIMON_REWAKE_ID" ]; then echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"ci-is-green-marker"}}'; fi"#;
    let rewake = json!({"trigger": {"delay": "2s"}, "maxAttempts": 1, "reason": "check CI after the push"});
    let handler = json!({"type": "command", "command": woken, "timeout": 10, "asyncRewake": rewake});
    let scenario = Scenario::new(route).project_hooks(&on("PostToolUse", "Bash", handler));
    let turns = vec![Turn::bash("git push origin main"), Turn::bash("sleep 5"), Turn::text("done")];
    let run = scenario.model(turns).run().await;
    run.check(run.git_calls() == ["push origin main"], "the push must run");
    run.check(run.model_saw("ci-is-green-marker"), "the woken hook's answer must reach the model");
}

/// R-RW-11 lists postToolFailure among the events that carry mail: the woken hook's words come
/// with the failed tool's result, not only later when the agent is about to stop.
async fn a_rewake_answer_reaches_the_model_with_the_sessions_next_failed_tool_call(route: Route) {
    let woken = r#"if [ -n "$AIMON_REWAKE_ID" ]; then echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"ci-failed-marker"}}'; fi"#;
    let rewake = json!({"trigger": {"delay": "2s"}, "maxAttempts": 1, "reason": "check CI after the push"});
    let handler = json!({"type": "command", "command": woken, "timeout": 10, "asyncRewake": rewake});
    let scenario = Scenario::new(route).project_hooks(&on("PostToolUse", "Bash", handler));
    let turns = vec![Turn::bash("git push origin main"), Turn::bash("sleep 5; exit 3"), Turn::text("done")];
    let run = scenario.model(turns).run().await;
    run.check(run.git_calls() == ["push origin main"], "the push must run");
    let after_failure = run.agent_requests().get(2).map(|r| r.body["messages"].to_string()).unwrap_or_default();
    run.check(
        after_failure.contains("ci-failed-marker"),
        "the woken hook's answer must reach the model with the failed tool's result",
    );
}
