//! What a command hook costs inside each real client: headless sessions of Codex, Gemini CLI,
//! Copilot CLI and Qwen Code (the clients suite's sandbox, network namespace and scripted model:
//! one shell call, then a text), alternately with the recording hook on all six events and with
//! no hooks at all, in the same run. Prints, per client, the median session wall time each way,
//! the hook calls per session, and the per-call cost: the difference of the medians divided by
//! the calls. The recording hook is a `sh` script (save stdin, answer); Gemini CLI and Qwen Code
//! also run sessions behind `aimon-hooks <client>` (settings by `init <client> --project`).
//!
//! `cargo bench -p hook-cli --bench clients [-- <client>…] [--sessions N]` (default: all four,
//! 5 sessions each way). Wall times on a shared machine are noisy: read the ratios.

#![allow(dead_code, reason = "the bench shares the clients suite's modules and uses a part of them")]

#[path = "../tests/clients/codex.rs"]
mod codex;
#[path = "../tests/clients/copilot.rs"]
mod copilot;
#[path = "../tests/clients/gemini.rs"]
mod gemini;
#[path = "../tests/clients/model/mod.rs"]
mod model;
#[path = "../tests/common/npm.rs"]
mod npm;
#[path = "../tests/clients/policy.rs"]
mod policy;
#[path = "../tests/clients/qwen.rs"]
mod qwen;
#[path = "../tests/clients/rows.rs"]
mod rows;
#[path = "../tests/clients/runner.rs"]
mod runner;

use std::time::Duration;

use runner::{Client, Scenario};

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

/// One client's sessions, alternating with and without hooks; prints its line.
async fn measure(client: &'static Client, sessions: usize) {
    let (mut with, mut without, mut calls) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..sessions {
        let run = Scenario::new(client).run().await;
        run.check(run.code == Some(0) && run.tool_ran(), "a session with hooks failed");
        calls.push(run.hook_calls().len());
        with.push(run.elapsed);
        let run = Scenario::new(client).without_hooks().run().await;
        run.check(run.code == Some(0) && run.tool_ran(), "a session without hooks failed");
        without.push(run.elapsed);
    }
    let mut behind = Vec::new();
    if client.name == "gemini" || client.name == "qwen" {
        for _ in 0..sessions {
            // Every event `init <client> --project` routes, answered by `aimon-hooks <client>`
            // in process under a one-rule policy that the call does not match.
            let policy = serde_json::json!({"hooks": {"PreToolUse": [{"matcher": "Bash(git push:*)", "hooks": [{"type": "deny", "reason": "r"}]}]}});
            let run = Scenario::new(client).aimon(policy).run().await;
            run.check(run.code == Some(0) && run.tool_ran(), "a session behind aimon-hooks failed");
            behind.push(run.elapsed);
        }
    }
    let (with, without) = (median(with), median(without));
    let calls = calls.iter().sum::<usize>() as f64 / sessions as f64;
    let per_call = (with.as_secs_f64() - without.as_secs_f64()) / calls;
    println!(
        "{:<8} sessions {sessions:>2} each way | no hooks {:>7.3} s | hooks {:>7.3} s ({:.2}x) | {calls:>4.1} calls/session | {:>+7.1} ms per call",
        client.name,
        without.as_secs_f64(),
        with.as_secs_f64(),
        with.as_secs_f64() / without.as_secs_f64(),
        per_call * 1000.0
    );
    if !behind.is_empty() {
        let behind = median(behind);
        println!(
            "{:<8} behind aimon-hooks {}: {:>7.3} s ({:.2}x no hooks) | {:>+7.1} ms per call at the recording hook's {calls:.1} calls",
            client.name,
            client.name,
            behind.as_secs_f64(),
            behind.as_secs_f64() / without.as_secs_f64(),
            (behind.as_secs_f64() - without.as_secs_f64()) / calls * 1000.0
        );
    }
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| a != "--bench").collect();
    let sessions = args
        .iter()
        .position(|a| a == "--sessions")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(5);
    let all: [&'static Client; 4] = [&codex::CLIENT, &gemini::CLIENT, &copilot::CLIENT, &qwen::CLIENT];
    let named = |c: &&'static Client| args.iter().any(|a| a == c.name);
    let any_named = all.iter().any(named);
    let chosen: Vec<&'static Client> = all.into_iter().filter(|c| !any_named || named(c)).collect();
    for client in chosen {
        measure(client, sessions).await;
    }
}
