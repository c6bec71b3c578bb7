//! Specs of hook-core: events table, result merge, registry, executor and call-site chains.
//!
//! Contents: events (R-EVT) · merge (R-RES) · registry (R-REG) · executor (R-EXEC) · chains (R-CHAIN).

mod support;

use std::sync::Arc;
use std::time::Duration;

use hook_core::{
    CancellationToken, CompactTrigger, Decision, Error, EventNameError, ExecutionHook, ExecutionMode, FlowControl,
    HookContext, HookEngine, HookEventType, HookExecutionPolicy, HookExecutor, HookFeedback, HookRegistry, HookResult,
    PermissionOutcome, PreCompactOutcome, PreToolOutcome, ToolCall, Verdict,
};
use proptest::prelude::*;
use serde_json::json;
use support::{Logs, Script, Scripted};

fn dyn_hook(h: &Arc<Scripted>) -> Arc<dyn ExecutionHook> {
    h.clone()
}

fn bash(command: &str) -> HookContext {
    HookContext::new(HookEventType::PRE_TOOL).with_tool(ToolCall::new("Bash", json!({ "command": command })))
}

fn engine_with(event: HookEventType, hooks: &[&Arc<Scripted>]) -> HookEngine {
    let registry = Arc::new(HookRegistry::new());
    for h in hooks {
        registry.register(event, dyn_hook(h));
    }
    HookEngine::new(registry)
}

async fn run(policy: HookExecutionPolicy, hooks: &[&Arc<Scripted>], ctx: &HookContext) -> hook_core::ExecutionReport {
    let hooks: Vec<Arc<dyn ExecutionHook>> = hooks.iter().map(|h| dyn_hook(h)).collect();
    HookExecutor.execute(&hooks, ctx, &policy, &CancellationToken::new()).await
}

// ---------------------------------------------------------------------------------------------
// R-EVT

#[test]
fn every_claude_code_event_and_the_two_aimon_ones_in_canonical_order_with_their_names() {
    // R-EVT table, R-EVT-0, R-EVT-2 (reverse mapping returns PermissionRequest/SubagentStart too).
    let rows: Vec<(&str, Option<&str>)> = HookEventType::ALL.iter().map(|e| (e.name(), e.claude_name())).collect();
    assert_eq!(
        rows,
        vec![
            ("onStart", None),
            ("onStop", Some("Stop")),
            ("preTool", Some("PreToolUse")),
            ("postTool", Some("PostToolUse")),
            ("permissionRequest", Some("PermissionRequest")),
            ("permissionDenied", Some("PermissionDenied")),
            ("subagentStart", Some("SubagentStart")),
            ("subagentStop", Some("SubagentStop")),
            ("preCompact", Some("PreCompact")),
            ("postCompact", Some("PostCompact")),
            ("onSessionStart", Some("SessionStart")),
            ("onSessionEnd", Some("SessionEnd")),
            ("onConfigReload", None),
            ("userPromptSubmit", Some("UserPromptSubmit")),
            ("userPromptExpansion", Some("UserPromptExpansion")),
            ("postToolFailure", Some("PostToolUseFailure")),
            ("postToolBatch", Some("PostToolBatch")),
            ("notification", Some("Notification")),
            ("stopFailure", Some("StopFailure")),
            ("taskCreated", Some("TaskCreated")),
            ("taskCompleted", Some("TaskCompleted")),
            ("teammateIdle", Some("TeammateIdle")),
            ("instructionsLoaded", Some("InstructionsLoaded")),
            ("configChange", Some("ConfigChange")),
            ("cwdChanged", Some("CwdChanged")),
            ("directoryAdded", Some("DirectoryAdded")),
            ("fileChanged", Some("FileChanged")),
            ("worktreeCreate", Some("WorktreeCreate")),
            ("worktreeRemove", Some("WorktreeRemove")),
            ("elicitation", Some("Elicitation")),
            ("elicitationResult", Some("ElicitationResult")),
            ("messageDisplay", Some("MessageDisplay")),
            ("setup", Some("Setup")),
            ("preModelSwitch", Some("PreModelSwitch")),
            ("postModelSwitch", Some("PostModelSwitch")),
            ("preSkillShellCommand", Some("PreSkillShellCommand")),
        ]
    );
}

