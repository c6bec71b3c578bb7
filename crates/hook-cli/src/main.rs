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
mod trust;

use std::process::ExitCode;

use clap::Parser as _;
use clap::error::ErrorKind;

use hook_wire::Client;

use crate::cli::{Cli, Command};

/// jemalloc for `serve`, the system's allocator for every one-shot command (`alloc`).
#[global_allocator]
static ALLOCATOR: alloc::ChosenAllocator = alloc::ChosenAllocator;

fn main() -> ExitCode {
    // `claude` runs on every Claude Code hook call: it forwards to `serve` before clap, logging
    // or a runtime is built (PERF-SRV-2). Anything else on its command line goes through clap.
    if let Some(args) = cli::plain_claude(std::env::args_os().skip(1)) {
        return ExitCode::from(commands::claude(&args, 0));
    }
    // Claude Code runs its own hook route through its shell prefix too: that is `claude`.
    if guard::wraps_own_route(std::env::args_os().skip(1)) {
        return ExitCode::from(commands::claude(&cli::ClaudeArgs { no_serve: false, socket: None }, 0));
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
    if let Command::Claude(args) = &cli.command {
        return ExitCode::from(commands::claude(args, cli.verbose));
    }
    if let Command::Guard(args) = &cli.command {
        // Before a runtime or logging: the guard is a tracer, and its child replaces itself.
        return ExitCode::from(guard::run(args));
    }
    if let Command::Gemini(args) | Command::Qwen(args) = &cli.command {
        let client = if matches!(cli.command, Command::Gemini(_)) { Client::Gemini } else { Client::Qwen };
        return ExitCode::from(agent::answer(client, args.no_serve, args.socket.clone(), None, cli.verbose));
    }
    if let Command::Codex(args) = &cli.command {
        return ExitCode::from(commands::agent(hook_wire::Client::Codex, args, cli.verbose));
    }
    if let Command::Copilot(args) = &cli.command {
        let named = args.event.as_deref();
        let (no_serve, socket) = (args.call.no_serve, args.call.socket.clone());
        return ExitCode::from(agent::answer(hook_wire::Client::Copilot, no_serve, socket, named, cli.verbose));
    }
    logging::init(cli.verbose);
    let mut builder = match cli.command {
        Command::Serve(_) => tokio::runtime::Builder::new_multi_thread(),
        _ => tokio::runtime::Builder::new_current_thread(),
    };
    let runtime = match builder.enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::from(1);
        }
    };
    match runtime.block_on(dispatch(cli.command)) {
        Ok(code) => ExitCode::from(code),
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::from(1)
        }
    }
}

async fn dispatch(command: Command) -> anyhow::Result<u8> {
    match command {
        Command::Run(args) => signals::or_terminated(commands::run(args)).await,
        Command::Claude(_) | Command::Gemini(_) | Command::Qwen(_) | Command::Codex(_) | Command::Copilot(_) => {
            unreachable!("a client's call is answered before the runtime is built")
        }
        Command::Validate(args) => commands::validate(&args),
        Command::List(args) => commands::list(&args),
        Command::Packs(args) => packs_cmd::command(&args),
        Command::Explain(args) => commands::explain(&args),
        Command::ImportClaude(args) => commands::import_claude(&args),
        Command::Schema => commands::schema(),
        Command::Watch(args) => signals::or_terminated(commands::watch(&args)).await,
        Command::Trust(args) => trust::command(&args),
        Command::Serve(args) => commands::serve(args).await,
        Command::Init(crate::cli::InitTarget::Claude(args)) => init::claude(&args),
        Command::Init(crate::cli::InitTarget::Gemini(args)) => init::client(Client::Gemini, &args),
        Command::Init(crate::cli::InitTarget::Qwen(args)) => init::client(Client::Qwen, &args),
        Command::Init(crate::cli::InitTarget::Codex(args)) => init::codex(&args),
        Command::Init(crate::cli::InitTarget::Copilot(args)) => init::copilot(&args),
        Command::Rewake(command) => rewake::command(command),
        Command::Test(args) => policy_test::command(&args).await,
        Command::Replay(args) => replay::command(&args).await,
        Command::Log(args) => log_cmd::command(&args).await,
        Command::Guard(_) => unreachable!("guard runs before the runtime is built"),
    }
}
