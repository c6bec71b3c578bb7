//! What Claude Code users rely on today, one session per table row: PreToolUse gates (rules,
//! rewrites, vetoes, failures, path rules, tiers, a broken file) and PostToolUse feedback.
//! Each row says what the model asks for, which `git` call the tools made (none, when the gate
//! held), whether Claude Code reports a permission denial, and which texts reached the model.

use std::path::Path;

use serde_json::{Value, json};

use crate::hooks::{answering, command, deny, on};
use crate::model::Turn;
use crate::runner::{Route, Scenario, on_both_routes};

/// Where the row's hooks live.
enum Hooks {
    Project(Value),
    User(Value),
}

struct Row {
    hooks: Hooks,
    /// The model's tool calls, given the project directory.
    turns: fn(&Path) -> Vec<Turn>,
    /// `Some(args)`: git ran exactly once, as `git args`; `None`: git never ran.
    git: Option<&'static str>,
    /// Claude Code lists a permission denial in its result.
    denied: bool,
    /// Texts that must reach the model (in some request's `messages`).
    model_sees: &'static [&'static str],
    /// Files under the project that must exist (`true`) or must not (`false`) afterwards.
    files: &'static [(&'static str, bool)],
}

const NO_FILES: &[(&str, bool)] = &[];

/// One test per row and route (`gates::command::<row>`, `gates::http::<row>`), and per route for
/// each test function named after `@also`.
macro_rules! rows {
    ($($name:ident: $row:expr;)* @also $($test:ident),*) => {
        $(
            async fn $name(route: Route) {
                check(route, $row).await;
            }
        )*
        on_both_routes!($($name,)* $($test),*);
    };
}

fn push_rule(reason: &str) -> Value {
    on("PreToolUse", "Bash(git push:*)", deny(reason))
}

/// A deny on `Bash(touch:*)`: the rows below try to walk around it, and `pwned.txt` must never exist.
fn touch_rule() -> Value {
    on("PreToolUse", "Bash(touch:*)", deny("no-touching-here"))
}

const NO_PWNED: &[(&str, bool)] = &[("pwned.txt", false)];

