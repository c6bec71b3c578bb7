//! Trying a policy before it binds, through the real Claude Code: sessions run without hooks
//! (every tool ran), replayed under a deny policy, name exactly the calls the same policy denies
//! in a live session; and an audit-mode deny lets the call run while the decision log says
//! "would deny" with the hook's file:line.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::hooks::{deny, on};
use crate::model::Turn;
use crate::runner::{Route, Run, Scenario};

/// A session's tool calls: two pushes among other git calls.
fn turns() -> Vec<Turn> {
    vec![
        Turn::bash("git status"),
        Turn::bash("git push origin main"),
        Turn::bash("git log -1"),
        Turn::bash("git status && git push --force origin main"),
        Turn::text("done"),
    ]
}

fn push_policy() -> Value {
    on("PreToolUse", "Bash(git push:*)", deny("pushes-go-through-review"))
}

/// `aimon-hooks` with `args`, HOME set to `home`; its stdout.
fn aimon(home: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_aimon-hooks"))
        .args(args)
        .env("HOME", home)
        .env_remove("AIMON_DECISION_LOG")
        .output()
        .expect("aimon-hooks runs");
    assert!(out.status.success(), "aimon-hooks {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The commands of the Bash calls the model asked for whose git call never ran.
fn not_run(run: &Run, asked: &[&str]) -> BTreeSet<String> {
    let ran = run.git_calls();
    asked
        .iter()
        .filter(|command| {
            let args = command.rsplit("git ").next().unwrap_or_default();
            !ran.iter().any(|call| call == args)
        })
        .map(|c| (*c).to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_replay_of_sessions_run_without_hooks_finds_exactly_the_calls_the_policy_denies_live() {
    let asked = ["git status", "git push origin main", "git log -1", "git status && git push --force origin main"];
    // Without hooks: every call ran, and Claude Code kept the transcript.
    let free = Scenario::new(Route::Command).model(turns()).run().await;
    free.check(not_run(&free, &asked).is_empty(), "without hooks every git call runs");
    let project = free.project();
    let mangled: String =
        project.display().to_string().chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect();
    let transcripts = free.home().join(".claude/projects").join(&mangled);
    free.check(transcripts.is_dir(), format_args!("Claude Code keeps its transcripts in {}", transcripts.display()));

    // The same policy, live.
    let live = Scenario::new(Route::Command).project_hooks(&push_policy()).model(turns()).run().await;
    let denied_live = not_run(&live, &asked);
    live.check(denied_live.len() == 2, format_args!("the policy denies both pushes live: {denied_live:?}"));

    // Replayed: the policy written into the free session's project, its transcripts read.
    std::fs::create_dir_all(project.join(".aimon")).expect("mkdir");
    std::fs::write(project.join(".aimon/hooks.json"), push_policy().to_string()).expect("policy");
    let home = free.home();
    let report: Value = serde_json::from_str(&aimon(
        &home,
        &["replay", "--json", "--project", &project.display().to_string(), "--home", &home.display().to_string()],
    ))
    .expect("json");
    let denied_replayed: BTreeSet<String> = report["differences"]
        .as_array()
        .expect("differences")
        .iter()
        .map(|d| {
            assert_eq!((d["would"].as_str(), d["happened"].as_str()), (Some("deny"), Some("ran")), "{d}");
            d["input"]["command"].as_str().expect("a Bash command").to_owned()
        })
        .collect();
    assert_eq!(denied_replayed, denied_live, "{report:#}");
    assert_eq!(report["summary"]["preTool"]["calls"], 4, "{report:#}");
    assert_eq!(report["unreadable"], json!([]), "every transcript line reads");

    // Keep one real transcript for the replay bench (benches/replay.rs) when asked to.
    if let Some(dest) = std::env::var_os("AIMON_KEEP_TRANSCRIPT") {
        let file = std::fs::read_dir(&transcripts)
            .expect("dir")
            .flatten()
            .map(|e| e.path())
            .find(|p| p.extension().is_some_and(|e| e == "jsonl"));
        std::fs::copy(file.expect("a transcript"), dest).expect("copy the transcript");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_audit_mode_deny_lets_the_call_run_and_the_log_says_would_deny_with_file_and_line() {
    let text = "{\"hooks\": {\"PreToolUse\": [\n  {\"matcher\": \"Bash(git push:*)\", \"hooks\": [\n    {\"type\": \"deny\", \"reason\": \"pushes-go-through-review\", \"mode\": \"audit\"}\n  ]}\n]}}\n";
    let run = Scenario::new(Route::Command)
        .project_hooks_text(text)
        .model(vec![Turn::bash("git push origin main"), Turn::text("done")])
        .run()
        .await;
    run.check(run.git_calls() == ["push origin main"], "the audited push ran");
    run.check(run.denied_tools().is_empty(), "Claude Code saw no denial");
    run.check(!run.model_saw("pushes-go-through-review"), "the audit reason never reaches the model");
    let at = format!("({}:3)", run.project().join(".aimon/hooks.json").display());
    let home = run.home();
    let started = Instant::now();
    let shown = loop {
        let shown = aimon(&home, &["log", "--home", &home.display().to_string()]);
        if shown.contains("would deny") || started.elapsed() > Duration::from_secs(10) {
            break shown;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let line = shown.lines().find(|l| l.contains("would deny")).unwrap_or_else(|| panic!("no audit line in:\n{shown}"));
    assert!(line.contains(" claude ") && line.contains("preTool Bash: would deny by deny@project#0#"), "{line}");
    assert!(line.contains(&at), "{line} lacks {at}");
    assert!(line.ends_with(": pushes-go-through-review"), "{line}");
}
