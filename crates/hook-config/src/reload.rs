//! Hot reload (R-HOT-1…8): watcher, debounce, reloader and the bootstrap that ties them together.
//!
//! - Detection: `notify` on the *parent directories* of the three tier files (non-recursive,
//!   filtered by path, so rename-saves and files that do not exist yet work), plus a poller that
//!   compares `(mtime, len, exists)` every `poll_interval` (the fallback when a directory is
//!   missing or events are lost or disabled). Directories that appear later are watched on the
//!   next trigger.
//! - Debounce: a trigger opens a window that closes after `debounce` of quiet, or at the latest
//!   `max_wait` after the first trigger (default 2 s, R-HOT-2).
//! - Reload: one task does every reload in turn, so depth is at most 1; triggers that arrive
//!   during a reload queue up and cause exactly one more reload afterwards (R-HOT-6). A reload
//!   whose tier texts are byte-identical to the previous attempt's is a no-op.
//! - Swap: all tiers parse, or nothing changes and `onConfigReload(successful=false)` fires
//!   (R-HOT-4). Otherwise the hooks are built first and installed with one
//!   [`HookRegistry::replace_managed`] call, a single atomic store: a dispatch sees all-old or
//!   all-new, and "installing fails midway" cannot happen — a build that panics installs
//!   nothing and keeps the previous set. Rewake envelopes of removed ids are cancelled (R-HOT-8).

use std::collections::{BTreeSet, HashMap};
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

use hook_core::{CancellationToken, ExecutionHook, HookContext, HookEngine, HookEventType, HookRegistry};
use hook_rewake::RewakeService;
use notify::{EventKind, RecursiveMode, Watcher};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use crate::declarative::{BuildEnv, build_hooks};
use crate::error::Error;
use crate::load::TierTexts;
use crate::tier::TierPaths;

/// The registry group the three file tiers' hooks live in.
pub const CONFIG_GROUP: &str = "config";

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

    /// The build environment (default: [`BuildEnv::new`] of the paths).
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
        let env = self.env.unwrap_or_else(|| BuildEnv::new(&paths));
        let files: Vec<PathBuf> = paths.files().into_iter().map(|(_, p)| p).collect();
        let counter = Arc::new(AtomicU64::new(0));
        let events_active = Arc::new(AtomicBool::new(false));

        let (tx, rx) = mpsc::unbounded_channel();
        let stats = FileStats::take(&files);
        let mut reloader =
            Reloader { paths, registry, engine, rewake: self.rewake, env, last: None, counter: counter.clone() };
        reloader.initial_load();

        let watch = if self.file_events { DirWatch::new(&files, tx.clone(), events_active.clone()) } else { None };
        let debounce = Debounce { quiet: self.debounce, max_wait: self.max_wait };
        let poller = runtime.spawn(poll(files, stats, self.poll_interval, tx));
        let worker = runtime.spawn(run(reloader, rx, debounce, watch));
        Ok(HotReloadHandle { tasks: vec![worker, poller], counter, events_active })
    }
}

/// A running hot reload. Dropping it stops watching (R-HOT-1).
#[derive(Debug)]
pub struct HotReloadHandle {
    tasks: Vec<JoinHandle<()>>,
    counter: Arc<AtomicU64>,
    events_active: Arc<AtomicBool>,
}

impl HotReloadHandle {
    /// How many reloads have fired `onConfigReload` so far.
    pub fn reload_counter(&self) -> u64 {
        self.counter.load(Ordering::SeqCst)
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

#[derive(Clone, Copy, Debug)]
struct Debounce {
    quiet: Duration,
    max_wait: Duration,
}

/// Waits until a trigger window closes. `false` when the trigger channel is gone.
async fn settle(rx: &mut mpsc::UnboundedReceiver<()>, debounce: Debounce) -> bool {
    let first = Instant::now();
    loop {
        let deadline = (Instant::now() + debounce.quiet).min(first + debounce.max_wait);
        match tokio::time::timeout_at(deadline, rx.recv()).await {
            Ok(Some(())) => {}
            Ok(None) => return false,
            Err(_) => return true,
        }
    }
}

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

/// `(mtime, len)` of each file, `None` when missing.
#[derive(Clone, Debug, PartialEq, Eq)]
struct FileStats(Vec<Option<(SystemTime, u64)>>);

impl FileStats {
    fn take(files: &[PathBuf]) -> Self {
        FileStats(
            files
                .iter()
                .map(|f| std::fs::metadata(f).ok().map(|m| (m.modified().unwrap_or(SystemTime::UNIX_EPOCH), m.len())))
                .collect(),
        )
    }
}

async fn poll(files: Vec<PathBuf>, mut last: FileStats, interval: Duration, tx: mpsc::UnboundedSender<()>) {
    let mut ticker = tokio::time::interval(interval);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticker.tick().await;
        let now = FileStats::take(&files);
        if now != last {
            last = now;
            if tx.send(()).is_err() {
                return;
            }
        }
    }
}

/// The notify watcher on the tier files' parent directories.
struct DirWatch {
    watcher: notify::RecommendedWatcher,
    /// Parent directories and whether they are watched yet.
    dirs: Vec<(PathBuf, bool)>,
    active: Arc<AtomicBool>,
}

impl DirWatch {
    fn new(files: &[PathBuf], tx: mpsc::UnboundedSender<()>, active: Arc<AtomicBool>) -> Option<Self> {
        let targets: Vec<PathBuf> = files.to_vec();
        let handler = move |res: notify::Result<notify::Event>| match res {
            Ok(event) => {
                let relevant = !matches!(event.kind, EventKind::Access(_))
                    || matches!(
                        event.kind,
                        EventKind::Access(notify::event::AccessKind::Close(notify::event::AccessMode::Write))
                    );
                if relevant && event.paths.iter().any(|p| targets.iter().any(|t| same_file(p, t))) {
                    let _ = tx.send(());
                }
            }
            // Lost events (queue overflow): re-read to be safe.
            Err(_) => {
                let _ = tx.send(());
            }
        };
        let watcher = match notify::recommended_watcher(handler) {
            Ok(w) => w,
            Err(e) => {
                tracing::warn!("hooks: file-system events unavailable, polling only: {e}");
                return None;
            }
        };
        let mut dirs: Vec<(PathBuf, bool)> = Vec::new();
        for f in files {
            if let Some(parent) = f.parent()
                && !dirs.iter().any(|(d, _)| d == parent)
            {
                dirs.push((parent.to_owned(), false));
            }
        }
        let mut watch = DirWatch { watcher, dirs, active };
        watch.arm();
        Some(watch)
    }

