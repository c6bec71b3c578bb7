//! The real clients are the test: these tests drive four more agent CLIs headless, each the real
//! npm package at a pinned version installed under `target/npm-cache/` on first use, against a
//! scripted model of its own wire API, and check what reached the model and what the tools did.
//! Each client runs in a network namespace of its own (`unshare -rn`, loopback only; needs
//! util-linux, iproute2 and Node.js), with a recording hook (a shell script in the test's temp
//! dir that saves its stdin, then answers as the row says) in the project's own hooks file, made
//! to run by the client's own trust recipe, never a `--dangerously-…` flag.
//!
//! - `model`   — the scripted model: one [`model::Turn`] vocabulary over the Responses API,
//!   Chat Completions and the Gemini API, recording every request;
//! - `runner`  — the sandbox (temp HOME and project), the recording hook, the network
//!   namespace, one headless session with a timeout, and what it saw;
//! - `rows`    — the rows every client runs;
//! - `policy`  — the rows every client runs with `aimon-hooks <client>` and one `.aimon/hooks.json`;
//! - `channels` — behind `aimon-hooks <client>`: session-start context, stop continuation and
//!   rewake mail (with `aimon-hooks serve`) in each client that has the channel;
//! - `codex`, `gemini`, `copilot`, `qwen` — per client: install, settings, trust, invocation,
//!   answer forms, documented failure behaviour, and its rows.

mod channels;
mod codex;
mod copilot;
mod gemini;
mod model;
#[path = "../common/npm.rs"]
mod npm;
mod policy;
mod qwen;
mod rows;
mod runner;
#[path = "../common/serve_process.rs"]
mod serve_process;
