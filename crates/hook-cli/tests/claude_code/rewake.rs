//! A rewake that reaches the agent through the real Claude Code: a PostToolUse hook asks to be
//! woken two seconds after a push; `aimon-hooks serve` (reached by `aimon-hooks claude` over its
//! socket) fires it while the agent's next tool runs, and that tool's PostToolUse answer carries
//! the woken hook's words to the model.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::hooks::on;
use crate::model::Turn;
use crate::runner::Scenario;

/// `aimon-hooks serve` for one sandbox's HOME, stopped when dropped.
struct Daemon(Child);

impl Daemon {
    fn start(home: &Path) -> Daemon {
        let child = Command::new(env!("CARGO_BIN_EXE_aimon-hooks"))
            .arg("serve")
            .env("HOME", home)
            .env("AIMON_TRUST_PROJECT_HOOKS", "1")
            .env_remove("AIMON_REWAKE_STORE")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("aimon-hooks serve starts");
        let socket = home.join(".aimon/serve.sock");
        let deadline = Instant::now() + Duration::from_secs(20);
        while !socket.exists() {
            assert!(Instant::now() < deadline, "serve did not listen on {} within 20 s", socket.display());
            std::thread::sleep(Duration::from_millis(20));
        }
        Daemon(child)
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_rewake_asked_after_a_push_reaches_the_model_on_the_sessions_next_tool_call() {
    let woken = r#"if [ -n "$AIMON_REWAKE_ID" ]; then echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"ci-is-green-marker"}}'; fi"#;
    let rewake = json!({"trigger": {"delay": "2s"}, "maxAttempts": 1, "reason": "check CI after the push"});
    let handler = json!({"type": "command", "command": woken, "timeout": 10, "asyncRewake": rewake});
    let scenario = Scenario::new().project_hooks(&on("PostToolUse", "Bash", handler));
    let _daemon = Daemon::start(&scenario.home());
    let turns = vec![Turn::bash("git push origin main"), Turn::bash("sleep 5"), Turn::text("done")];
    let run = scenario.model(turns).run().await;
    run.check(run.git_calls() == ["push origin main"], "the push must run");
    run.check(run.model_saw("ci-is-green-marker"), "the woken hook's answer must reach the model");
}
