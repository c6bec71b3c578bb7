//! hook-core + hook-config: the hooks of `.aimon/hooks.json` (USER `~/.aimon/hooks.json`,
//! PROJECT `<project>/.aimon/hooks.json`, LOCAL `<project>/.aimon/hooks.local.json`) drive a toy
//! agent loop, and every edit of one of those files is swapped in while it runs.
//!
//! Run it with `cargo run -p example-config-reload -- <PROJECT_DIR> [HOME_DIR]`, edit a tier file
//! and watch an `onConfigReload` line and the loop's new outcomes; close stdin (Ctrl-D) to stop.

use std::path::PathBuf;
use std::sync::Arc;

use hook_config::{HookHotReloadBootstrap, TierPaths};
use hook_core::{
    CancellationToken, FnHook, HookContext, HookEngine, HookEventType, HookRegistry, HookResult, PreToolOutcome,
    ToolCall,
};
use serde_json::json;
use tokio::sync::mpsc;

/// What the `onConfigReload` hook saw, handed to the main loop.
enum Event {
    Reload { counter: u64, successful: bool, source: String, failure: String },
    StdinClosed,
}

#[tokio::main]
async fn main() {
    let mut args = std::env::args_os().skip(1).map(PathBuf::from);
    let Some(project) = args.next() else {
        eprintln!("usage: example-config-reload <PROJECT_DIR> [HOME_DIR]");
        std::process::exit(2);
    };
    let home = args.next().or_else(|| std::env::var_os("HOME").map(PathBuf::from));

    let registry = Arc::new(HookRegistry::new());
    let (tx, mut events) = mpsc::unbounded_channel();
    let reloads = tx.clone();
    registry.register(
        HookEventType::ON_CONFIG_RELOAD,
        FnHook::new("print-reloads", move |ctx: HookContext| {
            let field = |key: &str| ctx.fields.get(key).cloned().unwrap_or_default();
            let _ = reloads.send(Event::Reload {
                counter: field("reload_counter").as_u64().unwrap_or_default(),
                successful: field("successful").as_bool().unwrap_or_default(),
                source: field("config_source").as_str().unwrap_or_default().to_owned(),
                failure: field("failure_reason").as_str().unwrap_or_default().to_owned(),
            });
            async { Ok(HookResult::allow()) }
        }),
    );
    let engine = HookEngine::new(registry.clone());
    // The first load is silent; each later change of a tier file fires `onConfigReload`. A file
    // that does not parse keeps the previous hooks live.
    let _reload =
        match HookHotReloadBootstrap::builder().paths(TierPaths::new(home, project)).registry(registry).start() {
            Ok(handle) => handle,
            Err(e) => {
                eprintln!("hot reload: {e}");
                std::process::exit(1);
            }
        };
    std::thread::spawn(move || {
        let _ = std::io::copy(&mut std::io::stdin().lock(), &mut std::io::sink());
        let _ = tx.send(Event::StdinClosed);
    });

    toy_loop(&engine).await;
    println!("ready");
    while let Some(Event::Reload { counter, successful, source, failure }) = events.recv().await {
        if successful {
            println!("onConfigReload #{counter}: {source} reloaded");
        } else {
            println!("onConfigReload #{counter}: {source} rejected, previous hooks kept: {failure}");
        }
        toy_loop(&engine).await;
    }
}

/// The model's tool calls of the toy loop, each through the pre-tool chain.
async fn toy_loop(engine: &HookEngine) {
    let cancel = CancellationToken::new();
    for command in ["ls", "rm -rf /"] {
        let call = ToolCall::new("Bash", json!({ "command": command }));
        let ctx = HookContext::new(HookEventType::PRE_TOOL).with_tool(call);
        match engine.pre_tool(&ctx, &cancel).await.outcome {
            PreToolOutcome::Proceed { .. } => println!("pre_tool {command:?}: proceed"),
            PreToolOutcome::Cancelled { reason, .. } => println!("pre_tool {command:?}: denied: {reason}"),
            PreToolOutcome::Ask { reason } => println!("pre_tool {command:?}: ask: {reason}"),
        }
    }
}