#[test]
fn the_34_claude_code_events_of_2_1_332_each_have_one_entry() {
    // R-EVT-6: the client's own list, in its order.
    let client = [
        "PreToolUse",
        "PostToolUse",
        "PostToolUseFailure",
        "PostToolBatch",
        "Notification",
        "UserPromptSubmit",
        "UserPromptExpansion",
        "SessionStart",
        "SessionEnd",
        "Stop",
        "StopFailure",
        "SubagentStart",
        "SubagentStop",
        "PreCompact",
        "PostCompact",
        "PreModelSwitch",
        "PostModelSwitch",
        "PermissionRequest",
        "PermissionDenied",
        "Setup",
        "TeammateIdle",
        "TaskCreated",
        "TaskCompleted",
        "Elicitation",
        "ElicitationResult",
        "ConfigChange",
        "WorktreeCreate",
        "WorktreeRemove",
        "InstructionsLoaded",
        "CwdChanged",
        "FileChanged",
        "DirectoryAdded",
        "MessageDisplay",
        "PreSkillShellCommand",
    ];
    assert_eq!(client.len(), 34);
    for name in client {
        let event = HookEventType::resolve(name).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(event.claude_name(), Some(name));
    }
    assert_eq!(HookEventType::ALL.iter().filter(|e| e.claude_name().is_some()).count(), 34);
}

#[test]
fn the_events_that_can_refuse_refuse_on_a_configuration_error_and_continuation_events_never_do() {
    // R-EVT-8
    use hook_core::{DecisionChannel, OnFailure};
    let refusing: Vec<&str> =
        HookEventType::ALL.iter().filter(|e| e.spec().on_failure == OnFailure::Refuse).map(|e| e.name()).collect();
    assert_eq!(
        refusing,
        [
            "preTool",
            "permissionRequest",
            "preCompact",
            "userPromptSubmit",
            "userPromptExpansion",
            "configChange",
            "elicitation",
            "preModelSwitch",
            "preSkillShellCommand"
        ]
    );
    for e in HookEventType::ALL.iter().filter(|e| e.spec().decision == DecisionChannel::Continuation) {
        assert_eq!(e.spec().on_failure, OnFailure::Report, "{e}");
    }
    for e in HookEventType::ALL.iter().filter(|e| e.spec().decision == DecisionChannel::Advisory) {
        assert_eq!(e.spec().on_failure, OnFailure::Report, "{e}");
    }
}

#[test]
fn names_resolve_case_insensitively_from_either_spelling() {
    // R-EVT-1
    let cases = [
        ("preToolUse", HookEventType::PRE_TOOL),
        ("PRETOOL", HookEventType::PRE_TOOL),
        ("PreToolUse", HookEventType::PRE_TOOL),
        ("onstart", HookEventType::ON_START),
        ("stop", HookEventType::ON_STOP),
        ("permissionrequest", HookEventType::PERMISSION_REQUEST),
        ("SubagentStart", HookEventType::SUBAGENT_START),
        ("postcompact", HookEventType::POST_COMPACT),
        ("sessionstart", HookEventType::ON_SESSION_START),
        ("onConfigReload", HookEventType::ON_CONFIG_RELOAD),
    ];
    for (name, expected) in cases {
        assert_eq!(HookEventType::resolve(name), Ok(expected), "{name}");
    }
}

#[test]
fn only_stop_hook_active_is_reported_as_unsupported_and_other_unknown_names_apart() {
    // R-EVT-3 (revised in 0.2)
    let cases = [
        ("stop_hook_active", "hooks: 'stop_hook_active' event is not supported by AIMON in this phase"),
        ("preToll", "hooks: unknown event 'preToll'"),
        ("Notifications", "hooks: unknown event 'Notifications'"),
    ];
    for (name, warning) in cases {
        let err = HookEventType::resolve(name).unwrap_err();
        assert_eq!(err.warning(), warning);
        assert_eq!(matches!(err, EventNameError::Unsupported(_)), warning.contains("not supported"));
    }
    for name in ["Notification", "userpromptsubmit", "PostToolUseFailure"] {
        assert!(HookEventType::resolve(name).is_ok(), "{name}");
    }
}

