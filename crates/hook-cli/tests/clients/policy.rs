//! The one table all five clients run behind `aimon-hooks <client>`: the settings written by
//! `aimon-hooks init <client> --project`, a real `.aimon/hooks.json` in the project, trusted with
//! `aimon-hooks trust` unless the row says otherwise. Each row is an `async fn` taking the
//! client; [`policy_table!`] below makes one `#[tokio::test]` per row and client, named
//! `policy::<row>::<client>`.

use serde_json::{Value, json};

use crate::model::Turn;
use crate::runner::{Client, Run, Scenario, TOOL_OUTPUT};

/// The reason the policy's deny gives; it must reach the model.
const PUSH_REASON: &str = "aimon-policy: pushes go through review";

/// One `#[tokio::test]` per row × client: `mod <row> { async fn <client>() }`.
macro_rules! policy_table {
    (clients: $clients:tt, rows: [$($row:ident),* $(,)?] $(,)?) => {
        $(policy_table!(@row $row $clients);)*
    };
    (@row $row:ident [$($client:ident),* $(,)?]) => {
        mod $row {
            $(
                #[tokio::test(flavor = "multi_thread")]
                async fn $client() {
                    super::$row(&crate::$client::CLIENT).await;
                }
            )*
        }
    };
}

policy_table! {
    clients: [claude, codex, gemini, copilot, qwen],
    rows: [
        a_git_push_deny_stops_the_shell_call_and_its_reason_reaches_the_model,
        an_unmatched_call_runs,
        a_denied_call_holding_a_lone_surrogate_never_runs,
        an_untrusted_projects_command_hook_does_not_run_and_its_deny_still_denies,
        a_crashing_hook_with_fail_closed_blocks_and_without_it_the_call_runs,
        post_tool_context_reaches_the_model,
    ],
}

/// `.aimon/hooks.json` with one group: `handlers` on `event` under `matcher`.
fn on(event: &str, matcher: &str, handlers: Value) -> Value {
    json!({"hooks": {event: [{"matcher": matcher, "hooks": handlers}]}})
}

/// The policy most rows use: `Bash(git push:*)` is denied.
fn deny_push() -> Value {
    on("PreToolUse", "Bash(git push:*)", json!([{"type": "deny", "reason": PUSH_REASON}]))
}

/// A shell call that pushes, then leaves the marker (so it shows whether it ran).
fn push_turns(scenario: &Scenario, tail: &str) -> Vec<Turn> {
    let marker = scenario.root().join("tool-ran");
    let command = format!("git push origin main; touch {}{tail}", marker.display());
    vec![Turn::RawShell(command), Turn::text("scripted-model: done")]
}

fn assert_finished(run: &Run) {
    run.check(run.code == Some(0), "the client exited with a failure");
}

pub(crate) async fn a_git_push_deny_stops_the_shell_call_and_its_reason_reaches_the_model(client: &'static Client) {
    let scenario = Scenario::new(client).aimon(deny_push());
    let turns = push_turns(&scenario, "");
    let run = scenario.model(turns).run().await;
    assert_finished(&run);
    run.check(!run.tool_ran(), "the denied git push ran");
    run.check(run.model_saw(PUSH_REASON), "the deny reason never reached the model");
}

pub(crate) async fn an_unmatched_call_runs(client: &'static Client) {
    let run = Scenario::new(client).aimon(deny_push()).run().await;
    assert_finished(&run);
    run.check(run.tool_ran(), "a call no rule matches did not run");
    run.check(run.model_saw(TOOL_OUTPUT), "the model never saw the call's output");
}

pub(crate) async fn a_denied_call_holding_a_lone_surrogate_never_runs(client: &'static Client) {
    let scenario = Scenario::new(client).aimon(deny_push());
    let turns = push_turns(&scenario, " && printf 'x\\ud83d'");
    let run = scenario.model(turns).run().await;
    run.check(!run.tool_ran(), "the denied call holding a lone surrogate ran");
}

pub(crate) async fn an_untrusted_projects_command_hook_does_not_run_and_its_deny_still_denies(client: &'static Client) {
    let scenario = Scenario::new(client);
    let ran = scenario.root().join("command-hook-ran");
    let policy = on(
        "PreToolUse",
        "Bash",
        json!([
            {"type": "command", "command": format!("touch {}", ran.display()), "timeout": 30},
            {"type": "deny", "reason": PUSH_REASON, "if": "Bash(git push:*)"},
        ]),
    );
    let scenario = scenario.untrusted().aimon(policy);
    let turns = push_turns(&scenario, "");
    let run = scenario.model(turns).run().await;
    assert_finished(&run);
    run.check(!ran.exists(), "the untrusted project's command hook ran");
    run.check(!run.tool_ran(), "the untrusted project's deny did not deny");
}

pub(crate) async fn a_crashing_hook_with_fail_closed_blocks_and_without_it_the_call_runs(client: &'static Client) {
    for fail_closed in [true, false] {
        let crash = json!([{"type": "command", "command": "kill -9 $$", "timeout": 30, "failClosed": fail_closed}]);
        let run = Scenario::new(client).aimon(on("PreToolUse", "Bash", crash)).run().await;
        assert_finished(&run);
        run.check(
            run.tool_ran() != fail_closed,
            format_args!(
                "a crashing hook with failClosed {fail_closed}: the call should {}",
                if fail_closed { "be blocked" } else { "run" }
            ),
        );
    }
}

pub(crate) async fn post_tool_context_reaches_the_model(client: &'static Client) {
    let context = "aimon-policy: the output was checked";
    let answer = json!({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": context}});
    let handler = json!([{"type": "command", "command": format!("echo '{answer}'"), "timeout": 30}]);
    let run = Scenario::new(client).aimon(on("PostToolUse", "Bash", handler)).run().await;
    assert_finished(&run);
    run.check(run.tool_ran(), "the shell call did not run");
    run.check(run.model_saw(context), "the post-tool context never reached the model");
}
