//! Per-project engines: loaded on first use, hot-reloaded, evicted least-recently-used.
//!
//! A project's engine is its registry, kept current by hook-config's hot reload (the three tier
//! files), its MCP servers (sessions stay open between calls: the warm sessions), its current
//! configuration error as hot reload reports it (a project whose files do not load refuses where
//! the `claude` command would) and its slots for hook work. Each use compares the stamps of the two `mcp.json` files and
//! of the person's trust store with those the engine was built from, and rebuilds the engine when
//! one changed: new servers start, and `aimon-hooks trust` takes effect on the next call.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use hook_config::{
    BuildEnv, DecisionLog, HookHotReloadBootstrap, HotReloadHandle, Recording, SELF_GROUP, TierPaths, TrustGate,
    TrustStore, self_protection,
};
use hook_core::{ExecutionHook, FnHook, HookContext, HookEngine, HookEventType, HookRegistry, HookResult};
use serde_json::Value;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::error::Error;
use crate::metrics::Metrics;

/// `(mtime, len)` of a file, `None` when it is missing.
type Stamp = Option<(SystemTime, u64)>;

fn stamp(path: &Path) -> Stamp {
    std::fs::metadata(path).ok().map(|m| (m.modified().unwrap_or(SystemTime::UNIX_EPOCH), m.len()))
}

/// One project's engine.
#[derive(Debug)]
pub(crate) struct Project {
    pub(crate) dir: PathBuf,
    pub(crate) registry: Arc<HookRegistry>,
    /// The files the engine was built from beyond the tiers (`mcp.json`, the trust store), and their stamps then.
    stamped_files: Vec<PathBuf>,
    stamps: Vec<Stamp>,
    slots: Arc<Semaphore>,
    /// Dropping it stops hot reload; the registry's hooks (and so the MCP sessions) go with the
    /// last request that still holds this project. It knows why the last load failed.
    reload: HotReloadHandle,
}

impl Project {
    fn load(
        dir: &Path,
        home: Option<&Path>,
        slots: usize,
        metrics: &Arc<Metrics>,
        recording: &Recording,
        trust_all: bool,
    ) -> Result<Project, Error> {
        let paths = TierPaths::new(home.map(Path::to_owned), dir.to_owned());
        let mut stamped_files = paths.mcp_files();
        stamped_files.extend(home.map(|h| TrustStore::in_home(h).path().to_owned()));
        let stamps = stamped_files.iter().map(|p| stamp(p)).collect();
        // The project comes from an agent's call: its untrusted files run only their deny
        // handlers. The gate is the store as it was when the project loaded; a change to the
        // store rebuilds the engine (`current`).
        let env = BuildEnv::gated(&paths, TrustGate::for_agent(home, dir, trust_all)).with_recording(recording.clone());
        let registry = Arc::new(HookRegistry::new());
        let protection = self_protection(&paths, recording.log().map(DecisionLog::path));
        let listeners = Arc::new(HookRegistry::new());
        listeners.register(HookEventType::ON_CONFIG_RELOAD, reload_listener(metrics));
        let reload = HookHotReloadBootstrap::builder()
            .paths(paths)
            .registry(registry.clone())
            .engine(HookEngine::new(listeners))
            .env(env)
            .start()?;
        // Self-protection: its own group, which hot reload never replaces, after the tiers' hooks
        // (as the one-shot commands register it), so a person's own reason comes first.
        registry.replace_managed(
            SELF_GROUP,
            protection.into_iter().map(|(event, hook)| (event, hook as Arc<dyn ExecutionHook>)).collect(),
        );
        Ok(Project {
            dir: dir.to_owned(),
            registry,
            stamped_files,
            stamps,
            slots: Arc::new(Semaphore::new(slots)),
            reload,
        })
    }

    /// The configuration error that stops this project from answering, if any: why hot reload's
    /// last load of its files failed (the hooks live then are the last good ones, or none).
    pub(crate) fn config_error(&self) -> Option<String> {
        self.reload.last_failure()
    }

    /// Whether the MCP server registries and the trust store are as they were at load time.
    fn current(&self) -> bool {
        self.stamped_files.iter().map(|p| stamp(p)).eq(self.stamps.iter().copied())
    }

    /// Whether any hook is registered for `event` (work that needs a slot).
    pub(crate) fn has_hooks(&self, event: HookEventType) -> bool {
        !self.registry.hooks(event).is_empty()
    }
}

