//! Seed 001, example 7 ("Skill frontmatter hooks: block"), end to end through hook-core's chains
//! with real shell processes (R-SKILL-1…3, R-CHAIN-1/3/4, R-ACT-SH-1…3).

use std::path::Path;
use std::sync::Arc;

use hook_config::{BuildEnv, TierPaths};
use hook_core::{CancellationToken, HookContext, HookEngine, HookEventType, HookRegistry, PreToolOutcome, ToolCall};
use hook_skill::SkillHooks;
use serde_json::json;

/// The seed's text, verbatim (the reason is the seed's Korean sentence).
const EXAMPLE_7: &str = r#"---
name: my-skill
description: ...
hooks:
  preTool:
    - matcher: "Read"
      action: { type: shell, command: "echo skill-pre-read >&2", timeoutMs: 5000 }
    - matcher: "Bash"
      action: { type: deny, reason: "이 skill 에서는 Bash 를 쓰지 않습니다" }
  postTool:
    - matcher: "*"
      action: { type: shell, command: "echo skill-post >&2" }
  onStart:
    - action: { type: shell, command: "echo skill-started >&2" }
---

# my-skill
"#;

fn env(dir: &Path) -> BuildEnv {
    BuildEnv::new(&TierPaths::new(None, dir))
}

fn tool_ctx(event: HookEventType, tool: &str, input: serde_json::Value, cwd: &Path) -> HookContext {
    let mut ctx = HookContext::new(event).with_tool(ToolCall::new(tool, input));
    ctx.cwd = Some(cwd.to_owned());
    ctx
}

#[test]
fn example_7_parses_into_four_skill_hooks() {
    let hooks = SkillHooks::parse(EXAMPLE_7, "my-skill").unwrap();
    assert_eq!(hooks.name(), "my-skill");
    let events: Vec<HookEventType> = hooks.entries().iter().map(|e| e.event).collect();
    assert_eq!(
        events,
        [HookEventType::PRE_TOOL, HookEventType::PRE_TOOL, HookEventType::POST_TOOL, HookEventType::ON_START]
    );
    insta::assert_snapshot!(hooks.render());
}

#[tokio::test]
async fn example_7_behaves_as_documented_through_the_chains() {
    let dir = tempfile::tempdir().unwrap();
    let hooks = SkillHooks::parse(EXAMPLE_7, "my-skill").unwrap();
    let registry = Arc::new(HookRegistry::new());
    let engine = HookEngine::new(registry.clone());
    let cancel = CancellationToken::new();
    let guard = hooks.activate(&registry, &env(dir.path()));

    // Read → the shell hook runs (exit 0) and the call proceeds unchanged.
    let input = json!({"file_path": "notes.md"});
    let read = engine.pre_tool(&tool_ctx(HookEventType::PRE_TOOL, "Read", input.clone(), dir.path()), &cancel).await;
    assert_eq!(read.outcome, PreToolOutcome::Proceed { input, feedback: None });
    let ran: Vec<&str> = read.report.runs.iter().map(|r| r.hook_id.as_str()).collect();
    assert_eq!(ran.len(), 1, "{ran:?}");
    assert!(ran[0].starts_with("command@my-skill#"), "{ran:?}");
    assert_eq!(read.report.runs[0].error, None);

    // Bash → the deny action cancels the call with the seed's reason.
    let bash = engine
        .pre_tool(&tool_ctx(HookEventType::PRE_TOOL, "Bash", json!({"command": "ls"}), dir.path()), &cancel)
        .await;
    let PreToolOutcome::Cancelled { reason, .. } = &bash.outcome else { panic!("{:?}", bash.outcome) };
    assert_eq!(reason, "이 skill 에서는 Bash 를 쓰지 않습니다");
    assert!(bash.report.runs.iter().all(|r| r.hook_id.starts_with("deny@my-skill#")), "{:?}", bash.report.runs);

    // Any other tool → no skill hook matches.
    let write = engine.pre_tool(&tool_ctx(HookEventType::PRE_TOOL, "Write", json!({}), dir.path()), &cancel).await;
    assert!(write.report.runs.is_empty());
    assert!(matches!(write.outcome, PreToolOutcome::Proceed { .. }));

    // postTool "*" → runs for every tool.
    let mut post = tool_ctx(HookEventType::POST_TOOL, "Write", json!({}), dir.path());
    post.tool.as_mut().unwrap().response = Some(json!("written"));
    let post = engine.post_tool(&post, &cancel).await;
    assert_eq!(post.report.runs.len(), 1);
    assert!(post.report.runs[0].hook_id.starts_with("command@my-skill#"));
    assert_eq!(post.outcome.output, json!("written"));

    // onStart → runs, the turn goes on.
    let mut start = HookContext::new(HookEventType::ON_START);
    start.cwd = Some(dir.path().to_owned());
    let (outcome, report) = engine.on_start(&start, &cancel).await;
    assert!(outcome.unwrap().is_none());
    assert_eq!(report.runs.len(), 1);

    guard.deactivate();
    assert!(registry.is_empty());
}

#[tokio::test]
async fn skill_shell_hooks_are_real_processes_that_see_the_call_and_can_veto() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log");
    let text = format!(
        r#"---
name: my-skill
hooks:
  preTool:
    - matcher: "Read"
      action: {{ type: shell, command: "echo \"pre $AIMON_TOOL_NAME\" >> '{log}'", timeoutMs: 5000 }}
    - matcher: "Edit"
      action: {{ type: shell, command: "echo 'not in this skill' >&2; exit 2" }}
  postTool:
    - action: {{ type: shell, command: "echo post >> '{log}'" }}
  onStart:
    - action: {{ type: shell, command: "echo started >> '{log}'" }}
---
"#,
        log = log.display()
    );
    let hooks = SkillHooks::parse(&text, "my-skill").unwrap();
    let registry = Arc::new(HookRegistry::new());
    let engine = HookEngine::new(registry.clone());
    let cancel = CancellationToken::new();
    let _guard = hooks.activate(&registry, &env(dir.path()));

    let mut start = HookContext::new(HookEventType::ON_START);
    start.cwd = Some(dir.path().to_owned());
    engine.on_start(&start, &cancel).await.0.unwrap();
    engine.pre_tool(&tool_ctx(HookEventType::PRE_TOOL, "Read", json!({"file_path": "a"}), dir.path()), &cancel).await;
    engine.post_tool(&tool_ctx(HookEventType::POST_TOOL, "Read", json!({"file_path": "a"}), dir.path()), &cancel).await;
    assert_eq!(std::fs::read_to_string(&log).unwrap(), "started\npre Read\npost\n");

    let edit = engine.pre_tool(&tool_ctx(HookEventType::PRE_TOOL, "Edit", json!({}), dir.path()), &cancel).await;
    let PreToolOutcome::Cancelled { reason, .. } = &edit.outcome else { panic!("{:?}", edit.outcome) };
    assert_eq!(reason.trim(), "not in this skill");
}
