//! Loading the tiers (and skills) into a registry, with diagnostics on stderr.
//!
//! The file tiers go into the `config` group (the managed tier's first), as hot reload would put
//! them; each `--skill` is then activated on top, as an agent runtime activates a skill (its hooks
//! dispatch after the tiers' and stay isolated from them, R-SKILL-3), unless the managed tier
//! allows managed hooks only.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use hook_config::{
    BuildEnv, CONFIG_GROUP, DeclarativeHook, Diagnostic, Error as ConfigError, Recording, SELF_GROUP, Tier, TierPaths,
    TrustGate, load_tiers, load_tiers_lazily, self_protection, sha256_hex,
};
use hook_core::{ExecutionHook, HookEventType, HookRegistry};
use hook_skill::{SkillGuard, SkillHooks};

use crate::cli::{TierArgs, absolute};
use crate::trust::{self, Trust};

/// The effective hooks of the tiers, registered.
#[derive(Debug)]
pub(crate) struct Loaded {
    /// Where the tiers are.
    pub(crate) paths: TierPaths,
    /// Every WARN of the load, in file order (already logged).
    pub(crate) diagnostics: Vec<Diagnostic>,
    /// The declarative hooks in dispatch order: the tiers', then each skill's.
    pub(crate) hooks: Vec<(HookEventType, Arc<DeclarativeHook>)>,
    /// A registry holding them.
    pub(crate) registry: Arc<HookRegistry>,
    /// The trust verdict the hooks were built under.
    pub(crate) gate: TrustGate,
    /// The untrusted files whose command, http, mcp, prompt and agent hooks (on any event) or MCP servers were
    /// skipped.
    pub(crate) untrusted: Vec<PathBuf>,
    /// The active skills; dropping them deactivates their hooks.
    _skills: Vec<SkillGuard>,
}

/// What to build hooks for.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Scope {
    /// Every event (`list`, `explain`).
    All,
    /// One event (`run`, `claude`): only its hooks are built, so matchers and clients of other
    /// events cost nothing. Ids do not change: they derive from content, event included.
    Event(HookEventType),
}

/// Loads the tiers of `tiers` and activates `skills` under `trust`; `fail_closed_all` is
/// `--fail-closed`. The hooks log nothing; `AIMON_AUDIT` puts them all in audit mode.
pub(crate) fn load(
    tiers: &TierArgs,
    skills: &[PathBuf],
    fail_closed_all: bool,
    scope: Scope,
    trust: Trust,
) -> anyhow::Result<Loaded> {
    load_recording(tiers, skills, fail_closed_all, scope, trust, crate::env::Env::get().unlogged())
}

/// [`load`] with hooks recording to `recording` (a one-shot call's decision log).
pub(crate) fn load_recording(
    tiers: &TierArgs,
    skills: &[PathBuf],
    fail_closed_all: bool,
    scope: Scope,
    trust: Trust,
    recording: Recording,
) -> anyhow::Result<Loaded> {
    let paths = TierPaths::new(tiers.home_dir(), tiers.project_dir()?);
    // One event: its matchers compile on first use, the others never (PERF-6).
    let (mut config, diagnostics) = match scope {
        Scope::All => load_tiers(&paths),
        Scope::Event(_) => load_tiers_lazily(&paths),
    }
    .map_err(config_error)?;
    let managed_only = config.managed_hooks_only();
    let gate = trust::gate(&paths, trust);
    let mut untrusted = trust::withheld_files(&gate, &config);
    if let Scope::Event(event) = scope {
        for file in &mut config.files {
            file.entries.retain(|entry| entry.event == event);
        }
    }
    for d in &diagnostics {
        d.log();
    }
    let env = BuildEnv::gated(&paths, gate).with_fail_closed_all(fail_closed_all).with_recording(recording);
    untrusted.extend(env.untrusted_mcp.clone());
    let mut hooks = config.into_hooks(&env);
    let registry = Arc::new(HookRegistry::new());
    registry.replace_managed(
        CONFIG_GROUP,
        hooks.iter().map(|(event, hook)| (*event, hook.clone() as Arc<dyn ExecutionHook>)).collect(),
    );
    // Self-protection: its own group, which no tier can replace.
    registry.replace_managed(
        SELF_GROUP,
        self_protection(&paths, crate::env::Env::get().moved_log())
            .into_iter()
            .map(|(event, hook)| (event, hook as Arc<dyn ExecutionHook>))
            .collect(),
    );
    let mut guards = Vec::with_capacity(skills.len());
    let cwd = crate::env::Env::get().cwd_or_empty().to_path_buf();
    let skills: &[PathBuf] = if managed_only && !skills.is_empty() {
        tracing::warn!("hooks: skills' hooks do not run: the organisation's managed policy allows managed hooks only");
        &[]
    } else {
        skills
    };
    for path in skills {
        let (skill, sha256) = skill(path)?;
        let skill_env = env.for_file(Tier::Skill, &absolute(&cwd, path), &sha256);
        let built = skill.build(&skill_env);
        if built.iter().any(|(_, h)| h.withheld()) {
            env.trust.warn_skipped(path);
            untrusted.push(path.clone());
        }
        hooks.extend(built);
        guards.push(skill.activate(&registry, &skill_env));
    }
    Ok(Loaded { paths, diagnostics, hooks, registry, gate: env.trust, untrusted, _skills: guards })
}

/// A configuration error as one sentence: `file:line:col: message` when it has a place.
pub(crate) fn config_error(err: ConfigError) -> anyhow::Error {
    anyhow::anyhow!(err.sentence())
}

/// The files of the tiers, for messages.
pub(crate) fn tier_files(paths: &TierPaths) -> Vec<PathBuf> {
    paths.files().into_iter().map(|(_, p)| p).collect()
}

/// Reads one SKILL.md and the SHA-256 of its bytes; its errors are sentences with file:line:col.
fn skill(path: &Path) -> anyhow::Result<(SkillHooks, String)> {
    let skill = SkillHooks::from_path(path).map_err(|e| anyhow::anyhow!("{e}"))?;
    let bytes = std::fs::read(path).map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?;
    Ok((skill, sha256_hex(&bytes)))
}
