//! Declarative hooks (R-CFG-3b, R-PRED-4b, R-CFG-4c, R-CFG-RW-1, R-RW-5, R-CFG-ID-1): what
//! `matches`/`explain` decide, and what `execute` returns, with real actions.

use std::path::Path;
use std::sync::Arc;

use hook_config::{
    BuildEnv, DeclarativeHook, HandlerSpec, HookIds, Tier, TierPaths, TrustGate, TrustStore, build_hooks, parse_config,
};
use hook_core::{
    Decision, ExecutionHook, FlowControl, HookContext, HookEventType, RewakeSpec, RewakeTrigger, ToolCall,
};
use serde_json::json;

fn env(project: &Path) -> BuildEnv {
    BuildEnv::new(&TierPaths::new(None, project))
}

fn build(event: HookEventType, matcher: &str, handler: HandlerSpec, project: &Path) -> Arc<DeclarativeHook> {
    DeclarativeHook::build(event, matcher, &handler, Tier::Project, "project#0", &mut HookIds::new(), &env(project))
}

fn bash(command: &str) -> HookContext {
    HookContext::new(HookEventType::PRE_TOOL).with_tool(ToolCall::new("Bash", json!({ "command": command })))
}

#[test]
fn an_if_rule_narrows_the_entry_matcher_on_tool_events() {
    let hook = build(
        HookEventType::PRE_TOOL,
        "Bash",
        HandlerSpec::deny("no push").with_if("Bash(git push:*)"),
        Path::new("/p"),
    );
    assert!(hook.matches(&bash("cd x && git push origin main")));
    assert_eq!(hook.explain(&bash("git status")).as_deref(), Some("'if' rule 'Bash(git push:*)' does not match"));
    let read = HookContext::new(HookEventType::PRE_TOOL).with_tool(ToolCall::new("Read", json!({"file_path": "a"})));
    assert_eq!(hook.explain(&read).as_deref(), Some("matcher 'Bash' does not match tool 'Read'"));
}

#[test]
fn an_if_rule_on_an_event_without_a_tool_never_runs() {
    let hook =
        build(HookEventType::ON_STOP, "*", HandlerSpec::command("true").with_if("Bash(git push:*)"), Path::new("/p"));
    assert_eq!(
        hook.explain(&HookContext::new(HookEventType::ON_STOP)).as_deref(),
        Some("'if' is not supported on event 'onStop'")
    );
}

#[test]
fn matchers_on_events_without_a_tool_test_the_claude_code_field() {
    let hook = build(HookEventType::PRE_COMPACT, "manual", HandlerSpec::command("true"), Path::new("/p"));
    assert!(hook.matches(&HookContext::new(HookEventType::PRE_COMPACT).with_field("trigger", "manual")));
    assert_eq!(
        hook.explain(&HookContext::new(HookEventType::PRE_COMPACT).with_field("trigger", "auto")).as_deref(),
        Some("matcher 'manual' does not match 'trigger' 'auto'")
    );
    let session =
        build(HookEventType::ON_SESSION_START, "startup|resume", HandlerSpec::command("true"), Path::new("/p"));
    assert!(session.matches(&HookContext::new(HookEventType::ON_SESSION_START).with_field("source", "resume")));
    assert!(!session.matches(&HookContext::new(HookEventType::ON_SESSION_START).with_field("source", "clear")));
}

#[test]
fn a_matcher_on_an_event_with_no_subject_is_ignored_so_the_hook_still_fires() {
    let hook = build(HookEventType::ON_START, "Bash", HandlerSpec::command("true"), Path::new("/p"));
    assert!(hook.matches(&HookContext::new(HookEventType::ON_START)));
    assert_eq!(
        hook.explain(&HookContext::new(HookEventType::PRE_TOOL)).as_deref(),
        Some("declared on event 'onStart', not 'preTool'")
    );
}

#[tokio::test]
async fn a_declarative_hook_attaches_its_rewake_spec_to_every_result() {
    let spec = RewakeSpec::new(RewakeTrigger::Delay(std::time::Duration::from_secs(300)), "awaiting approval");
    let hook =
        build(HookEventType::PRE_TOOL, "*", HandlerSpec::deny("wait").with_rewake(spec.clone()), Path::new("/p"));
    for _ in 0..2 {
        let result = hook.execute(&bash("deploy")).await.expect("runs");
        assert_eq!(result.decision, Decision::Deny);
        assert_eq!(result.rewake_specs, std::slice::from_ref(&spec));
    }
}

