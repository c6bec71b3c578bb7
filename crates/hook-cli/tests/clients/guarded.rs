//! The exec guard behind every client: the whole client runs under `aimon-hooks guard`, so every
//! exec of its process tree — the shell it starts for a tool call and everything that shell runs
//! — is checked against the project's Bash deny rules on its final argv. No client needs a
//! channel of its own for it (Claude Code's shell prefix is the claude_code suite's `guard`).
//! A command that builds the denied argv at run time creates nothing, the guard's reason reaches
//! the model in the tool's output, and a permitted call runs as usual.

use serde_json::json;

use crate::model::Turn;
use crate::runner::{Client, Scenario, write};

/// One `#[tokio::test]` per client.
macro_rules! guarded_rows {
    ($($client:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread")]
            async fn $client() {
                super::a_touch_built_at_run_time_creates_nothing_under_the_guard_and_an_allowed_call_runs(
                    &crate::$client::CLIENT,
                )
                .await;
            }
        )*
    };
}

mod a_touch_built_at_run_time_creates_nothing_under_the_guard_and_an_allowed_call_runs {
    guarded_rows!(codex, gemini, copilot, qwen);
}

const REASON: &str = "aimon-policy: no touching";

async fn a_touch_built_at_run_time_creates_nothing_under_the_guard_and_an_allowed_call_runs(client: &'static Client) {
    let scenario = Scenario::new(client).without_hooks().guarded();
    let project = scenario.root().join("project");
    let policy =
        json!({"hooks": {"PreToolUse": [{"matcher": "Bash(touch:*)", "hooks": [{"type": "deny", "reason": REASON}]}]}});
    write(&project.join(".aimon/hooks.json"), &policy.to_string());
    let pwned = project.join("pwned.txt");
    let allowed = scenario.root().join("tool-ran");
    let turns = vec![
        // The program's name is built at run time (Gemini CLI refuses a command substitution
        // itself, so a variable does it).
        Turn::RawShell(format!("t=tou; ${{t}}ch {}", pwned.display())),
        // `touch` is denied, so the allowed call leaves its marker another way.
        Turn::RawShell(format!("echo ran > {}", allowed.display())),
        Turn::text("scripted-model: done"),
    ];
    let run = scenario.model(turns).run().await;
    run.check(run.code == Some(0), "the guarded client exited with a failure");
    run.check(!pwned.exists(), "the touch built at run time created its file under the guard");
    run.check(run.model_saw(REASON), "the guard's reason never reached the model");
    run.check(run.tool_ran(), "the allowed call did not run under the guard");
}
