//! Scenarios across the crates, on real files and real processes.
//!
//! Contents:
//! 1. a project rule denies a chained `git push` through the pre-tool chain (R-PRED-4, R-CFG-2, R-CHAIN-1)
//! 2. tiers then an active skill dispatch in order, and deactivation removes only the skill (R-CFG-2, R-SKILL-3)
//! 3. an `asyncRewake` declared in hooks.json re-invokes only its own hook (R-RW-1…5, R-CFG-RW)

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use hook_config::{BuildEnv, CONFIG_GROUP, TierPaths, build_hooks, load_tiers};
use hook_core::{
    CancellationToken, ExecutionHook, HookContext, HookEngine, HookEventType, HookRegistry, PreToolOutcome, ToolCall,
};
use hook_rewake::{DefaultRewakeFireListener, DefaultRewakeService, RewakeRuntime, RewakeService, RuntimeRegistry};
use hook_skill::SkillHooks;
use serde_json::json;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// Loads the tiers under `home`/`project` into a fresh registry's config group.
fn load(home: &Path, project: &Path) -> (Arc<HookRegistry>, BuildEnv) {
    let paths = TierPaths::new(Some(home.to_path_buf()), project);
    let (config, diagnostics) = load_tiers(&paths).unwrap();
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    let env = BuildEnv::new(&paths);
    let registry = Arc::new(HookRegistry::new());
    let hooks = build_hooks(&config, &env).into_iter().map(|(e, h)| (e, h as Arc<dyn ExecutionHook>)).collect();
    registry.replace_managed(CONFIG_GROUP, hooks);
    (registry, env)
}

fn bash(project: &Path, command: &str) -> HookContext {
    let mut ctx =
        HookContext::new(HookEventType::PRE_TOOL).with_tool(ToolCall::new("Bash", json!({ "command": command })));
    ctx.project_dir = Some(project.to_path_buf());
    ctx.cwd = Some(project.to_path_buf());
    ctx.context_id = Some("ctx-1".to_owned());
    ctx
}

#[tokio::test]
async fn a_project_rule_denies_a_chained_git_push_and_lets_ls_through() {
    let dir = tempfile::tempdir().unwrap();
    let (home, project) = (dir.path().join("home"), dir.path().join("project"));
    write(
        &project.join(".aimon/hooks.json"),
        r#"{"hooks": {"PreToolUse": [
            {"matcher": "Bash(git push:*)", "hooks": [{"type": "deny", "reason": "pushes go through review"}]},
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "echo '{\"hookSpecificOutput\": {\"additionalContext\": \"bash seen\"}}'"}]}
        ]}}"#,
    );
    let (registry, _env) = load(&home, &project);
    let engine = HookEngine::new(registry);
    let cancel = CancellationToken::new();

    let denied = engine.pre_tool(&bash(&project, "cd repo && FOO=1 git push origin main"), &cancel).await;
    match denied.outcome {
        PreToolOutcome::Cancelled { reason, tool_result } => {
            assert_eq!(reason, "pushes go through review");
            assert!(tool_result.contains("<system-reminder key=\"hook-feedback\">\nbash seen\n</system-reminder>"));
        }
        other => panic!("expected a cancelled call, got {other:?}"),
    }

    let allowed = engine.pre_tool(&bash(&project, "ls -la"), &cancel).await;
    assert_eq!(
        allowed.outcome,
        PreToolOutcome::Proceed { input: json!({"command": "ls -la"}), feedback: Some("bash seen".to_owned()) }
    );
}

