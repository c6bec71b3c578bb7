//! The reloader (R-HOT-4…8): reads the tiers, parses, builds and swaps the `config` group, then
//! fires `onConfigReload`.

use std::collections::{BTreeSet, HashMap};
use std::panic::AssertUnwindSafe;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use hook_core::{CancellationToken, ExecutionHook, HookContext, HookEngine, HookEventType, HookRegistry};
use hook_rewake::RewakeService;

use super::CONFIG_GROUP;
use crate::declarative::{BuildEnv, build_hooks};
use crate::load::TierTexts;
use crate::tier::TierPaths;

/// Parses, builds and swaps; fires `onConfigReload`.
pub(super) struct Reloader {
    pub(super) paths: TierPaths,
    pub(super) registry: Arc<HookRegistry>,
    pub(super) engine: HookEngine,
    pub(super) rewake: Option<Arc<dyn RewakeService>>,
    pub(super) env: BuildEnv,
    /// The texts of the last attempt (successful or not).
    pub(super) last: Option<TierTexts>,
    pub(super) counter: Arc<AtomicU64>,
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
        match self.attempt() {
            Attempt::Failed { reason, .. } => {
                tracing::warn!("hooks: initial load failed, hot reload continues: {reason}")
            }
            Attempt::Unchanged | Attempt::Swapped { .. } => {}
        }
    }

    pub(super) async fn reload(&mut self) {
        let (successful, failure_reason, source) = match self.attempt() {
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

    fn attempt(&mut self) -> Attempt {
        let texts = match TierTexts::read(&self.paths) {
            Ok(t) => t,
            Err(e) => return Attempt::Failed { reason: e.to_string(), source: self.all_sources() },
        };
        if self.last.as_ref() == Some(&texts) {
            return Attempt::Unchanged;
        }
        let source = self.changed_sources(&texts);
        self.last = Some(texts.clone());
        let (config, diagnostics) = match texts.parse() {
            Ok(parsed) => parsed,
            Err(e) => return Attempt::Failed { reason: e.to_string(), source },
        };
        for d in &diagnostics {
            d.log();
        }
        let built = std::panic::catch_unwind(AssertUnwindSafe(|| build_hooks(&config, &self.env)));
        let Ok(built) = built else {
            return Attempt::Failed { reason: "building the hooks panicked".to_owned(), source };
        };
        let new_ids: BTreeSet<String> = built.iter().map(|(_, h)| h.id().to_owned()).collect();
        let hooks: Vec<(HookEventType, Arc<dyn ExecutionHook>)> =
            built.into_iter().map(|(e, h)| (e, h as Arc<dyn ExecutionHook>)).collect();
        let previous = self.registry.replace_managed(CONFIG_GROUP, hooks);
        if let Some(rewake) = &self.rewake {
            let removed: BTreeSet<&str> =
                previous.iter().map(|(_, h)| h.id()).filter(|id| !new_ids.contains(*id)).collect();
            for id in removed {
                let n = rewake.cancel_by_hook_id(id);
                if n > 0 {
                    tracing::info!(hook = id, "hooks: cancelled {n} pending rewake envelope(s) of a removed hook");
                }
            }
        }
        Attempt::Swapped { source }
    }

    fn all_sources(&self) -> String {
        self.paths.files().iter().map(|(_, p)| p.display().to_string()).collect::<Vec<_>>().join(", ")
    }

    /// The tier files whose text differs from the last attempt (appeared, changed or vanished).
    fn changed_sources(&self, texts: &TierTexts) -> String {
        let before: HashMap<&Path, &str> =
            self.last.iter().flat_map(|t| t.files.iter().map(|(_, p, s)| (p.as_path(), s.as_str()))).collect();
        let after: HashMap<&Path, &str> = texts.files.iter().map(|(_, p, s)| (p.as_path(), s.as_str())).collect();
        let changed: Vec<String> = self
            .paths
            .files()
            .iter()
            .filter(|(_, p)| before.get(p.as_path()) != after.get(p.as_path()))
            .map(|(_, p)| p.display().to_string())
            .collect();
        if changed.is_empty() { self.all_sources() } else { changed.join(", ") }
    }
}
