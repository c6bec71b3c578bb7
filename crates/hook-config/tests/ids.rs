//! Hook id stability (R-CFG-ID-1/2): ids come from content, not position or Rust type.

use std::path::Path;

use hook_config::{BuildEnv, Tier, TierPaths, build_hooks, parse_config};
use hook_core::ExecutionHook;

fn ids(texts: &[(Tier, &str)]) -> Vec<String> {
    let project = Path::new("/nonexistent/project");
    let files = texts
        .iter()
        .map(|(tier, text)| parse_config(text, Path::new("hooks.json"), *tier).expect("parses").0)
        .collect();
    let config = hook_config::LoadedConfig::from_files(files);
    let env = BuildEnv::new(&TierPaths::new(None, project));
    build_hooks(&config, &env).iter().map(|(_, h)| h.id().to_owned()).collect()
}

const GUARD: &str = r#"{ "matcher": "Bash", "hooks": [{ "type": "deny", "reason": "no" }] }"#;
const AUDIT: &str = r#"{ "matcher": "*", "hooks": [{ "type": "command", "command": "audit" }] }"#;

fn pre_tool(entries: &[&str]) -> String {
    format!(r#"{{ "hooks": {{ "PreToolUse": [{}] }} }}"#, entries.join(","))
}

#[test]
fn the_id_format_is_kind_at_source_hash_and_is_pinned() {
    let got = ids(&[(Tier::Project, &pre_tool(&[GUARD]))]);
    assert_eq!(got.len(), 1);
    let id = &got[0];
    let hash = id.strip_prefix("deny@project#0#").expect("kind@source# prefix");
    assert_eq!(hash.len(), 16, "{id}");
    assert!(hash.chars().all(|c| c.is_ascii_hexdigit()), "{id}");
    // Pinned: the hash function and the content it covers are part of the contract (durable
    // rewake envelopes store these ids across restarts).
    assert_eq!(id, "deny@project#0#d1851de9c8ca3127");
}

#[test]
fn same_content_gives_the_same_ids_across_reloads() {
    let text = pre_tool(&[GUARD, AUDIT]);
    assert_eq!(ids(&[(Tier::Project, &text)]), ids(&[(Tier::Project, &text)]));
}

#[test]
fn inserting_an_unrelated_entry_above_a_hook_keeps_its_id() {
    let before = ids(&[(Tier::Project, &pre_tool(&[GUARD]))]);
    let after = ids(&[(Tier::Project, &pre_tool(&[AUDIT, GUARD]))]);
    assert_eq!(after.len(), 2);
    assert_eq!(after[1], before[0]);
    // Also when the insertion is another event above it in the file.
    let other_event = format!(r#"{{ "hooks": {{ "Stop": [{AUDIT}], "PreToolUse": [{GUARD}] }} }}"#);
    assert!(ids(&[(Tier::Project, &other_event)]).contains(&before[0]));
}

#[test]
fn two_identical_handlers_get_distinct_ids() {
    let got = ids(&[(Tier::Project, &pre_tool(&[GUARD, GUARD]))]);
    assert_eq!(got.len(), 2);
    assert_ne!(got[0], got[1]);
    assert_eq!(got[1], format!("{}.1", got[0]));
}

#[test]
fn the_same_handler_in_two_tiers_gets_two_ids() {
    let text = pre_tool(&[GUARD]);
    let got = ids(&[(Tier::User, &text), (Tier::Project, &text), (Tier::Local, &text)]);
    assert!(got[0].starts_with("deny@user#0#"), "{got:?}");
    assert!(got[1].starts_with("deny@project#0#"), "{got:?}");
    assert!(got[2].starts_with("deny@local#0#"), "{got:?}");
}

#[test]
fn editing_a_handler_changes_only_its_own_id() {
    let before = ids(&[(Tier::Project, &pre_tool(&[GUARD, AUDIT]))]);
    let edited = AUDIT.replace("audit", "audit --verbose");
    let after = ids(&[(Tier::Project, &pre_tool(&[GUARD, &edited]))]);
    assert_eq!(before[0], after[0]);
    assert_ne!(before[1], after[1]);
}