#[test]
fn the_decision_events_feedback_routes_and_rewake_events_are_the_tables() {
    // R-EVT-5, R-EVT-6
    let deciding: Vec<&str> =
        HookEventType::ALL.iter().filter(|e| e.has_decision_channel()).map(|e| e.name()).collect();
    assert_eq!(
        deciding,
        [
            "onStart",
            "onStop",
            "preTool",
            "permissionRequest",
            "subagentStop",
            "preCompact",
            "userPromptSubmit",
            "userPromptExpansion",
            "postToolBatch",
            "taskCreated",
            "taskCompleted",
            "teammateIdle",
            "configChange",
            "worktreeCreate",
            "elicitation",
            "elicitationResult",
            "preModelSwitch",
            "preSkillShellCommand"
        ]
    );
    let feedback: Vec<&str> = HookEventType::ALL
        .iter()
        .filter(|e| e.spec().feedback != hook_core::FeedbackRoute::Discarded)
        .map(|e| e.name())
        .collect();
    assert_eq!(
        feedback,
        [
            "onStart",
            "onStop",
            "preTool",
            "postTool",
            "permissionRequest",
            "subagentStart",
            "subagentStop",
            "preCompact",
            "onSessionStart",
            "userPromptSubmit",
            "userPromptExpansion",
            "postToolFailure",
            "postToolBatch",
            "taskCreated",
            "taskCompleted",
            "teammateIdle",
            "setup",
            "postModelSwitch"
        ]
    );
    let rewake: Vec<&str> = HookEventType::ALL.iter().filter(|e| e.spec().rewake).map(|e| e.name()).collect();
    // R-CFG-RW-1 and, through the session mailbox, R-CFG-RW-1b.
    assert_eq!(
        rewake,
        [
            "onStop",
            "preTool",
            "postTool",
            "subagentStop",
            "preCompact",
            "onSessionStart",
            "onSessionEnd",
            "onConfigReload",
            "userPromptSubmit",
            "postToolFailure"
        ]
    );
}

// ---------------------------------------------------------------------------------------------
// R-RES

fn arb_result() -> impl Strategy<Value = HookResult> {
    (0..3u8, any::<bool>(), proptest::option::of("[a-z]{1,5}")).prop_map(|(d, b, fb)| {
        let mut r = match d {
            0 => HookResult::allow(),
            1 => HookResult::ask("ask"),
            _ => HookResult::deny("deny"),
        };
        if b {
            r.flow = FlowControl::Block;
        }
        if let Some(fb) = fb {
            r.feedback = Some(fb);
        }
        r
    })
}

proptest! {
    #[test]
    fn merge_axes_do_not_depend_on_registration_order(results in proptest::collection::vec(arb_result(), 0..8), seed in any::<u64>()) {
        // R-RES-4: each axis takes the strongest value, whatever the order.
        let forward = HookResult::merge(results.clone());
        let mut shuffled = results.clone();
        let len = shuffled.len().max(1);
        shuffled.rotate_left((seed as usize) % len);
        shuffled.reverse();
        let other = HookResult::merge(shuffled);
        prop_assert_eq!((forward.decision, forward.flow), (other.decision, other.flow));
        let strongest = results.iter().map(|r| r.decision).max().unwrap_or(Decision::Allow);
        prop_assert_eq!(forward.decision, strongest);
        prop_assert_eq!(forward.flow == FlowControl::Block, results.iter().any(|r| r.flow == FlowControl::Block));
    }
}

#[test]
fn merge_joins_feedback_in_order_and_the_last_update_wins() {
    // R-RES-4
    let merged = HookResult::merge([
        HookResult::feedback("first").with_updated_input(json!({"n": 1})),
        HookResult::allow().with_updated_output(json!("out-1")),
        HookResult::feedback("second").with_updated_input(json!({"n": 2})),
    ]);
    assert_eq!(merged.feedback.as_deref(), Some("first\nsecond"));
    assert_eq!(merged.updated_input, Some(json!({"n": 2})));
    assert_eq!(merged.updated_output, Some(json!("out-1")));
}

#[test]
fn an_explicit_allow_survives_merge_only_as_a_marker() {
    // R-CLI-2: an explicit allow is told apart from "no opinion"; a deny still wins the axis.
    assert!(HookResult::merge([HookResult::allow(), HookResult::explicit_allow()]).explicit_allow);
    assert!(!HookResult::merge([HookResult::allow(), HookResult::feedback("x")]).explicit_allow);
    let denied = HookResult::merge([HookResult::explicit_allow(), HookResult::deny("no")]);
    assert_eq!(denied.decision, Decision::Deny);
}

