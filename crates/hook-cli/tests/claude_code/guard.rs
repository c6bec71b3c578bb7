//! Claude Code with `init claude --guard` (its shell prefix runs every Bash command under
//! `aimon-hooks guard`) and the parse-time PreToolUse route taken out: what stops the model's
//! command is the guard, at exec, on the argv the shell built. And with plain `init claude`,
//! which turns the guard on by default: a denied file is held by the kernel for a program that
//! builds its name at run time. The guard does not depend on the route, so these run on the
//! command route only.

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

/// `init claude` with no flag (what the sandbox's project was set up with) runs every Bash command
/// under the guard, so a `Read(./.env)` deny is held by the kernel: an interpreter building the
/// name at run time, which no parse-time reading can see, reads nothing of the secret. `cd` still
/// holds from one Bash call to the next.
#[tokio::test(flavor = "multi_thread")]
async fn by_default_a_denied_file_read_by_python_at_run_time_shows_nothing_and_cd_still_holds() {
    let secret = "SECRET=kernel-held-4f1c9e";
    let scenario =
        Scenario::new(Route::Command).project_hooks(&on("PreToolUse", "Read(./.env)", deny("secrets-stay-put")));
    let project = scenario.project();
    let settings = std::fs::read_to_string(project.join(".claude/settings.json")).expect("settings");
    assert!(settings.contains("CLAUDE_CODE_SHELL_PREFIX"), "init claude did not turn the guard on: {settings}");
    std::fs::write(project.join(".env"), format!("{secret}\n")).expect(".env");
    std::fs::create_dir_all(project.join("sub")).expect("sub");
    let run = scenario
        .model(vec![
            Turn::bash("python3 -c \"print(repr(open(chr(46)+'env').read()))\" 2>&1; echo read-tried"),
            Turn::bash("cd sub"),
            Turn::bash("echo \"cwd=$(pwd)\""),
        ])
        .run()
        .await;
    run.check(run.denied_tools().is_empty(), "the parse-time hook answered: the guard was not what held the file");
    run.check(run.model_saw("read-tried"), "the python3 call never ran");
    // An ordinary user is refused the file; root (the test may run as root) reads it empty.
    run.check(
        run.model_saw("PermissionError") || run.model_saw("''\nread-tried"),
        "python3 was neither refused the file nor shown it empty",
    );
    run.check(!run.model_saw("kernel-held-4f1c9e"), "the secret reached the model");
    assert_eq!(std::fs::read_to_string(project.join(".env")).expect(".env"), format!("{secret}\n"));
    let expected = format!("cwd={}/sub", project.display());
    run.check(run.model_saw(&expected), format_args!("{expected:?} never reached the model"));
}

/// Claude Code hands the guard's shell prefix to its hooks too, so the parse-time hook knows the
/// kernel hides `.env` from the command: a recursive grep and `xargs cat` of names found at run
/// time are no longer refused for what they might read, and the secret still never reaches the
/// model. `cat .env`, which names it, is still refused with the rule's reason.
#[tokio::test(flavor = "multi_thread")]
async fn under_the_guard_a_walk_or_xargs_cat_runs_and_still_shows_nothing_of_a_hidden_file() {
    let secret = "SECRET=kernel-held-8d2b71";
    let scenario =
        Scenario::new(Route::Command).project_hooks(&on("PreToolUse", "Read(./.env)", deny("secrets-stay-put")));
    let project = scenario.project();
    std::fs::write(project.join(".env"), format!("{secret}\n")).expect(".env");
    std::fs::write(project.join("notes.md"), "notes-text-5e0a\n").expect("notes.md");
    let run = scenario
        .model(vec![
            Turn::bash("grep -r SECRET . 2>&1; echo walked"),
            Turn::bash("find . -maxdepth 1 -name '*.md' | xargs cat 2>&1; echo listed"),
            Turn::bash("cat .env"),
        ])
        .run()
        .await;
    run.check(run.model_saw("walked"), "the recursive grep was refused");
    run.check(run.model_saw("notes-text-5e0a"), "xargs cat was refused");
    run.check(!run.model_saw("kernel-held-8d2b71"), "the secret reached the model");
    run.check(run.denied_tools().len() == 1, format_args!("only cat .env is refused: {:?}", run.denied_tools()));
    run.check(run.model_saw("secrets-stay-put"), "the rule's reason for cat .env never reached the model");
}
