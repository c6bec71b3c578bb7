//! `prompt` and `agent` hooks through `run` and `claude`, against a scripted model on 127.0.0.1
//! speaking the Anthropic Messages API and the OpenAI Chat Completions API: the verdict per event
//! and answer, a garbage answer, a slow model under a short `timeout`, an unreachable endpoint
//! with and without `onFailure: "block"`, the endpoint read only from the person's own file, and
//! a repository's model hooks withheld until the repository is trusted; an agent hook reading the
//! project, but not a file a `Read` deny rule protects.

use std::net::SocketAddr;
use std::time::Duration;

use axum::Router;
use axum::routing::post;
use serde_json::{Value, json};

use crate::refused::{Refused, refused};
use crate::support::{Outcome, Sandbox, bash};

/// What the scripted model answers every request with.
#[derive(Clone, Copy, Debug)]
enum Says {
    Text(&'static str),
    /// Answers after 30 s.
    Slow,
}

/// A scripted model serving both APIs on 127.0.0.1 from a thread of its own, for the test's life.
struct Model {
    addr: SocketAddr,
}

impl Model {
    fn start(says: Says) -> Model {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
            runtime.block_on(async move {
                let text = move || async move {
                    match says {
                        Says::Text(t) => t,
                        Says::Slow => {
                            tokio::time::sleep(Duration::from_secs(30)).await;
                            "{\"ok\": true}"
                        }
                    }
                };
                let app = Router::new()
                    .route(
                        "/v1/messages",
                        post(move || async move {
                            axum::Json(json!({"content": [{"type": "text", "text": text().await}]}))
                        }),
                    )
                    .route(
                        "/chat/completions",
                        post(move || async move {
                            axum::Json(
                                json!({"choices": [{"message": {"role": "assistant", "content": text().await}}]}),
                            )
                        }),
                    );
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
                tx.send(listener.local_addr().expect("addr")).expect("send");
                axum::serve(listener, app).await.expect("serve");
            });
        });
        Model { addr: rx.recv().expect("the model starts") }
    }

    fn endpoint(&self, api: &str) -> Value {
        json!({"api": api, "baseUrl": format!("http://{}", self.addr), "model": "judge", "keyEnv": "AIMON_TEST_MODEL_KEY"})
    }
}

/// An endpoint nothing listens on, held refused while `refused` lives.
fn unreachable(api: &str, refused: &Refused) -> Value {
    json!({"api": api, "baseUrl": format!("http://{}", refused.addr), "model": "judge", "keyEnv": "AIMON_TEST_MODEL_KEY"})
}

/// The person's own hooks.json: the endpoint and one handler on `event`.
fn user_file(sandbox: &Sandbox, endpoint: Value, event: &str, handler: Value) {
    let file = json!({"model": endpoint, "hooks": {event: [{"hooks": [handler]}]}});
    sandbox.write("home/.aimon/hooks.json", &file.to_string());
}

fn payload(event: &str) -> String {
    match event {
        "PreToolUse" => bash("rm -rf build"),
        "PostToolUse" => json!({"session_id": "s-1", "cwd": "/tmp", "hook_event_name": event, "tool_name": "Bash",
            "tool_input": {"command": "ls"}, "tool_response": {"stdout": "a"}, "tool_use_id": "toolu_1"})
        .to_string(),
        "UserPromptSubmit" => {
            json!({"session_id": "s-1", "cwd": "/tmp", "hook_event_name": event, "prompt": "deploy"}).to_string()
        }
        "PermissionRequest" | "PermissionDenied" => {
            json!({"session_id": "s-1", "cwd": "/tmp", "hook_event_name": event,
            "tool_name": "Bash", "tool_input": {"command": "rm -rf build"}, "tool_use_id": "toolu_1"})
            .to_string()
        }
        "PostToolUseFailure" => {
            json!({"session_id": "s-1", "cwd": "/tmp", "hook_event_name": event, "tool_name": "Bash",
            "tool_input": {"command": "make"}, "error": "exit status 2", "tool_use_id": "toolu_1"})
            .to_string()
        }
        "UserPromptExpansion" => json!({"session_id": "s-1", "cwd": "/tmp", "hook_event_name": event,
            "command_name": "deploy", "prompt": "/deploy prod"})
        .to_string(),
        "TaskCreated" | "TaskCompleted" => json!({"session_id": "s-1", "cwd": "/tmp", "hook_event_name": event,
            "task_id": "1", "task_subject": "ship it"})
        .to_string(),
        "TeammateIdle" => json!({"session_id": "s-1", "cwd": "/tmp", "hook_event_name": event,
            "teammate_name": "t", "team_name": "n"})
        .to_string(),
        _ => {
            json!({"session_id": "s-1", "cwd": "/tmp", "hook_event_name": event, "stop_hook_active": false}).to_string()
        }
    }
}