#[test]
fn advisory_collection_never_repeats_a_denial_reason() {
    // R-RES-3, R-RES-5
    let results = [HookResult::deny("no rm"), HookResult::feedback("lint ok"), HookResult::block("halt")];
    assert_eq!(HookFeedback::collect_advisory(&results).as_deref(), Some("lint ok"));
    assert_eq!(HookFeedback::collect_reasons(&results).as_deref(), Some("no rm\nhalt"));
    assert_eq!(
        HookFeedback::append_to_tool_result("output", Some("lint ok")),
        "output\n\n<system-reminder key=\"hook-feedback\">\nlint ok\n</system-reminder>"
    );
}

// ---------------------------------------------------------------------------------------------
// R-REG

#[test]
fn a_dispatch_snapshot_is_unaffected_by_later_registration() {
    // R-REG-2
    let registry = HookRegistry::new();
    let a = Scripted::new("a", Script::Answer(HookResult::allow()));
    registry.register(HookEventType::PRE_TOOL, dyn_hook(&a));
    let snapshot = registry.snapshot();
    registry.register(HookEventType::PRE_TOOL, dyn_hook(&Scripted::new("b", Script::Answer(HookResult::allow()))));
    assert_eq!(snapshot.hooks(HookEventType::PRE_TOOL).len(), 1);
    assert_eq!(registry.hooks(HookEventType::PRE_TOOL).len(), 2);
}

#[test]
fn replacing_managed_hooks_keeps_programmatic_hooks_and_the_group_position() {
    // R-REG-3, R-HOT-4
    let registry = HookRegistry::new();
    let ids = |r: &HookRegistry| -> Vec<String> {
        r.hooks(HookEventType::PRE_TOOL).iter().map(|h| h.id().to_owned()).collect()
    };
    let hook = |id: &str| dyn_hook(&Scripted::new(id, Script::Answer(HookResult::allow())));
    registry.register(HookEventType::PRE_TOOL, hook("prog-1"));
    registry.replace_managed(
        "config",
        vec![(HookEventType::PRE_TOOL, hook("old-1")), (HookEventType::PRE_TOOL, hook("old-2"))],
    );
    registry.register(HookEventType::PRE_TOOL, hook("prog-2"));
    assert_eq!(ids(&registry), ["prog-1", "old-1", "old-2", "prog-2"]);

    let previous = registry.replace_managed("config", vec![(HookEventType::PRE_TOOL, hook("new-1"))]);
    assert_eq!(ids(&registry), ["prog-1", "new-1", "prog-2"]);
    assert_eq!(previous.iter().map(|(_, h)| h.id()).collect::<Vec<_>>(), ["old-1", "old-2"]);

    registry.replace_managed("skill:x", vec![(HookEventType::POST_TOOL, hook("skill-1"))]);
    registry.replace_managed("config", vec![]);
    assert_eq!(ids(&registry), ["prog-1", "prog-2"]);
    assert_eq!(registry.hooks(HookEventType::POST_TOOL).len(), 1);
    registry.clear_all();
    assert!(registry.is_empty());
}

#[test]
fn concurrent_dispatch_never_sees_a_mix_of_two_managed_sets() {
    // R-REG-2, R-HOT-4: writers swap sets of 50 hooks tagged with a generation; readers check one generation per snapshot.
    let registry = Arc::new(HookRegistry::new());
    let set = |generation: usize| -> Vec<(HookEventType, Arc<dyn ExecutionHook>)> {
        (0..50)
            .map(|i| {
                let h = Scripted::new(&format!("g{generation}-{i}"), Script::Answer(HookResult::allow()));
                (HookEventType::PRE_TOOL, dyn_hook(&h))
            })
            .collect()
    };
    registry.replace_managed("config", set(0));
    std::thread::scope(|scope| {
        let writer = registry.clone();
        scope.spawn(move || {
            for generation in 1..200 {
                writer.replace_managed("config", set(generation));
            }
        });
        for _ in 0..2 {
            let reader = registry.clone();
            scope.spawn(move || {
                for _ in 0..2000 {
                    let snapshot = reader.snapshot();
                    let gens: std::collections::BTreeSet<&str> =
                        snapshot.hooks(HookEventType::PRE_TOOL).map(|h| h.id().split('-').next().unwrap()).collect();
                    assert_eq!(gens.len(), 1, "mixed generations: {gens:?}");
                    assert_eq!(snapshot.hooks(HookEventType::PRE_TOOL).len(), 50);
                }
            });
        }
    });
}

// ---------------------------------------------------------------------------------------------
// R-EXEC

