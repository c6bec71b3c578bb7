//! `hook-config`: hooks.json for the aimon hook system — schema, loader with diagnostics, tier
//! merger, declarative hooks and hot reload.
//!
//! - [`parse_config`] reads one file into a [`ConfigFile`] plus WARN [`Diagnostic`]s; hard errors
//!   ([`Error::Config`]) fail the file. Every diagnostic carries file, line and column (R-CFG-6);
//!   the WARN texts are the seed's troubleshooting table's (R-CFG-3…5, R-EVT-3, R-PRED-4b/5,
//!   R-CFG-RW-1). Cron, duration and zone checks are hook-rewake's, so the scheduler and the loader
//!   agree (R-CFG-RW-2…4).
//! - The handler model: [`HandlerSpec`] with a [`HandlerAction`] holding hook-actions' own spec
//!   (`ShellSpec`, `HttpSpec`, `McpSpec`, `DenySpec`), which the build hands on as it is. It
//!   derives `Serialize` (its hooks.json form; [`HooksDocument`] is a whole file, which the
//!   importer writes) and `JsonSchema`: [`hooks_json_schema`] is `aimon-hooks schema`, and
//!   [`handler_fields`] / [`common_handler_fields`] read the field names back from the types for
//!   the loader and SKILL.md. [`read_handler`] reads one handler as the loader does.
//! - [`Diagnostic::pointer`] is the JSON pointer of the value at fault
//!   (`/hooks/PreToolUse/0/hooks/1/timeout`), so other front ends (SKILL.md) place it themselves.
//! - [`load_tiers`] reads MANAGED → USER → PROJECT → LOCAL ([`Tier`], [`TierPaths`]) into one
//!   [`LoadedConfig`] in dispatch order; missing files are silent; `.claude/` is never read. The
//!   managed tier is the organisation's (`/etc/aimon/managed/hooks.json` and `hooks.d/*.json`,
//!   [`MANAGED_DIR_ENV`] moves it): dispatched first, always trusted, the only tier whose
//!   `allowManagedHooksOnly` and `disableAllHooks` count; a file of it anyone but root can write
//!   is applied with a WARN (the `managed` module).
//! - [`DeclarativeHook`] turns one [`HandlerSpec`] into a managed hook (entry matcher + `if` +
//!   hook-actions action + asyncRewake attachment); [`LoadedConfig::into_hooks`] does a whole
//!   config ([`build_hooks`] a copy of one); ids are content-derived ([`HookIds`]:
//!   `<kind>@<source>#<fnv64>[.k]`, see the `ids` module docs, R-CFG-ID-1/2).
//! - Trust (R-CLI-12): [`TrustStore`] is `~/.aimon/trusted.json` (SHA-256 per repository file,
//!   atomic writes under an exclusive lock); [`TrustGate`] decides per file, and
//!   [`BuildEnv::gated`] builds the `command`/`http`/`mcp` hooks of an untrusted PROJECT, LOCAL or
//!   project-skill file withheld (they never match; `deny` still runs) and leaves an untrusted
//!   project `mcp.json` unread. [`BuildEnv::new`] trusts everything: the caller decides.
//! - [`HookHotReloadBootstrap`] watches the tier files (the managed `hooks.d` directory too) and
//!   both `mcp.json` registries (notify on the parent directories + a polling fallback),
//!   debounces, and swaps the registry's `config` group atomically (R-HOT-1…8, REL-5).
//! - The decision log ([`DecisionLog`], [`DecisionRecord`]): every declarative hook that runs sends
//!   one record (with its handler's `file:line`, [`DeclarativeHook::location`]) to the log of its
//!   build, which appends `decisions.jsonl` (0600, rotated at 50 MB, three files): a daemon's
//!   through a writer thread, a one-shot command's in its own thread once the answer is out. The
//!   log, the audit-all switch and the audit counter are a [`Recording`] carried by
//!   [`BuildEnv::with_recording`] into every hook (no process-wide state: two engines keep
//!   theirs apart); the client of a call is [`hook_core::HookContext::client`]. Audit mode
//!   ([`HandlerMode::Audit`], or a recording that audits all: `serve --audit`, `AIMON_AUDIT=1` as
//!   the binary read it): the hook runs and is logged, its result is replaced by "no opinion".
//!   This crate reads no environment variable for it.
//! - [`check_config`] reports every WARN and every hard error of one file (`validate`, REL-6);
//!   matchers are parsed once per load (so a broken one is reported by every load, whatever
//!   the call) and reused by the build; their regex automata are built on first use (PERF-6,
//!   the `matcher` module).
//!
//! Reading: serde_json parses the text into a tree whose strings borrow from it (the `json`
//! module, serde_json_borrow), so the walk allocates only what the handlers keep. Positions: the
//! tree carries no spans, so after serde_json accepts a text (and gives line/column for syntax
//! errors itself), a small private tokenizer (`position.rs`, ~150 lines) indexes where each value
//! and key starts by JSON pointer; it is built only when a diagnostic is needed, so a clean file
//! costs one parse. Span-carrying JSON crates were checked and
//! not taken: `json-spanned-value` (last release 0.2.2, October 2020), `spanned_json_parser`
//! (three 0.x releases in November 2023, nothing since), `serde_spanned` (byte spans for
//! deserializers that support it, which serde_json does not), `jsonc-parser` (maintained, but a
//! second, lenient JSONC parser whose semantics would have to be pinned against serde_json's).
//!
//! Layer 3: depends on hook-core, hook-predicate, hook-actions and hook-rewake, never on
//! serde-saphyr or higher layers. Unit tests sit next to the code; `tests/corpus.rs` pins the
//! snapshot corpus (`tests/corpus/*.json`, snapshots in `tests/snapshots/`), `tests/seed_examples.rs`
//! the seed's six examples, `tests/all_errors.rs` a file with many hard errors, `tests/ids.rs`
//! id stability, `tests/schema.rs` the schema against the loader (the `jsonschema` validator) and
//! each accepted handler's round trip through its serialized form, `tests/declarative.rs` matcher/`if`/rewake/failClosed/trust behaviour with real
//! actions, `tests/decision_log.rs` the log's lines, rotation, drops, audit mode and two engines' logs kept apart, `tests/hot_reload.rs` the end-to-end, storm and `mcp.json` tests on real files;
//! `tests/managed_tier.rs` the managed tier's files and their hot reload;
//! `benches/reload.rs` measures reload latency and the 1 MB load against serde_json; the fuzz
//! target is `fuzz/fuzz_targets/parse_hooks_json.rs` at the workspace root.
//!
//! Loading a project's tiers into an engine once (hot reload: [`HookHotReloadBootstrap`]):
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use hook_config::{BuildEnv, CONFIG_GROUP, TierPaths, load_tiers};
//! use hook_core::{CancellationToken, HookContext, HookEngine, HookEventType, HookRegistry, ToolCall};
//! use hook_core::{ExecutionHook, PreToolOutcome};
//! use serde_json::json;
//! use std::sync::Arc;
//!
//! let project = tempfile::tempdir()?;
//! std::fs::create_dir_all(project.path().join(".aimon"))?;
//! std::fs::write(
//!     project.path().join(".aimon/hooks.json"),
//!     r#"{"hooks":{"PreToolUse":[{"matcher":"Edit(*.lock)","hooks":[{"type":"deny","reason":"generated file"}]}]}}"#,
//! )?;
//! let paths = TierPaths::new(None, project.path());
//! let (config, warnings) = load_tiers(&paths)?;
//! assert!(warnings.is_empty());
//! let registry = Arc::new(HookRegistry::new());
//! let hooks = config.into_hooks(&BuildEnv::new(&paths));
//! registry.replace_managed(CONFIG_GROUP, hooks.into_iter().map(|(e, h)| (e, h as Arc<dyn ExecutionHook>)).collect());
//!
//! let edit = ToolCall::new("Edit", json!({"file_path": project.path().join("Cargo.lock")}));
//! let ctx = HookContext::new(HookEventType::PRE_TOOL).with_tool(edit);
//! let outcome = HookEngine::new(registry).pre_tool(&ctx, &CancellationToken::new()).await.outcome;
//! assert!(matches!(outcome, PreToolOutcome::Cancelled { ref reason, .. } if reason == "generated file"), "{outcome:?}");
//! # Ok(()) }
//! ```
#![warn(missing_docs)]

