//! The real clients are the test: these tests drive five agent CLIs headless, each the real npm
//! package at a pinned version installed under `target/npm-cache/` on first use, against a
//! scripted model of its own wire API, and check what reached the model and what the tools did.
//! Each client runs in a network namespace of its own (`unshare -rn`, loopback only; needs
//! util-linux, iproute2 and Node.js), with a recording hook (a shell script in the test's temp
//! dir that saves its stdin, then answers as the row says) in the project's own hooks file, made
//! to run by the client's own trust recipe, never a `--dangerously-…` flag, or behind
//! `aimon-hooks <client>` with one `.aimon/hooks.json`.
//!
//! - `model`   — the scripted model: one [`model::Turn`] vocabulary over the Responses API,
//!   Chat Completions, the Gemini API and the Messages API, recording every request (shared
//!   with the claude_code suite);
//! - `runner`  — the sandbox (temp HOME and project), the recording hook, the network
//!   namespace, one headless session with a timeout, and what it saw;
//! - `rows`    — the rows every client but Claude Code runs with the recording hook;
//! - `policy`  — the one table of rows all five clients run behind `aimon-hooks <client>`;
//! - `claude`, `codex`, `gemini`, `copilot`, `qwen` — per client: install, settings, trust,
//!   invocation, answer forms, documented failure behaviour, and its recording rows;
//! - `channels` — behind `aimon-hooks <client>`: session-start context, stop continuation and
//!   rewake mail (with `aimon-hooks serve`) in each client that has the channel;
//! - `guarded` — each client run whole under `aimon-hooks guard`: Bash deny rules hold at exec.

mod channels;
mod claude;
#[path = "../claude_code/install.rs"]
mod claude_install;
mod codex;
mod copilot;
mod gemini;
mod guarded;
mod model;
#[path = "../common/npm.rs"]
mod npm;
mod policy;
mod qwen;
mod rows;
mod runner;
#[path = "../common/serve_process.rs"]
mod serve_process;