#[tokio::test]
async fn sequential_hooks_see_the_input_updated_by_the_previous_hook() {
    // R-EXEC-2
    let a = Scripted::new("a", Script::AppendInput("a", "1"));
    let b = Scripted::new("b", Script::AppendInput("b", "2"));
    let report = run(HookExecutionPolicy::fail_open(), &[&a, &b], &bash("ls")).await;
    assert_eq!(b.seen.lock().unwrap()[0].tool.as_ref().unwrap().input, json!({"command": "ls", "a": "1"}));
    assert_eq!(report.merged.updated_input, Some(json!({"command": "ls", "a": "1", "b": "2"})));
}

#[tokio::test]
async fn a_judge_is_asked_again_on_the_input_a_later_hook_rewrote() {
    // (mode, the hooks in order, the ids run, whether the call is denied)
    let sequential = HookExecutionPolicy::fail_open();
    let parallel = HookExecutionPolicy { mode: ExecutionMode::Parallel, ..HookExecutionPolicy::fail_open() };
    let cases: [(&HookExecutionPolicy, &[&str], &[&str], bool); 4] = [
        (&sequential, &["judge", "rewrite"], &["judge", "rewrite", "judge"], true),
        (&parallel, &["judge", "rewrite"], &["judge", "rewrite", "judge"], true),
        (&sequential, &["judge", "harmless"], &["judge", "harmless", "judge"], false),
        (&sequential, &["judge", "plain"], &["judge", "plain"], false),
    ];
    for (policy, order, ran, denied) in cases {
        let hooks: Vec<Arc<Scripted>> = order
            .iter()
            .map(|id| match *id {
                "judge" => Scripted::judging(id, Script::DenyIfKey("rm")),
                "rewrite" => Scripted::new(id, Script::AppendInput("rm", "-rf")),
                "harmless" => Scripted::new(id, Script::AppendInput("timeout", "5")),
                _ => Scripted::new(id, Script::Answer(HookResult::allow())),
            })
            .collect();
        let report = run(*policy, &hooks.iter().collect::<Vec<_>>(), &bash("ls")).await;
        let ids: Vec<&str> = report.runs.iter().map(|r| r.hook_id.as_str()).collect();
        assert_eq!(ids, ran, "{order:?} {:?}", policy.mode);
        assert_eq!(report.merged.decision == Decision::Deny, denied, "{order:?} {:?}", policy.mode);
    }
    // Where the event runs no rewritten input, nothing is asked again.
    let judge = Scripted::judging("judge", Script::DenyIfKey("rm"));
    let rewrite = Scripted::new("rewrite", Script::AppendInput("rm", "-rf"));
    let post = HookContext::new(HookEventType::POST_TOOL).with_tool(ToolCall::new("Bash", json!({"command": "ls"})));
    let report = run(HookExecutionPolicy::fail_open(), &[&judge, &rewrite], &post).await;
    assert_eq!(report.runs.len(), 2);
}

#[tokio::test]
async fn stop_on_blocked_skips_the_rest_of_a_sequential_chain() {
    // R-EXEC-2
    let a = Scripted::new("a", Script::Answer(HookResult::block("stop")));
    let b = Scripted::new("b", Script::Answer(HookResult::allow()));
    let report = run(HookExecutionPolicy::stop_on_blocked(), &[&a, &b], &bash("ls")).await;
    assert_eq!((report.runs.len(), b.calls()), (1, 0));
    let report = run(HookExecutionPolicy::fail_open(), &[&a, &b], &bash("ls")).await;
    assert_eq!((report.runs.len(), b.calls()), (2, 1));
}

#[tokio::test(start_paused = true)]
async fn parallel_returns_every_result_and_ignores_stop_on_blocked() {
    // R-EXEC-3
    let a = Scripted::new("a", Script::Answer(HookResult::block("stop")));
    let b = Scripted::new("b", Script::SleepThen(Duration::from_secs(3), HookResult::feedback("late")));
    let policy = HookExecutionPolicy { mode: ExecutionMode::Parallel, ..HookExecutionPolicy::stop_on_blocked() };
    let report = run(policy, &[&a, &b], &bash("ls")).await;
    assert_eq!(report.runs.iter().map(|r| r.hook_id.as_str()).collect::<Vec<_>>(), ["a", "b"]);
    assert_eq!(report.merged.flow, FlowControl::Block);
    assert_eq!(report.runs[1].result.feedback.as_deref(), Some("late"));
}

