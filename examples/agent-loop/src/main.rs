//! An agent loop against a model that speaks a Messages-API-like protocol on loopback (here a
//! scripted one, the way this project's tests drive Claude Code). Every tool call of the model
//! goes through the hooks; a hook that wants to look again later returns a rewake, and what it
//! says when it fires is mailed to the session and reaches the model on the next turn.
//! Run it with `cargo run -p example-agent-loop`.
//!
//! - `no-rm-rf` (preTool) denies `rm -rf`: the model gets the reason as the tool result;
//! - `deploy-watch` (postTool) asks to be woken 300 ms after `./deploy.sh` ran; woken, it says
//!   how the deploy ended. [`MailboxRuntime`] puts that in the session's mailbox in a SQLite
//!   store (a temporary directory here; `~/.aimon/rewake.db` for the CLI), and the loop takes
//!   the mailbox into the next user turn.

mod model;

use std::sync::Arc;
use std::time::Duration;

use chrono::{TimeDelta, Utc};
use hook_core::{
    CancellationToken, FnHook, HookContext, HookEngine, HookEventType, HookRegistry, HookResult, PreToolOutcome,
    RewakeSpec, RewakeTrigger, ToolCall,
};
use hook_rewake::{
    DefaultRewakeFireListener, DefaultRewakeService, Lease, MailboxRuntime, RewakeStore, RuntimeRegistry, SqliteStore,
};
use serde_json::{Value, json};

const SESSION: &str = "session-1";

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let model_url = model::serve().await?;

    // The hooks.
    let hooks = Arc::new(HookRegistry::new());
    hooks.register(
        HookEventType::PRE_TOOL,
        FnHook::new("no-rm-rf", |ctx: HookContext| async move {
            let command = ctx.tool.as_ref().and_then(|t| t.input["command"].as_str()).unwrap_or_default();
            Ok(if command.contains("rm -rf") { HookResult::deny("rm -rf is not allowed") } else { HookResult::allow() })
        }),
    );
    hooks.register(
        HookEventType::POST_TOOL,
        FnHook::new("deploy-watch", |ctx: HookContext| async move {
            if ctx.rewake.is_some() {
                return Ok(HookResult::feedback("the deploy finished: 3 of 3 instances healthy"));
            }
            let command = ctx.tool.as_ref().and_then(|t| t.input["command"].as_str()).unwrap_or_default();
            Ok(if command == "./deploy.sh" {
                let later = RewakeSpec::new(RewakeTrigger::Delay(Duration::from_millis(300)), "check the deploy");
                HookResult::allow().with_rewake(later)
            } else {
                HookResult::allow()
            })
        }),
    );

    // Rewake: a fire re-invokes the hook; a session that cannot be re-entered gets its answer
    // by mail.
    let store = Arc::new(SqliteStore::open(dir.path().join("rewake.db"))?);
    let runtimes = Arc::new(RuntimeRegistry::new());
    runtimes.set_fallback(Arc::new(MailboxRuntime::new(store.clone())));
    let listener = Arc::new(DefaultRewakeFireListener::new(hooks.clone(), runtimes));
    let service = DefaultRewakeService::builder(listener.clone()).store(store.clone()).start()?;
    listener.bind_service(&service);
    let engine = HookEngine::new(hooks).with_rewake(service);

    let http = reqwest::Client::new();
    let mut messages = Vec::new();
    turn(&engine, &http, &model_url, &mut messages, "deploy the site".to_owned()).await?;

    // Between turns the rewake fires and mails its answer; the next turn carries it.
    let mail = wait_for_mail(store.as_ref()).await?;
    println!("mail: {mail}");
    turn(&engine, &http, &model_url, &mut messages, format!("<hook-mail>{mail}</hook-mail>\nis it done?")).await?;
    Ok(())
}

/// One user turn: ask the model until it stops asking for tools; each tool call goes through
/// the pre-tool chain, the tool, then the post-tool chain.
async fn turn(
    engine: &HookEngine,
    http: &reqwest::Client,
    url: &str,
    messages: &mut Vec<Value>,
    user: String,
) -> Result<(), Box<dyn std::error::Error>> {
    println!("user: {}", user.lines().last().unwrap_or_default());
    messages.push(json!({ "role": "user", "content": user }));
    let cancel = CancellationToken::new();
    loop {
        let reply: Value = http.post(url).json(&json!({ "messages": messages })).send().await?.json().await?;
        messages.push(json!({ "role": "assistant", "content": reply["content"].clone() }));
        let mut results = Vec::new();
        for block in reply["content"].as_array().into_iter().flatten() {
            match block["type"].as_str() {
                Some("text") => println!("model: {}", block["text"].as_str().unwrap_or_default()),
                Some("tool_use") => {
                    let (name, input) = (block["name"].as_str().unwrap_or_default(), block["input"].clone());
                    println!("model: tool_use {name} {input}");
                    let mut ctx = HookContext::new(HookEventType::PRE_TOOL).with_tool(ToolCall::new(name, input));
                    ctx.session_id = Some(SESSION.to_owned());
                    let content = match engine.pre_tool(&ctx, &cancel).await.outcome {
                        PreToolOutcome::Proceed { input, .. } => {
                            let mut call = ToolCall::new(name, input.clone());
                            call.response = Some(json!(run_tool(&input)));
                            let mut ctx = HookContext::new(HookEventType::POST_TOOL).with_tool(call);
                            ctx.session_id = Some(SESSION.to_owned());
                            engine.post_tool(&ctx, &cancel).await.outcome.tool_result
                        }
                        PreToolOutcome::Cancelled { tool_result, .. } => tool_result,
                        PreToolOutcome::Ask { reason } => format!("not run: {reason} (nobody here to ask)"),
                    };
                    println!("tool: {content}");
                    results.push(json!({ "type": "tool_result", "tool_use_id": block["id"], "content": content }));
                }
                _ => {}
            }
        }
        if results.is_empty() || reply["stop_reason"] != "tool_use" {
            return Ok(());
        }
        messages.push(json!({ "role": "user", "content": results }));
    }
}

/// A pretend shell.
fn run_tool(input: &Value) -> String {
    match input["command"].as_str().unwrap_or_default() {
        "./deploy.sh" => "deploy started (job 42)".to_owned(),
        other => format!("ran {other}"),
    }
}

/// Takes the session's mailbox once it has something (bounded: 10 s), and acknowledges it.
async fn wait_for_mail(store: &dyn RewakeStore) -> Result<String, Box<dyn std::error::Error>> {
    for _ in 0..200 {
        let now = Utc::now();
        let claim = Lease::new("example-agent", now + TimeDelta::seconds(60));
        let mails = store.take_mail(SESSION, &claim, now)?;
        if !mails.is_empty() {
            let ids: Vec<String> = mails.iter().map(|m| m.id.clone()).collect();
            store.ack_mail("example-agent", &ids)?;
            return Ok(mails.iter().map(|m| m.text.as_str()).collect::<Vec<_>>().join("\n"));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Err("no rewake mail within 10 s".into())
}