#[tokio::test]
async fn tiers_then_an_active_skill_dispatch_in_order_and_deactivation_removes_only_the_skill() {
    let dir = tempfile::tempdir().unwrap();
    let (home, project) = (dir.path().join("home"), dir.path().join("project"));
    let order = dir.path().join("order.txt");
    let hook = |name: &str| {
        format!(
            r#"{{"hooks": {{"PostToolUse": [{{"matcher": "*", "hooks": [{{"type": "command", "command": "echo {name} >> '{}'"}}]}}]}}}}"#,
            order.display()
        )
    };
    write(&home.join(".aimon/hooks.json"), &hook("user"));
    write(&project.join(".aimon/hooks.json"), &hook("project"));
    write(&project.join(".aimon/hooks.local.json"), &hook("local"));
    let (registry, env) = load(&home, &project);
    let skill = SkillHooks::parse(
        &format!(
            "---\nname: tidy\nhooks:\n  postTool:\n    - matcher: \"*\"\n      action: {{ type: shell, command: \"echo skill >> '{}'\" }}\n---\n# tidy\n",
            order.display()
        ),
        "tidy",
    )
    .unwrap();
    let guard = skill.activate(&registry, &env);
    let engine = HookEngine::new(registry.clone());
    let mut ctx =
        HookContext::new(HookEventType::POST_TOOL).with_tool(ToolCall::new("Read", json!({"file_path": "a"})));
    ctx.cwd = Some(project.clone());

    engine.post_tool(&ctx, &CancellationToken::new()).await;
    assert_eq!(std::fs::read_to_string(&order).unwrap(), "user\nproject\nlocal\nskill\n");

    guard.deactivate();
    std::fs::remove_file(&order).unwrap();
    engine.post_tool(&ctx, &CancellationToken::new()).await;
    assert_eq!(std::fs::read_to_string(&order).unwrap(), "user\nproject\nlocal\n");
}

#[derive(Debug)]
struct LiveSession;

impl RewakeRuntime for LiveSession {
    fn rehydrate(&self, snapshot: &HookContext) -> Option<HookContext> {
        Some(snapshot.clone())
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_async_rewake_from_hooks_json_reinvokes_only_its_own_hook() {
    let dir = tempfile::tempdir().unwrap();
    let (home, project) = (dir.path().join("home"), dir.path().join("project"));
    let (rewoken, sibling) = (dir.path().join("rewoken.txt"), dir.path().join("sibling.txt"));
    write(
        &project.join(".aimon/hooks.json"),
        &format!(
            r#"{{"hooks": {{"PreToolUse": [{{"matcher": "Bash", "hooks": [
                {{"type": "command", "command": "cat >> '{}'", "asyncRewake": {{"trigger": {{"delay": "1s"}}, "maxAttempts": 1, "reason": "awaiting approval"}}}},
                {{"type": "command", "command": "echo sibling >> '{}'"}}
            ]}}]}}}}"#,
            rewoken.display(),
            sibling.display()
        ),
    );
    let (registry, _env) = load(&home, &project);
    let runtimes = Arc::new(RuntimeRegistry::new());
    runtimes.register("ctx-1", Arc::new(LiveSession));
    let listener = Arc::new(DefaultRewakeFireListener::new(registry.clone(), runtimes));
    let service = DefaultRewakeService::builder(listener.clone()).start().unwrap();
    assert!(listener.bind_service(&service));
    let engine = HookEngine::new(registry).with_rewake(service.clone());

    let first = engine.pre_tool(&bash(&project, "kubectl apply -f prod.yaml"), &CancellationToken::new()).await;
    assert!(matches!(first.outcome, PreToolOutcome::Proceed { .. }), "the turn is not held (R-RW-1)");
    assert_eq!(service.pending().len(), 1);

    // Real time: the delay is one second; allow a generous bound for a loaded machine.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while std::fs::read_to_string(&rewoken).map(|t| t.lines().count()).unwrap_or(0) < 2 {
        assert!(tokio::time::Instant::now() < deadline, "the rewake never fired");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let runs: Vec<serde_json::Value> =
        std::fs::read_to_string(&rewoken).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(runs.len(), 2, "first run + one fire (maxAttempts = 1)");
    assert_eq!(runs[0]["tool_input"]["command"], "kubectl apply -f prod.yaml");
    assert_eq!(std::fs::read_to_string(&sibling).unwrap(), "sibling\n", "siblings are not re-run (R-RW-4)");
    assert!(service.pending().is_empty(), "a fired one-shot envelope leaves the pending list (R-RW-5)");
}
