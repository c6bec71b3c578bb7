//! Claude Code's continuation and context channels through `aimon-hooks claude`: a Stop block
//! keeps the agent working until the hook sees `stop_hook_active`, a timed-out Stop hook lets it
//! stop, UserPromptSubmit context reaches the model and its block erases the prompt, and
//! SessionStart context reaches the model.

use std::time::Duration;

use crate::hooks::{answering, command, on};
use crate::model::Turn;
use crate::runner::{Route, Scenario, on_both_routes};

on_both_routes!(
    a_stop_hook_block_keeps_the_agent_working_until_the_hook_sees_stop_hook_active,
    a_stop_hook_that_times_out_lets_the_agent_stop,
    user_prompt_submit_context_reaches_the_model,
    a_user_prompt_submit_block_erases_the_prompt_and_tells_the_person_why,
    session_start_context_reaches_the_model_through_command_hooks_only,
);

/// A Stop hook that records each payload in `stop-payloads.jsonl` and asks to keep working
/// unless the payload says `stop_hook_active: true`.
const KEEP_WORKING_ONCE: &str = r#"payload=$(cat); printf '%s\n' "$payload" >> stop-payloads.jsonl
case "$payload" in *'"stop_hook_active":true'*) ;; *) echo '{"decision":"block","reason":"keep-working-marker"}' ;; esac"#;

async fn a_stop_hook_block_keeps_the_agent_working_until_the_hook_sees_stop_hook_active(route: Route) {
    let scenario = Scenario::new(route).project_hooks(&on("Stop", "*", command(KEEP_WORKING_ONCE)));
    let project = scenario.project();
    let run = scenario.model(vec![Turn::text("first answer"), Turn::text("second answer")]).run().await;
    let payloads = std::fs::read_to_string(project.join("stop-payloads.jsonl")).unwrap_or_default();
    let lines: Vec<&str> = payloads.lines().collect();
    run.check(lines.len() == 2, format_args!("the Stop hook must run twice; it saw {payloads:?}"));
    run.check(
        lines.first().is_some_and(|l| l.contains(r#""stop_hook_active":false"#))
            && lines.get(1).is_some_and(|l| l.contains(r#""stop_hook_active":true"#)),
        format_args!("the hook must see stop_hook_active false, then true; it saw {payloads:?}"),
    );
    run.check(run.agent_requests().len() == 2, "the agent must be asked once more after the block");
    run.check(run.model_saw("keep-working-marker"), "the Stop hook's reason must reach the model");
    run.check(run.result["result"] == "second answer", "the session must end with the second answer");
}

async fn a_stop_hook_that_times_out_lets_the_agent_stop(route: Route) {
    let late_block = r#"sleep 90; echo '{"decision":"block","reason":"timed-out-block-marker"}'"#;
    let handler = serde_json::json!({"type": "command", "command": late_block, "timeout": 1});
    let run = Scenario::new(route).project_hooks(&on("Stop", "*", handler)).model(vec![Turn::text("done")]).run().await;
    // A timeout never turns into "keep working".
    run.check(run.agent_requests().len() == 1, "the agent must stop after its answer");
    run.check(!run.model_saw("timed-out-block-marker"), "a timed-out hook's answer must not reach the model");
    run.check(run.elapsed < Duration::from_secs(60), "the timed-out hook must be killed, not awaited");
}

async fn user_prompt_submit_context_reaches_the_model(route: Route) {
    let hooks = on(
        "UserPromptSubmit",
        "*",
        answering(
            r#"{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"prompt-context-marker"}}"#,
        ),
    );
    let run = Scenario::new(route).project_hooks(&hooks).model(vec![Turn::text("done")]).run().await;
    run.check(run.model_saw("prompt-context-marker"), "UserPromptSubmit context must reach the model");
}

async fn a_user_prompt_submit_block_erases_the_prompt_and_tells_the_person_why(route: Route) {
    let hooks = on("UserPromptSubmit", "*", command("echo prompt-refused-marker >&2; exit 2"));
    let run = Scenario::new(route).project_hooks(&hooks).model(vec![Turn::text("done")]).run().await;
    run.check(run.agent_requests().is_empty(), "a refused prompt must never reach the model");
    let result = run.result["result"].as_str().unwrap_or_default();
    run.check(
        result.contains("prompt-refused-marker"),
        format_args!("the reason must be shown; the result is {result:?}"),
    );
}

/// Claude Code 2.1.332 calls no `http` hook on SessionStart (the daemon gets no SessionStart
/// call; its other events reach the daemon over http): SessionStart context needs the command
/// route. The http row pins that, so a Claude Code that starts calling it shows up here.
async fn session_start_context_reaches_the_model_through_command_hooks_only(route: Route) {
    let hooks = on(
        "SessionStart",
        "*",
        command(
            r#"touch session-start-ran; echo '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"session-context-marker"}}'"#,
        ),
    );
    let scenario = Scenario::new(route).project_hooks(&hooks);
    let project = scenario.project();
    let run = scenario.model(vec![Turn::text("done")]).run().await;
    let ran = project.join("session-start-ran").exists();
    match route {
        Route::Command => {
            run.check(ran, "the SessionStart hook must run");
            run.check(run.model_saw("session-context-marker"), "SessionStart context must reach the model");
        }
        Route::Http => {
            run.check(!ran, "Claude Code now calls http hooks on SessionStart: update this row and docs/serve.md");
            run.check(!run.model_saw("session-context-marker"), "no SessionStart context can come over http");
        }
    }
}
