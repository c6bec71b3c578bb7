//! A `prompt` hook under the real Claude Code: the hook asks a second scripted model (the
//! Anthropic Messages API on 127.0.0.1, the person's own `model` endpoint) about each Bash call;
//! its `{"ok": false, "reason": …}` keeps the call from running and the reason reaches the
//! session's model, its `{"ok": true}` lets the call run.

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::routing::post;
use serde_json::{Value, json};

use crate::model::Turn;
use crate::runner::{Route, Scenario, on_both_routes};

on_both_routes!(
    a_prompt_hooks_no_stops_the_bash_call_and_its_reason_reaches_the_model,
    a_prompt_hooks_ok_lets_the_bash_call_run,
);

/// The hook's model: answers every Messages request with `answer`, recording each question.
struct Judge {
    base: String,
    questions: Arc<Mutex<Vec<String>>>,
}

impl Judge {
    async fn start(answer: &'static str) -> Judge {
        let questions = Arc::new(Mutex::new(Vec::new()));
        let seen = questions.clone();
        let app = Router::new().route(
            "/v1/messages",
            post(move |axum::Json(body): axum::Json<Value>| {
                let seen = seen.clone();
                async move {
                    let question = body["messages"][0]["content"].as_str().unwrap_or_default().to_owned();
                    seen.lock().expect("lock").push(question);
                    axum::Json(json!({"id": "msg_judge", "type": "message", "role": "assistant",
                        "content": [{"type": "text", "text": answer}], "stop_reason": "end_turn"}))
                }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let base = format!("http://{}", listener.local_addr().expect("addr"));
        tokio::spawn(async move { axum::serve(listener, app).await.expect("serve") });
        Judge { base, questions }
    }

    /// The person's own hooks.json: this judge as the endpoint (its key read from `PATH`, which
    /// every process of the session has) and a prompt hook on Bash.
    fn user_hooks(&self) -> Value {
        json!({
            "model": {"api": "anthropic", "baseUrl": self.base, "model": "judge", "keyEnv": "PATH"},
            "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
                {"type": "prompt", "prompt": "Is this command safe? $ARGUMENTS", "timeout": 20}
            ]}]}
        })
    }

    fn questions(&self) -> Vec<String> {
        self.questions.lock().expect("lock").clone()
    }
}

async fn a_prompt_hooks_no_stops_the_bash_call_and_its_reason_reaches_the_model(route: Route) {
    let judge = Judge::start(r#"{"ok": false, "reason": "pushes-need-a-review-says-the-judge"}"#).await;
    let scenario = Scenario::new(route).user_hooks(&judge.user_hooks());
    let run = scenario.model(vec![Turn::bash("git push origin main"), Turn::text("done")]).run().await;
    run.check(run.git_calls().is_empty(), format_args!("git must not run; it ran {:?}", run.git_calls()));
    run.check(
        run.denied_tools() == ["Bash"],
        format_args!("Claude Code must report the denial: {:?}", run.denied_tools()),
    );
    run.check(run.model_saw("pushes-need-a-review-says-the-judge"), "the judge's reason must reach the model");
    let questions = judge.questions();
    run.check(
        questions.len() == 1
            && questions[0].starts_with("Is this command safe? {")
            && questions[0].contains("git push origin main"),
        format_args!("the judge must be asked once, the call as $ARGUMENTS: {questions:?}"),
    );
}

async fn a_prompt_hooks_ok_lets_the_bash_call_run(route: Route) {
    let judge = Judge::start(r#"{"ok": true}"#).await;
    let scenario = Scenario::new(route).user_hooks(&judge.user_hooks());
    let run = scenario.model(vec![Turn::bash("git status"), Turn::text("done")]).run().await;
    // Only the call's own `git status` is asserted: other git calls (alias lookups) are not this test's.
    let ran = run.git_calls();
    run.check(ran.iter().any(|c| c == "status"), format_args!("git status must run; git ran {ran:?}"));
    run.check(run.model_saw("fake-git-output: status"), "the call's output must reach the model");
    run.check(judge.questions().len() == 1, "the judge must be asked once");
}