fn run(sandbox: &Sandbox, event: &str) -> Value {
    let out =
        Outcome::of(sandbox.cmd().env("AIMON_TEST_MODEL_KEY", "k").args(["run", event]).write_stdin(payload(event)));
    out.json()
}

fn claude(sandbox: &Sandbox, event: &str) -> Outcome {
    Outcome::of(
        sandbox
            .cmd()
            .env("AIMON_TEST_MODEL_KEY", "k")
            .env("CLAUDE_PROJECT_DIR", sandbox.project())
            .arg("claude")
            .write_stdin(payload(event)),
    )
}

const NO: Says = Says::Text("{\"ok\": false, \"reason\": \"too risky\"}");
const YES: Says = Says::Text("{\"ok\": true}");
const IMPOSSIBLE: Says = Says::Text("{\"ok\": false, \"reason\": \"tests fail\", \"impossible\": true}");
const GARBAGE: Says = Says::Text("Sure, go ahead!");

#[test]
fn a_prompt_hooks_verdict_reaches_run_and_claude_as_claude_code_gives_it() {
    let prompt = |extra: Value| {
        let mut h = json!({"type": "prompt", "prompt": "Is this safe? $ARGUMENTS"});
        h.as_object_mut().expect("object").extend(extra.as_object().expect("object").clone());
        h
    };
    let garbage_cause = "the model's answer is not {\"ok\": true|false}: \"Sure, go ahead!\"";
    // (event, model, extra handler fields, run's (decision, flow, reason or feedback), claude's stdout)
    let deny = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"too risky"}}"#;
    let closed = format!(
        r#"{{"hookSpecificOutput":{{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":{}}}}}"#,
        json!(format!("hook 'x' failed closed: {garbage_cause}"))
    );
    let end_turn = r#"{"continue":false,"decision":"block","reason":"too risky","stopReason":"too risky"}"#;
    let block = r#"{"decision":"block","reason":"too risky"}"#;
    #[rustfmt::skip]
    #[allow(clippy::type_complexity, reason = "one table row: what, the model says, the event input, the expected answer, why")]
    let cases: Vec<(&str, Says, Value, (&str, &str, Value), &str)> = vec![
        ("PreToolUse", YES, json!({}), ("allow", "continue", Value::Null), ""),
        ("PreToolUse", NO, json!({}), ("deny", "continue", json!("too risky")), deny),
        ("PreToolUse", NO, json!({"continueOnBlock": true}), ("deny", "continue", json!("too risky")), deny),
        ("PreToolUse", GARBAGE, json!({}), ("allow", "continue", Value::Null), ""),
        ("PreToolUse", GARBAGE, json!({"onFailure": "block"}), ("allow", "block", json!(format!("hook 'x' failed closed: {garbage_cause}"))), &closed),
        ("PostToolUse", NO, json!({}), ("allow", "block", json!("too risky")), end_turn),
        ("PostToolUse", NO, json!({"continueOnBlock": true}), ("allow", "block", json!("too risky")), block),
        ("UserPromptSubmit", NO, json!({}), ("allow", "block", json!("too risky")), end_turn),
        ("UserPromptSubmit", YES, json!({}), ("allow", "continue", Value::Null), ""),
        ("Stop", NO, json!({}), ("allow", "block", json!("too risky")), block),
        ("Stop", IMPOSSIBLE, json!({}), ("allow", "continue", Value::Null), ""),
        ("SubagentStop", NO, json!({}), ("allow", "block", json!("too risky")), block),
        ("SubagentStop", IMPOSSIBLE, json!({}), ("allow", "continue", Value::Null), ""),
    ];
    for api in ["anthropic", "openai"] {
        for (event, says, extra, (decision, flow, reason), answer) in &cases {
            let model = Model::start(*says);
            let sandbox = Sandbox::new();
            user_file(&sandbox, model.endpoint(api), event, prompt(extra.clone()));
            let v = run(&sandbox, event);
            let id = v["hooks"][0]["id"].as_str().unwrap_or_default().to_owned();
            let named = |text: &str| text.replace("hook 'x'", &format!("hook '{id}'"));
            let reason = reason.as_str().map_or(Value::Null, |r| json!(named(r)));
            let said = if v["reason"].is_null() { v["feedback"].clone() } else { v["reason"].clone() };
            let got = (v["decision"].clone(), v["flow"].clone(), said);
            assert_eq!(got, (json!(decision), json!(flow), reason), "run {api} {event} {says:?} {extra}: {v}");
            let out = claude(&sandbox, event);
            assert_eq!(out.stdout.trim(), named(answer), "claude {api} {event} {says:?} {extra}: {}", out.stderr);
        }
    }
}

