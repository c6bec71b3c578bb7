//! `hook-skill`: hooks declared in a skill's `SKILL.md` frontmatter, active only while the
//! skill is (R-SKILL).
//!
//! ```text
//! ---
//! name: my-skill
//! hooks:
//!   preTool:
//!     - matcher: "Bash"
//!       action: { type: deny, reason: "no Bash in this skill" }
//!   onStart:
//!     - action: { type: shell, command: "echo started >&2", timeoutMs: 5000 }
//! ---
//! ```
//!
//! - [`SkillHooks::parse`] / [`SkillHooks::from_path`] cut out the frontmatter (a first line
//!   `---` up to the next `---` line; CRLF and a byte-order mark tolerated; no block or no
//!   `hooks:` means no hooks), read it with serde-saphyr under explicit budgets (size, depth,
//!   nodes, events, aliases; duplicate and merge keys are errors) into a located tree, and check
//!   the frontmatter schema, which is stricter than hooks.json on purpose: AIMON event keys only,
//!   one `action:` mapping per entry (`type: shell | deny | http | mcp`), `matcher` only where the
//!   events table allows it, `timeoutMs` only, and every violation is an [`Error`] naming the line
//!   and column and what to write instead. Which events, matchers and action types are allowed
//!   is read from hook-core's events table (R-LAYER-4). Field validation and matcher parsing are
//!   hook-config's, reached through its hooks.json parser (one validator); what it would only
//!   WARN about (a blank command, a matcher that does not parse) is an error in frontmatter.
//! - The skill's name (`name:` in the frontmatter, else the directory holding SKILL.md) is the
//!   source of its hook ids: `command@my-skill#<hash>`.
//! - [`SkillHooks::activate`] builds the hooks with hook-config's [`hook_config::DeclarativeHook`]
//!   builder in the SKILL tier and registers them as a managed group of their own; the returned
//!   [`SkillGuard`] removes exactly them when dropped or [`SkillGuard::deactivate`]d. Nothing is
//!   watched: skill hooks are never hot-reloaded.
//!
//! A skill's hooks hold exactly while the skill is active:
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! use std::sync::Arc;
//! use hook_config::{BuildEnv, TierPaths};
//! use hook_core::{CancellationToken, HookContext, HookEngine, HookEventType, HookRegistry, PreToolOutcome, ToolCall};
//! use hook_skill::SkillHooks;
//!
//! let skill_md = r#"---
//! name: review
//! hooks:
//!   preTool:
//!     - matcher: "Bash"
//!       action: { type: deny, reason: "no Bash while reviewing" }
//! ---
//! Read the change; do not run it.
//! "#;
//! let hooks = SkillHooks::parse(skill_md, "review").expect("a valid frontmatter");
//! assert_eq!((hooks.name(), hooks.len()), ("review", 1));
//!
//! let project = tempfile::tempdir().expect("a project directory");
//! let registry = Arc::new(HookRegistry::new());
//! let engine = HookEngine::new(registry.clone());
//! let bash = HookContext::new(HookEventType::PRE_TOOL).with_tool(ToolCall::new("Bash", serde_json::json!({})));
//!
//! let guard = hooks.activate(&registry, &BuildEnv::new(&TierPaths::new(None, project.path())));
//! assert!(guard.hook_ids()[0].starts_with("deny@review#"), "{:?}", guard.hook_ids());
//! match engine.pre_tool(&bash, &CancellationToken::new()).await.outcome {
//!     PreToolOutcome::Cancelled { reason, .. } => assert_eq!(reason, "no Bash while reviewing"),
//!     other => panic!("not denied while active: {other:?}"),
//! }
//! guard.deactivate();
//! let after = engine.pre_tool(&bash, &CancellationToken::new()).await.outcome;
//! assert!(matches!(after, PreToolOutcome::Proceed { .. }), "{after:?}");
//! # }
//! ```
//!
//! Layer 4: depends on hook-core, hook-config (and through it hook-actions, hook-predicate),
//! never on hook-cli. Unit tests sit next to the code; `tests/seed_example.rs` runs the seed's
//! example 7 end to end through the pre-tool chain with real shell processes,
//! `tests/rejections.rs` pins the rejected frontmatters' error texts and `tests/accepted.rs`
//! what every action type maps to (snapshots in `tests/snapshots/`), `tests/activation.rs` the
//! activation scope. The fuzz target
//! `fuzz/fuzz_targets/parse_frontmatter.rs` feeds arbitrary bytes to [`SkillHooks::parse`].
#![warn(missing_docs)]

mod error;
mod frontmatter;
mod schema;
mod skill;
mod yaml;

pub use crate::{
    error::Error,
    skill::{SkillGuard, SkillHooks},
};
