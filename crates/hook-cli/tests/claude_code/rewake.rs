//! A rewake that reaches the agent through the real Claude Code: a PostToolUse hook asks to be
//! woken two seconds after a push; `aimon-hooks serve` (reached by `aimon-hooks claude` over its
//! socket) fires it while the agent's next tool runs, and that tool's PostToolUse answer carries
//! the woken hook's words to the model — and so does a failed tool's PostToolUseFailure answer,
//! and, for a fire that lands after the session ended, the UserPromptSubmit answer of the
//! session's next prompt (`claude -p --resume`).

use std::time::Duration;

use serde_json::json;

use crate::hooks::on;
use crate::model::Turn;
use crate::runner::{Route, Scenario, on_both_routes};

on_both_routes!(
    a_rewake_asked_after_a_push_reaches_the_model_on_the_sessions_next_tool_call,
    a_rewake_answer_reaches_the_model_with_the_sessions_next_failed_tool_call,
    a_rewake_answer_reaches_the_model_with_the_sessions_next_prompt,
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

/// R-RW-11 lists userPromptSubmit among the events that carry mail: a rewake that fires after the
/// session ended waits in its mailbox, and the person's next prompt in that session (`claude -p
/// --resume`) brings it to the model as that prompt's context. The woken hook answers only once
/// the first session is over (the `go` file), so the first session's Stop cannot take the mail.
/// SessionStart is not routed: on the command route the resumed session's SessionStart would take
/// the mail first (R-RW-11 lists it too), and this row is about UserPromptSubmit.
async fn a_rewake_answer_reaches_the_model_with_the_sessions_next_prompt(route: Route) {
    let scenario = Scenario::new(route).unrouted("SessionStart");
    let go = scenario.home().join("go");
    let woken = format!(
        r#"if [ -n "$AIMON_REWAKE_ID" ]; then while [ ! -e '{}' ]; do sleep 0.1; done; echo '{{"hookSpecificOutput":{{"hookEventName":"PostToolUse","additionalContext":"ci-green-by-next-prompt-marker"}}}}'; fi"#,
        go.display()
    );
    let rewake = json!({"trigger": {"delay": "1s"}, "maxAttempts": 1, "reason": "check CI after the push"});
    let handler = json!({"type": "command", "command": woken, "timeout": 120, "asyncRewake": rewake});
    let scenario = scenario.project_hooks(&on("PostToolUse", "Bash", handler));
    let first = scenario.model(vec![Turn::bash("git push origin main"), Turn::text("pushed")]).run().await;
    first.check(first.git_calls() == ["push origin main"], "the push must run");
    first.check(!first.model_saw("ci-green-by-next-prompt-marker"), "nothing can have fired before the go file");
    std::fs::write(&go, "").expect("write the go file");
    first.wait_until_no_rewake_is_pending(Duration::from_secs(120));
    let next = first.resume("is CI green?", vec![Turn::text("yes")]).await;
    let prompt = next.agent_requests().first().map(|r| r.body["messages"].to_string()).unwrap_or_default();
    next.check(
        prompt.contains("ci-green-by-next-prompt-marker"),
        "the woken hook's answer must reach the model with the next prompt of the session",
    );
}