    /// Watches every parent directory that exists and is not watched yet.
    fn arm(&mut self) {
        for (dir, watched) in &mut self.dirs {
            if !*watched && dir.is_dir() {
                match self.watcher.watch(dir, RecursiveMode::NonRecursive) {
                    Ok(()) => {
                        *watched = true;
                        self.active.store(true, Ordering::SeqCst);
                    }
                    Err(e) => tracing::debug!(dir = %dir.display(), "hooks: cannot watch, polling: {e}"),
                }
            }
        }
    }
}

fn same_file(event_path: &Path, target: &Path) -> bool {
    event_path == target || (event_path.file_name() == target.file_name() && event_path.parent() == target.parent())
}

/// Parses, builds and swaps; fires `onConfigReload`.
struct Reloader {
    paths: TierPaths,
    registry: Arc<HookRegistry>,
    engine: HookEngine,
    rewake: Option<Arc<dyn RewakeService>>,
    env: BuildEnv,
    /// The texts of the last attempt (successful or not).
    last: Option<TierTexts>,
    counter: Arc<AtomicU64>,
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
    fn initial_load(&mut self) {
        match self.attempt() {
            Attempt::Failed { reason, .. } => {
                tracing::warn!("hooks: initial load failed, hot reload continues: {reason}")
            }
            Attempt::Unchanged | Attempt::Swapped { .. } => {}
        }
    }

    async fn reload(&mut self) {
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
                let n = rewake.cancel_by_hook_id(Some(&self.paths.project), id);
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

#[cfg(test)]
mod tests {
    use super::*;

    const WINDOW: Debounce = Debounce { quiet: Duration::from_millis(100), max_wait: Duration::from_secs(2) };

    fn trigger_every(tx: mpsc::UnboundedSender<()>, every: Duration, times: usize) {
        tokio::spawn(async move {
            for _ in 0..times {
                tokio::time::sleep(every).await;
                let _ = tx.send(());
            }
        });
    }

    #[tokio::test(start_paused = true)]
    async fn a_burst_closes_one_quiet_window_after_its_last_trigger() {
        // R-HOT-2: three triggers 30 ms apart collapse into one window ending 100 ms after the last.
        let (tx, mut rx) = mpsc::unbounded_channel();
        trigger_every(tx.clone(), Duration::from_millis(30), 3);
        let start = Instant::now();
        assert!(settle(&mut rx, WINDOW).await);
        assert_eq!(start.elapsed(), Duration::from_millis(190));
        drop(tx);
    }

    #[tokio::test(start_paused = true)]
    async fn endless_triggers_are_cut_at_the_max_wait() {
        let (tx, mut rx) = mpsc::unbounded_channel();
        trigger_every(tx.clone(), Duration::from_millis(50), 1000);
        let start = Instant::now();
        assert!(settle(&mut rx, WINDOW).await);
        assert_eq!(start.elapsed(), Duration::from_secs(2));
        drop(tx);
    }

    #[tokio::test(start_paused = true)]
    async fn a_closed_trigger_channel_ends_the_window_with_false() {
        let (tx, mut rx) = mpsc::unbounded_channel::<()>();
        drop(tx);
        assert!(!settle(&mut rx, WINDOW).await);
    }

    #[test]
    fn event_paths_match_a_tier_file_by_name_and_directory() {
        let target = Path::new("/p/.aimon/hooks.json");
        assert!(same_file(Path::new("/p/.aimon/hooks.json"), target));
        assert!(!same_file(Path::new("/p/.aimon/hooks.local.json"), target));
        assert!(!same_file(Path::new("/q/.aimon/hooks.json"), target));
    }
}
