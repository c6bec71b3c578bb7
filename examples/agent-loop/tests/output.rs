//! The example's conversation: the deny reaches the model as the tool result, the deploy runs,
//! and the delayed hook's answer reaches the model in the next turn.

use std::process::Command;

#[test]
fn the_denied_call_the_allowed_call_and_the_rewake_mail_of_the_next_turn_reach_the_model() {
    let out = Command::new(env!("CARGO_BIN_EXE_example-agent-loop")).output().expect("run the example");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8(out.stdout).expect("utf-8");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines,
        [
            "user: deploy the site",
            r#"model: tool_use Bash {"command":"rm -rf build"}"#,
            "tool: rm -rf is not allowed",
            r#"model: tool_use Bash {"command":"./deploy.sh"}"#,
            "tool: deploy started (job 42)",
            "model: Deploy started; I will tell you when it is done.",
            "mail: the deploy finished: 3 of 3 instances healthy",
            "user: is it done?",
            "model: Yes: the deploy finished: 3 of 3 instances healthy.",
        ]
    );
}