#[test]
fn a_model_that_is_slow_or_unreachable_fails_open_unless_on_failure_says_block() {
    let slow = Model::start(Says::Slow);
    let refused = refused();
    let cases = [
        (slow.endpoint("anthropic"), json!({"timeout": 1}), "continue", "timed out after 1s"),
        (slow.endpoint("openai"), json!({"timeout": 1, "onFailure": "block"}), "block", "timed out after 1s"),
        (unreachable("anthropic", &refused), json!({}), "continue", "model unreachable: "),
        (unreachable("openai", &refused), json!({"onFailure": "block"}), "block", "model unreachable: "),
        (unreachable("openai", &refused), json!({"failClosed": true}), "block", "model unreachable: "),
    ];
    for (endpoint, extra, flow, cause) in cases {
        let sandbox = Sandbox::new();
        let mut handler = json!({"type": "prompt", "prompt": "Safe?"});
        handler.as_object_mut().expect("object").extend(extra.as_object().expect("object").clone());
        user_file(&sandbox, endpoint, "PreToolUse", handler);
        let started = std::time::Instant::now();
        let v = run(&sandbox, "PreToolUse");
        assert!(started.elapsed() < Duration::from_secs(15), "{extra}: the timeout holds");
        assert_eq!(v["flow"], flow, "{extra}: {v}");
        let error = v["hooks"][0]["error"].as_str().unwrap_or_default();
        assert!(error.starts_with(cause), "{extra}: {v}");
        let out = claude(&sandbox, "PreToolUse");
        let denied = out.stdout.contains("\"permissionDecision\":\"deny\"");
        assert_eq!(denied, flow == "block", "{extra}: claude answers {}", out.stdout);
    }
}

#[test]
fn the_model_endpoint_is_read_only_from_the_persons_own_file() {
    let model = Model::start(NO);
    let sandbox = Sandbox::new();
    let file = json!({"model": model.endpoint("anthropic"),
        "hooks": {"PreToolUse": [{"hooks": [{"type": "prompt", "prompt": "Safe?", "onFailure": "block"}]}]}});
    sandbox.project_hooks(&file);
    sandbox.trust_project();
    let v = run(&sandbox, "PreToolUse");
    let error = v["hooks"][0]["error"].as_str().unwrap_or_default();
    assert_eq!(error, "no model endpoint: set 'model' in your own ~/.aimon/hooks.json", "{v}");
    let out = Outcome::of(sandbox.cmd().arg("validate"));
    assert!(out.stderr.contains("'model' is read only from your own ~/.aimon/hooks.json"), "{}", out.stderr);
}

