//! Claude Code with `init claude --guard` (its shell prefix runs every Bash command under
//! `aimon-hooks guard`) and the parse-time PreToolUse route taken out: what stops the model's
//! command is the guard, at exec, on the argv the shell built. The guard does not depend on the
//! route, so these run on the command route only.

use crate::hooks::{deny, on};
use crate::model::Turn;
use crate::runner::{Route, Scenario};

#[tokio::test(flavor = "multi_thread")]
async fn a_touch_built_at_run_time_creates_nothing_and_the_guards_reason_reaches_the_model() {
    let scenario = Scenario::new(Route::Command)
        .project_hooks(&on("PreToolUse", "Bash(touch:*)", deny("no-touching-here")))
        .guard_only();
    let project = scenario.project();
    let run = scenario.model(vec![Turn::bash("$(printf 'tou%s' ch) pwned.txt")]).run().await;
    run.check(!project.join("pwned.txt").exists(), "pwned.txt was created");
    run.check(run.denied_tools().is_empty(), "the parse-time hook answered: the guard was not what stopped it");
    run.check(
        run.model_saw("aimon-hooks: denied by project#0: no-touching-here (touch pwned.txt)"),
        "the guard's reason never reached the model",
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_cd_in_one_bash_call_still_holds_in_the_next_under_the_guard() {
    let scenario = Scenario::new(Route::Command)
        .project_hooks(&on("PreToolUse", "Bash(touch:*)", deny("no-touching-here")))
        .guard_only();
    let project = scenario.project();
    std::fs::create_dir_all(project.join("sub")).expect("sub");
    let run = scenario.model(vec![Turn::bash("cd sub"), Turn::bash("echo \"cwd=$(pwd)\"")]).run().await;
    let expected = format!("cwd={}/sub", project.display());
    run.check(run.model_saw(&expected), format_args!("{expected:?} never reached the model"));
}
