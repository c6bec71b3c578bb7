//! The seed's six hooks.json examples (guide §"예제 모음" 1–6) load with no diagnostics, and
//! example 5's three tiers dispatch in the documented order: USER postTool log → PROJECT preTool
//! deny → LOCAL preTool echo (R-CFG-1/2).

use std::path::Path;
use std::sync::Arc;

use hook_config::{BuildEnv, Tier, TierPaths, build_hooks, load_tiers, parse_config};
use hook_core::{
    CancellationToken, ExecutionHook, HookContext, HookEngine, HookEventType, HookRegistry, PreToolOutcome, ToolCall,
};
use serde_json::json;

const EXAMPLE_1: &str = r#"{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "http",
            "url": "https://audit.internal/aimon/pre-bash",
            "headers": { "X-Auth": "${env.AUDIT_TOKEN}" },
            "body": "{\"cmd\":\"${tool_input.command}\",\"invoker\":\"${context.invoker_name}\",\"iteration\":\"${context.iteration}\"}",
            "allowedEnvVars": ["AUDIT_TOKEN"],
            "timeout": 2
          }
        ]
      }
    ]
  }
}"#;

const EXAMPLE_2: &str = r#"{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash(command=^rm\\s+-rf\\s+/)",
        "hooks": [
          { "type": "deny", "reason": "위험한 rm -rf 명령은 차단됩니다." }
        ]
      }
    ]
  }
}"#;

const EXAMPLE_3: &str = r#"{
  "hooks": {
    "PostToolUse": [
      {
        "matcher": "*",
        "hooks": [
          {
            "type": "command",
            "command": "logger -t aimon \"tool=$AIMON_TOOL_NAME status=$AIMON_TOOL_RESULT_STATUS\"",
            "timeout": 1
          }
        ]
      }
    ]
  }
}"#;

const EXAMPLE_4: &str = r#"{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Edit|Write",
        "hooks": [
          {
            "type": "mcp",
            "server": "policy-server",
            "tool": "evaluate_write",
            "args": {
              "path": "${tool_input.file_path}",
              "invoker": "${context.invoker_name}"
            }
          }
        ]
      }
    ]
  }
}"#;

const EXAMPLE_5_USER: &str = r#"{ "hooks": { "PostToolUse": [{ "matcher": "*", "hooks": [{ "type": "command", "command": "logger -t aimon-user \"$AIMON_TOOL_NAME\"" }] }] } }"#;
const EXAMPLE_5_PROJECT: &str = r#"{ "hooks": { "PreToolUse": [{ "matcher": "Bash(command=^git\\s+push.*--force)", "hooks": [{ "type": "deny", "reason": "force push 금지" }] }] } }"#;
const EXAMPLE_5_LOCAL: &str = r#"{ "hooks": { "PreToolUse": [{ "matcher": "*", "hooks": [{ "type": "command", "command": "echo PRE \"$AIMON_TOOL_NAME\" >&2" }] }] } }"#;

const EXAMPLE_6: &str = r#"{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash(command=^kubectl\\s+apply.*-prod)",
        "hooks": [
          {
            "type": "mcp",
            "server": "approval-gateway",
            "tool": "request_human_approval",
            "args": {
              "command": "${tool_input.command}",
              "invoker": "${context.invoker_name}"
            },
            "asyncRewake": {
              "trigger": { "event": { "type": "approval", "key": "prod-kubectl-apply" } },
              "timeout": "1h",
              "maxAttempts": 1,
              "reason": "awaiting human approval for prod kubectl apply"
            }
          }
        ]
      }
    ]
  }
}"#;

#[test]
fn the_six_seed_examples_load_with_no_diagnostics() {
    let examples = [
        ("example1", EXAMPLE_1, 1),
        ("example2", EXAMPLE_2, 1),
        ("example3", EXAMPLE_3, 1),
        ("example4", EXAMPLE_4, 1),
        ("example5-user", EXAMPLE_5_USER, 1),
        ("example5-project", EXAMPLE_5_PROJECT, 1),
        ("example5-local", EXAMPLE_5_LOCAL, 1),
        ("example6", EXAMPLE_6, 1),
    ];
    for (name, text, handlers) in examples {
        let (file, diagnostics) = parse_config(text, Path::new(name), Tier::Project).expect(name);
        assert!(diagnostics.is_empty(), "{name}: {diagnostics:?}");
        let count: usize = file.entries.iter().map(|e| e.handlers.len()).sum();
        assert_eq!(count, handlers, "{name}");
    }
    let (file, _) = parse_config(EXAMPLE_6, Path::new("example6"), Tier::Project).expect("example 6");
    let rewake = file.entries[0].handlers[0].rewake.as_ref().expect("example 6 keeps its asyncRewake");
    assert_eq!(rewake.max_attempts, 1);
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

#[tokio::test]
async fn example_five_dispatches_user_then_project_then_local() {
    let home = tempfile::tempdir().expect("home");
    let project = tempfile::tempdir().expect("project");
    let paths = TierPaths::new(Some(home.path().to_owned()), project.path());
    write(&paths.user_file().expect("user file"), EXAMPLE_5_USER);
    write(&paths.project_file(), EXAMPLE_5_PROJECT);
    write(&paths.local_file(), EXAMPLE_5_LOCAL);

    let (config, diagnostics) = load_tiers(&paths).expect("loads");
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    let hooks = build_hooks(&config, &BuildEnv::new(&paths));
    let order: Vec<(Tier, HookEventType, String)> = hooks
        .iter()
        .map(|(e, h)| (h.tier(), *e, h.describe().split(' ').next().unwrap_or_default().to_owned()))
        .collect();
    assert_eq!(
        order,
        vec![
            (Tier::User, HookEventType::POST_TOOL, "command".to_owned()),
            (Tier::Project, HookEventType::PRE_TOOL, "deny".to_owned()),
            (Tier::Local, HookEventType::PRE_TOOL, "command".to_owned()),
        ]
    );
    let sources: Vec<&str> = hooks.iter().map(|(_, h)| h.source()).collect();
    assert_eq!(sources, ["user#0", "project#0", "local#0"]);

    // Real dispatch: the PROJECT deny runs before the LOCAL echo, and both run.
    let registry = Arc::new(HookRegistry::new());
    registry.replace_managed("config", hooks.into_iter().map(|(e, h)| (e, h as Arc<dyn ExecutionHook>)).collect());
    let engine = HookEngine::new(registry);
    let mut ctx = HookContext::new(HookEventType::PRE_TOOL)
        .with_tool(ToolCall::new("Bash", json!({"command": "git push origin main --force"})));
    ctx.project_dir = Some(project.path().to_owned());
    ctx.cwd = Some(project.path().to_owned());
    let chained = engine.pre_tool(&ctx, &CancellationToken::new()).await;
    let ran: Vec<&str> = chained.report.runs.iter().map(|r| r.source.as_str()).collect();
    assert_eq!(ran, ["project#0", "local#0"]);
    assert!(
        matches!(chained.outcome, PreToolOutcome::Cancelled { ref reason, .. } if reason.contains("force push 금지"))
    );

    let benign =
        HookContext::new(HookEventType::PRE_TOOL).with_tool(ToolCall::new("Bash", json!({"command": "git status"})));
    let chained = engine.pre_tool(&benign, &CancellationToken::new()).await;
    let ran: Vec<&str> = chained.report.runs.iter().map(|r| r.source.as_str()).collect();
    assert_eq!(ran, ["local#0"]);
}
