//! The skill scope (R-SKILL-3): hooks are present exactly between activation and deactivation,
//! isolated from the file tiers, from programmatic hooks and from other skills.

use std::path::Path;
use std::sync::Arc;

use hook_config::{BuildEnv, CONFIG_GROUP, TierPaths};
use hook_core::{
    CancellationToken, ExecutionHook, FnHook, HookContext, HookEngine, HookEventType, HookRegistry, HookResult,
    PreToolOutcome, ToolCall,
};
use hook_skill::{Error, SkillHooks};
use serde_json::json;

fn skill(name: &str, denied_tool: &str) -> SkillHooks {
    let text = format!(
        "---\nname: {name}\nhooks:\n  preTool:\n    - matcher: {denied_tool}\n      action: {{ type: deny, reason: \"{name} forbids {denied_tool}\" }}\n  onStop:\n    - action: {{ type: shell, command: \"true\" }}\n---\n"
    );
    SkillHooks::parse(&text, name).unwrap()
}

fn env(dir: &Path) -> BuildEnv {
    BuildEnv::new(&TierPaths::new(None, dir))
}

/// Every registered hook id, sorted.
fn ids(registry: &HookRegistry) -> Vec<String> {
    let mut ids: Vec<String> =
        HookEventType::ALL.iter().flat_map(|&e| registry.hooks(e)).map(|h| h.id().to_owned()).collect();
    ids.sort();
    ids
}

fn sorted(ids: &[String]) -> Vec<String> {
    let mut ids = ids.to_vec();
    ids.sort();
    ids
}

async fn pre_tool(engine: &HookEngine, tool: &str) -> PreToolOutcome {
    let ctx = HookContext::new(HookEventType::PRE_TOOL).with_tool(ToolCall::new(tool, json!({})));
    engine.pre_tool(&ctx, &CancellationToken::new()).await.outcome
}

fn cancelled(outcome: &PreToolOutcome) -> Option<&str> {
    match outcome {
        PreToolOutcome::Cancelled { reason, .. } => Some(reason),
        _ => None,
    }
}

#[tokio::test]
async fn hooks_are_present_only_between_activation_and_deactivation() {
    let dir = tempfile::tempdir().unwrap();
    let registry = Arc::new(HookRegistry::new());
    let engine = HookEngine::new(registry.clone());
    let a = skill("skill-a", "Bash");

    assert_eq!(cancelled(&pre_tool(&engine, "Bash").await), None);
    let guard = a.activate(&registry, &env(dir.path()));
    assert_eq!(cancelled(&pre_tool(&engine, "Bash").await), Some("skill-a forbids Bash"));
    assert_eq!(ids(&registry), sorted(guard.hook_ids()));
    assert!(guard.hook_ids().iter().all(|id| id.contains("@skill-a#")), "{:?}", guard.hook_ids());
    guard.deactivate();
    assert_eq!(cancelled(&pre_tool(&engine, "Bash").await), None);
    assert!(registry.is_empty());

    // Dropping the guard is the same as deactivating it.
    {
        let _guard = a.activate(&registry, &env(dir.path()));
        assert_eq!(registry.hooks(HookEventType::PRE_TOOL).len(), 1);
    }
    assert!(registry.is_empty());
}

#[tokio::test]
async fn two_active_skills_do_not_disturb_each_other() {
    let dir = tempfile::tempdir().unwrap();
    let registry = Arc::new(HookRegistry::new());
    let engine = HookEngine::new(registry.clone());
    let guard_a = skill("skill-a", "Bash").activate(&registry, &env(dir.path()));
    let guard_b = skill("skill-b", "Write").activate(&registry, &env(dir.path()));
    assert_eq!(registry.hooks(HookEventType::PRE_TOOL).len(), 2);
    assert_eq!(cancelled(&pre_tool(&engine, "Bash").await), Some("skill-a forbids Bash"));
    assert_eq!(cancelled(&pre_tool(&engine, "Write").await), Some("skill-b forbids Write"));

    let b_ids = sorted(guard_b.hook_ids());
    drop(guard_a);
    assert_eq!(ids(&registry), b_ids);
    assert_eq!(cancelled(&pre_tool(&engine, "Bash").await), None);
    assert_eq!(cancelled(&pre_tool(&engine, "Write").await), Some("skill-b forbids Write"));
    drop(guard_b);
    assert!(registry.is_empty());
}

#[test]
fn the_same_skill_activated_twice_keeps_two_independent_sets() {
    let dir = tempfile::tempdir().unwrap();
    let registry = Arc::new(HookRegistry::new());
    let a = skill("skill-a", "Bash");
    let first = a.activate(&registry, &env(dir.path()));
    let second = a.activate(&registry, &env(dir.path()));
    assert_ne!(first.group(), second.group());
    // Ids are content-derived: both activations give the same ids (R-CFG-ID-2).
    assert_eq!(first.hook_ids(), second.hook_ids());
    assert_eq!(registry.hooks(HookEventType::PRE_TOOL).len(), 2);
    drop(first);
    assert_eq!(ids(&registry), sorted(second.hook_ids()));
}

