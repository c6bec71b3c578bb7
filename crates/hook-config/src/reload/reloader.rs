//! The reloader (R-HOT-4…8): reads the tiers and the MCP registries, parses, builds and swaps the
//! `config` group, then fires `onConfigReload`.
//!
//! `mcp.json` hot-reloads with the tiers (REL-5): when a registry's text changed, its servers are
//! loaded anew and every hook is built against the new table (sessions of the old table close
//! when its last hook goes); a registry that is not JSON (caught half-written) fails the reload
//! like a tier that does not parse, and the previous hooks and servers stay. Otherwise the server
//! table is kept, so its warm sessions survive tier edits.

use std::collections::{BTreeSet, HashMap};
use std::io::ErrorKind;
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, PoisonError, RwLock};

use hook_core::{CancellationToken, ExecutionHook, HookContext, HookEngine, HookEventType, HookRegistry};
use hook_rewake::RewakeService;

use super::CONFIG_GROUP;
use crate::declarative::BuildEnv;
use crate::load::TierTexts;
use crate::tier::TierPaths;

/// Parses, builds and swaps; fires `onConfigReload`.
pub(super) struct Reloader {
    pub(super) paths: TierPaths,
    pub(super) registry: Arc<HookRegistry>,
    pub(super) engine: HookEngine,
    pub(super) rewake: Option<Arc<dyn RewakeService>>,
    pub(super) env: BuildEnv,
    /// What the last attempt read (successful or not).
    pub(super) last: Option<Snapshot>,
    pub(super) counter: Arc<AtomicU64>,
    /// Why the last attempt that read something new failed; `None` once one succeeds.
    pub(super) failure: Arc<RwLock<Option<String>>>,
}

/// What one attempt produced.
enum Attempt {
    /// Nothing changed on disk.
    Unchanged,
    /// Parsing or building failed; the live hooks stay.
    Failed { reason: String, source: String },
    /// New hooks are live.
    Swapped { source: String },
}

impl Reloader {
    pub(super) fn initial_load(&mut self) {
        match self.attempt_and_record() {
            Attempt::Failed { reason, .. } => {
                tracing::warn!("hooks: initial load failed, hot reload continues: {reason}")
            }
            Attempt::Unchanged | Attempt::Swapped { .. } => {}
        }
    }

    pub(super) async fn reload(&mut self) {
        let (successful, failure_reason, source) = match self.attempt_and_record() {
            Attempt::Unchanged => return,
            Attempt::Failed { reason, source } => {
                tracing::warn!("hooks: reload failed, previous hooks stay live: {reason}");
                (false, reason, source)
            }
            Attempt::Swapped { source } => (true, String::new(), source),
        };
        let counter = self.counter.fetch_add(1, Ordering::SeqCst) + 1;
        let ctx = HookContext::new(HookEventType::ON_CONFIG_RELOAD)
            .with_field("successful", successful)
            .with_field("failure_reason", failure_reason)
            .with_field("reload_counter", counter)
            .with_field("config_source", source);
        let engine = self.engine.clone();
        // A listener that panics is contained here (R-HOT-7); the executor maps errors already.
        let fired = tokio::spawn(async move { engine.fire(&ctx, &CancellationToken::new()).await }).await;
        if let Err(e) = fired {
            tracing::warn!("hooks: an onConfigReload listener failed: {e}");
        }
    }

    /// [`Reloader::attempt`], keeping why it failed (or that it did not) for
    /// [`HotReloadHandle::last_failure`](super::HotReloadHandle::last_failure), before any
    /// `onConfigReload` listener runs.
    fn attempt_and_record(&mut self) -> Attempt {
        let attempt = self.attempt();
        let now = match &attempt {
            Attempt::Unchanged => return attempt,
            Attempt::Failed { reason, .. } => Some(reason.clone()),
            Attempt::Swapped { .. } => None,
        };
        *self.failure.write().unwrap_or_else(PoisonError::into_inner) = now;
        attempt
    }

