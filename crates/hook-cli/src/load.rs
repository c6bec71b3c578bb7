//! Loading the tiers (and skills) into a registry, with diagnostics on stderr.

use std::path::PathBuf;
use std::sync::Arc;

use hook_config::{
    BuildEnv, CONFIG_GROUP, DeclarativeHook, Diagnostic, Error as ConfigError, TierPaths, build_hooks, load_tiers,
};
use hook_core::{ExecutionHook, HookEventType, HookRegistry};

use crate::cli::TierArgs;

/// The effective hooks of the tiers, registered.
#[derive(Debug)]
pub(crate) struct Loaded {
    /// Where the tiers are.
    pub(crate) paths: TierPaths,
    /// Every WARN of the load, in file order (already logged).
    pub(crate) diagnostics: Vec<Diagnostic>,
    /// The declarative hooks in dispatch order.
    pub(crate) hooks: Vec<(HookEventType, Arc<DeclarativeHook>)>,
    /// A registry holding them.
    pub(crate) registry: Arc<HookRegistry>,
}

/// Loads the three tiers of `tiers`; `fail_closed_all` is `--fail-closed`.
pub(crate) fn load(tiers: &TierArgs, fail_closed_all: bool) -> anyhow::Result<Loaded> {
    let paths = TierPaths::new(tiers.home_dir(), tiers.project_dir()?);
    let (config, diagnostics) = load_tiers(&paths).map_err(config_error)?;
    for d in &diagnostics {
        d.log();
    }
    let env = BuildEnv::new(&paths).with_fail_closed_all(fail_closed_all);
    let hooks = build_hooks(&config, &env);
    let registry = Arc::new(HookRegistry::new());
    registry.replace_managed(
        CONFIG_GROUP,
        hooks.iter().map(|(event, hook)| (*event, hook.clone() as Arc<dyn ExecutionHook>)).collect(),
    );
    Ok(Loaded { paths, diagnostics, hooks, registry })
}

/// A configuration error as one sentence: `file:line:col: message` when it has a place.
pub(crate) fn config_error(err: ConfigError) -> anyhow::Error {
    match err.diagnostic() {
        Some(d) => anyhow::anyhow!("{}:{}:{}: {}", d.file.display(), d.line, d.column, d.message),
        None => anyhow::anyhow!("{err}"),
    }
}

/// The files of the tiers, for messages.
pub(crate) fn tier_files(paths: &TierPaths) -> Vec<PathBuf> {
    paths.files().into_iter().map(|(_, p)| p).collect()
}
