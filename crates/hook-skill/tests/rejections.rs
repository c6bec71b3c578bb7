//! Rejected frontmatters and their error texts, pinned by snapshot (R-SKILL-1/2). Every
//! violation is an error naming the line and column (in SKILL.md) and what to write instead.

use hook_skill::{Error, SkillHooks};

/// `(case, the YAML between the fences)`; the file is `---\n{yaml}---\n`.
const CASES: &[(&str, &str)] = &[
    // R-SKILL-1: AIMON event keys only.
    ("claude_alias_pre_tool_use", "hooks:\n  PreToolUse:\n    - action: { type: shell, command: x }\n"),
    ("claude_alias_stop", "hooks:\n  Stop:\n    - action: { type: shell, command: x }\n"),
    ("claude_alias_of_a_lifecycle_event", "hooks:\n  SessionStart:\n    - action: { type: shell, command: x }\n"),
    ("on_session_start", "hooks:\n  onSessionStart:\n    - action: { type: shell, command: x }\n"),
    ("on_session_end", "hooks:\n  onSessionEnd:\n    - action: { type: shell, command: x }\n"),
    ("on_config_reload", "hooks:\n  onConfigReload:\n    - action: { type: shell, command: x }\n"),
    ("aimon_name_in_another_case", "hooks:\n  PRETOOL:\n    - action: { type: shell, command: x }\n"),
    ("unsupported_upstream_event", "hooks:\n  stop_hook_active:\n    - action: { type: shell, command: x }\n"),
    ("unknown_event", "hooks:\n  preToll:\n    - action: { type: shell, command: x }\n"),
    ("event_key_not_a_string", "hooks:\n  1:\n    - action: { type: shell, command: x }\n"),
    // R-SKILL-2: the entry shape.
    (
        "nested_hooks_array",
        "hooks:\n  preTool:\n    - matcher: Bash\n      hooks:\n        - { type: command, command: x }\n",
    ),
    (
        "hooks_json_shape_whole",
        "hooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks: [{ type: command, command: x }]\n",
    ),
    ("hooks_is_a_list", "hooks:\n  - preTool\n"),
    ("event_value_not_a_list", "hooks:\n  preTool: { action: { type: shell, command: x } }\n"),
    ("entry_not_a_mapping", "hooks:\n  preTool:\n    - echo hi\n"),
    ("entry_without_action", "hooks:\n  preTool:\n    - matcher: Bash\n"),
    ("unknown_entry_key", "hooks:\n  preTool:\n    - when: Bash\n      action: { type: shell, command: x }\n"),
    ("action_not_a_mapping", "hooks:\n  preTool:\n    - action: echo hi\n"),
    // R-SKILL-2: matcher only on preTool/postTool.
    ("matcher_on_on_start", "hooks:\n  onStart:\n    - matcher: Bash\n      action: { type: shell, command: x }\n"),
    (
        "matcher_on_pre_compact",
        "hooks:\n  preCompact:\n    - matcher: auto\n      action: { type: shell, command: x }\n",
    ),
    (
        "matcher_on_permission_request",
        "hooks:\n  permissionRequest:\n    - matcher: Bash\n      action: { type: shell, command: x }\n",
    ),
    (
        "matcher_that_does_not_parse",
        "hooks:\n  preTool:\n    - matcher: \"Bash(command=[)\"\n      action: { type: shell, command: x }\n",
    ),
    ("matcher_not_a_string", "hooks:\n  preTool:\n    - matcher: [Bash]\n      action: { type: shell, command: x }\n"),
    // R-SKILL-2: action types per event.
    ("deny_on_post_tool", "hooks:\n  postTool:\n    - action: { type: deny, reason: no }\n"),
    ("deny_on_on_start", "hooks:\n  onStart:\n    - action: { type: deny, reason: no }\n"),
    ("http_on_on_start", "hooks:\n  onStart:\n    - action: { type: http, url: \"http://127.0.0.1:9/\" }\n"),
    ("mcp_on_on_start", "hooks:\n  onStart:\n    - action: { type: mcp, server: s, tool: t }\n"),
    ("hooks_json_type_command", "hooks:\n  preTool:\n    - action: { type: command, command: x }\n"),
    ("unknown_type", "hooks:\n  preTool:\n    - action: { type: llm, prompt: x }\n"),
    ("action_without_type", "hooks:\n  preTool:\n    - action: { command: x }\n"),
    // R-SKILL-2: timeoutMs only.
    ("timeout_in_seconds", "hooks:\n  preTool:\n    - action: { type: shell, command: x, timeout: 5 }\n"),
    ("timeout_as_text", "hooks:\n  preTool:\n    - action: { type: shell, command: x, timeout: 5s }\n"),
    ("timeout_ms_zero", "hooks:\n  preTool:\n    - action: { type: shell, command: x, timeoutMs: 0 }\n"),
    ("timeout_ms_text", "hooks:\n  preTool:\n    - action: { type: shell, command: x, timeoutMs: 5s }\n"),
    // Unknown and invalid fields.
    ("unknown_action_field", "hooks:\n  preTool:\n    - action: { type: shell, command: x, if: \"Bash(git *)\" }\n"),
    ("field_of_another_type", "hooks:\n  preTool:\n    - action: { type: deny, command: x }\n"),
    ("blank_command", "hooks:\n  preTool:\n    - action: { type: shell, command: \"  \" }\n"),
    ("missing_reason", "hooks:\n  preTool:\n    - action: { type: deny }\n"),
    ("missing_mcp_tool", "hooks:\n  preTool:\n    - action: { type: mcp, server: s }\n"),
    (
        "fail_closed_not_a_boolean",
        "hooks:\n  preTool:\n    - action: { type: shell, command: x, failClosed: \"yes\" }\n",
    ),
    (
        "headers_not_strings",
        "hooks:\n  preTool:\n    - action: { type: http, url: \"http://127.0.0.1:9/\", headers: { X-A: [1] } }\n",
    ),
    // Duplicate keys, at every level.
    (
        "duplicate_event_key",
        "hooks:\n  preTool:\n    - action: { type: shell, command: x }\n  preTool:\n    - action: { type: shell, command: y }\n",
    ),
    ("duplicate_action_field", "hooks:\n  preTool:\n    - action: { type: shell, command: x, command: y }\n"),
    ("duplicate_top_level_key", "name: a\nname: b\n"),
    // YAML itself, and the skill name.
    ("yaml_syntax_error", "hooks:\n  preTool: [\n"),
    ("merge_key", "base: &b { type: shell, command: x }\nhooks:\n  preTool:\n    - action: { <<: *b }\n"),
    ("frontmatter_not_a_mapping", "- a\n- b\n"),
    ("name_not_valid", "name: my skill!\n"),
    ("name_not_a_string", "name: [a]\n"),
];

