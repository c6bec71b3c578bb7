//! `HookHotReloadBootstrap::builder()…start()` (R-HOT-1): the builder, the handle, and the worker
//! that ties the watcher, the debounce and the reloader together.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, PoisonError, RwLock};
use std::time::Duration;

use hook_core::{HookEngine, HookRegistry};
use hook_rewake::RewakeService;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::debounce::{Debounce, settle};
use super::reloader::{Reloader, watched_files};
use super::watch::{DirWatch, FileStats, poll};
use crate::declarative::BuildEnv;
use crate::error::Error;
use crate::tier::TierPaths;

/// Entry point of hot reload (R-HOT-1): `HookHotReloadBootstrap::builder()…start()`.
#[derive(Debug)]
pub struct HookHotReloadBootstrap;

impl HookHotReloadBootstrap {
    /// A builder with the defaults: 1 s polling, 100 ms quiet window, 2 s max wait, events on.
    pub fn builder() -> HotReloadBuilder {
        HotReloadBuilder {
            paths: None,
            registry: None,
            engine: None,
            rewake: None,
            env: None,
            poll_interval: Duration::from_secs(1),
            debounce: Duration::from_millis(100),
            max_wait: Duration::from_secs(2),
            file_events: true,
        }
    }
}

/// Configures and starts hot reload.
pub struct HotReloadBuilder {
    paths: Option<TierPaths>,
    registry: Option<Arc<HookRegistry>>,
    engine: Option<HookEngine>,
    rewake: Option<Arc<dyn RewakeService>>,
    env: Option<BuildEnv>,
    poll_interval: Duration,
    debounce: Duration,
    max_wait: Duration,
    file_events: bool,
}

impl std::fmt::Debug for HotReloadBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HotReloadBuilder")
            .field("paths", &self.paths)
            .field("poll_interval", &self.poll_interval)
            .field("debounce", &self.debounce)
            .field("max_wait", &self.max_wait)
            .field("file_events", &self.file_events)
            .finish_non_exhaustive()
    }
}

impl HotReloadBuilder {
    /// The tier files to watch (required).
    pub fn paths(mut self, paths: TierPaths) -> Self {
        self.paths = Some(paths);
        self
    }

    /// The live registry whose `config` group is swapped (required).
    pub fn registry(mut self, registry: Arc<HookRegistry>) -> Self {
        self.registry = Some(registry);
        self
    }

    /// The engine `onConfigReload` is fired through (default: a default engine on the registry).
    pub fn engine(mut self, engine: HookEngine) -> Self {
        self.engine = Some(engine);
        self
    }

    /// The rewake service whose envelopes of removed hooks are cancelled (R-HOT-8).
    pub fn rewake(mut self, rewake: Arc<dyn RewakeService>) -> Self {
        self.rewake = Some(rewake);
        self
    }

    /// The build environment (default: [`BuildEnv::new`] of the paths). Its MCP servers are
    /// replaced by those of the watched `mcp.json` files at start and after each of their edits.
    pub fn env(mut self, env: BuildEnv) -> Self {
        self.env = Some(env);
        self
    }

    /// How often the poller compares file stats (default 1 s).
    pub fn poll_interval(mut self, interval: Duration) -> Self {
        self.poll_interval = interval;
        self
    }

    /// The quiet time that closes a debounce window (default 100 ms).
    pub fn debounce(mut self, quiet: Duration) -> Self {
        self.debounce = quiet;
        self
    }

    /// The longest a debounce window stays open after its first trigger (default 2 s).
    pub fn max_wait(mut self, max_wait: Duration) -> Self {
        self.max_wait = max_wait;
        self
    }

    /// Whether to use file-system events (default on); off leaves polling alone.
    pub fn file_events(mut self, on: bool) -> Self {
        self.file_events = on;
        self
    }

    /// Loads the tiers once (no `onConfigReload`; a failure is a WARN and later reloads are still
    /// attempted, R-HOT-5), then starts watching. Needs a tokio runtime.
    pub fn start(self) -> Result<HotReloadHandle, Error> {
        let runtime = tokio::runtime::Handle::try_current().map_err(|_| Error::NoRuntime)?;
        let paths = self.paths.ok_or(Error::Incomplete("paths"))?;
        let registry = self.registry.ok_or(Error::Incomplete("registry"))?;
        let engine = self.engine.unwrap_or_else(|| HookEngine::new(registry.clone()));
        let env = self.env.unwrap_or_else(|| BuildEnv::without_mcp(&paths));
        let files: Vec<PathBuf> = watched_files(&paths);
        let trees = vec![paths.managed_drop_ins()];
        let counter = Arc::new(AtomicU64::new(0));
        let events_active = Arc::new(AtomicBool::new(false));

        let (tx, rx) = mpsc::unbounded_channel();
        // A directory's stats change when a file is added, removed or renamed in it.
        let polled: Vec<PathBuf> = files.iter().chain(&trees).cloned().collect();
        let stats = FileStats::take(&polled);
        let failure = Arc::new(RwLock::new(None));
        let mut reloader = Reloader {
            paths,
            registry,
            engine,
            rewake: self.rewake,
            env,
            last: None,
            counter: counter.clone(),
            failure: failure.clone(),
        };
        reloader.initial_load();

        let watch =
            if self.file_events { DirWatch::new(&files, &trees, tx.clone(), events_active.clone()) } else { None };
        let debounce = Debounce { quiet: self.debounce, max_wait: self.max_wait };
        let poller = runtime.spawn(poll(polled, stats, self.poll_interval, tx));
        let worker = runtime.spawn(run(reloader, rx, debounce, watch));
        Ok(HotReloadHandle { tasks: vec![worker, poller], counter, events_active, failure })
    }
}

/// A running hot reload. Dropping it stops watching (R-HOT-1).
#[derive(Debug)]
pub struct HotReloadHandle {
    tasks: Vec<JoinHandle<()>>,
    counter: Arc<AtomicU64>,
    events_active: Arc<AtomicBool>,
    failure: Arc<RwLock<Option<String>>>,
}

impl HotReloadHandle {
    /// How many reloads have fired `onConfigReload` so far.
    pub fn reload_counter(&self) -> u64 {
        self.counter.load(Ordering::SeqCst)
    }

    /// Why the hooks on disk could not be loaded, as one sentence (`file:line:column: message`
    /// for a configuration error), or `None` when the last load or reload that read a change
    /// succeeded. Set by the initial load in [`HotReloadBuilder::start`] and by every reload,
    /// before `onConfigReload` fires; the hooks live meanwhile are the last good ones.
    pub fn last_failure(&self) -> Option<String> {
        self.failure.read().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// Whether file-system events are in use for at least one tier directory.
    pub fn file_events_active(&self) -> bool {
        self.events_active.load(Ordering::SeqCst)
    }
}

impl Drop for HotReloadHandle {
    fn drop(&mut self) {
        for t in &self.tasks {
            t.abort();
        }
    }
}

/// The worker: one debounced window, then one reload, in turn (depth at most 1, R-HOT-6).
async fn run(
    mut reloader: Reloader,
    mut rx: mpsc::UnboundedReceiver<()>,
    debounce: Debounce,
    mut watch: Option<DirWatch>,
) {
    while rx.recv().await.is_some() {
        if !settle(&mut rx, debounce).await {
            return;
        }
        if let Some(w) = &mut watch {
            w.arm();
        }
        reloader.reload().await;
    }
}
