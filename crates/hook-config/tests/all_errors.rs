//! REL-6, R-CLI-3: a file with several hard errors reports every one of them, each with
//! file:line:col, interleaved with its WARNs by position; the loader still refuses the file and
//! names its first error. Files live in `errors/`, snapshots in `snapshots/`.

use std::path::{Path, PathBuf};

use hook_config::{Severity, Tier, TierPaths, check_config, load_tiers, parse_config};

fn errors_file(name: &str) -> (PathBuf, String) {
    let path = Path::new("errors").join(format!("{name}.json"));
    let text = std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests").join(&path))
        .expect("errors file");
    (path, text)
}

#[test]
fn every_hard_error_of_a_file_is_reported_with_its_place() {
    let (path, text) = errors_file("several_hard_errors");
    let (file, diagnostics) = check_config(&text, &path, Tier::Project, None);
    assert!(file.is_none(), "a file with hard errors does not load");
    let rendered: String = diagnostics.iter().map(|d| format!("{d}\n")).collect();
    insta::assert_snapshot!(rendered);
    let errors = diagnostics.iter().filter(|d| d.severity == Severity::Error).count();
    assert_eq!(errors, 11, "{rendered}");
}

#[test]
fn the_loader_refuses_the_file_and_names_its_first_error() {
    let (path, text) = errors_file("several_hard_errors");
    let (_, diagnostics) = check_config(&text, &path, Tier::Project, None);
    let first = diagnostics.iter().find(|d| d.severity == Severity::Error).expect("an error").clone();
    let err = parse_config(&text, &path, Tier::Project).expect_err("hard errors fail the file");
    assert_eq!(err.diagnostic(), Some(&first));

    let project = tempfile::tempdir().expect("project");
    let paths = TierPaths::new(None, project.path());
    std::fs::create_dir_all(project.path().join(".aimon")).expect("mkdir");
    std::fs::write(paths.project_file(), &text).expect("write");
    let err = load_tiers(&paths).expect_err("the tiers do not load");
    let d = err.diagnostic().expect("a placed error");
    assert_eq!((d.line, d.column, &d.message), (first.line, first.column, &first.message));
}

#[test]
fn a_syntax_error_is_the_one_error_of_its_file() {
    let (file, diagnostics) = check_config("{\"hooks\": {\"Stop\": [}", Path::new("broken.json"), Tier::Project, None);
    assert!(file.is_none());
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!(diagnostics[0].severity, Severity::Error);
    assert_eq!((diagnostics[0].line, diagnostics[0].column), (1, 21));
}

#[test]
fn a_clean_file_checks_to_the_same_config_as_it_parses() {
    let text = r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "deny", "reason": "no"}]}]}}"#;
    let (file, diagnostics) = check_config(text, Path::new("hooks.json"), Tier::Project, None);
    let (parsed, parsed_diagnostics) = parse_config(text, Path::new("hooks.json"), Tier::Project).expect("valid");
    assert_eq!(file, Some(parsed));
    assert_eq!(diagnostics, parsed_diagnostics);
}