/// Counts each reload, successful or not, in the metrics.
fn reload_listener(metrics: &Arc<Metrics>) -> Arc<dyn ExecutionHook> {
    let metrics = metrics.clone();
    FnHook::new("hook-server-reload", move |ctx: HookContext| {
        let successful = ctx.fields.get("successful").and_then(Value::as_bool).unwrap_or(false);
        metrics.reload(successful);
        async { Ok(HookResult::allow()) }
    })
}

/// Slots for hook work: per project and in all. Waiting for one is the queue.
#[derive(Debug)]
pub(crate) struct Slots {
    _project: Option<OwnedSemaphorePermit>,
    _global: Option<OwnedSemaphorePermit>,
}

#[derive(Debug, Default)]
struct Lru {
    tick: u64,
    map: HashMap<PathBuf, (u64, Arc<Project>)>,
}

/// The loaded projects.
#[derive(Debug)]
pub(crate) struct Projects {
    home: Option<PathBuf>,
    max: usize,
    per_project: usize,
    global: Arc<Semaphore>,
    metrics: Arc<Metrics>,
    /// What every project's hooks record to (the daemon's decision log, `--audit`).
    recording: Recording,
    /// Every project's files are trusted (`AIMON_TRUST_PROJECT_HOOKS=1` as the binary read it).
    trust_all: bool,
    lru: Mutex<Lru>,
}

impl Projects {
    pub(crate) fn new(
        home: Option<PathBuf>,
        max: usize,
        per_project: usize,
        global: usize,
        metrics: Arc<Metrics>,
        recording: Recording,
        trust_all: bool,
    ) -> Self {
        Projects {
            home,
            max: max.max(1),
            per_project: per_project.max(1),
            global: Arc::new(Semaphore::new(global.max(1))),
            metrics,
            recording,
            trust_all,
            lru: Mutex::new(Lru::default()),
        }
    }

    /// What every project's hooks record to.
    pub(crate) fn recording(&self) -> &Recording {
        &self.recording
    }

    /// The trust gate of the project at `dir`, as its engine is built under.
    pub(crate) fn gate(&self, dir: &Path) -> TrustGate {
        TrustGate::for_agent(self.home.as_deref(), dir, self.trust_all)
    }

    /// The home directory whose tier every project shares.
    pub(crate) fn home(&self) -> Option<&Path> {
        self.home.as_deref()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Lru> {
        self.lru.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The engine of `dir`, loading (or, after an `mcp.json` change, rebuilding) it.
    pub(crate) fn get(&self, dir: &Path) -> Result<Arc<Project>, Error> {
        let cached = {
            let mut lru = self.lock();
            lru.tick += 1;
            let tick = lru.tick;
            lru.map.get_mut(dir).map(|entry| {
                entry.0 = tick;
                entry.1.clone()
            })
        };
        if let Some(project) = cached.filter(|p| p.current()) {
            return Ok(project);
        }
        let project = Arc::new(Project::load(
            dir,
            self.home.as_deref(),
            self.per_project,
            &self.metrics,
            &self.recording,
            self.trust_all,
        )?);
        let mut lru = self.lock();
        lru.tick += 1;
        let tick = lru.tick;
        lru.map.insert(project.dir.clone(), (tick, project.clone()));
        while lru.map.len() > self.max {
            let Some(oldest) = lru.map.iter().min_by_key(|(_, (t, _))| *t).map(|(k, _)| k.clone()) else { break };
            lru.map.remove(&oldest);
            tracing::debug!("hooks: evicted the engine of {}", oldest.display());
        }
        self.metrics.projects_loaded(lru.map.len());
        Ok(project)
    }

    /// Waits for a slot of `project` and one of the daemon (in that order, FIFO).
    pub(crate) async fn slots(&self, project: &Project) -> Slots {
        self.metrics.queued(1);
        // The semaphores are never closed, so both acquisitions succeed.
        let project_slot = project.slots.clone().acquire_owned().await.ok();
        let global = self.global.clone().acquire_owned().await.ok();
        self.metrics.queued(-1);
        Slots { _project: project_slot, _global: global }
    }

    /// Drops every engine (hot reload stops; MCP sessions close when the last call lets go).
    pub(crate) fn clear(&self) {
        self.lock().map.clear();
        self.metrics.projects_loaded(0);
    }
}
