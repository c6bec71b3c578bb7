//! The channels aimon-hooks carries besides a verdict, in each real client that has them, behind
//! `aimon-hooks <client>` (`init <client> --project`, a real `.aimon/hooks.json`): the context of
//! a session-start hook reaches the model; a stop hook that blocks once makes the agent take
//! another turn, and the session still ends; a rewake asked by a post-tool hook reaches the model
//! on a later call of the same session (through `aimon-hooks serve`, which fires it). Which
//! client has which channel: docs/clients.md, "Channels".

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};

use crate::model::Turn;
use crate::runner::{Client, Scenario, marker_command};
use crate::serve_process::{serve_command, wait_until};

/// One `#[tokio::test]` per channel row for `$client`, in a module of its own.
macro_rules! channel_rows {
    ($module:ident, $client:path) => {
        mod $module {
            #[tokio::test(flavor = "multi_thread")]
            async fn session_start_context_reaches_the_model() {
                $crate::channels::session_start_context_reaches_the_model(&$client).await;
            }

            #[tokio::test(flavor = "multi_thread")]
            async fn a_stop_hook_that_blocks_once_makes_the_agent_take_another_turn_and_the_session_ends() {
                $crate::channels::a_stop_hook_that_blocks_once_makes_the_agent_take_another_turn_and_the_session_ends(
                    &$client,
                )
                .await;
            }

            #[tokio::test(flavor = "multi_thread")]
            async fn a_rewake_asked_after_a_call_reaches_the_model_later_in_the_session() {
                $crate::channels::a_rewake_asked_after_a_call_reaches_the_model_later_in_the_session(&$client).await;
            }
        }
    };
}

channel_rows!(codex, crate::codex::CLIENT);
channel_rows!(copilot, crate::copilot::CLIENT);
channel_rows!(gemini, crate::gemini::CLIENT);
channel_rows!(qwen, crate::qwen::CLIENT);

/// `.aimon/hooks.json` with one group without a matcher: `handler` on `event`.
fn on(event: &str, handler: Value) -> Value {
    json!({"hooks": {event: [{"hooks": [handler]}]}})
}

fn command(command: &str) -> Value {
    json!({"type": "command", "command": command, "timeout": 30})
}

pub(crate) async fn session_start_context_reaches_the_model(client: &'static Client) {
    let marker = "aimon-channel: the session started under review";
    let answer = json!({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": marker}});
    let policy = on("SessionStart", command(&format!("echo '{answer}'")));
    let run = Scenario::new(client).aimon(policy).run().await;
    run.check(run.code == Some(0), "the client exited with a failure");
    let first = run.agent_requests().first().map(|r| r.conversation().join("\n")).unwrap_or_default();
    run.check(first.contains(marker), "the session-start context is not in the model's first request");
}

pub(crate) async fn a_stop_hook_that_blocks_once_makes_the_agent_take_another_turn_and_the_session_ends(
    client: &'static Client,
) {
    let scenario = Scenario::new(client);
    let once = scenario.root().join("stopped-once");
    let reason = "aimon-channel: before you stop, say what you checked";
    let answer = json!({"decision": "block", "reason": reason});
    let hook = format!("[ -e '{0}' ] || {{ touch '{0}'; echo '{answer}'; }}", once.display());
    let turns = vec![
        Turn::Shell(marker_command(scenario.root())),
        Turn::text("scripted-model: first answer"),
        Turn::text("scripted-model: checked the output"),
    ];
    let run = scenario.aimon(on("Stop", command(&hook))).model(turns).run().await;
    run.check(run.code == Some(0), "the client exited with a failure (or never ended)");
    run.check(once.exists(), "the stop hook never ran");
    let requests = run.agent_requests();
    let after = requests.iter().position(|r| r.conversation().iter().any(|s| s.contains("first answer")));
    run.check(
        after.is_some_and(|at| requests[at..].iter().any(|r| r.conversation().iter().any(|s| s.contains(reason)))),
        "after the agent's first answer, no request carried the stop hook's reason",
    );
}

pub(crate) async fn a_rewake_asked_after_a_call_reaches_the_model_later_in_the_session(client: &'static Client) {
    let marker = "aimon-channel: ci is green";
    let woken = format!(
        r#"if [ -n "$AIMON_REWAKE_ID" ]; then echo '{{"hookSpecificOutput":{{"hookEventName":"PostToolUse","additionalContext":"{marker}"}}}}'; fi"#
    );
    let rewake = json!({"trigger": {"delay": "2s"}, "maxAttempts": 1, "reason": "check CI after the call"});
    let handler = json!({"type": "command", "command": woken, "timeout": 30, "asyncRewake": rewake});
    let scenario = Scenario::new(client);
    let root = scenario.root().to_owned();
    let daemon = Daemon::start(&root.join("home"), &root.join("project"));
    let turns = vec![
        Turn::Shell(marker_command(&root)),
        // A sleep alone (Qwen Code refuses `sleep N; …` as a blocking command and asks for this form).
        Turn::Shell("sleep 8 # intentional-sleep: the rewake fires meanwhile".to_owned()),
        Turn::text("scripted-model: done"),
    ];
    let run = scenario.aimon(on("PostToolUse", handler)).model(turns).run().await;
    drop(daemon);
    run.check(run.code == Some(0), "the client exited with a failure");
    run.check(run.tool_ran(), "the first call did not run");
    run.check(run.model_saw(marker), "the woken hook's words never reached the model");
}

/// `aimon-hooks serve` for one sandbox's HOME, trusting project hooks as `aimon-hooks trust`
/// would; killed when dropped.
struct Daemon {
    child: std::process::Child,
}

impl Daemon {
    fn start(home: &Path, project: &Path) -> Daemon {
        let child = serve_command(Path::new(env!("CARGO_BIN_EXE_aimon-hooks")), home, project, &[])
            .env("AIMON_TRUST_PROJECT_HOOKS", "1")
            .spawn()
            .expect("aimon-hooks serve starts");
        let socket: PathBuf = home.join(".aimon/serve.sock");
        wait_until(Duration::from_secs(30), &format!("serve did not listen on {}", socket.display()), || {
            std::os::unix::net::UnixStream::connect(&socket).is_ok()
        });
        Daemon { child }
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
