//! The managed tier through the library: its hooks dispatch first in the `config` group, and hot
//! reload picks up an edited, added or removed managed file (`hooks.json`, `hooks.d/*.json`).
//! The CLI's table of attempts against it is `crates/hook-cli/tests/cli/managed_tier.rs`.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use hook_config::{HookHotReloadBootstrap, Tier, TierPaths, load_tiers};
use hook_core::{CancellationToken, HookContext, HookEngine, HookEventType, HookRegistry, ToolCall};
use serde_json::{Value, json};

/// A `deny` for every preTool call, with `reason`.
fn deny(reason: &str) -> String {
    json!({"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "deny", "reason": reason}]}]}}).to_string()
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

/// The reason of every preTool hook that answered, in dispatch order.
async fn reasons(engine: &HookEngine) -> Vec<String> {
    let ctx = HookContext::new(HookEventType::PRE_TOOL).with_tool(ToolCall::new("Bash", json!({"command": "ls"})));
    let report = engine.dispatch(&ctx, &CancellationToken::new()).await;
    report.runs.iter().filter_map(|r| r.result.feedback.clone()).collect()
}

/// Waits (real time, generous bound) until the live hooks give `want`.
async fn until(engine: &HookEngine, want: &[&str]) {
    let started = Instant::now();
    loop {
        let now = reasons(engine).await;
        if now == want {
            return;
        }
        assert!(started.elapsed() < Duration::from_secs(10), "still {now:?}, wanted {want:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[test]
fn managed_files_load_first_hooks_d_in_name_order_each_with_its_own_source() {
    let dir = tempfile::tempdir().expect("dir");
    let managed = dir.path().join("managed");
    let paths = TierPaths::new(None, dir.path().join("project")).with_managed_dir(&managed);
    write(&paths.project_file(), &deny("project"));
    write(&managed.join("hooks.d/20-b.json"), &deny("b"));
    write(&managed.join("hooks.d/10-a.json"), &deny("a"));
    write(&managed.join("hooks.d/notes.txt"), "not a policy");
    write(&managed.join("hooks.json"), &deny("base"));
    let (config, _) = load_tiers(&paths).expect("loads");
    let files: Vec<(Tier, String)> = config.files.iter().map(|f| (f.tier, f.source())).collect();
    assert_eq!(
        files,
        [
            (Tier::Managed, "managed#0".to_owned()),
            (Tier::Managed, "managed#10-a.json".to_owned()),
            (Tier::Managed, "managed#20-b.json".to_owned()),
            (Tier::Project, "project#0".to_owned()),
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edited_added_or_removed_managed_file_takes_effect_on_hot_reload() {
    for file_events in [true, false] {
        reload_sequence(file_events).await;
    }
}

/// Edits, adds and removes managed files, with file-system events or by polling alone.
async fn reload_sequence(file_events: bool) {
    let dir = tempfile::tempdir().expect("dir");
    let managed = dir.path().join("managed");
    let paths = TierPaths::new(None, dir.path().join("project")).with_managed_dir(&managed);
    write(&paths.project_file(), &deny("project"));
    write(&managed.join("hooks.json"), &deny("managed v1"));
    std::fs::create_dir_all(managed.join("hooks.d")).expect("hooks.d");
    let registry = Arc::new(HookRegistry::new());
    let _handle = HookHotReloadBootstrap::builder()
        .paths(paths.clone())
        .registry(registry.clone())
        .debounce(Duration::from_millis(50))
        .poll_interval(Duration::from_millis(100))
        .file_events(file_events)
        .start()
        .expect("starts");
    let engine = HookEngine::new(registry);
    until(&engine, &["managed v1", "project"]).await;

    write(&managed.join("hooks.json"), &deny("managed v2"));
    until(&engine, &["managed v2", "project"]).await;

    write(&managed.join("hooks.d/10-more.json"), &deny("drop-in"));
    until(&engine, &["managed v2", "drop-in", "project"]).await;

    let only: Value = json!({"allowManagedHooksOnly": true});
    write(&managed.join("hooks.d/00-only.json"), &only.to_string());
    until(&engine, &["managed v2", "drop-in"]).await;

    std::fs::remove_file(managed.join("hooks.d/00-only.json")).expect("rm");
    std::fs::remove_file(managed.join("hooks.d/10-more.json")).expect("rm");
    until(&engine, &["managed v2", "project"]).await;
}
