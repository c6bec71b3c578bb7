//! The rewake store from the command line: `run` and `claude` enqueue, `rewake list|cancel`,
//! session mail answered by `claude` (R-RW-11/11b/12).

use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::Utc;
use hook_core::{HookContext, HookEventType, RewakeSpec, RewakeTrigger};
use hook_rewake::{Envelope, Fire, Mail, RewakeStore, SqliteStore};
use serde_json::{Value, json};

use crate::support::{Outcome, Sandbox, one_hook};

/// A PostToolUse hook on Bash that asks to run again in an hour.
fn rewaking_hook(sandbox: &Sandbox) {
    sandbox.project_hooks(&one_hook(
        "PostToolUse",
        "Bash",
        json!({"type": "command", "command": "true", "timeout": 10,
               "asyncRewake": {"trigger": {"delay": "1h"}, "reason": "check CI after the push"}}),
    ));
}

fn payload(event: &str, session: &str, cwd: &Path) -> Value {
    let mut p = json!({"session_id": session, "transcript_path": "/tmp/t.jsonl", "cwd": cwd,
                       "permission_mode": "default", "hook_event_name": event});
    if event == "PostToolUse" {
        p["tool_name"] = "Bash".into();
        p["tool_input"] = json!({"command": "git push"});
        p["tool_response"] = json!({"stdout": "", "stderr": "", "interrupted": false});
        p["tool_use_id"] = "toolu_01".into();
    }
    p
}

fn default_store(sandbox: &Sandbox) -> PathBuf {
    sandbox.home().join(".aimon").join("rewake.db")
}

fn claude(sandbox: &Sandbox, payload: &Value) -> Outcome {
    Outcome::of(
        sandbox
            .cmd()
            .arg("claude")
            .env("AIMON_TRUST_PROJECT_HOOKS", "1")
            .env("CLAUDE_PROJECT_DIR", sandbox.project())
            .write_stdin(payload.to_string()),
    )
}

fn stored(path: &Path) -> Vec<Envelope> {
    let store = SqliteStore::open(path).expect("the store file opens");
    store.load().expect("load").envelopes.into_iter().map(|row| row.envelope).collect()
}

/// Mail for `session` as a fire of a hook would leave it.
pub(crate) fn mail(path: &Path, session: &str, text: &str) {
    let mut ctx = HookContext::new(HookEventType::POST_TOOL);
    ctx.session_id = Some(session.to_owned());
    let spec = RewakeSpec::new(RewakeTrigger::Delay(Duration::from_secs(1)), "check CI");
    let fire = Fire::new(Envelope::new("project#0", ctx, spec, 1), Utc::now());
    let mail = Mail::new(&fire, session, text, false, Utc::now(), Mail::DEFAULT_TTL);
    assert!(SqliteStore::open(path).expect("store").put_mail(&mail).expect("put mail"));
}