#[tokio::test(start_paused = true)]
async fn parallel_timeout_keeps_the_results_that_finished() {
    // R-EXEC-3
    let fast = Scripted::new("fast", Script::Answer(HookResult::feedback("done")));
    let slow = Scripted::new("slow", Script::SleepThen(Duration::from_secs(120), HookResult::deny("late")));
    let policy = HookExecutionPolicy { mode: ExecutionMode::Parallel, ..HookExecutionPolicy::fail_open() };
    let report = run(policy, &[&fast, &slow], &bash("ls")).await;
    assert_eq!(report.runs[0].result.feedback.as_deref(), Some("done"));
    assert!(report.runs[1].error.as_deref().unwrap().contains("timed out"));
    assert_eq!(report.merged.decision, Decision::Allow);
}

#[tokio::test(start_paused = true)]
async fn declared_budgets_widen_the_net_only_when_at_least_the_policy_timeout() {
    // R-EXEC-4: (budget, hook sleeps, expect finished?) under the 30 s policy.
    let cases = [
        (Duration::from_secs(10), Duration::from_secs(31), false), // shorter budget ignored: 30 s net
        (Duration::from_secs(10), Duration::from_secs(29), true),
        (Duration::from_secs(30), Duration::from_secs(34), true), // equal: 30 + 5 s grace
        (Duration::from_secs(30), Duration::from_secs(36), false),
        (Duration::from_secs(120), Duration::from_secs(124), true), // longer: 120 + 5
        (Duration::from_secs(120), Duration::from_secs(126), false),
    ];
    for (budget, sleep, finishes) in cases {
        let hook = Scripted::with_budget("h", budget, Script::SleepThen(sleep, HookResult::feedback("ok")));
        let started = tokio::time::Instant::now();
        let report = run(HookExecutionPolicy::fail_open(), &[&hook], &bash("ls")).await;
        assert_eq!(report.runs[0].error.is_none(), finishes, "budget {budget:?} sleep {sleep:?}");
        if !finishes {
            let net = HookExecutionPolicy::fail_open().effective_timeout("h", Some(budget));
            assert_eq!(started.elapsed(), net);
        }
    }
}

#[tokio::test(start_paused = true)]
async fn a_budget_over_ten_minutes_is_clamped_with_a_warning() {
    // R-EXEC-4
    let (logs, _guard) = Logs::capture();
    let hook = Scripted::with_budget(
        "long",
        Duration::from_secs(3600),
        Script::SleepThen(Duration::from_secs(3000), HookResult::allow()),
    );
    let started = tokio::time::Instant::now();
    let report = run(HookExecutionPolicy::fail_open(), &[&hook], &bash("ls")).await;
    assert_eq!(started.elapsed(), Duration::from_secs(605));
    assert!(report.runs[0].error.as_deref().unwrap().contains("timed out"));
    assert!(
        logs.text().contains("Hook declared an execution budget of 3600s exceeding the maximum"),
        "{}",
        logs.text()
    );
}

#[tokio::test]
async fn a_panicking_or_failing_hook_is_mapped_by_the_policy() {
    // R-EXEC-6: (script, policy, expected flow)
    let cases = [
        (Script::Panic("boom"), HookExecutionPolicy::fail_open(), FlowControl::Continue),
        (Script::Panic("boom"), HookExecutionPolicy::fail_closed(), FlowControl::Block),
        (Script::Fail("broken"), HookExecutionPolicy::fail_open(), FlowControl::Continue),
        (Script::Fail("broken"), HookExecutionPolicy::fail_closed_stop_on_blocked(), FlowControl::Block),
    ];
    for (script, policy, flow) in cases {
        let hook = Scripted::new("h", script.clone());
        let report = run(policy, &[&hook], &bash("ls")).await;
        assert_eq!(report.merged.flow, flow, "{script:?} {policy:?}");
        assert!(report.runs[0].error.is_some());
        assert!(report.runs[0].result.failure.is_some());
    }
}

#[tokio::test(start_paused = true)]
async fn a_cancelled_wait_blocks_even_under_fail_open_and_later_hooks_never_run() {
    // R-EXEC-7
    let slow = Scripted::new("slow", Script::SleepThen(Duration::from_secs(10), HookResult::allow()));
    let after = Scripted::new("after", Script::Answer(HookResult::allow()));
    let engine = engine_with(HookEventType::PRE_TOOL, &[&slow, &after]);
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_secs(1)).await;
        trigger.cancel();
    });
    let chained = engine.pre_tool(&bash("git push"), &cancel).await;
    assert!(chained.report.interrupted);
    assert_eq!(after.calls(), 0);
    assert!(matches!(chained.outcome, PreToolOutcome::Cancelled { ref reason, .. } if reason.contains("interrupted")));
}

