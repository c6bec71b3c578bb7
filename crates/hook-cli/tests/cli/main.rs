//! End-to-end tests of the `aimon-hooks` binary: real processes, real hooks.json files in temp
//! directories, real shell hooks. One test binary; its modules:
//!
//! - `support`  — the sandbox (temp home + project) and the command builder;
//! - `usage`    — exit codes of usage errors, `--help`/`--version` on every command (R-CLI-8);
//! - `run`      — the `run` contract: JSON keys, outcomes, exit codes, flags, WARN lines (R-CLI-1);
//! - `seeds`    — `run` on each of the seed's six hooks.json examples (fixtures/seed*.json);
//! - `demo`     — the README commands against `examples/demo`;
//! - `read_only_pack` — the pack aimon/read-only through `claude`: read-only calls allowed, the rest left to the client;
//! - `packs`    — the rule packs: each pack's own tests pass, `init --protect`, `packs`, `validate`;
//! - `readme`   — the README has a row for every command of `--help`;
//! - `claude`   — `claude` fed Claude Code payload shapes (R-CLI-2);
//! - `client_arguments` — every client's tool arguments are read: the arguments each client's
//!   table maps, tools no table knows, fields of the wrong type (issue 36);
//! - `import`   — `import-claude`, report and output pinned by snapshot (R-CC-3);
//! - `inspect`  — `validate`, `list`, `explain`, `schema` (R-CLI-3/4/6/9);
//! - `roundtrip` — every handler kind and field reads the same through the schema, the importer and
//!   SKILL.md frontmatter;
//! - `watch`    — `watch` prints onConfigReload lines on real edits (R-CLI-7);
//! - `serve`    — the daemon over real sockets: same answers as `run`/`claude`, auth, limits, reload, shutdown (R-SRV);
//! - `soak`     — 1,000 slow, garbage and decision connections: health answered throughout (R-SRV-7);
//! - `traffic`  — the soak's daemon and load, shared with `benches/soak.rs`;
//! - `signals`  — SIGTERM/SIGINT/SIGHUP mid-hook leave no process of the hook's group (R-CLI-11);
//! - `trust`    — trust for project hooks: the gate under `claude`, the store, `trust` (R-CLI-12).
//! - `rewake`   — envelopes of `run`/`claude` in the store, `rewake list|cancel`, session mail.
//! - `daemon`   — a `serve` on a chosen rewake store, SIGKILL, and a server-sent-event reader;
//! - `stream`   — `GET /v1/stream`: fires as server-sent events, the bearer token;
//! - `mail_ack` — mail is deleted only once the answer carrying it is written;
//! - `prompt_hooks` — `prompt` and `agent` hooks against a scripted model on 127.0.0.1 (both APIs):
//!   verdicts per event, garbage, timeout, unreachable, `onFailure`, the endpoint's tier, trust;
//! - `policy_test` — `test`: the demo's policy tests, a failing case's diff, JUnit against junit-10.xsd;
//! - `replay`   — `replay` of Claude Code transcripts and Codex rollouts written in their formats;
//! - `decision_log` — the decision log of `run` and `serve`, audit mode, `log`;
//! - `rewake_crash` — kill -9 of `serve` mid-fire: nothing lost, only in-flight fires repeat.
//! - `planted_listener` — whatever listens on the socket (a planted listener answering success,
//!   garbage or nothing, a relay, a real serve of another home or in audit mode) never answers for
//!   the daemon: the person's deny holds in all five clients, quickly (issue #36);
//! - `self_protection` — no tool call of any client can change the policy, its stores, the
//!   clients' hook settings or the binary (each Bash row run for real first), and reads stay allowed;
//! - `slow_analysis` — another session's call is answered, and denied, while eight calls carry
//!   commands built to be slow to analyse (issue #36);
//! - `managed_tier` — the organisation's managed tier: no other file removes, disables, shadows or
//!   reorders its hooks; `allowManagedHooksOnly` and `disableAllHooks` (markers show what ran);
//!   `list`, `validate`, `explain`, the decision log and self-protection name or cover it; `serve`
//!   hot-reloads it;
//! - `no_input_turns_a_veto_off` — class-1 inputs (lone surrogates, depth, NUL, huge values, a bad
//!   `cwd`, an oversized templated header, text that is not JSON) leave a deny standing in
//!   `claude`, `run` and `/v1/claude`.

mod channels;
mod claude;
mod client_arguments;
mod daemon;
mod decision_log;
mod demo;
mod dialects;
mod import;
mod init;
mod inspect;
mod mail_ack;
mod managed_tier;
mod no_input_turns_a_veto_off;
mod packs;
mod planted_listener;
mod policy_test;
mod prompt_hooks;
mod read_only_pack;
mod readme;
#[path = "../../../hook-actions/tests/common/refused.rs"]
mod refused;
mod replay;
mod rewake;
mod rewake_crash;
mod roundtrip;
mod run;
mod seam;
mod seeds;
mod self_protection;
mod serve;
#[path = "../common/serve_process.rs"]
mod serve_process;
mod signals;
mod slow_analysis;
mod soak;
mod stream;
mod support;
mod traffic;
mod trust;
mod usage;
mod watch;
