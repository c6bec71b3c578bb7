//! Prompt and agent hooks against a scripted model on 127.0.0.1 speaking the Anthropic Messages
//! API and the OpenAI Chat Completions API.
//!
//! Contents: the verdict per event and answer (both APIs); failures (garbage, timeout under a
//! paused clock, status 500, unreachable, no endpoint) open and closed; what reaches the model;
//! the agent's tools under a read rule, its turn limit.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use hook_actions::{AgentAction, AgentScope, AgentSpec, ModelApi, ModelEndpoint, PromptAction, PromptSpec, ReadGate};
use hook_core::{Decision, ExecutionHook, FlowControl, HookContext, HookEventType, HookResult, ToolCall};
use serde_json::{Value, json};

#[path = "common/refused.rs"]
mod refused;
use refused::refused;

/// One scripted model reply.
#[derive(Clone, Debug)]
enum Step {
    Text(&'static str),
    Tool(&'static str, Value),
    Slow,
    Status500,
}

#[derive(Clone, Default)]
struct Script {
    steps: Arc<Mutex<VecDeque<Step>>>,
    seen: Arc<Mutex<Vec<(HeaderMap, Value)>>>,
}

async fn reply(api: ModelApi, script: Script, headers: HeaderMap, body: Value) -> Response {
    script.seen.lock().expect("lock").push((headers, body));
    let step = script.steps.lock().expect("lock").pop_front().unwrap_or(Step::Text("{\"ok\": true}"));
    let n = script.seen.lock().expect("lock").len();
    let body = match (step, api) {
        (Step::Slow, _) => {
            tokio::time::sleep(Duration::from_secs(600)).await;
            json!({})
        }
        (Step::Status500, _) => return StatusCode::INTERNAL_SERVER_ERROR.into_response(),
        (Step::Text(t), ModelApi::Anthropic) => json!({"content": [{"type": "text", "text": t}]}),
        (Step::Text(t), ModelApi::Openai) => json!({"choices": [{"message": {"role": "assistant", "content": t}}]}),
        (Step::Tool(name, input), ModelApi::Anthropic) => {
            json!({"content": [{"type": "tool_use", "id": format!("t{n}"), "name": name, "input": input}]})
        }
        (Step::Tool(name, input), ModelApi::Openai) => json!({"choices": [{"message": {"role": "assistant",
            "content": null, "tool_calls": [{"id": format!("t{n}"), "type": "function",
            "function": {"name": name, "arguments": input.to_string()}}]}}]}),
    };
    axum::Json(body).into_response()
}

struct Model {
    base: String,
    script: Script,
}

impl Model {
    async fn start(steps: &[Step]) -> Model {
        let script = Script::default();
        script.steps.lock().expect("lock").extend(steps.iter().cloned());
        let app = Router::new()
            .route(
                "/v1/messages",
                post(|State(s): State<Script>, h: HeaderMap, axum::Json(b): axum::Json<Value>| {
                    reply(ModelApi::Anthropic, s, h, b)
                }),
            )
            .route(
                "/chat/completions",
                post(|State(s): State<Script>, h: HeaderMap, axum::Json(b): axum::Json<Value>| {
                    reply(ModelApi::Openai, s, h, b)
                }),
            )
            .with_state(script.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let base = format!("http://{}", listener.local_addr().expect("addr"));
        tokio::spawn(async move { axum::serve(listener, app).await.expect("serve") });
        Model { base, script }
    }

    /// An endpoint of `api` here; the key is read from `PATH`, which every test process has.
    fn endpoint(&self, api: ModelApi) -> Option<Arc<ModelEndpoint>> {
        Some(Arc::new(ModelEndpoint::new(api, "judge").with_base_url(&self.base).with_key_env("PATH")))
    }

    fn requests(&self) -> Vec<(HeaderMap, Value)> {
        self.script.seen.lock().expect("lock").clone()
    }
}

fn call_on(event: HookEventType) -> HookContext {
    let ctx = HookContext::new(event);
    if event.spec().matcher == hook_core::MatchSubject::Tool {
        ctx.with_tool(ToolCall::new("Bash", json!({"command": "rm -rf /"})))
    } else {
        ctx
    }
}

/// (decision, flow, feedback, stop reason, failure)
type Seen = (Decision, FlowControl, Option<String>, Option<String>, Option<String>);

fn seen(r: HookResult) -> Seen {
    (r.decision, r.flow, r.feedback, r.stop_reason, r.failure)
}

async fn prompt(api: ModelApi, event: HookEventType, step: Step, spec: PromptSpec) -> Seen {
    let model = Model::start(&[step]).await;
    let action = PromptAction::new("prompt@user#0", "user#0", spec, model.endpoint(api));
    seen(action.execute(&call_on(event)).await.expect("a result"))
}

const NO: Step = Step::Text("{\"ok\": false, \"reason\": \"too risky\"}");
const NO_IMPOSSIBLE: Step = Step::Text("{\"ok\": false, \"reason\": \"tests fail\", \"impossible\": true}");
const YES: Step = Step::Text("{\"ok\": true}");
const GARBAGE: Step = Step::Text("Looks fine to me!");

#[tokio::test]
async fn a_prompt_hooks_verdict_on_each_event_is_claude_codes_on_both_apis() {
    use Decision::{Allow, Deny};
    use FlowControl::{Block, Continue};
    use HookEventType as E;
    let why = || Some("too risky".to_owned());
    let garbage = || Some("the model's answer is not {\"ok\": true|false}: \"Looks fine to me!\"".to_owned());
    #[rustfmt::skip]
    let cases: Vec<(E, Step, bool, bool, Seen)> = vec![
        (E::PRE_TOOL, YES, false, false, (Allow, Continue, None, None, None)),
        (E::PRE_TOOL, NO, false, false, (Deny, Continue, why(), None, None)),
        (E::PRE_TOOL, NO, true, false, (Deny, Continue, why(), None, None)),
        (E::PRE_TOOL, GARBAGE, false, false, (Allow, Continue, None, None, garbage())),
        (E::PRE_TOOL, GARBAGE, false, true, (Allow, Block, Some(format!("hook 'prompt@user#0' failed closed: {}", garbage().unwrap_or_default())), None, garbage())),
        (E::POST_TOOL, NO, false, false, (Allow, Block, why(), why(), None)),
        (E::POST_TOOL, NO, true, false, (Allow, Block, why(), None, None)),
        (E::POST_TOOL_FAILURE, NO, true, false, (Allow, Continue, None, None, None)),
        (E::USER_PROMPT_SUBMIT, NO, false, false, (Allow, Block, why(), why(), None)),
        (E::USER_PROMPT_SUBMIT, YES, false, false, (Allow, Continue, None, None, None)),
        (E::ON_STOP, NO, false, false, (Allow, Block, why(), None, None)),
        (E::ON_STOP, NO_IMPOSSIBLE, false, false, (Allow, Continue, None, None, None)),
        (E::SUBAGENT_STOP, NO, false, false, (Allow, Block, why(), None, None)),
        (E::SUBAGENT_STOP, NO_IMPOSSIBLE, false, false, (Allow, Continue, None, None, None)),
        (E::PERMISSION_REQUEST, NO, false, false, (Allow, Continue, None, None, None)),
        (E::TASK_COMPLETED, NO, true, false, (Allow, Block, why(), None, None)),
    ];
    for api in [ModelApi::Anthropic, ModelApi::Openai] {
        for (event, step, continue_on_block, fail_closed, want) in &cases {
            let spec = PromptSpec::new("Is this safe? $ARGUMENTS")
                .with_continue_on_block(*continue_on_block)
                .with_fail_closed(*fail_closed);
            let got = prompt(api, *event, step.clone(), spec).await;
            assert_eq!(&got, want, "{api:?} {event} {step:?} continueOnBlock={continue_on_block}");
        }
    }
}

#[tokio::test]
async fn every_event_that_takes_a_prompt_hook_reads_a_no_as_claude_code_does() {
    use Decision::{Allow, Deny};
    use FlowControl::{Block, Continue};
    use HookEventType as E;
    let why = || Some("too risky".to_owned());
    // (event, without continueOnBlock, with it): keep working / deny / nothing / end the turn,
    // or with continueOnBlock block with the reason to the agent (an advisory event without a
    // decision channel has no block: only the end of the turn is left).
    let keep_working = (Allow, Block, why(), None, None);
    let denied = (Deny, Continue, why(), None, None);
    let nothing = (Allow, Continue, None, None, None);
    let end_turn = (Allow, Block, why(), why(), None);
    let blocked = (Allow, Block, why(), None, None);
    let ends_only = (Allow, Continue, None, why(), None);
    #[rustfmt::skip]
    let table: Vec<(E, Seen, Seen)> = vec![
        (E::ON_STOP, keep_working.clone(), keep_working.clone()),
        (E::SUBAGENT_STOP, keep_working.clone(), keep_working.clone()),
        (E::TEAMMATE_IDLE, keep_working.clone(), keep_working),
        (E::PRE_TOOL, denied.clone(), denied),
        (E::PERMISSION_REQUEST, nothing.clone(), nothing.clone()),
        (E::PERMISSION_DENIED, ends_only.clone(), nothing.clone()),
        (E::POST_TOOL_FAILURE, ends_only, nothing),
        (E::POST_TOOL, end_turn.clone(), blocked.clone()),
        (E::USER_PROMPT_SUBMIT, end_turn.clone(), blocked.clone()),
        (E::USER_PROMPT_EXPANSION, end_turn.clone(), blocked.clone()),
        (E::POST_TOOL_BATCH, end_turn.clone(), blocked.clone()),
        (E::TASK_CREATED, end_turn.clone(), blocked.clone()),
        (E::TASK_COMPLETED, end_turn, blocked),
    ];
    let takes_prompt: Vec<E> =
        E::ALL.iter().copied().filter(|e| e.allows_handler(hook_core::HandlerKind::Prompt)).collect();
    let mut listed: Vec<E> = table.iter().map(|(e, _, _)| *e).collect();
    listed.sort_by_key(|e| e.index());
    assert_eq!(listed, takes_prompt, "one row per event that takes a prompt hook");
    for (event, without, with) in table {
        for (continue_on_block, want) in [(false, without), (true, with)] {
            let spec = PromptSpec::new("ok?").with_continue_on_block(continue_on_block);
            let got = prompt(ModelApi::Anthropic, event, NO, spec).await;
            assert_eq!(got, want, "{event} continueOnBlock={continue_on_block}");
        }
    }
}

#[tokio::test]
async fn the_model_gets_the_rendered_prompt_the_key_and_the_handlers_model() {
    for api in [ModelApi::Anthropic, ModelApi::Openai] {
        let model = Model::start(&[YES]).await;
        let spec = PromptSpec::new("Costs \\$5? $ARGUMENTS").with_model("small");
        PromptAction::new("p", "user#0", spec, model.endpoint(api))
            .execute(&call_on(HookEventType::PRE_TOOL))
            .await
            .expect("a result");
        let (headers, body) = model.requests().pop().expect("one request");
        assert_eq!(body["model"], "small", "{api:?}");
        let path = std::env::var("PATH").expect("PATH");
        let (key, question) = match api {
            ModelApi::Anthropic => {
                (headers["x-api-key"].to_str().map(str::to_owned), body["messages"][0]["content"].clone())
            }
            ModelApi::Openai => (
                headers["authorization"].to_str().map(|v| v.replace("Bearer ", "")),
                body["messages"][1]["content"].clone(),
            ),
        };
        assert_eq!(key.expect("ascii"), path, "{api:?}");
        let question = question.as_str().expect("text").to_owned();
        assert!(question.starts_with("Costs $5? {"), "{question}");
        assert!(question.contains(r#""tool_input":{"command":"rm -rf /"}"#), "{question}");
    }
}

#[tokio::test(start_paused = true)]
async fn a_model_slower_than_the_timeout_is_a_failure_that_fail_closed_turns_into_a_block() {
    for fail_closed in [false, true] {
        let spec = PromptSpec::new("ok?").with_timeout(Duration::from_secs(2)).with_fail_closed(fail_closed);
        let (_, flow, _, _, failure) = prompt(ModelApi::Anthropic, HookEventType::PRE_TOOL, Step::Slow, spec).await;
        let want = if fail_closed { FlowControl::Block } else { FlowControl::Continue };
        assert_eq!((flow, failure.as_deref()), (want, Some("timed out after 2s")));
    }
}

#[tokio::test]
async fn an_unreachable_or_failing_or_missing_model_is_a_failure() {
    let closed = refused();
    let dead = format!("http://{}", closed.addr);
    let unreachable =
        Some(Arc::new(ModelEndpoint::new(ModelApi::Openai, "m").with_base_url(dead).with_key_env("PATH")));
    let no_key =
        Some(Arc::new(ModelEndpoint::new(ModelApi::Anthropic, "m").with_key_env("AIMON_TEST_NO_SUCH_VARIABLE")));
    let model = Model::start(&[Step::Status500, Step::Status500]).await;
    let cases = [
        (unreachable, "model unreachable: "),
        (no_key, "the model key variable AIMON_TEST_NO_SUCH_VARIABLE is not set"),
        (model.endpoint(ModelApi::Anthropic), "model answered http status 500 Internal Server Error"),
        (None, "no model endpoint: set 'model' in your own ~/.aimon/hooks.json"),
    ];
    for (endpoint, cause) in cases {
        for fail_closed in [false, true] {
            let spec = PromptSpec::new("ok?").with_fail_closed(fail_closed);
            let action = PromptAction::new("p", "user#0", spec, endpoint.clone());
            let r = action.execute(&call_on(HookEventType::PRE_TOOL)).await.expect("a result");
            assert!(r.failure.as_deref().is_some_and(|f| f.starts_with(cause)), "{:?} {cause}", r.failure);
            assert_eq!(r.is_blocked(), fail_closed, "{cause}");
        }
    }
}

fn project() -> (tempfile::TempDir, AgentScope) {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("deploy.sh"), "rm -rf build\n").expect("write");
    std::fs::write(dir.path().join("secret.txt"), "hunter2\n").expect("write");
    let gate: ReadGate = Arc::new(|tool, input| {
        let path = input.get("file_path").and_then(Value::as_str).unwrap_or_default();
        (tool == "Read" && path.ends_with("secret.txt")).then(|| "Read(secret.txt) is denied".to_owned())
    });
    let scope = AgentScope::new(dir.path(), gate);
    (dir, scope)
}

#[tokio::test]
async fn an_agent_reads_the_project_but_not_what_a_read_rule_protects_and_blocks_with_its_reason() {
    for api in [ModelApi::Anthropic, ModelApi::Openai] {
        let (_dir, scope) = project();
        let model = Model::start(&[
            Step::Tool("Read", json!({"file_path": "deploy.sh"})),
            Step::Tool("Read", json!({"file_path": "secret.txt"})),
            Step::Tool("Grep", json!({"pattern": "hunter2"})),
            Step::Text("{\"ok\": false, \"reason\": \"deploy.sh deletes build\"}"),
        ])
        .await;
        let action = AgentAction::new("a", "user#0", AgentSpec::new("Check $ARGUMENTS"), model.endpoint(api), scope);
        let r = action.execute(&call_on(HookEventType::POST_TOOL)).await.expect("a result");
        assert_eq!(
            (r.flow, r.feedback.as_deref(), r.stop_reason.as_deref()),
            (FlowControl::Block, Some("deploy.sh deletes build"), None),
            "{api:?}: an agent's no is a prompt hook's with continueOnBlock"
        );
        let tool_results: Vec<String> = model.requests()[1..]
            .iter()
            .map(|(_, body)| {
                let last = body["messages"].as_array().and_then(|m| m.last()).cloned().unwrap_or_default();
                match api {
                    ModelApi::Anthropic => last["content"][0]["content"].as_str().unwrap_or_default().to_owned(),
                    ModelApi::Openai => last["content"].as_str().unwrap_or_default().to_owned(),
                }
            })
            .collect();
        assert_eq!(
            tool_results,
            ["rm -rf build\n", "error: secret.txt is protected: Read(secret.txt) is denied", "no match"],
            "{api:?}"
        );
    }
}

#[tokio::test]
async fn an_agent_that_never_answers_within_its_turns_fails() {
    let (_dir, scope) = project();
    let glob = || Step::Tool("Glob", json!({"pattern": "*"}));
    let model = Model::start(&[glob(), glob(), glob()]).await;
    let spec = AgentSpec::new("Check").with_max_turns(2).with_fail_closed(true);
    let action = AgentAction::new("a", "user#0", spec, model.endpoint(ModelApi::Anthropic), scope);
    let r = action.execute(&call_on(HookEventType::PRE_TOOL)).await.expect("a result");
    assert_eq!(r.failure.as_deref(), Some("the agent gave no answer in 2 turns"));
    assert!(r.is_blocked());
}