fn error_of(yaml: &str) -> Error {
    let text = format!("---\n{yaml}---\n# body\n");
    match SkillHooks::parse(&text, "my-skill") {
        Ok(hooks) => panic!("accepted: {yaml:?} → {}", hooks.render()),
        Err(e) => e,
    }
}

#[test]
fn every_rejected_frontmatter_names_its_line_column_and_fix() {
    let mut table = String::new();
    for (case, yaml) in CASES {
        let error = error_of(yaml);
        let (line, column) = error.position().unwrap_or_else(|| panic!("{case}: no position: {error}"));
        assert!(line >= 2 && column >= 1, "{case}: {line}:{column} is not inside the frontmatter");
        table.push_str(&format!("{case}: {error}\n"));
    }
    insta::assert_snapshot!(table);
}

#[test]
fn an_unclosed_frontmatter_is_an_error_on_line_one() {
    let error = SkillHooks::parse("---\nname: a\nhooks: {}\n", "a").unwrap_err();
    assert_eq!(error.position(), Some((1, 1)));
    insta::assert_snapshot!(error.to_string(), @"SKILL.md:1:1: the frontmatter opened by '---' on line 1 is never closed by a '---' line");
}

#[test]
fn positions_count_from_the_top_of_skill_md_with_lf_or_crlf() {
    let yaml = "name: a\nhooks:\n  onStart:\n    - matcher: x\n      action: { type: shell, command: x }\n";
    for text in [format!("---\n{yaml}---\n"), format!("---\n{yaml}---\n").replace('\n', "\r\n")] {
        let error = SkillHooks::parse(&text, "a").unwrap_err();
        assert_eq!(error.position(), Some((5, 7)), "{text:?}: {error}");
    }
}

#[test]
fn an_invalid_skill_name_given_by_the_embedder_is_an_error() {
    let error = SkillHooks::parse("no frontmatter\n", "my skill").unwrap_err();
    assert!(matches!(error, Error::SkillName { .. }), "{error}");
    insta::assert_snapshot!(error.to_string(), @"SKILL.md: skill name 'my skill' is not 1 to 64 ASCII letters, digits, '-', '_' or '.'");
}