#[tokio::test]
async fn the_source_name_reaches_the_command_as_skill_name_and_fail_closed_all_blocks_on_failure() {
    let project = tempfile::tempdir().expect("project");
    let mut ctx = bash("ls");
    ctx.cwd = Some(project.path().to_owned());
    ctx.project_dir = Some(project.path().to_owned());

    let veto = build(
        HookEventType::PRE_TOOL,
        "*",
        HandlerSpec::command("printf %s \"$AIMON_SKILL_NAME\" >&2; exit 2"),
        project.path(),
    );
    let result = veto.execute(&ctx).await.expect("runs");
    assert_eq!((result.flow, result.feedback.as_deref()), (FlowControl::Block, Some("project#0")));

    let broken = HandlerSpec::command("exit 3");
    let open = build(HookEventType::PRE_TOOL, "*", broken.clone(), project.path());
    assert_eq!(open.execute(&ctx).await.expect("runs").flow, FlowControl::Continue, "fail-open by default");
    let closed = DeclarativeHook::build(
        HookEventType::PRE_TOOL,
        "*",
        &broken,
        Tier::Project,
        "project#0",
        &mut HookIds::new(),
        &env(project.path()).with_fail_closed_all(true),
    );
    assert_eq!(closed.execute(&ctx).await.expect("runs").flow, FlowControl::Block, "--fail-closed (R-CFG-4c)");
}

#[test]
fn handler_timeouts_become_the_hooks_execution_budget() {
    let text = r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "x", "timeout": 120}]}]}}"#;
    let (file, _) = parse_config(text, Path::new("hooks.json"), Tier::Project).expect("parses");
    let hooks = build_hooks(&hook_config::LoadedConfig::from_files(vec![file]), &env(Path::new("/p")));
    assert_eq!(hooks[0].1.execution_budget(), Some(std::time::Duration::from_secs(120)));
    assert_eq!(hooks[0].1.describe(), "command \"x\" timeout=120s");
}

#[tokio::test]
async fn an_untrusted_files_code_hooks_are_withheld_and_its_deny_still_runs() {
    // R-CLI-12, through the one builder hot reload and the CLI share.
    let (home, project) = (tempfile::tempdir().expect("home"), tempfile::tempdir().expect("project"));
    let marker = project.path().join("ran");
    let path = project.path().join(".aimon").join("hooks.json");
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    let text = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "deny", "reason": "no"},
        {"type": "command", "command": format!("touch '{}'", marker.display())}
    ]}]}})
    .to_string();
    std::fs::write(&path, &text).expect("write");
    let paths = TierPaths::new(Some(home.path().to_owned()), project.path());
    let built = |gate: TrustGate| {
        let (file, _) = parse_config(&text, &path, Tier::Project).expect("parses");
        build_hooks(&hook_config::LoadedConfig::from_files(vec![file]), &BuildEnv::gated(&paths, gate))
    };
    let hooks = built(TrustGate::from_store(Some(home.path()), project.path()));
    let (deny, command) = (&hooks[0].1, &hooks[1].1);
    assert!(!deny.trusted() && !deny.withheld() && deny.matches(&bash("ls")), "a deny always restricts");
    assert!(command.withheld() && !command.matches(&bash("ls")) && command.would_match(&bash("ls")));
    assert!(command.explain(&bash("ls")).is_some_and(|why| why.contains("is not trusted")));
    assert_eq!(command.execute(&bash("ls")).await.expect("no-op").decision, Decision::Allow);
    assert!(!marker.exists(), "a withheld hook ran its command");

    TrustStore::in_home(home.path()).trust(project.path()).expect("trust");
    let hooks = built(TrustGate::from_store(Some(home.path()), project.path()));
    assert!(hooks.iter().all(|(_, h)| h.trusted() && !h.withheld()) && hooks[1].1.matches(&bash("ls")));
}

#[tokio::test]
async fn a_hook_matched_only_because_the_analyser_was_unsure_may_deny_but_not_allow() {
    let project = tempfile::tempdir().expect("project");
    let allow = r#"printf '%s' '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}'"#;
    let hook = build(HookEventType::PRE_TOOL, "Bash(npm test)", HandlerSpec::command(allow), project.path());
    let cases = [
        ("npm test", true, true),
        // `$NPM` could be `npm`: the rule cannot show this is not `npm test`, so the hook runs…
        ("$NPM test", true, false),
        ("npm run build", false, false),
    ];
    for (command, runs, allows) in cases {
        let mut ctx = bash(command);
        ctx.cwd = Some(project.path().to_owned());
        ctx.project_dir = Some(project.path().to_owned());
        assert_eq!(hook.matches(&ctx), runs, "{command}: runs");
        if runs {
            let result = hook.execute(&ctx).await.expect("runs");
            // …but its allow does not let the call through unasked.
            assert_eq!(result.explicit_allow, allows, "{command}: explicit allow");
        }
    }
}