#[tokio::test]
async fn hooks_that_do_not_match_are_not_invoked_nor_reported() {
    // R-EXEC-8, R-CLI-1 `hooks`
    let no = Scripted::declining("no");
    let yes = Scripted::new("yes", Script::Answer(HookResult::allow()));
    let report = run(HookExecutionPolicy::fail_open(), &[&no, &yes], &bash("ls")).await;
    assert_eq!(report.runs.iter().map(|r| r.hook_id.as_str()).collect::<Vec<_>>(), ["yes"]);
    assert_eq!(no.calls(), 0);
}

// ---------------------------------------------------------------------------------------------
// R-CHAIN

#[tokio::test]
async fn pre_tool_chain_outcomes() {
    // R-CHAIN-1, R-CHAIN-2: (answers, expected outcome)
    let cases: Vec<(Vec<HookResult>, PreToolOutcome)> = vec![
        (vec![], PreToolOutcome::Proceed { input: json!({"command": "ls"}), feedback: None }),
        (
            vec![HookResult::feedback("careful"), HookResult::allow().with_updated_input(json!({"command": "ls -la"}))],
            PreToolOutcome::Proceed { input: json!({"command": "ls -la"}), feedback: Some("careful".into()) },
        ),
        (vec![HookResult::ask("confirm push")], PreToolOutcome::Ask { reason: "confirm push".into() }),
        (
            vec![HookResult::feedback("note"), HookResult::deny("no push"), HookResult::ask("confirm")],
            PreToolOutcome::Cancelled {
                reason: "no push".into(),
                tool_result: "no push\n\n<system-reminder key=\"hook-feedback\">\nnote\n</system-reminder>".into(),
            },
        ),
        (
            vec![HookResult::block("veto")],
            PreToolOutcome::Cancelled { reason: "veto".into(), tool_result: "veto".into() },
        ),
    ];
    for (answers, expected) in cases {
        let hooks: Vec<Arc<Scripted>> = answers
            .iter()
            .enumerate()
            .map(|(i, r)| Scripted::new(&format!("h{i}"), Script::Answer(r.clone())))
            .collect();
        let refs: Vec<&Arc<Scripted>> = hooks.iter().collect();
        let engine = engine_with(HookEventType::PRE_TOOL, &refs);
        let chained = engine.pre_tool(&bash("ls"), &CancellationToken::new()).await;
        assert_eq!(chained.outcome, expected);
    }
}

#[tokio::test]
async fn permission_chain_reads_allow_ask_and_deny() {
    // R-CHAIN-2
    let cases = [
        (HookResult::allow(), PermissionOutcome::Allow),
        (HookResult::ask("sure?"), PermissionOutcome::Ask("sure?".into())),
        (HookResult::deny("never"), PermissionOutcome::Deny("never".into())),
        (HookResult::block("veto"), PermissionOutcome::Deny("veto".into())),
    ];
    for (answer, expected) in cases {
        let hook = Scripted::new("h", Script::Answer(answer));
        let engine = engine_with(HookEventType::PERMISSION_REQUEST, &[&hook]);
        let ctx = HookContext::new(HookEventType::PERMISSION_REQUEST).with_tool(ToolCall::new("Bash", json!({})));
        assert_eq!(engine.permission(&ctx, &CancellationToken::new()).await.outcome, expected);
    }
}

#[tokio::test]
async fn post_tool_chain_rewrites_output_and_wraps_feedback_into_the_tool_result() {
    // R-CHAIN-3
    let a = Scripted::new("a", Script::Answer(HookResult::allow().with_updated_output(json!("redacted"))));
    let b = Scripted::new("b", Script::Answer(HookResult::feedback("3 lint errors")));
    let engine = engine_with(HookEventType::POST_TOOL, &[&a, &b]);
    let mut tool = ToolCall::new("Read", json!({"file_path": "/x"}));
    tool.response = Some(json!("secret"));
    let ctx = HookContext::new(HookEventType::POST_TOOL).with_tool(tool);
    let outcome = engine.post_tool(&ctx, &CancellationToken::new()).await.outcome;
    assert_eq!(outcome.output, json!("redacted"));
    assert_eq!(
        outcome.tool_result,
        "redacted\n\n<system-reminder key=\"hook-feedback\">\n3 lint errors\n</system-reminder>"
    );
}

