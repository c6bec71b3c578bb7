//! `aimon-hooks`: the aimon hook engine as a command line, usable standalone and behind Claude Code.
//!
//! Commands (R-CLI): `run` (one event, one payload, a JSON verdict), `claude` (Claude Code's hook
//! contract on stdin/stdout), `validate`, `list`, `explain`, `import-claude`, `schema`, `watch`,
//! `trust`, `rewake`, `init`, `guard` (hook-guard), `serve` (the daemon, from hook-server; `claude` forwards to it),
//! `test` (policy tests, `policy_test`), `replay` (recorded sessions, `replay`), `log` (the
//! decision log, `log_cmd`).
//! The verdict rules are hook-core's ([`hook_core::EventVerdict`]); this crate maps payloads to
//! contexts, loads the tiers through hook-config and renders answers. Event names come from the
//! events table, never from literals here (R-LAYER-4).
//!
//! Exit codes: 0 proceed/ask (and every successful command), 2 blocked/denied, 1 configuration or
//! usage errors, including clap's (never clap's own 2); `--help`/`--version` exit 0; 128 + the
//! signal number when `run`, `claude` or `watch` is stopped by SIGTERM, SIGINT or SIGHUP, after
//! killing the process groups of its hooks (`signals`).
//! Tests: `tests/cli/` (assert_cmd against the real binary, snapshots in `tests/snapshots/`);
//! `benches/run_wall_time.rs` measures `run` against `true`.

// The command-line help is written as clap doc comments, where `<project>` and `<file>` are the
// placeholders a user reads in `--help`, not HTML.
#![allow(rustdoc::invalid_html_tags)]

mod agent;
#[expect(unsafe_code, reason = "the allocator switch: this crate's only unsafe code (hook-guard holds the rest)")]
mod alloc;
mod cli;
mod commands;
mod env;
mod guard;
mod import;
mod init;
mod load;
mod log_cmd;
mod logging;
mod packs_cmd;
mod payload;
mod policy_test;
mod replay;
mod rewake;
mod signals;
mod table;
mod trust;

use std::process::ExitCode;

use clap::Parser as _;
use clap::error::ErrorKind;

use hook_wire::Client;

use crate::cli::{Cli, Command, InitTarget};

/// jemalloc for `serve`, the system's allocator for every one-shot command (`alloc`).
#[global_allocator]
static ALLOCATOR: alloc::ChosenAllocator = alloc::ChosenAllocator;

fn main() -> ExitCode {
    // `claude` runs on every Claude Code hook call: it forwards to `serve` before clap, logging
    // or a runtime is built (PERF-SRV-2). Anything else on its command line goes through clap.
    if let Some(args) = cli::plain_claude(std::env::args_os().skip(1)) {
        return ExitCode::from(agent::answer(Client::Claude, &args, None, 0));
    }
    // Claude Code runs its own hook route through its shell prefix too: that is `claude`.
    if guard::wraps_own_route(std::env::args_os().skip(1)) {
        return ExitCode::from(agent::answer(Client::Claude, &cli::CallArgs::default(), None, 0));
    }
    // Claude Code's shell prefix (`init claude` writes it): `aimon-hooks --guard '<snippet>'`; and
    // `guard` in its plain forms, read before clap (it stands before every guarded command).
    if let Some(args) =
        guard::prefix_call(std::env::args_os().skip(1)).or_else(|| guard::plain_call(std::env::args_os().skip(1)))
    {
        return ExitCode::from(guard::run(&args));
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            let _ = err.print();
            let code = match err.kind() {
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => 0,
                _ => 1,
            };
            return ExitCode::from(code);
        }
    };
    let multi_thread = matches!(cli.command, Command::Serve(_));
    // Each command once: a client's call and `guard` are answered here, before logging or a
    // runtime is built; every other command is work for the runtime below.
    let work: Work = match cli.command {
        Command::Client(call) => {
            let (client, args, event) = call.client_call();
            return ExitCode::from(agent::answer(client, args, event, cli.verbose));
        }
        // The guard is a tracer, and its child replaces itself.
        Command::Guard(args) => return ExitCode::from(guard::run(&args)),
        Command::Run(args) => Box::pin(signals::or_terminated(commands::run(args))),
        Command::Validate(args) => Box::pin(async move { commands::validate(&args) }),
        Command::List(args) => Box::pin(async move { commands::list(&args) }),
        Command::Packs(args) => Box::pin(async move { packs_cmd::command(&args) }),
        Command::Explain(args) => Box::pin(async move { commands::explain(&args) }),
        Command::ImportClaude(args) => Box::pin(async move { commands::import_claude(&args) }),
        Command::Schema => Box::pin(async { commands::schema() }),
        Command::Watch(args) => Box::pin(async move { signals::or_terminated(commands::watch(&args)).await }),
        Command::Trust(args) => Box::pin(async move { trust::command(&args) }),
        Command::Serve(args) => Box::pin(commands::serve(args)),
        Command::Init(target) => Box::pin(async move { init(target) }),
        Command::Rewake(command) => Box::pin(async move { rewake::command(command) }),
        Command::Test(args) => Box::pin(async move { policy_test::command(&args).await }),
        Command::Replay(args) => Box::pin(async move { replay::command(&args).await }),
        Command::Log(args) => Box::pin(async move { log_cmd::command(&args).await }),
    };
    logging::init(cli.verbose);
    let mut builder = if multi_thread {
        tokio::runtime::Builder::new_multi_thread()
    } else {
        tokio::runtime::Builder::new_current_thread()
    };
    let runtime = match builder.enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::from(1);
        }
    };
    match runtime.block_on(work) {
        Ok(code) => ExitCode::from(code),
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::from(1)
        }
    }
}

/// A command's work on the runtime: its exit code, or the error printed as `error: …` (exit 1).
type Work = std::pin::Pin<Box<dyn std::future::Future<Output = anyhow::Result<u8>>>>;

/// `init <client>`.
fn init(target: InitTarget) -> anyhow::Result<u8> {
    match target {
        InitTarget::Claude(args) => init::claude(&args),
        InitTarget::Gemini(args) => init::client(Client::Gemini, &args),
        InitTarget::Qwen(args) => init::client(Client::Qwen, &args),
        InitTarget::Codex(args) => init::codex(&args),
        InitTarget::Copilot(args) => init::copilot(&args),
    }
}
