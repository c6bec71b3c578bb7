//! The typed-token registry (R-REG).

use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use arc_swap::ArcSwap;

use crate::events::HookEventType;
use crate::hook::ExecutionHook;

/// A registered hook and who owns it.
#[derive(Clone)]
struct Entry {
    hook: Arc<dyn ExecutionHook>,
    /// `None` for programmatic hooks; the managed group (`config`, `skill:my-skill`) otherwise.
    group: Option<Arc<str>>,
}

/// One consistent view of every event's hooks (R-REG-2). Cheap to take; a dispatch works on one.
#[derive(Clone)]
pub struct RegistrySnapshot {
    per_event: Arc<Vec<Vec<Entry>>>,
}

impl RegistrySnapshot {
    fn empty() -> Self {
        RegistrySnapshot { per_event: Arc::new(vec![Vec::new(); HookEventType::ALL.len()]) }
    }

    /// The hooks of `event` in dispatch order.
    pub fn hooks(&self, event: HookEventType) -> impl ExactSizeIterator<Item = &Arc<dyn ExecutionHook>> {
        self.per_event[event.index()].iter().map(|e| &e.hook)
    }

    /// The managed hooks of `group`, per event, in dispatch order.
    pub fn managed(&self, group: &str) -> Vec<(HookEventType, Arc<dyn ExecutionHook>)> {
        HookEventType::ALL
            .iter()
            .flat_map(|&ev| {
                self.per_event[ev.index()]
                    .iter()
                    .filter(|e| e.group.as_deref() == Some(group))
                    .map(move |e| (ev, e.hook.clone()))
            })
            .collect()
    }

    /// Whether no hook is registered at all.
    pub fn is_empty(&self) -> bool {
        self.per_event.iter().all(Vec::is_empty)
    }
}

impl fmt::Debug for RegistrySnapshot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut m = f.debug_map();
        for &ev in HookEventType::ALL {
            let ids: Vec<&str> = self.hooks(ev).map(|h| h.id()).collect();
            if !ids.is_empty() {
                m.entry(&ev.name(), &ids);
            }
        }
        m.finish()
    }
}

/// The hook registry: five operations keyed by the event token, safe for concurrent dispatch
/// and mutation. Writers build a new snapshot and publish it in one atomic store, so a dispatch
/// sees all-old or all-new hooks, never a mix (R-REG-2, R-HOT-4).
///
/// ```
/// use hook_core::{FnHook, HookEventType, HookRegistry, HookResult, ExecutionHook};
/// use std::sync::Arc;
/// let registry = HookRegistry::new();
/// let hook: Arc<dyn ExecutionHook> = FnHook::new("h", |_| async { Ok(HookResult::allow()) });
/// registry.register(HookEventType::PRE_TOOL, hook.clone());
/// assert_eq!(registry.hooks(HookEventType::PRE_TOOL).len(), 1);
/// assert!(registry.unregister(HookEventType::PRE_TOOL, &hook));
/// assert!(registry.is_empty());
/// ```
pub struct HookRegistry {
    current: ArcSwap<Vec<Vec<Entry>>>,
    writer: Mutex<()>,
}

impl Default for HookRegistry {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for HookRegistry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("HookRegistry").field(&self.snapshot()).finish()
    }
}

impl HookRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        HookRegistry { current: ArcSwap::new(RegistrySnapshot::empty().per_event), writer: Mutex::new(()) }
    }

    /// Registers a programmatic hook at the end of `event`'s dispatch order.
    pub fn register(&self, event: HookEventType, hook: Arc<dyn ExecutionHook>) {
        self.update(|tables| tables[event.index()].push(Entry { hook, group: None }));
    }

    /// Removes `hook` (by identity) from `event`; `true` if it was there.
    pub fn unregister(&self, event: HookEventType, hook: &Arc<dyn ExecutionHook>) -> bool {
        let mut removed = false;
        self.update(|tables| {
            let list = &mut tables[event.index()];
            if let Some(pos) = list.iter().position(|e| Arc::ptr_eq(&e.hook, hook)) {
                list.remove(pos);
                removed = true;
            }
        });
        removed
    }

    /// The hooks of `event` in dispatch order.
    pub fn hooks(&self, event: HookEventType) -> Vec<Arc<dyn ExecutionHook>> {
        self.snapshot().hooks(event).cloned().collect()
    }

    /// Whether no hook is registered for any event.
    pub fn is_empty(&self) -> bool {
        self.snapshot().is_empty()
    }

    /// Removes every hook, managed and programmatic.
    pub fn clear_all(&self) {
        self.update(|tables| tables.iter_mut().for_each(Vec::clear));
    }

    /// One consistent view for a dispatch.
    pub fn snapshot(&self) -> RegistrySnapshot {
        RegistrySnapshot { per_event: self.current.load_full() }
    }

    /// Atomically replaces every managed hook of `group` with `hooks` (R-REG-3, R-HOT-4).
    ///
    /// Per event, the new hooks take the place of the group's first old hook (or go at the end
    /// when the group had none there); programmatic hooks and other groups are untouched.
    /// Returns the group's previous hooks.
    pub fn replace_managed(
        &self,
        group: &str,
        hooks: Vec<(HookEventType, Arc<dyn ExecutionHook>)>,
    ) -> Vec<(HookEventType, Arc<dyn ExecutionHook>)> {
        let group: Arc<str> = Arc::from(group);
        let mut previous = Vec::new();
        self.update(|tables| {
            for &ev in HookEventType::ALL {
                let list = std::mem::take(&mut tables[ev.index()]);
                let is_group = |e: &Entry| e.group.as_deref() == Some(&*group);
                let insert_at = list.iter().position(is_group).unwrap_or(list.len());
                let mut kept = Vec::with_capacity(list.len());
                let mut new_entries = hooks
                    .iter()
                    .filter(|(e, _)| *e == ev)
                    .map(|(_, h)| Entry { hook: h.clone(), group: Some(group.clone()) });
                for (i, e) in list.into_iter().enumerate() {
                    if i == insert_at {
                        kept.extend(new_entries.by_ref());
                    }
                    if is_group(&e) {
                        previous.push((ev, e.hook));
                    } else {
                        kept.push(e);
                    }
                }
                kept.extend(new_entries);
                tables[ev.index()] = kept;
            }
        });
        previous
    }

    fn update(&self, f: impl FnOnce(&mut Vec<Vec<Entry>>)) {
        let _guard = self.writer.lock().unwrap_or_else(PoisonError::into_inner);
        let mut next: Vec<Vec<Entry>> = (**self.current.load()).clone();
        f(&mut next);
        self.current.store(Arc::new(next));
    }
}
