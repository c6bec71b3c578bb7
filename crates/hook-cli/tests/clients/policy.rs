//! The rows every client runs with `aimon-hooks <client>` behind it (set up by `aimon-hooks init
//! <client> --project`) and one policy in the project's `.aimon/hooks.json`: the same file must
//! mean the same thing behind every client. `policy_rows!(CLIENT)` makes one `#[tokio::test]`
//! per row.

use serde_json::{Value, json};

use crate::model::Turn;
use crate::runner::{Client, Run, Scenario, TOOL_OUTPUT, marker_command, write};

/// The reason the policy's deny gives; it must reach the model.
const DENY_REASON: &str = "aimon-policy: pushes go through review";

/// The context the post-tool hook adds; it must reach the model.
const CONTEXT: &str = "aimon-context: the output was checked";

/// One `#[tokio::test]` per row for `$client`.
macro_rules! policy_rows {
    ($client:expr) => {
        #[tokio::test(flavor = "multi_thread")]
        async fn a_git_push_deny_stops_the_shell_call_and_its_reason_reaches_the_model() {
            $crate::policy::a_git_push_deny_stops_the_shell_call_and_its_reason_reaches_the_model(&$client).await;
        }

        #[tokio::test(flavor = "multi_thread")]
        async fn an_unmatched_call_runs() {
            $crate::policy::an_unmatched_call_runs(&$client).await;
        }

        #[tokio::test(flavor = "multi_thread")]
        async fn a_crashing_hook_with_fail_closed_blocks_the_call() {
            $crate::policy::a_crashing_hook_blocks_only_with_fail_closed(&$client, true).await;
        }

        #[tokio::test(flavor = "multi_thread")]
        async fn a_crashing_hook_without_fail_closed_lets_the_call_run() {
            $crate::policy::a_crashing_hook_blocks_only_with_fail_closed(&$client, false).await;
        }

        #[tokio::test(flavor = "multi_thread")]
        async fn post_tool_context_reaches_the_model() {
            $crate::policy::post_tool_context_reaches_the_model(&$client).await;
        }

        #[tokio::test(flavor = "multi_thread")]
        async fn an_untrusted_projects_command_hook_does_not_run_and_its_deny_still_denies() {
            $crate::policy::an_untrusted_projects_command_hook_does_not_run_and_its_deny_still_denies(&$client).await;
        }

        #[tokio::test(flavor = "multi_thread")]
        async fn a_denied_call_holding_a_lone_surrogate_never_runs() {
            $crate::policy::a_denied_call_holding_a_lone_surrogate_never_runs(&$client).await;
        }
    };
}
pub(crate) use policy_rows;

/// The deny every row's policy holds.
fn push_deny() -> Value {
    json!({"matcher": "Bash(git push:*)", "hooks": [{"type": "deny", "reason": DENY_REASON}]})
}

/// A scenario with `aimon-hooks <client>` behind the client and `hooks` (event → groups) as the
/// project's `.aimon/hooks.json`.
fn scenario(client: &'static Client, hooks: Value) -> Scenario {
    let scenario = Scenario::new(client).aimon();
    write(
        &scenario.root().join("project/.aimon/hooks.json"),
        &serde_json::to_string_pretty(&json!({"hooks": hooks})).expect("json"),
    );
    scenario
}

/// The model asks for the marker command followed by a `git push`.
fn push_turns(scenario: &Scenario) -> Vec<Turn> {
    let command = format!("{} && git push origin main", marker_command(scenario.root()));
    vec![Turn::Shell(command), Turn::text("scripted-model: done")]
}

fn assert_finished(run: &Run) {
    run.check(run.code == Some(0), "the client exited with a failure");
}

pub(crate) async fn a_git_push_deny_stops_the_shell_call_and_its_reason_reaches_the_model(client: &'static Client) {
    let scenario = scenario(client, json!({"PreToolUse": [push_deny()]}));
    let turns = push_turns(&scenario);
    let run = scenario.model(turns).run().await;
    assert_finished(&run);
    run.check(!run.tool_ran(), "the denied git push ran");
    run.check(run.model_saw(DENY_REASON), "the deny reason never reached the model");
}

pub(crate) async fn an_unmatched_call_runs(client: &'static Client) {
    let run = scenario(client, json!({"PreToolUse": [push_deny()]})).run().await;
    assert_finished(&run);
    run.check(run.tool_ran(), "the unmatched call did not run");
    run.check(run.model_saw(TOOL_OUTPUT), "the tool's output never reached the model");
}

pub(crate) async fn a_crashing_hook_blocks_only_with_fail_closed(client: &'static Client, fail_closed: bool) {
    let crash = json!({"type": "command", "command": "echo crashed >&2; exit 1", "failClosed": fail_closed});
    let run = scenario(client, json!({"PreToolUse": [{"matcher": "Bash", "hooks": [crash]}]})).run().await;
    assert_finished(&run);
    run.check(
        run.tool_ran() != fail_closed,
        format_args!(
            "after a crash {} failClosed the call should {}",
            if fail_closed { "with" } else { "without" },
            if fail_closed { "be blocked" } else { "run" }
        ),
    );
}

pub(crate) async fn post_tool_context_reaches_the_model(client: &'static Client) {
    let answer = json!({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": CONTEXT}});
    let command = format!("printf '%s' '{answer}'");
    let hooks = json!({"PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": command}]}]});
    let run = scenario(client, hooks).run().await;
    assert_finished(&run);
    run.check(run.tool_ran(), "the shell call did not run");
    run.check(run.model_saw(CONTEXT), "the post-tool context never reached the model");
}

pub(crate) async fn an_untrusted_projects_command_hook_does_not_run_and_its_deny_still_denies(client: &'static Client) {
    let scenario = scenario(client, Value::Null);
    let marker = scenario.root().join("hook-ran");
    let command = json!({"type": "command", "command": format!("touch {}", marker.display())});
    let hooks = json!({"PreToolUse": [{"matcher": "Bash", "hooks": [command]}, push_deny()]});
    write(&scenario.root().join("project/.aimon/hooks.json"), &json!({"hooks": hooks}).to_string());
    let turns = push_turns(&scenario);
    let run = scenario.untrusted().model(turns).run().await;
    assert_finished(&run);
    run.check(!marker.exists(), "the untrusted project's command hook ran");
    run.check(!run.tool_ran(), "the untrusted project's deny did not deny");
    run.check(run.model_saw(DENY_REASON), "the deny reason never reached the model");
}

pub(crate) async fn a_denied_call_holding_a_lone_surrogate_never_runs(client: &'static Client) {
    let scenario = scenario(client, json!({"PreToolUse": [push_deny()]}));
    let command = format!("{} && git push origin 'x\\ud83d'", marker_command(scenario.root()));
    let run = scenario.model(vec![Turn::RawShell(command), Turn::text("scripted-model: done")]).run().await;
    run.check(!run.tool_ran(), "the denied call holding a lone surrogate ran");
}
