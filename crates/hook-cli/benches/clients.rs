//! What aimon-hooks costs inside each real client: headless sessions of Claude Code, Codex,
//! Gemini CLI, Copilot CLI and Qwen Code (the clients suite's sandbox, network namespace and
//! scripted model: one shell call, then a text), alternately behind `aimon-hooks <client>`
//! (settings by `aimon-hooks init <client> --project`, a one-rule `.aimon/hooks.json` the call
//! does not match, trusted) and with no hooks at all, in the same run. Prints, per client, the
//! median session wall time each way and their ratio, the calls of `aimon-hooks <client>` per
//! session, and the per-call cost: the difference of the medians divided by the calls.
//!
//! The calls are counted in one more session per client, not timed: the same rule plus, on every
//! event a `command` handler may be declared for, one that appends the event's name to a file;
//! every call of `aimon-hooks <client>` runs exactly the handler of its event.
//!
//! `cargo bench -p hook-cli --bench clients [-- <client>…] [--sessions N]` (default: all five,
//! 5 sessions each way). Wall times on a shared machine are noisy: read the ratios.

#![allow(dead_code, reason = "the bench shares the clients suite's modules and uses a part of them")]

#[path = "../tests/clients/claude.rs"]
mod claude;
#[path = "../tests/claude_code/install.rs"]
mod claude_install;
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

use std::path::Path;
use std::time::Duration;

use hook_core::{HandlerKind, HookEventType};
use runner::{Client, Scenario};
use serde_json::{Value, json};

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

/// The policy behind aimon-hooks: one rule the scripted call (`touch …; printf …`) does not match.
fn one_rule() -> Value {
    json!({"hooks": {"PreToolUse": [{"matcher": "Bash(git push:*)", "hooks": [{"type": "deny", "reason": "pushes go through review"}]}]}})
}

/// [`one_rule`] plus, on every event a `command` handler may be declared for, one that appends
/// the event's name to `log`.
fn counting(log: &Path) -> Value {
    let mut policy = one_rule();
    for event in HookEventType::ALL.iter().filter(|e| e.allows_handler(HandlerKind::Command)) {
        let name = event.payload_name();
        let handler = json!({"type": "command", "command": format!("echo {name} >> {}", log.display()), "timeout": 30});
        let groups = policy["hooks"].as_object_mut().expect("hooks").entry(name).or_insert_with(|| json!([]));
        groups.as_array_mut().expect("groups").push(json!({"hooks": [handler]}));
    }
    policy
}

/// How many times `aimon-hooks <client>` is called in one session, and on which events.
async fn calls_per_session(client: &'static Client) -> (usize, String) {
    let scenario = Scenario::new(client);
    let log = scenario.root().join("aimon-calls.log");
    let run = scenario.aimon(counting(&log)).run().await;
    run.check(run.code == Some(0) && run.tool_ran(), "the counting session failed");
    let events: Vec<String> = std::fs::read_to_string(&log).unwrap_or_default().lines().map(str::to_owned).collect();
    (events.len(), events.join(" "))
}

/// One client's sessions, alternating behind aimon-hooks and without hooks; prints its line.
async fn measure(client: &'static Client, sessions: usize) {
    let (calls, events) = calls_per_session(client).await;
    let (mut behind, mut without) = (Vec::new(), Vec::new());
    for _ in 0..sessions {
        let run = Scenario::new(client).aimon(one_rule()).run().await;
        run.check(run.code == Some(0) && run.tool_ran(), "a session behind aimon-hooks failed");
        behind.push(run.elapsed);
        let run = Scenario::new(client).without_hooks().run().await;
        run.check(run.code == Some(0) && run.tool_ran(), "a session without hooks failed");
        without.push(run.elapsed);
    }
    let (behind, without) = (median(behind), median(without));
    let per_call = (behind.as_secs_f64() - without.as_secs_f64()) / calls.max(1) as f64;
    println!(
        "{:<8} sessions {sessions:>2} each way | no hooks {:>7.3} s | aimon-hooks {:<7} {:>7.3} s ({:.2}x) | {calls:>2} calls/session | {:>+7.1} ms per call",
        client.name,
        without.as_secs_f64(),
        client.name,
        behind.as_secs_f64(),
        behind.as_secs_f64() / without.as_secs_f64(),
        per_call * 1000.0
    );
    println!("{:<8} the calls: {events}", client.name);
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
    let all: [&'static Client; 5] = [&claude::CLIENT, &codex::CLIENT, &gemini::CLIENT, &copilot::CLIENT, &qwen::CLIENT];
    let named = |c: &&'static Client| args.iter().any(|a| a == c.name);
    let any_named = all.iter().any(named);
    let chosen: Vec<&'static Client> = all.into_iter().filter(|c| !any_named || named(c)).collect();
    for client in chosen {
        measure(client, sessions).await;
    }
}
