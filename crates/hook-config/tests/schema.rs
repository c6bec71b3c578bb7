//! The JSON Schema derived from the handler model agrees with the loader (checked with the
//! `jsonschema` validator): every file the loader accepts without a word validates, every file it
//! refuses does not (but for the checks a schema cannot express), every handler it skips as
//! invalid makes the file invalid, and every handler it accepts round-trips through its
//! serialized form and validates.

use std::path::{Path, PathBuf};

use hook_config::{Diagnostic, HandlerSpec, Severity, Tier, check_config, hooks_json_schema, read_handler};
use hook_core::HookEventType;
use serde_json::{Value, json};

/// Refused files whose reason is a value check no JSON Schema can state.
const SEMANTIC_ONLY: &[(&str, &str)] = &[
    ("error_rewake_quartz_cron.json", "cron syntax"),
    ("error_rewake_unknown_zone.json", "IANA zone names"),
    ("error_rewake_zero_delay.json", "duration value"),
    ("error_rewake_invalid_even_off_event.json", "duration syntax"),
];

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every JSON file the loader is tested on: the corpus, the seed examples and the demo.
fn files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = Vec::new();
    for dir in ["tests/corpus", "../hook-cli/tests/fixtures"] {
        let entries = std::fs::read_dir(manifest().join(dir)).unwrap_or_else(|e| panic!("{dir}: {e}"));
        files.extend(
            entries.map(|e| e.expect("dir entry").path()).filter(|p| p.extension().is_some_and(|x| x == "json")),
        );
    }
    for demo in [".aimon/hooks.json", ".aimon/hooks.local.json", "home/.aimon/hooks.json"] {
        files.push(manifest().join("../../examples/demo").join(demo));
    }
    files.sort();
    assert!(files.len() > 60, "the corpus is there: {files:?}");
    files
}

fn validator() -> jsonschema::Validator {
    let schema = serde_json::to_value(hooks_json_schema()).expect("the schema is JSON");
    jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("the schema compiles: {e}"))
}

fn name(path: &Path) -> String {
    path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}

fn load(path: &Path) -> (String, Option<hook_config::ConfigFile>, Vec<Diagnostic>) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let (file, diagnostics) = check_config(&text, path, Tier::Project, None);
    (text, file, diagnostics)
}

#[test]
fn the_schema_accepts_what_the_loader_accepts_and_rejects_what_it_refuses() {
    let validator = validator();
    let (mut accepted, mut refused) = (0, 0);
    for path in files() {
        let (text, file, diagnostics) = load(&path);
        let Ok(document) = serde_json::from_str::<Value>(&text) else {
            assert!(file.is_none(), "{}: not JSON, yet loaded", name(&path));
            continue;
        };
        let errors: Vec<String> =
            validator.iter_errors(&document).map(|e| format!("{e} at {}", e.instance_path())).collect();
        let invalid_handler = diagnostics.iter().any(|d| d.message.contains("invalid handler"));
        if file.is_some() && diagnostics.is_empty() {
            assert!(errors.is_empty(), "{} loads cleanly but the schema says: {errors:?}", name(&path));
            accepted += 1;
        } else if file.is_none() && !SEMANTIC_ONLY.iter().any(|(n, _)| *n == name(&path)) {
            assert!(!errors.is_empty(), "{} is refused by the loader ({diagnostics:?}) but validates", name(&path));
            refused += 1;
        } else if invalid_handler {
            assert!(!errors.is_empty(), "{} has an invalid handler ({diagnostics:?}) but validates", name(&path));
        }
    }
    assert!(accepted >= 20 && refused >= 12, "{accepted} accepted, {refused} refused");
}

#[test]
fn the_files_the_schema_cannot_judge_are_still_refused_by_the_loader() {
    for (file, _why) in SEMANTIC_ONLY {
        let (_, loaded, diagnostics) = load(&manifest().join("tests/corpus").join(file));
        assert!(loaded.is_none(), "{file}");
        assert!(diagnostics.iter().any(|d| d.severity == Severity::Error), "{file}");
    }
}

/// Every handler the loader accepts, with its event.
fn accepted_handlers() -> Vec<(HookEventType, HandlerSpec)> {
    files()
        .iter()
        .filter_map(|path| load(path).1)
        .flat_map(|file| file.entries)
        .flat_map(|entry| entry.handlers.into_iter().map(move |h| (entry.event, h)))
        .collect()
}

#[test]
fn every_accepted_handler_serializes_to_a_form_the_schema_validates_and_the_loader_reads_back_equal() {
    let validator = validator();
    let handlers = accepted_handlers();
    for kind in ["command", "http", "mcp", "deny"] {
        assert!(handlers.iter().any(|(_, h)| h.kind().config_name() == kind), "the corpus has a {kind} handler");
    }
    assert!(handlers.iter().any(|(_, h)| h.rewake.is_some()), "an asyncRewake");
    assert!(handlers.iter().any(|(_, h)| h.timeout.is_some_and(|t| t.subsec_nanos() != 0)), "a fractional timeout");
    assert!(handlers.iter().any(|(_, h)| h.fail_closed), "failClosed");
    assert!(handlers.iter().any(|(_, h)| h.if_rule.is_some()), "an if rule");
    for (event, handler) in handlers {
        let written = serde_json::to_value(&handler).expect("serializes");
        let document = json!({ "hooks": { event.name(): [{ "hooks": [written.clone()] }] } });
        let errors: Vec<String> = validator.iter_errors(&document).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{written}: {errors:?}");
        let (read, diagnostics) = read_handler(event, &written, Tier::Project);
        assert_eq!(read.as_ref(), Some(&handler), "{written}: {diagnostics:?}");
        // A WARN the file had about the handler (an `if` where it is ignored) comes back with it.
        assert!(diagnostics.iter().all(|d| d.severity == Severity::Warning), "{written}: {diagnostics:?}");
    }
}

#[test]
fn a_diagnostic_carries_the_json_pointer_of_the_field_at_fault() {
    let text = r#"{"hooks": {"PreToolUse": [{"matcher": 5, "hooks": [
        {"type": "command", "command": "true", "timeout": 0},
        {"type": "http", "url": "http://x", "headers": {"X-A": 1}},
        {"type": "command", "colour": "red"},
        {"type": "deny"}
    ]}]}}"#;
    let (_, diagnostics) = check_config(text, Path::new("hooks.json"), Tier::Project, None);
    let pointers: Vec<&str> = diagnostics.iter().map(|d| d.pointer.as_str()).collect();
    assert_eq!(
        pointers,
        [
            "/hooks/PreToolUse/0/matcher",
            "/hooks/PreToolUse/0/hooks/0/timeout",
            "/hooks/PreToolUse/0/hooks/1/headers/X-A",
            "/hooks/PreToolUse/0/hooks/2/command",
            "/hooks/PreToolUse/0/hooks/2/colour",
            "/hooks/PreToolUse/0/hooks/3/reason",
        ],
        "{diagnostics:#?}"
    );
}

#[test]
fn every_event_of_the_table_is_a_known_property_in_both_spellings() {
    let schema = serde_json::to_value(hooks_json_schema()).expect("the schema is JSON");
    let events = &schema["properties"]["hooks"]["properties"];
    for event in HookEventType::ALL {
        for name in std::iter::once(event.name()).chain(event.claude_name()) {
            assert!(events.get(name).is_some(), "{name}");
        }
    }
}
