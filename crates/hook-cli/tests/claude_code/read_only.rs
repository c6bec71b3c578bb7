//! The pack `aimon/read-only` through the real Claude Code in its default permission mode (no
//! tool pre-approved, so in a `-p` session a call nobody approves is a permission denial): calls
//! shown to only read run without one, `git commit` and `rm -r` are still not approved. Claude
//! Code approves `git log --oneline -3` and `ls` on its own; the control shows that it does not
//! approve the other reading calls without the pack, so their allow is the pack's.

use crate::model::Turn;
use crate::runner::{Route, Scenario, on_both_routes};

/// Reading calls Claude Code approves on its own (2.1.332 does, in its default mode).
const READING_ALREADY_APPROVED: [&str; 2] = ["git log --oneline -3", "ls"];

/// Reading calls Claude Code does not approve on its own (the control below shows it).
const READING: [&str; 3] = ["git -C . log --oneline -2", "awk 'NR==1' README.md", "env LC_ALL=C ls"];

fn with_pack(route: Route) -> Scenario {
    Scenario::new(route).user_hooks(&serde_json::json!({"packs": ["aimon/read-only"]})).default_permissions()
}

async fn reading_calls_run_without_a_permission_denial(route: Route) {
    let turns = READING_ALREADY_APPROVED.iter().chain(&READING).map(|c| Turn::bash(c)).collect();
    let run = with_pack(route).model(turns).run().await;
    let denied = run.denied_tools();
    run.check(denied.is_empty(), format_args!("no denial expected; Claude Code reports {denied:?}"));
    let calls = run.git_calls();
    run.check(
        calls == ["log --oneline -3", "-C . log --oneline -2"],
        format_args!("git log must run twice; it ran {calls:?}"),
    );
}

async fn git_commit_and_rm_r_are_still_not_approved(route: Route) {
    let scenario = with_pack(route);
    let project = scenario.project();
    std::fs::create_dir_all(project.join("x")).expect("x");
    let run = scenario.model(vec![Turn::bash("git commit -m x"), Turn::bash("rm -r x")]).run().await;
    let denied = run.denied_tools();
    run.check(denied.len() == 2, format_args!("both calls must be denied for want of approval; {denied:?}"));
    run.check(run.git_calls().is_empty(), format_args!("git must not run; it ran {:?}", run.git_calls()));
    run.check(project.join("x").exists(), "x was removed");
}

async fn without_the_pack_the_same_reading_calls_are_not_approved(route: Route) {
    let scenario = Scenario::new(route).default_permissions();
    let run = scenario.model(READING.iter().map(|c| Turn::bash(c)).collect()).run().await;
    let denied = run.denied_tools();
    run.check(denied.len() == READING.len(), format_args!("the control: all denied without the pack; {denied:?}"));
}

on_both_routes!(
    reading_calls_run_without_a_permission_denial,
    git_commit_and_rm_r_are_still_not_approved,
    without_the_pack_the_same_reading_calls_are_not_approved
);