    fn attempt(&mut self) -> Attempt {
        let tiers = match TierTexts::read(&self.paths) {
            Ok(t) => t,
            Err(e) => return Attempt::Failed { reason: e.sentence(), source: self.all_sources() },
        };
        let mcp = match read_mcp(&self.paths) {
            Ok(m) => m,
            Err(reason) => return Attempt::Failed { reason, source: self.all_sources() },
        };
        let snapshot = Snapshot { tiers, mcp };
        if self.last.as_ref() == Some(&snapshot) {
            return Attempt::Unchanged;
        }
        let source = self.changed_sources(&snapshot);
        let mcp_changed = self.last.as_ref().is_none_or(|last| last.mcp != snapshot.mcp);
        self.last = Some(snapshot.clone());
        if mcp_changed {
            // A registry caught half-written keeps the previous servers and hooks, like a tier.
            for (path, text) in &snapshot.mcp {
                if let Some(Err(e)) = text.as_deref().map(serde_json::from_str::<serde::de::IgnoredAny>) {
                    return Attempt::Failed { reason: format!("{}: invalid JSON: {e}", path.display()), source };
                }
            }
        }
        let (config, diagnostics) = match snapshot.tiers.parse(&self.paths) {
            Ok(parsed) => parsed,
            Err(e) => return Attempt::Failed { reason: e.sentence(), source },
        };
        for d in &diagnostics {
            d.log();
        }
        let env = if mcp_changed { self.env.clone().with_mcp_servers_of(&self.paths) } else { self.env.clone() };
        let built = std::panic::catch_unwind(AssertUnwindSafe(|| config.into_hooks(&env)));
        let Ok(built) = built else {
            return Attempt::Failed { reason: "building the hooks panicked".to_owned(), source };
        };
        self.env = env;
        let new_ids: BTreeSet<String> = built.iter().map(|(_, h)| h.id().to_owned()).collect();
        let hooks: Vec<(HookEventType, Arc<dyn ExecutionHook>)> =
            built.into_iter().map(|(e, h)| (e, h as Arc<dyn ExecutionHook>)).collect();
        let previous = self.registry.replace_managed(CONFIG_GROUP, hooks);
        if let Some(rewake) = &self.rewake {
            let removed: BTreeSet<&str> =
                previous.iter().map(|(_, h)| h.id()).filter(|id| !new_ids.contains(*id)).collect();
            for id in removed {
                let n = rewake.cancel_by_hook_id(Some(&self.paths.project), id);
                if n > 0 {
                    tracing::info!(hook = id, "hooks: cancelled {n} pending rewake envelope(s) of a removed hook");
                }
            }
        }
        Attempt::Swapped { source }
    }

    /// Every watched file: the tier files, then the MCP registries.
    fn all_files(&self) -> Vec<PathBuf> {
        watched_files(&self.paths)
    }

    fn all_sources(&self) -> String {
        self.all_files().iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
    }

    /// The watched files whose text differs from the last attempt (appeared, changed or vanished).
    fn changed_sources(&self, now: &Snapshot) -> String {
        let before = self.last.as_ref().map(Snapshot::texts).unwrap_or_default();
        let after = now.texts();
        let changed: Vec<String> = self
            .all_files()
            .iter()
            .filter(|p| before.get(p.as_path()) != after.get(p.as_path()))
            .map(|p| p.display().to_string())
            .collect();
        if changed.is_empty() { self.all_sources() } else { changed.join(", ") }
    }
}

/// The files hot reload watches: the tier files (the managed `hooks.d` files there are now) and
/// the two MCP registries.
pub(super) fn watched_files(paths: &TierPaths) -> Vec<PathBuf> {
    paths.files().into_iter().map(|(_, p)| p).chain(paths.mcp_files()).collect()
}

/// What one attempt read: the tier texts and the MCP registries' texts (`None` when missing).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Snapshot {
    tiers: TierTexts,
    mcp: Vec<(PathBuf, Option<String>)>,
}

impl Snapshot {
    /// The text of each existing file, by path.
    fn texts(&self) -> HashMap<&Path, &str> {
        let tiers = self.tiers.files.iter().map(|(_, p, s)| (p.as_path(), s.as_str()));
        let mcp = self.mcp.iter().filter_map(|(p, s)| s.as_deref().map(|s| (p.as_path(), s)));
        tiers.chain(mcp).collect()
    }
}

/// Reads the MCP registries; a missing one is `None`, an unreadable one fails the attempt.
fn read_mcp(paths: &TierPaths) -> Result<Vec<(PathBuf, Option<String>)>, String> {
    paths
        .mcp_files()
        .into_iter()
        .map(|path| match std::fs::read(&path) {
            Ok(bytes) => Ok((path, Some(String::from_utf8_lossy(&bytes).into_owned()))),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok((path, None)),
            Err(e) => Err(format!("cannot read {}: {e}", path.display())),
        })
        .collect()
}
