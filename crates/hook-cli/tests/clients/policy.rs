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
        the_policy_cannot_be_emptied_and_the_next_push_is_still_denied,
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

/// The start of self-protection's reason.
const SELF_REASON: &str = "keeps its own files out of the agent's reach";

pub(crate) async fn the_policy_cannot_be_emptied_and_the_next_push_is_still_denied(client: &'static Client) {
    let scenario = Scenario::new(client).aimon(deny_push());
    let hooks = scenario.root().join("project/.aimon/hooks.json");
    let emptied = scenario.root().join("emptied");
    let mut turns = vec![Turn::RawShell(format!("echo {{}} > {} && touch {}", hooks.display(), emptied.display()))];
    // The client's own file-writing tool, where its scripted model offers one by name.
    if matches!(client.name, "gemini" | "qwen") {
        let input = serde_json::json!({"file_path": hooks, "content": "{}"}).to_string();
        turns.push(Turn::Tool { name: "write_file".into(), input });
    }
    turns.extend(push_turns(&scenario, ""));
    let run = scenario.model(turns).run().await;
    assert_finished(&run);
    run.check(!emptied.exists(), "the shell call that empties the policy ran");
    let after: Option<Value> = std::fs::read(&hooks).ok().and_then(|b| serde_json::from_slice(&b).ok());
    run.check(after == Some(deny_push()), "the policy file changed");
    run.check(run.model_saw(SELF_REASON), "self-protection's reason never reached the model");
    run.check(!run.tool_ran(), "the git push after the attempt ran");
    run.check(run.model_saw(PUSH_REASON), "the push's deny reason never reached the model");
}