#[tokio::test]
async fn deactivating_a_skill_leaves_file_tier_and_programmatic_hooks_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let paths = TierPaths::new(None, dir.path());
    std::fs::create_dir_all(paths.project_file().parent().unwrap()).unwrap();
    let hooks_json = json!({"hooks": {"preTool": [{"matcher": "Read", "hooks": [{"type": "deny", "reason": "project forbids Read"}]}]}});
    std::fs::write(paths.project_file(), hooks_json.to_string()).unwrap();
    let (config, diagnostics) = hook_config::load_tiers(&paths).unwrap();
    assert!(diagnostics.is_empty(), "{diagnostics:?}");

    let registry = Arc::new(HookRegistry::new());
    let engine = HookEngine::new(registry.clone());
    let programmatic: Arc<dyn ExecutionHook> = FnHook::new("audit", |_| async { Ok(HookResult::allow()) });
    registry.register(HookEventType::PRE_TOOL, programmatic.clone());
    let file_hooks = hook_config::build_hooks(&config, &env(dir.path()));
    registry
        .replace_managed(CONFIG_GROUP, file_hooks.into_iter().map(|(e, h)| (e, h as Arc<dyn ExecutionHook>)).collect());
    let before = ids(&registry);
    assert_eq!(before.len(), 2, "{before:?}");

    let guard = skill("skill-a", "Bash").activate(&registry, &env(dir.path()));
    assert_eq!(ids(&registry).len(), 4);
    assert_eq!(cancelled(&pre_tool(&engine, "Bash").await), Some("skill-a forbids Bash"));
    assert_eq!(cancelled(&pre_tool(&engine, "Read").await), Some("project forbids Read"));
    guard.deactivate();

    assert_eq!(ids(&registry), before);
    assert!(Arc::ptr_eq(&registry.hooks(HookEventType::PRE_TOOL)[0], &programmatic));
    assert_eq!(registry.snapshot().managed(CONFIG_GROUP).len(), 1);
    assert_eq!(cancelled(&pre_tool(&engine, "Read").await), Some("project forbids Read"));
    assert_eq!(cancelled(&pre_tool(&engine, "Bash").await), None);
}

#[test]
fn from_path_names_the_skill_by_its_frontmatter_name_else_its_directory() {
    let dir = tempfile::tempdir().unwrap();
    let skill_dir = dir.path().join("pdf-tools");
    std::fs::create_dir(&skill_dir).unwrap();
    let file = skill_dir.join("SKILL.md");
    let hooks = "hooks:\n  onStop:\n    - action: { type: shell, command: \"true\" }\n";

    std::fs::write(&file, format!("---\nname: pdf-extract\n{hooks}---\n")).unwrap();
    let named = SkillHooks::from_path(&file).unwrap();
    assert_eq!(named.name(), "pdf-extract");
    let guard = named.activate(&Arc::new(HookRegistry::new()), &env(dir.path()));
    assert!(guard.hook_ids()[0].starts_with("command@pdf-extract#"), "{:?}", guard.hook_ids());

    std::fs::write(&file, format!("---\ndescription: no name here\n{hooks}---\n")).unwrap();
    assert_eq!(SkillHooks::from_path(&file).unwrap().name(), "pdf-tools");

    let bad_dir = dir.path().join("bad name");
    std::fs::create_dir(&bad_dir).unwrap();
    std::fs::write(bad_dir.join("SKILL.md"), format!("---\n{hooks}---\n")).unwrap();
    let error = SkillHooks::from_path(&bad_dir.join("SKILL.md")).unwrap_err();
    assert!(matches!(error, Error::SkillName { .. }), "{error}");

    let missing = SkillHooks::from_path(&dir.path().join("nope").join("SKILL.md")).unwrap_err();
    assert!(matches!(missing, Error::Read { .. }), "{missing}");
}

#[test]
fn a_skill_without_frontmatter_or_hooks_declares_nothing() {
    for text in [
        "# just markdown\n",
        "---\nname: a\ndescription: x\n---\n",
        "---\n---\n",
        "---\nhooks:\n---\n",
        "---\nhooks: {}\n---\n",
    ] {
        let hooks = SkillHooks::parse(text, "a").unwrap();
        assert!(hooks.is_empty(), "{text:?}");
    }
}

#[test]
fn from_path_reads_only_the_head_of_a_large_skill_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("SKILL.md");
    let mut text =
        b"---\nname: big\nhooks:\n  onStop:\n    - action: { type: shell, command: \"true\" }\n---\n".to_vec();
    text.extend(std::iter::repeat_n(b'x', 8 << 20));
    text.extend([0xff, 0xfe]);
    std::fs::write(&file, &text).unwrap();
    let hooks = SkillHooks::from_path(&file).unwrap();
    assert_eq!((hooks.name(), hooks.len()), ("big", 1));
}