mod decision_log;
mod declarative;
mod diagnostic;
mod document;
mod error;
mod handler;
mod ids;
mod json;
mod load;
mod managed;
mod matcher;
mod packs;
mod parse;
mod position;
mod protect;
mod reload;
mod spec;
mod tier;
mod trust;

pub use crate::{
    decision_log::{
        AUDIT, AuditCounter, Audited, DECISION_LOG_ENV, DecisionLog, DecisionRecord, ENFORCED, INPUT_LIMIT, LogOptions,
        LogStats, Recording, outcome_word, parse_line,
    },
    declarative::{BuildEnv, DeclarativeHook, build_hooks},
    diagnostic::{Diagnostic, Severity},
    document::{EntryDocument, HooksDocument, hooks_json_schema},
    error::Error,
    handler::{HandlerAction, HandlerMode, HandlerSpec, common_handler_fields, handler_fields, handler_kind},
    ids::HookIds,
    load::{load_tiers, load_tiers_lazily},
    packs::{PACKS_VERSION, Pack, PackRule, RuleDecision, active_packs, pack, packs},
    parse::{check_config, parse_config, read_handler},
    protect::{SELF_GROUP, self_protection, self_protection_rules},
    reload::{CONFIG_GROUP, HookHotReloadBootstrap, HotReloadBuilder, HotReloadHandle},
    spec::{ConfigFile, HookEntrySpec, LoadedConfig},
    tier::{DEFAULT_MANAGED_DIR, MANAGED_DIR_ENV, Tier, TierPaths},
    trust::{TrustDocument, TrustGate, TrustStore, TrustedProject, project_files, sha256_hex},
};
pub use hook_core::HandlerKind;