rows! {
    a_git_push_denied_by_a_permission_rule_never_runs_and_its_reason_reaches_the_model: Row {
        hooks: Hooks::Project(push_rule("pushes-go-through-review")),
        turns: |_| vec![Turn::bash("git push origin main")],
        git: None, denied: true, model_sees: &["pushes-go-through-review"], files: NO_FILES,
    };
    a_git_push_chained_after_cd_is_denied_too: Row {
        hooks: Hooks::Project(push_rule("pushes-go-through-review")),
        turns: |_| vec![Turn::bash("cd /tmp && git push origin main")],
        git: None, denied: true, model_sees: &["pushes-go-through-review"], files: NO_FILES,
    };
    a_call_no_rule_matches_runs_and_its_output_reaches_the_model: Row {
        hooks: Hooks::Project(push_rule("pushes-go-through-review")),
        turns: |_| vec![Turn::bash("git status")],
        git: Some("status"), denied: false, model_sees: &["fake-git-output: status"], files: NO_FILES,
    };
    an_updated_input_from_a_hook_is_the_command_that_runs: Row {
        hooks: Hooks::Project(on("PreToolUse", "Bash", answering(
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"command":"git status --short"}}}"#,
        ))),
        turns: |_| vec![Turn::bash("git status")],
        git: Some("status --short"), denied: false, model_sees: &["fake-git-output: status --short"], files: NO_FILES,
    };
    an_exit_2_hook_vetoes_the_call_and_its_stderr_reaches_the_model: Row {
        hooks: Hooks::Project(on("PreToolUse", "Bash", command("echo exit-two-veto >&2; exit 2"))),
        turns: |_| vec![Turn::bash("git status")],
        git: None, denied: true, model_sees: &["exit-two-veto"], files: NO_FILES,
    };
    a_fail_closed_hook_that_crashes_keeps_the_call_from_running: Row {
        hooks: Hooks::Project(on("PreToolUse", "Bash",
            json!({"type": "command", "command": "kill -9 $$", "timeout": 30, "failClosed": true}))),
        turns: |_| vec![Turn::bash("git status")],
        git: None, denied: true, model_sees: &[], files: NO_FILES,
    };
    a_hook_that_crashes_without_fail_closed_lets_the_call_run: Row {
        hooks: Hooks::Project(on("PreToolUse", "Bash", command("kill -9 $$"))),
        turns: |_| vec![Turn::bash("git status")],
        git: Some("status"), denied: false, model_sees: &["fake-git-output: status"], files: NO_FILES,
    };
    a_path_rule_on_write_keeps_that_file_unwritten_and_leaves_other_paths_alone: Row {
        hooks: Hooks::Project(on("PreToolUse", "Write(secrets/**)", deny("secrets-stay-out-of-the-tree"))),
        turns: |project| vec![
            Turn::write(&project.join("secrets/key.txt"), "hunter2"),
            Turn::write(&project.join("notes.txt"), "plain notes"),
        ],
        git: None, denied: true, model_sees: &["secrets-stay-out-of-the-tree"],
        files: &[("secrets/key.txt", false), ("notes.txt", true)],
    };
    post_tool_use_additional_context_reaches_the_model_next_to_the_tool_result: Row {
        hooks: Hooks::Project(on("PostToolUse", "Bash", answering(
            r#"{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"post-tool-context-marker"}}"#,
        ))),
        turns: |_| vec![Turn::bash("git status")],
        git: Some("status"), denied: false, model_sees: &["post-tool-context-marker", "fake-git-output: status"],
        files: NO_FILES,
    };
    a_post_tool_use_block_tells_the_model_why_after_the_tool_ran: Row {
        hooks: Hooks::Project(on("PostToolUse", "Bash", command("echo lint-failed-marker >&2; exit 2"))),
        turns: |_| vec![Turn::bash("git status")],
        git: Some("status"), denied: false,
        model_sees: &["PostToolUse:Bash hook blocking error from command", "lint-failed-marker"], files: NO_FILES,
    };
    a_json_post_tool_use_block_is_a_block_too: Row {
        hooks: Hooks::Project(on("PostToolUse", "Bash", answering(r#"{"decision":"block","reason":"json-block-marker"}"#))),
        turns: |_| vec![Turn::bash("git status")],
        git: Some("status"), denied: false,
        model_sees: &["PostToolUse:Bash hook blocking error from command", "json-block-marker"], files: NO_FILES,
    };
    a_deny_in_the_user_tier_applies_to_the_project: Row {
        hooks: Hooks::User(push_rule("the-user-tier-says-no")),
        turns: |_| vec![Turn::bash("git push origin main")],
        git: None, denied: true, model_sees: &["the-user-tier-says-no"], files: NO_FILES,
    };
    a_lone_surrogate_in_the_calls_description_does_not_switch_the_deny_off: Row {
        hooks: Hooks::Project(touch_rule()),
        turns: |_| vec![Turn::raw_bash(r#"{"command":"touch pwned.txt","description":"x\ud83d"}"#)],
        git: None, denied: true, model_sees: &["no-touching-here"], files: NO_PWNED,
    };
    touch_run_by_env_dash_s_attached_is_denied: Row {
        hooks: Hooks::Project(touch_rule()),
        turns: |_| vec![Turn::bash("env -S'touch pwned.txt'")],
        git: None, denied: true, model_sees: &["no-touching-here"], files: NO_PWNED,
    };
    touch_run_by_a_one_line_function_is_denied: Row {
        hooks: Hooks::Project(touch_rule()),
        turns: |_| vec![Turn::bash("function f { touch pwned.txt; }; f")],
        git: None, denied: true, model_sees: &["no-touching-here"], files: NO_PWNED,
    };
    @also a_hooks_json_that_does_not_parse_refuses_the_prompt_with_the_error,
    the_model_cannot_empty_the_policy_and_the_next_push_is_still_denied
}

async fn check(route: Route, row: Row) {
    let scenario = Scenario::new(route);
    let turns = (row.turns)(&scenario.project());
    let scenario = match row.hooks {
        Hooks::Project(hooks) => scenario.project_hooks(&hooks),
        Hooks::User(hooks) => scenario.user_hooks(&hooks),
    };
    let project = scenario.project();
    let run = scenario.model(turns).run().await;

    let calls = run.git_calls();
    match row.git {
        Some(args) => run.check(calls == [args], format_args!("git must run once as `git {args}`; it ran {calls:?}")),
        None => run.check(calls.is_empty(), format_args!("git must not run; it ran {calls:?}")),
    }
    let denied = run.denied_tools();
    run.check(
        denied.is_empty() != row.denied,
        format_args!(
            "a permission denial was {}expected; Claude Code reports {denied:?}",
            if row.denied { "" } else { "not " }
        ),
    );
    for text in row.model_sees {
        run.check(run.model_saw(text), format_args!("{text:?} never reached the model"));
    }
    for (file, exists) in row.files {
        run.check(
            project.join(file).exists() == *exists,
            format_args!("{file} must {}exist afterwards", if *exists { "" } else { "not " }),
        );
    }
}

/// A broken hooks.json must not open the gate: Claude Code asks UserPromptSubmit first, which
/// refuses the prompt with the error, so no tool runs and the person reads which file is broken.
async fn a_hooks_json_that_does_not_parse_refuses_the_prompt_with_the_error(route: Route) {
    let scenario = Scenario::new(route).project_hooks_text("{\"hooks\": {\"PreToolUse\": [");
    let run = scenario.model(vec![Turn::bash("git status")]).run().await;
    run.check(run.git_calls().is_empty(), "no tool may run under a broken configuration");
    run.check(run.agent_requests().is_empty(), "the refused prompt must never reach the model");
    let result = run.result["result"].as_str().unwrap_or_default();
    run.check(result.contains("hooks.json"), format_args!("the person must be told which file is broken: {result:?}"));
}

/// Self-protection: the model's `echo {} > .aimon/hooks.json` and a `Write` of it are refused with
/// the reason, the file keeps its rule, and the next `git push` is still denied.
async fn the_model_cannot_empty_the_policy_and_the_next_push_is_still_denied(route: Route) {
    let scenario = Scenario::new(route).project_hooks(&push_rule("pushes-go-through-review"));
    let hooks = scenario.project().join(".aimon/hooks.json");
    let before = std::fs::read_to_string(&hooks).expect("the policy");
    let turns =
        vec![Turn::bash("echo {} > .aimon/hooks.json"), Turn::write(&hooks, "{}"), Turn::bash("git push origin main")];
    let run = scenario.model(turns).run().await;
    run.check(std::fs::read_to_string(&hooks).ok() == Some(before), "the policy file changed");
    run.check(run.git_calls().is_empty(), format_args!("git must not run; it ran {:?}", run.git_calls()));
    let denied = run.denied_tools();
    run.check(denied.len() == 3, format_args!("all three calls must be denied; Claude Code reports {denied:?}"));
    run.check(run.model_saw("keeps its own files out of the agent's reach"), "the reason never reached the model");
    run.check(run.model_saw("pushes-go-through-review"), "the push's reason never reached the model");
}
