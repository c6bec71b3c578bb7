//! `aimon-hooks init claude --protect` through the real Claude Code: the three packs on in the
//! person's own file (and the guard, as plain `init claude` has it), no rule written by hand.
//! `git reset --hard` and reading `~/.ssh/id_ed25519` are refused with the packs' reasons reaching
//! the model (and the key's text never does); `git status` runs.

use crate::model::Turn;
use crate::runner::{Route, Scenario};

const KEY: &str = "-----BEGIN OPENSSH PRIVATE KEY----- not-a-real-key-7f3a9c";

/// The sandbox (the command route: `init claude --project`), then `init claude --project
/// --protect` run again as a person would.
fn protected() -> Scenario {
    let scenario = Scenario::new(Route::Command);
    let (project, home) = (scenario.project(), scenario.home());
    std::fs::create_dir_all(home.join(".ssh")).expect("~/.ssh");
    std::fs::write(home.join(".ssh/id_ed25519"), KEY).expect("a key");
    let mut init = std::process::Command::new(env!("CARGO_BIN_EXE_aimon-hooks"));
    init.args(["init", "claude", "--project", "--protect"]);
    let out = init.current_dir(&project).env("HOME", &home).output().expect("aimon-hooks init runs");
    assert!(out.status.success(), "init claude --protect failed: {}", String::from_utf8_lossy(&out.stderr));
    let user = std::fs::read_to_string(home.join(".aimon/hooks.json")).expect("the person's own file");
    assert!(user.contains("aimon/destructive") && user.contains("aimon/secrets"), "{user}");
    scenario
}

#[tokio::test(flavor = "multi_thread")]
async fn the_packs_refuse_a_hard_reset_and_a_key_read_and_git_status_runs() {
    let turns = vec![Turn::bash("git reset --hard"), Turn::bash("cat ~/.ssh/id_ed25519"), Turn::bash("git status")];
    let run = protected().model(turns).run().await;
    run.check(run.model_saw("aimon/destructive:"), "the destructive pack's reason never reached the model");
    run.check(
        run.model_saw("aimon/secrets: ~/.ssh holds private keys"),
        "the secrets pack's reason never reached the model",
    );
    run.check(!run.model_saw("not-a-real-key-7f3a9c"), "the key's text reached the model");
    let calls = run.git_calls();
    run.check(calls == ["status"], format_args!("only git status may run; git ran {calls:?}"));
}
