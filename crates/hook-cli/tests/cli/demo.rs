//! The demo project (examples/demo) run the way the README and docs/cli.md show it.

use std::path::PathBuf;

use crate::support::{Outcome, Sandbox};

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn demo(event: &str, payload: &str, with_home: bool) -> Outcome {
    let sandbox = Sandbox::new();
    let mut cmd = sandbox.cmd();
    cmd.current_dir(workspace()).args(["run", event, "--project", "examples/demo", "--payload"]);
    cmd.arg(format!("examples/demo/payloads/{payload}.json"));
    if with_home {
        // The demo's home is in the repository: its decisions are logged in the sandbox instead.
        cmd.args(["--home", "examples/demo/home"]).env("AIMON_DECISION_LOG", sandbox.home().join("decisions.jsonl"));
    }
    Outcome::of(&mut cmd)
}

#[test]
fn every_demo_payload_gives_the_outcome_the_docs_promise() {
    // (event, payload, --home examples/demo/home, outcome, exit code, hooks invoked)
    let cases = [
        ("PreToolUse", "pre-bash-git-push", false, "ask", 0, 1),
        ("PreToolUse", "pre-bash-force-push", false, "denied", 2, 2),
        ("PreToolUse", "pre-bash-npm-publish", false, "blocked", 2, 1),
        ("PreToolUse", "pre-edit-lock", false, "denied", 2, 1),
        ("PreToolUse", "pre-bash-ls", false, "proceed", 0, 0),
        ("PreToolUse", "pre-bash-rm-rf", true, "denied", 2, 1),
        ("PreToolUse", "pre-bash-rm-rf", false, "proceed", 0, 0),
        ("PostToolUse", "post-write", false, "proceed", 0, 1),
        ("PostToolUse", "post-webfetch", false, "proceed", 0, 1),
    ];
    for (event, payload, home, outcome, code, hooks) in cases {
        let out = demo(event, payload, home);
        assert_eq!(out.code, code, "{payload}: {}", out.stderr);
        let v = out.json();
        assert_eq!(v["outcome"], outcome, "{payload}: {v}");
        assert_eq!(v["hooks"].as_array().map(Vec::len), Some(hooks), "{payload}: {v}");
    }
}

#[test]
fn the_readme_first_command_asks_before_a_push() {
    let v = demo("PreToolUse", "pre-bash-git-push", false).json();
    assert_eq!(v["reason"], "a push leaves this machine: please confirm");
}

#[test]
fn the_local_tier_overlay_adds_feedback_after_a_write() {
    let v = demo("PostToolUse", "post-write", false).json();
    assert_eq!(v["feedback"], "local tier: run the tests before you move on");
    assert_eq!(v["hooks"][0]["source"], "local#0");
}
