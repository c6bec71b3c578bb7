//! hook-core alone: register two programmatic hooks and call the pre-tool and post-tool chains
//! from a toy agent loop. Run it with `cargo run -p example-core-loop`.
//!
//! - `no-rm-rf` denies any Bash command containing `rm -rf`;
//! - `quiet-ls` rewrites `ls` to `ls -1` (an `updatedInput`);
//! - `redact` rewrites every tool output that mentions a secret (an `updatedOutput`).

use std::sync::Arc;

use hook_core::{
    CancellationToken, FnHook, HookContext, HookEngine, HookEventType, HookRegistry, HookResult, PreToolOutcome,
    ToolCall,
};
use serde_json::{Value, json};

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let registry = Arc::new(HookRegistry::new());
    registry.register(
        HookEventType::PRE_TOOL,
        FnHook::new("no-rm-rf", |ctx: HookContext| async move {
            let command = bash_command(&ctx);
            Ok(if command.contains("rm -rf") {
                HookResult::deny("rm -rf is not allowed here")
            } else {
                HookResult::allow()
            })
        }),
    );
    registry.register(
        HookEventType::PRE_TOOL,
        FnHook::new("quiet-ls", |ctx: HookContext| async move {
            Ok(if bash_command(&ctx) == "ls" {
                HookResult::allow().with_updated_input(json!({ "command": "ls -1" }))
            } else {
                HookResult::allow()
            })
        }),
    );
    registry.register(
        HookEventType::POST_TOOL,
        FnHook::new("redact", |ctx: HookContext| async move {
            let output = ctx.tool.as_ref().and_then(|t| t.response.clone()).unwrap_or(Value::Null);
            Ok(match output.as_str() {
                Some(text) if text.contains("SECRET") => {
                    HookResult::allow().with_updated_output(json!(text.replace("SECRET", "******")))
                }
                _ => HookResult::allow(),
            })
        }),
    );
    let engine = HookEngine::new(registry);
    let cancel = CancellationToken::new();

    // The model's tool calls, as a toy loop would receive them.
    for command in ["ls", "rm -rf /", "cat .env"] {
        let call = ToolCall::new("Bash", json!({ "command": command }));
        let ctx = HookContext::new(HookEventType::PRE_TOOL).with_tool(call);
        match engine.pre_tool(&ctx, &cancel).await.outcome {
            PreToolOutcome::Proceed { input, .. } => {
                let run = input["command"].as_str().unwrap_or_default().to_owned();
                println!("pre_tool {command:?}: proceed with {run:?}");
                let mut done = ToolCall::new("Bash", input);
                done.response = Some(json!(run_tool(&run)));
                let ctx = HookContext::new(HookEventType::POST_TOOL).with_tool(done);
                let post = engine.post_tool(&ctx, &cancel).await.outcome;
                println!("post_tool {command:?}: {:?}", post.tool_result);
            }
            PreToolOutcome::Cancelled { reason, .. } => println!("pre_tool {command:?}: denied: {reason}"),
            PreToolOutcome::Ask { reason } => println!("pre_tool {command:?}: ask: {reason}"),
        }
    }
}

/// The Bash command of a tool call, or "" for any other tool.
fn bash_command(ctx: &HookContext) -> String {
    let tool = ctx.tool.as_ref().filter(|t| t.name == "Bash");
    tool.and_then(|t| t.input["command"].as_str()).unwrap_or_default().to_owned()
}

/// A pretend tool: what the command would print.
fn run_tool(command: &str) -> String {
    match command {
        "ls -1" => "Cargo.toml\nsrc".to_owned(),
        "cat .env" => "TOKEN=SECRET".to_owned(),
        other => format!("ran {other}"),
    }
}