#[tokio::test]
async fn on_start_block_aborts_the_turn_and_feedback_becomes_a_user_message() {
    // R-CHAIN-4
    let fb = Scripted::new("fb", Script::Answer(HookResult::feedback("remember the style guide")));
    let engine = engine_with(HookEventType::ON_START, &[&fb]);
    let ctx = HookContext::new(HookEventType::ON_START);
    let (outcome, _) = engine.on_start(&ctx, &CancellationToken::new()).await;
    assert_eq!(outcome.unwrap().as_deref(), Some("remember the style guide"));

    let blocker = Scripted::new("blocker", Script::Answer(HookResult::block("quota exceeded")));
    let engine = engine_with(HookEventType::ON_START, &[&blocker]);
    let (outcome, _) = engine.on_start(&ctx, &CancellationToken::new()).await;
    assert!(matches!(outcome, Err(Error::ExecutionBlockedByHook { reason }) if reason == "quota exceeded"));
}

#[tokio::test]
async fn pre_compact_block_skips_auto_and_refuses_manual() {
    // R-CHAIN-5
    let blocker = Scripted::new("b", Script::Answer(HookResult::block("not now")));
    let engine = engine_with(HookEventType::PRE_COMPACT, &[&blocker]);
    let ctx = HookContext::new(HookEventType::PRE_COMPACT);
    let cancel = CancellationToken::new();
    assert_eq!(
        engine.pre_compact(&ctx, CompactTrigger::Auto, &cancel).await.outcome,
        PreCompactOutcome::Skipped { reason: "not now".into() }
    );
    assert_eq!(
        engine.pre_compact(&ctx, CompactTrigger::Manual, &cancel).await.outcome,
        PreCompactOutcome::Refused { reason: "not now".into() }
    );
    let advisor = Scripted::new("a", Script::Answer(HookResult::feedback("keep the TODO list")));
    let engine = engine_with(HookEventType::PRE_COMPACT, &[&advisor]);
    assert_eq!(
        engine.pre_compact(&ctx, CompactTrigger::Auto, &cancel).await.outcome,
        PreCompactOutcome::Proceed { custom_instructions: Some("keep the TODO list".into()) }
    );
}

#[tokio::test]
async fn a_block_on_an_advisory_event_changes_nothing_and_is_logged() {
    // R-CHAIN-6, R-EVT-5
    let (logs, _guard) = Logs::capture();
    let blocker = Scripted::new("stopper", Script::Answer(HookResult::block("halt").with_feedback("dropped")));
    let after = Scripted::new("after", Script::Answer(HookResult::allow()));
    let engine = engine_with(HookEventType::POST_COMPACT, &[&blocker, &after]);
    let verdict = engine.run_event(&HookContext::new(HookEventType::POST_COMPACT), &CancellationToken::new()).await;
    assert_eq!((verdict.outcome, verdict.reason, verdict.feedback), (Verdict::Proceed, None, None));
    assert_eq!(after.calls(), 1);
    assert!(
        logs.text()
            .contains("hooks: block from hook 'stopper' on 'postCompact' ignored: event has no decision channel")
    );
}

#[tokio::test]
async fn verdicts_follow_the_events_table() {
    // R-CLI-1 outcome rules, derived from R-EVT-5 and R-CHAIN-2.
    let cases = [
        (HookEventType::PRE_TOOL, HookResult::deny("d"), Verdict::Denied),
        (HookEventType::PRE_TOOL, HookResult::block("b"), Verdict::Blocked),
        (HookEventType::PRE_TOOL, HookResult::ask("a"), Verdict::Ask),
        (HookEventType::PERMISSION_REQUEST, HookResult::block("b"), Verdict::Denied),
        (HookEventType::PERMISSION_REQUEST, HookResult::ask("a"), Verdict::Ask),
        (HookEventType::ON_START, HookResult::ask("a"), Verdict::Proceed),
        (HookEventType::PRE_COMPACT, HookResult::block("b"), Verdict::Blocked),
        (HookEventType::POST_TOOL, HookResult::block("b"), Verdict::Proceed),
        (HookEventType::ON_SESSION_END, HookResult::deny("d"), Verdict::Proceed),
    ];
    for (event, answer, expected) in cases {
        let hook = Scripted::new("h", Script::Answer(answer.clone()));
        let engine = engine_with(event, &[&hook]);
        let verdict = engine.run_event(&HookContext::new(event), &CancellationToken::new()).await;
        assert_eq!(verdict.outcome, expected, "{event} {answer:?}");
    }
}
