//! The real client is the test: these tests drive the real Claude Code CLI (npm
//! `@anthropic-ai/claude-code`, pinned in `install::CLAUDE_CODE`, headless `-p`) against a
//! scripted Anthropic Messages API on 127.0.0.1, with `aimon-hooks serve` running for the
//! sandbox, and check what Claude Code sent back to the model and what its tools did. Every test
//! runs on both routes (`runner::Route`): `command::…` routes Claude Code's events to
//! `aimon-hooks claude` (`init claude --project`), which forwards to the daemon; `http::…` routes
//! them to the daemon's `/v1/claude` with `http` handlers (`init claude --project --http`). Each
//! session checks that the daemon answered its calls. The first run installs Claude Code with npm into
//! `target/npm-cache/claude-code-<version>` (Node.js and npm must be installed).
//!
//! - `install` — the pinned Claude Code, installed once under a lock;
//! - `model`   — the scripted model the clients suite drives its clients with
//!   (`tests/clients/model/`), here speaking the Messages API (streaming SSE) on a port of
//!   127.0.0.1, recording every request;
//! - `runner`  — the routes, the daemon, the sandbox (temp HOME, project routed by
//!   `aimon-hooks init claude --project [--http]`, fake `git` on PATH), one `claude -p` session
//!   with a timeout (and its `--resume`), and what it saw;
//! - `hooks`   — hooks.json building blocks;
//! - `gates`   — today's behaviour, one session per table row: deny, chained deny, an unmatched
//!   call, updatedInput, exit 2, failClosed, a path rule on Write, the USER tier, a broken
//!   hooks.json, PostToolUse context and block (exit 2 and JSON);
//! - `prompt`  — a `prompt` hook whose own model (a second scripted Messages API) says no stops the
//!   Bash call with its reason reaching the model, and says yes lets it run;
//! - `continuation` — Stop continuation (and that it ends, and that a timeout lets the agent
//!   stop), UserPromptSubmit context and block, SessionStart context;
//! - `try_policy` — replay of real transcripts against live denies, an audit-mode deny that lets
//!   the call run and logs "would deny" with its file:line;
//! - `guard`   — `init claude --guard`: every Bash command under `aimon-hooks guard`, the argv
//!   built at run time refused at exec with the reason in the tool result, `cd` still holding;
//!   and plain `init claude` (the guard on by default): a denied `.env` read by `python3 -c`
//!   shows nothing of it;
//! - `protect` — `init claude --protect`: the packs refuse `git reset --hard` and a read of
//!   `~/.ssh/id_ed25519` with their reasons, `git status` runs (the command route);
//! - `read_only` — the pack aimon/read-only in Claude Code's default permission mode: reading
//!   calls run without a denial, `git commit` and `rm -r` are still not approved (and a control
//!   without the pack);
//! - `rewake`  — a PostToolUse hook's rewake, fired by `aimon-hooks serve`, reaching the model on
//!   the session's next tool call, its next failed tool call, and its next prompt after a resume.

mod continuation;
mod gates;
mod guard;
mod hooks;
mod install;
#[path = "../clients/model/mod.rs"]
#[allow(dead_code, reason = "the clients suite uses the other wire APIs and the Unix socket")]
mod model;
#[path = "../common/npm.rs"]
mod npm;
mod prompt;
mod protect;
mod read_only;
mod rewake;
mod runner;
#[path = "../common/serve_process.rs"]
mod serve_process;
mod try_policy;