#[test]
fn run_writes_the_rewake_to_the_default_store_and_says_once_that_serve_fires_it() {
    let sandbox = Sandbox::new();
    rewaking_hook(&sandbox);
    let out = Outcome::of(
        sandbox
            .cmd()
            .args(["run", "PostToolUse"])
            .write_stdin(payload("PostToolUse", "s1", &sandbox.project()).to_string()),
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let warns: Vec<&str> = out.stderr.lines().filter(|l| l.contains("'aimon-hooks serve' fires them")).collect();
    assert_eq!(warns.len(), 1, "{}", out.stderr);
    assert!(warns[0].starts_with("WARN hooks: "), "{}", warns[0]);
    assert!(!out.stderr.contains("no RewakeService is wired"), "{}", out.stderr);
    let envelopes = stored(&default_store(&sandbox));
    assert_eq!(envelopes.len(), 1);
    let envelope = &envelopes[0];
    assert_eq!(envelope.event, HookEventType::POST_TOOL);
    assert_eq!(envelope.session_id(), Some("s1"));
    assert_eq!(envelope.project_dir(), Some(sandbox.project().as_path()));
    assert_eq!(envelope.reason, "check CI after the push");
    assert!(envelope.next_fire_at.is_some_and(|t| t > Utc::now() + chrono::TimeDelta::minutes(59)));
    assert!(envelope.context.tool.as_ref().is_some_and(|t| t.input["command"] == "git push"), "the payload travels");
}

#[test]
fn claude_writes_the_rewake_to_the_store_named_by_aimon_rewake_store() {
    let sandbox = Sandbox::new();
    rewaking_hook(&sandbox);
    let file = sandbox.root().join("elsewhere").join("rw.db");
    let out = Outcome::of(
        sandbox
            .cmd()
            .arg("claude")
            .env("AIMON_TRUST_PROJECT_HOOKS", "1")
            .env("AIMON_REWAKE_STORE", format!("sqlite:{}", file.display()))
            .write_stdin(payload("PostToolUse", "s9", &sandbox.project()).to_string()),
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let envelopes = stored(&file);
    assert_eq!(envelopes.len(), 1, "{}", out.stderr);
    assert_eq!(envelopes[0].session_id(), Some("s9"));
    assert!(!default_store(&sandbox).exists(), "the default store is not touched");
}

#[test]
fn an_unreachable_postgres_store_is_a_warn_that_names_it_without_its_password_and_the_call_still_answers() {
    let sandbox = Sandbox::new();
    rewaking_hook(&sandbox);
    // Port 1 on loopback: nothing listens there (tests/postgres has the real server).
    let out = Outcome::of(
        sandbox
            .cmd()
            .args(["run", "PostToolUse"])
            .env("AIMON_REWAKE_STORE", "postgres://me:secret@127.0.0.1:1/aimon")
            .write_stdin(payload("PostToolUse", "s1", &sandbox.project()).to_string()),
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let warn = "WARN hooks: cannot open the rewake store postgres://me:***@127.0.0.1:1/aimon: ";
    assert!(out.stderr.lines().any(|l| l.starts_with(warn) && l.ends_with("; rewake dropped")), "{}", out.stderr);
    assert!(!out.stderr.contains("secret"), "{}", out.stderr);
}

#[test]
fn rewake_list_shows_the_envelope_and_cancel_removes_it_by_id_or_by_hook() {
    let sandbox = Sandbox::new();
    rewaking_hook(&sandbox);
    for session in ["s1", "s2"] {
        let out = claude(&sandbox, &payload("PostToolUse", session, &sandbox.project()));
        assert_eq!(out.code, 0, "{}", out.stderr);
    }
    let list = Outcome::of(sandbox.cmd().args(["rewake", "list", "--json"]));
    assert_eq!(list.code, 0, "{}", list.stderr);
    let rows = list.json();
    let rows = rows.as_array().expect("an array");
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert_eq!(rows[0]["event"], "postTool");
    assert_eq!(rows[0]["project"], sandbox.project().display().to_string());
    assert_eq!(rows[0]["reason"], "check CI after the push");
    let id = rows[0]["id"].as_str().expect("id").to_owned();
    let hook = rows[1]["hook_id"].as_str().expect("hook id").to_owned();

    let table = Outcome::of(sandbox.cmd().args(["rewake", "list"]));
    assert!(table.stdout.starts_with("ID "), "{}", table.stdout);
    assert!(table.stdout.contains(&id), "{}", table.stdout);

    let cancel = Outcome::of(sandbox.cmd().args(["rewake", "cancel", &id]));
    assert_eq!(cancel.code, 0, "{}", cancel.stderr);
    assert_eq!(cancel.stdout.trim(), format!("cancelled {id}"));
    assert_eq!(stored(&default_store(&sandbox)).len(), 1);
    let again = Outcome::of(sandbox.cmd().args(["rewake", "cancel", &id]));
    assert_eq!(again.code, 1, "a second cancel finds nothing");
    assert!(again.stderr.contains("no pending rewake envelope"), "{}", again.stderr);

    let other = Outcome::of(sandbox.cmd().args(["rewake", "cancel", "--hook", &hook, "--project", "/elsewhere"]));
    assert_eq!(other.code, 1, "hook ids are scoped to their project: {}", other.stdout);
    let by_hook = Outcome::of(sandbox.cmd().args(["rewake", "cancel", "--hook", &hook]));
    assert_eq!(by_hook.code, 0, "{}", by_hook.stderr);
    assert!(stored(&default_store(&sandbox)).is_empty());
    let empty = Outcome::of(sandbox.cmd().args(["rewake", "list", "--json"]));
    assert_eq!(empty.json(), json!([]));
}

#[test]
fn session_mail_is_answered_once_as_additional_context_and_only_to_its_session() {
    let sandbox = Sandbox::new();
    let store = default_store(&sandbox);
    std::fs::create_dir_all(store.parent().expect("dir")).expect("mkdir");
    mail(&store, "s1", "CI for the push is green");

    let other = claude(&sandbox, &payload("PostToolUse", "s2", &sandbox.project()));
    assert_eq!((other.code, other.stdout.as_str()), (0, ""), "another session gets nothing: {}", other.stderr);
    let run = Outcome::of(
        sandbox
            .cmd()
            .args(["run", "PostToolUse"])
            .write_stdin(payload("PostToolUse", "s1", &sandbox.project()).to_string()),
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!run.stdout.contains("CI for the push"), "run never drains: {}", run.stdout);
    let pre = claude(
        &sandbox,
        &json!({"session_id": "s1", "cwd": sandbox.project(), "hook_event_name": "PreToolUse",
                                        "tool_name": "Bash", "tool_input": {"command": "ls"}}),
    );
    assert_eq!(pre.stdout, "", "preTool has no model-context channel");

    let first = claude(&sandbox, &payload("PostToolUse", "s1", &sandbox.project()));
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert_eq!(
        first.json(),
        json!({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "CI for the push is green"}})
    );
    let second = claude(&sandbox, &payload("PostToolUse", "s1", &sandbox.project()));
    assert_eq!((second.code, second.stdout.as_str()), (0, ""), "delivered once: {}", second.stderr);
}

#[test]
fn on_stop_with_mail_answers_a_block_whose_reason_is_the_mail() {
    let sandbox = Sandbox::new();
    let store = default_store(&sandbox);
    std::fs::create_dir_all(store.parent().expect("dir")).expect("mkdir");
    mail(&store, "s1", "CI failed: test_login");
    let out = claude(&sandbox, &payload("Stop", "s1", &sandbox.project()));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.json(), json!({"decision": "block", "reason": "CI failed: test_login"}));
    let again = claude(&sandbox, &payload("Stop", "s1", &sandbox.project()));
    assert_eq!(again.stdout, "", "the agent may stop once the mail is delivered");
}

#[test]
fn a_call_without_a_store_file_does_not_create_one() {
    let sandbox = Sandbox::new();
    let out = claude(&sandbox, &payload("PostToolUse", "s1", &sandbox.project()));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!default_store(&sandbox).exists());
}