#[test]
fn a_repositorys_prompt_and_agent_hooks_wait_for_trust() {
    let model = Model::start(NO);
    let sandbox = Sandbox::new();
    sandbox.write("home/.aimon/hooks.json", &json!({"model": model.endpoint("openai")}).to_string());
    for kind in ["prompt", "agent"] {
        sandbox.project_hooks(
            &json!({"hooks": {"PreToolUse": [{"hooks": [{"type": kind, "prompt": "Safe? $ARGUMENTS"}]}]}}),
        );
        let untrusted = claude(&sandbox, "PreToolUse");
        assert!(!untrusted.stdout.contains("too risky"), "{kind}: withheld until trusted: {}", untrusted.stdout);
        assert!(untrusted.stdout.contains("are not trusted"), "{kind}: the person is told: {}", untrusted.stdout);
        sandbox.trust_project();
        let trusted = claude(&sandbox, "PreToolUse");
        assert!(trusted.stdout.contains("too risky"), "{kind}: {} {}", trusted.stdout, trusted.stderr);
    }
}

#[test]
fn validate_list_explain_and_the_schema_know_prompt_and_agent_hooks() {
    let sandbox = Sandbox::new();
    sandbox.project_hooks(&json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "prompt", "prompt": "Safe? $ARGUMENTS", "continueOnBlock": true, "onFailure": "block"},
        {"type": "agent", "prompt": "Check the repo for $ARGUMENTS", "maxTurns": 5}
    ]}]}}));
    let validate = Outcome::of(sandbox.cmd().arg("validate"));
    assert_eq!(validate.code, 0, "{} {}", validate.stdout, validate.stderr);
    let list = Outcome::of(sandbox.cmd().arg("list"));
    assert!(list.stdout.contains(r#"prompt "Safe? $ARGUMENTS" continueOnBlock"#), "{}", list.stdout);
    assert!(list.stdout.contains(r#"agent "Check the repo for $ARGUMENTS" maxTurns=5"#), "{}", list.stdout);
    assert!(list.stdout.contains("failClosed"), "{}", list.stdout);
    sandbox.trust_project();
    let explain = Outcome::of(sandbox.cmd().args(["explain", "PreToolUse"]).write_stdin(bash("ls")));
    assert!(
        explain.stdout.starts_with("preTool (tool 'Bash'): 2 of 2 configured hook(s) would run"),
        "{}",
        explain.stdout
    );
    let schema = Outcome::of(sandbox.cmd().arg("schema")).json();
    let text = schema.to_string();
    for needle in
        [r#""prompt""#, r#""agent""#, r#""continueOnBlock""#, r#""maxTurns""#, r#""onFailure""#, r#""keyEnv""#]
    {
        assert!(text.contains(needle), "the schema names {needle}");
    }
}

/// A scripted agent model (Messages API): asks for `Read` of each path in turn, then answers
/// `{"ok": false}` with every tool result it got as the reason.
fn agent_model(paths: &'static [&'static str]) -> Value {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
        runtime.block_on(async move {
            let app = Router::new().route(
                "/v1/messages",
                post(move |axum::Json(body): axum::Json<Value>| async move {
                    let messages = body["messages"].as_array().cloned().unwrap_or_default();
                    let results: Vec<String> = messages
                        .iter()
                        .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
                        .filter(|c| c["type"] == "tool_result")
                        .map(|c| c["content"].as_str().unwrap_or_default().to_owned())
                        .collect();
                    let content = match paths.get(results.len()) {
                        Some(path) => json!([{"type": "tool_use", "id": format!("t{}", results.len()), "name": "Read",
                            "input": {"file_path": path}}]),
                        None => {
                            let answer = json!({"ok": false, "reason": results.join(" | ")}).to_string();
                            json!([{"type": "text", "text": answer}])
                        }
                    };
                    axum::Json(json!({"content": content}))
                }),
            );
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
            tx.send(listener.local_addr().expect("addr")).expect("send");
            axum::serve(listener, app).await.expect("serve");
        });
    });
    let addr = rx.recv().expect("the model starts");
    json!({"api": "anthropic", "baseUrl": format!("http://{addr}"), "model": "judge", "keyEnv": "AIMON_TEST_MODEL_KEY"})
}

#[test]
fn an_agent_hook_reads_the_project_but_not_a_file_a_read_deny_rule_protects() {
    let sandbox = Sandbox::new();
    sandbox.write("project/notes.txt", "plain-notes-marker\n");
    sandbox.write("project/.env", "TOKEN=secret-token-marker\n");
    let file = json!({
        "model": agent_model(&["notes.txt", ".env"]),
        "hooks": {"PreToolUse": [
            {"matcher": "Read(.env)", "hooks": [{"type": "deny", "reason": "secrets stay out"}]},
            {"matcher": "Bash", "hooks": [{"type": "agent", "prompt": "Check $ARGUMENTS against the notes"}]}
        ]}
    });
    sandbox.write("home/.aimon/hooks.json", &file.to_string());
    let v = run(&sandbox, "PreToolUse");
    let reason = v["reason"].as_str().unwrap_or_default();
    assert_eq!(v["decision"], "deny", "{v}");
    assert!(reason.contains("plain-notes-marker"), "the agent read the notes: {reason}");
    assert!(!reason.contains("secret-token-marker"), "the agent must not read .env: {reason}");
    assert!(reason.contains(".env is protected: secrets stay out"), "{reason}");
}

/// The other events Claude Code allows `prompt` on. Where the answer has no effect
/// (PermissionRequest reads no model "no"; PermissionDenied and PostToolUseFailure have no
/// decision), `run` proceeds; a "no" without `continueOnBlock` still ends the turn there, as
/// Claude Code's `continue: false`. TaskCreated and TaskCompleted answer by exit code 2 and stderr.
/// `impossible` counts only where a block keeps the agent working (TeammateIdle here).
#[test]
fn a_prompt_hooks_verdict_on_every_other_event_claude_code_allows_it_on() {
    let garbage = "hook 'x' failed closed: the model's answer is not {\"ok\": true|false}: \"Sure, go ahead!\"";
    let block = |reason: &str| json!({"decision": "block", "reason": reason}).to_string();
    let end_turn = |reason: &str| {
        json!({"continue": false, "decision": "block", "reason": reason, "stopReason": reason}).to_string()
    };
    let stop = |reason: &str| json!({"continue": false, "stopReason": reason}).to_string();
    let denied = json!({"hookSpecificOutput": {"decision": {"behavior": "deny", "message": garbage},
        "hookEventName": "PermissionRequest"}})
    .to_string();
    let (cob, fail) = (json!({"continueOnBlock": true}), json!({"onFailure": "block"}));
    let proceed = ("allow", "continue", Value::Null);
    let blocked = |reason: &str| ("allow", "block", json!(reason));
    // (event, the model says, handler fields, run's (decision, flow, reason), claude's (exit, stdout, stderr has))
    #[rustfmt::skip]
    #[allow(clippy::type_complexity, reason = "one table row")]
    let cases: Vec<(&str, Says, Value, (&str, &str, Value), (i32, String, &str))> = vec![
        ("PermissionRequest", NO, json!({}), proceed.clone(), (0, String::new(), "")),
        ("PermissionRequest", YES, json!({}), proceed.clone(), (0, String::new(), "")),
        ("PermissionRequest", GARBAGE, fail.clone(), ("deny", "continue", json!(garbage)), (0, denied, garbage)),
        ("PermissionDenied", NO, json!({}), proceed.clone(), (0, stop("too risky"), "which has no decision channel")),
        ("PermissionDenied", NO, cob.clone(), proceed.clone(), (0, String::new(), "which has no decision channel")),
        ("PermissionDenied", GARBAGE, fail.clone(), proceed.clone(), (0, String::new(), "proceeding")),
        ("UserPromptExpansion", NO, json!({}), blocked("too risky"), (0, end_turn("too risky"), "")),
        ("UserPromptExpansion", NO, cob.clone(), blocked("too risky"), (0, block("too risky"), "")),
        ("UserPromptExpansion", YES, json!({}), proceed.clone(), (0, String::new(), "")),
        ("UserPromptExpansion", GARBAGE, fail.clone(), blocked(garbage), (0, block(garbage), garbage)),
        ("PostToolUseFailure", NO, json!({}), proceed.clone(), (0, stop("too risky"), "which has no decision channel")),
        ("PostToolUseFailure", YES, json!({}), proceed.clone(), (0, String::new(), "")),
        ("PostToolUseFailure", GARBAGE, fail.clone(), proceed.clone(), (0, String::new(), "proceeding")),
        ("PostToolBatch", NO, json!({}), blocked("too risky"), (0, end_turn("too risky"), "")),
        ("PostToolBatch", NO, cob.clone(), blocked("too risky"), (0, block("too risky"), "")),
        ("PostToolBatch", GARBAGE, fail.clone(), blocked(garbage), (0, block(garbage), garbage)),
        ("TaskCreated", NO, json!({}), blocked("too risky"), (2, String::new(), "too risky")),
        ("TaskCreated", YES, json!({}), proceed.clone(), (0, String::new(), "")),
        ("TaskCreated", GARBAGE, fail.clone(), blocked(garbage), (2, String::new(), garbage)),
        ("TaskCompleted", NO, cob.clone(), blocked("too risky"), (2, String::new(), "too risky")),
        ("TaskCompleted", IMPOSSIBLE, json!({}), blocked("tests fail"), (2, String::new(), "tests fail")),
        ("TaskCompleted", YES, json!({}), proceed.clone(), (0, String::new(), "")),
        ("TeammateIdle", NO, json!({}), blocked("too risky"), (2, String::new(), "too risky")),
        ("TeammateIdle", IMPOSSIBLE, json!({}), proceed.clone(), (0, String::new(), "")),
        ("TeammateIdle", GARBAGE, fail.clone(), proceed.clone(), (0, String::new(), "proceeding")),
    ];
    for api in ["anthropic", "openai"] {
        for (event, says, extra, (decision, flow, reason), (code, stdout, stderr)) in &cases {
            let model = Model::start(*says);
            let sandbox = Sandbox::new();
            let mut handler = json!({"type": "prompt", "prompt": "Is this safe? $ARGUMENTS"});
            handler.as_object_mut().expect("object").extend(extra.as_object().expect("object").clone());
            user_file(&sandbox, model.endpoint(api), event, handler);
            let v = run(&sandbox, event);
            let id = v["hooks"][0]["id"].as_str().unwrap_or_default().to_owned();
            let named = |text: &str| text.replace("hook 'x'", &format!("hook '{id}'"));
            let reason = reason.as_str().map_or(Value::Null, |r| json!(named(r)));
            let got = (v["decision"].clone(), v["flow"].clone(), v["reason"].clone());
            assert_eq!(got, (json!(decision), json!(flow), reason), "run {api} {event} {says:?} {extra}: {v}");
            let out = claude(&sandbox, event);
            let label = format!("claude {api} {event} {says:?} {extra}: {} {}", out.stdout, out.stderr);
            assert_eq!((out.code, out.stdout.trim()), (*code, named(stdout).as_str()), "{label}");
            assert!(out.stderr.contains(&named(stderr)), "{label}");
            if stderr.is_empty() {
                assert_eq!(out.stderr.trim(), "", "{label}");
            }
        }
    }
}
