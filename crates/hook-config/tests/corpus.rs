//! Snapshot corpus (R-CFG-3…6, R-CFG-4b/4c/4d, R-CFG-5, R-CFG-RW-1…4, R-EVT-3, R-PRED-4b/5):
//! every `corpus/*.json` is parsed as a PROJECT file and its outcome — the config, one handler
//! per line, and every diagnostic as `file:line:col: severity: message`, or the hard error — is
//! pinned in `snapshots/corpus__<name>.snap`. File names say what each case proves
//! (`valid_*`: no diagnostics, `warn_*`: WARN and the rest loads, `error_*`: the file fails).

use std::path::{Path, PathBuf};

use hook_config::{Severity, Tier, parse_config};

fn outcome(name: &str, text: &str) -> String {
    let path = Path::new("corpus").join(format!("{name}.json"));
    match parse_config(text, &path, Tier::Project) {
        Ok((file, diagnostics)) => {
            let config = hook_config::LoadedConfig::from_files(vec![file]);
            let mut out = format!("config:\n{}", config.render());
            out.push_str("diagnostics:\n");
            for d in &diagnostics {
                out.push_str(&format!("{d}\n"));
            }
            out
        }
        Err(e) => format!("error: {e}\n"),
    }
}

fn corpus() -> Vec<(String, String)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut files: Vec<(String, String)> = std::fs::read_dir(&dir)
        .expect("corpus dir")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| {
            let name = p.file_stem().and_then(|s| s.to_str()).expect("utf-8 name").to_owned();
            (name, std::fs::read_to_string(&p).expect("readable"))
        })
        .collect();
    files.sort();
    files
}

#[test]
fn every_corpus_file_matches_its_snapshot() {
    let files = corpus();
    assert!(files.len() >= 30, "the corpus has {} files", files.len());
    for (name, text) in files {
        insta::assert_snapshot!(name.clone(), outcome(&name, &text));
    }
}

#[test]
fn corpus_file_names_agree_with_their_outcome() {
    for (name, text) in corpus() {
        let path = Path::new("corpus").join(&name);
        let result = parse_config(&text, &path, Tier::Project);
        match name.split('_').next() {
            Some("valid") => assert!(matches!(&result, Ok((_, d)) if d.is_empty()), "{name}: {result:?}"),
            Some("warn") => assert!(
                matches!(&result, Ok((_, d)) if !d.is_empty() && d.iter().all(|d| d.severity == Severity::Warning)),
                "{name}: {result:?}"
            ),
            Some("error") => assert!(
                result.as_ref().is_err_and(|e| e.diagnostic().is_some_and(|d| d.severity == Severity::Error)),
                "{name}: {result:?}"
            ),
            other => panic!("corpus file {name} has no valid_/warn_/error_ prefix ({other:?})"),
        }
    }
}

#[test]
fn three_tiers_merge_additively_in_user_project_local_order() {
    // R-CFG-1/2: USER → PROJECT → LOCAL, then entry order, then handler order; nothing overrides.
    let home = tempfile::tempdir().expect("home");
    let project = tempfile::tempdir().expect("project");
    let paths = hook_config::TierPaths::new(Some(home.path().to_owned()), project.path());
    let corpus = |name: &str| {
        std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("tests/corpus/{name}.json")))
            .expect("corpus file")
    };
    for (file, name) in [
        (paths.user_file().expect("home"), "valid_identical_handlers"),
        (paths.project_file(), "warn_unknown_event"),
        (paths.local_file(), "valid_fail_closed"),
    ] {
        std::fs::create_dir_all(file.parent().expect("parent")).expect("mkdir");
        std::fs::write(&file, corpus(name)).expect("write");
    }
    // A `.claude/` directory next to them is never read.
    std::fs::create_dir_all(project.path().join(".claude")).expect("mkdir");
    std::fs::write(project.path().join(".claude/settings.json"), corpus("valid_minimal")).expect("write");

    let (config, diagnostics) = hook_config::load_tiers(&paths).expect("loads");
    let mut out = format!("config:\n{}diagnostics:\n", config.render());
    for d in diagnostics {
        out.push_str(&format!("{d}\n"));
    }
    let out = out
        .replace(&project.path().display().to_string(), "<project>")
        .replace(&home.path().display().to_string(), "<home>");
    insta::assert_snapshot!(out);
}

#[test]
fn the_warns_read_as_the_seeds_troubleshooting_table_says() {
    // Users search for these sentences (seed guide, "트러블슈팅"); the list of valid kinds follows.
    let table = [
        (
            "warn_http_on_on_start",
            "hooks: only 'command' actions are valid on onStart (it takes 'command'; 'http' is skipped)",
        ),
        (
            "warn_mcp_on_an_event_only_aimon_has",
            "hooks: only 'command' actions are valid on onConfigReload (it takes 'command'; 'mcp' is skipped)",
        ),
        (
            "warn_deny_off_pretool",
            "hooks: 'deny' is not valid on PostToolUse (it takes 'command', 'http', 'mcp', 'prompt', 'agent')",
        ),
        ("warn_matcher_unparseable", "hooks: matcher 'Bash(command=^git[' could not be parsed"),
    ];
    let files = corpus();
    for (name, sentence) in table {
        let (_, text) = files.iter().find(|(n, _)| n == name).unwrap_or_else(|| panic!("no corpus file {name}"));
        let path = Path::new("corpus").join(name);
        let (_, diagnostics) = parse_config(text, &path, Tier::Project).expect("loads");
        let messages: Vec<&str> = diagnostics.iter().map(|d| d.message.as_str()).collect();
        assert!(messages.contains(&sentence), "{name}: {messages:?}");
    }
}
