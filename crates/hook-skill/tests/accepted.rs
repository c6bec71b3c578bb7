//! What the frontmatter schema accepts, and how each action maps onto hook-config's handler
//! (R-SKILL-2, R-ACT-SH-4, R-ACT-HTTP-1, R-ACT-MCP-1, R-ACT-DENY-1, R-CFG-4c).

use hook_core::HookEventType;
use hook_skill::SkillHooks;

#[test]
fn every_action_type_with_every_field_maps_onto_a_hook_config_handler() {
    let text = r#"---
name: full-skill
description: every field the frontmatter takes
allowed-tools: [Read, Grep]
hooks:
  preTool:
    - matcher: "Bash(git push:*)"
      action: { type: shell, command: "./check-push.sh", timeoutMs: 1500, failClosed: true }
    - matcher: "mcp__.*"
      action:
        type: http
        url: "http://127.0.0.1:9/review"
        method: put
        headers: { Authorization: "Bearer ${env.TOKEN}" }
        body: { tool: "${context.tool_name}", flags: [1, 2.5, true, null, no] }
        allowedEnvVars: [TOKEN]
        timeoutMs: 2000
    - action: { type: mcp, server: reviewer, tool: check, args: { path: "${tool_input.file_path}" } }
    - matcher: "Edit(*.lock)"
      action: { type: deny, reason: "lock files are generated" }
  postTool:
    - action: { type: http, url: "http://127.0.0.1:9/audit", body: "${tool_input.command}" }
  onStart:
    - action: { type: shell, command: "echo start" }
  onStop:
    - action: { type: shell, command: "echo done" }
    - action: { type: http, url: "http://127.0.0.1:9/stop" }
  subagentStart:
    - action: { type: shell, command: "echo sub" }
  subagentStop:
    - action: { type: shell, command: "echo sub-end" }
  permissionRequest:
    - action: { type: shell, command: "echo ask" }
  permissionDenied:
    - action: { type: shell, command: "echo denied" }
  preCompact:
    - action: { type: shell, command: "echo compact" }
    - action: { type: mcp, server: reviewer, tool: compact }
  postCompact:
    - action: { type: shell, command: "echo compacted" }
---
"#;
    let hooks = SkillHooks::parse(text, "full-skill").unwrap();
    let frontmatter_events = HookEventType::ALL.iter().filter(|e| e.spec().frontmatter).count();
    let mut seen: Vec<HookEventType> = hooks.entries().iter().map(|e| e.event).collect();
    seen.dedup();
    assert_eq!(seen.len(), frontmatter_events, "every frontmatter event is exercised");
    insta::assert_snapshot!(hooks.render());
}

/// A `~/` path rule needs no home directory to be read: a skill can protect home files.
#[test]
fn a_home_path_rule_in_frontmatter_is_accepted() {
    let text = "---\nname: keys\nhooks:\n  preTool:\n    - matcher: \"Read(~/.ssh/**)\"\n      action: { type: deny, reason: \"no keys\" }\n---\n";
    let hooks = SkillHooks::parse(text, "keys").unwrap_or_else(|e| panic!("a '~/' rule is refused: {e}"));
    assert_eq!(hooks.render(), "SKILL keys preTool matcher=\"Read(~/.ssh/**)\" deny \"no keys\"\n");
}
