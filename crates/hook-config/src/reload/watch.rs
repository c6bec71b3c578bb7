//! Change detection (R-HOT-1/2): `notify` on the watched files' parent directories, and a poller
//! comparing `(mtime, len)` as the fallback. Both only send a trigger; the debounce and the
//! reloader decide what it means.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, SystemTime};

use notify::{EventKind, RecursiveMode, Watcher};
use tokio::sync::mpsc;

/// `(mtime, len)` of each file, `None` when missing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct FileStats(Vec<Option<(SystemTime, u64)>>);

impl FileStats {
    pub(super) fn take(files: &[PathBuf]) -> Self {
        FileStats(
            files
                .iter()
                .map(|f| std::fs::metadata(f).ok().map(|m| (m.modified().unwrap_or(SystemTime::UNIX_EPOCH), m.len())))
                .collect(),
        )
    }
}

/// Sends a trigger whenever the stats of `files` differ from the last look.
pub(super) async fn poll(files: Vec<PathBuf>, mut last: FileStats, interval: Duration, tx: mpsc::UnboundedSender<()>) {
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

/// The notify watcher on the watched files' parent directories.
pub(super) struct DirWatch {
    watcher: notify::RecommendedWatcher,
    /// Parent directories and whether they are watched yet.
    dirs: Vec<(PathBuf, bool)>,
    active: Arc<AtomicBool>,
}

impl DirWatch {
    /// Watches `files`, and every entry of the directories `trees` (the managed `hooks.d`, whose
    /// files may come and go).
    pub(super) fn new(
        files: &[PathBuf],
        trees: &[PathBuf],
        tx: mpsc::UnboundedSender<()>,
        active: Arc<AtomicBool>,
    ) -> Option<Self> {
        let targets: Vec<PathBuf> = files.iter().chain(trees).cloned().collect();
        let in_trees: Vec<PathBuf> = trees.to_vec();
        let handler = move |res: notify::Result<notify::Event>| match res {
            Ok(event) => {
                let relevant = !matches!(event.kind, EventKind::Access(_))
                    || matches!(
                        event.kind,
                        EventKind::Access(notify::event::AccessKind::Close(notify::event::AccessMode::Write))
                    );
                let hit = |p: &PathBuf| {
                    targets.iter().any(|t| same_file(p, t)) || in_trees.iter().any(|d| p.parent() == Some(d.as_path()))
                };
                if relevant && event.paths.iter().any(hit) {
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
        let parents = files.iter().chain(trees).filter_map(|f| f.parent());
        for dir in parents.chain(trees.iter().map(PathBuf::as_path)) {
            if !dirs.iter().any(|(d, _)| d == dir) {
                dirs.push((dir.to_owned(), false));
            }
        }
        let mut watch = DirWatch { watcher, dirs, active };
        watch.arm();
        Some(watch)
    }

    /// Watches every parent directory that exists and is not watched yet.
    pub(super) fn arm(&mut self) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_paths_match_a_tier_file_by_name_and_directory() {
        let target = Path::new("/p/.aimon/hooks.json");
        assert!(same_file(Path::new("/p/.aimon/hooks.json"), target));
        assert!(!same_file(Path::new("/p/.aimon/hooks.local.json"), target));
        assert!(!same_file(Path::new("/q/.aimon/hooks.json"), target));
    }
}
