//! The service's in-memory table: one slot per pending envelope and ONE timer structure (a
//! binary min-heap of deadlines) that a single driver task sleeps on (PERF-7): no task, no
//! tokio timer per envelope.
//!
//! The heap is lazy: re-arming or removing a slot leaves its old entry behind, and an entry
//! counts only while its slot still holds that exact key (keys are unique). Pushing is O(1) on
//! average for scattered deadlines, where a search tree pays a cache-missing descent per insert.
//! Stale entries are skipped when they surface and swept when they outnumber the live ones.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::hash::BuildHasher;
use std::time::Duration;

use chrono::{DateTime, TimeDelta, Utc};
use hashbrown::{DefaultHashBuilder, HashMap, HashTable};
use tokio::time::Instant;

use super::slot::{Interner, Slot, TimerKey};
use crate::cron::CronSchedule;
use crate::envelope::Envelope;

/// Wall time that advances with tokio's clock: `wall` at `at`. Under a paused tokio clock,
/// wall time advances only when tokio time does.
#[derive(Clone, Copy, Debug)]
pub(super) struct Clock {
    pub(super) wall: DateTime<Utc>,
    pub(super) at: Instant,
}

/// Deadlines further out are re-armed when reached (tokio's wheel spans about two years).
const FARTHEST_TIMER: Duration = Duration::from_secs(365 * 24 * 3600);

impl Clock {
    pub(super) fn now(&self) -> DateTime<Utc> {
        TimeDelta::from_std(self.at.elapsed())
            .ok()
            .and_then(|d| self.wall.checked_add_signed(d))
            .unwrap_or(DateTime::<Utc>::MAX_UTC)
    }

    pub(super) fn deadline(&self, wall: DateTime<Utc>) -> Instant {
        let offset = (wall - self.wall).to_std().unwrap_or(Duration::ZERO);
        let now_offset = self.at.elapsed();
        self.at + offset.min(now_offset + FARTHEST_TIMER)
    }
}

/// The table: slots in a slab (freed entries are reused), an id index holding slab positions
/// only, and the timer heap of (deadline key, slab position).
#[derive(Default)]
pub(super) struct State {
    slots: Vec<Option<Slot>>,
    free: Vec<u32>,
    index: HashTable<u32>,
    /// foldhash, randomly seeded: ids come from other processes too, so not a fixed hasher.
    hasher: DefaultHashBuilder,
    interner: Interner,
    timers: BinaryHeap<Reverse<(TimerKey, u32)>>,
    /// Slots whose `timer` is set (the live heap entries).
    armed: usize,
    per_context: HashMap<String, usize>,
    sequence: u64,
    /// The store's change cursor this table is current to.
    pub(super) cursor: u64,
    /// Fires wait until the service is told the runtimes are ready.
    pub(super) held: bool,
}

impl State {
    fn position(&self, id: &str) -> Option<u32> {
        let hash = self.hasher.hash_one(id);
        self.index.find(hash, |&i| self.slot_at(i).is_some_and(|s| &*s.id == id)).copied()
    }

    fn slot_at(&self, position: u32) -> Option<&Slot> {
        self.slots.get(position as usize).and_then(Option::as_ref)
    }

    pub(super) fn get(&self, id: &str) -> Option<&Slot> {
        self.slot_at(self.position(id)?)
    }

    pub(super) fn get_mut(&mut self, id: &str) -> Option<&mut Slot> {
        let position = self.position(id)?;
        self.slots.get_mut(position as usize).and_then(Option::as_mut)
    }

    pub(super) fn contains(&self, id: &str) -> bool {
        self.position(id).is_some()
    }

    pub(super) fn len(&self) -> usize {
        self.index.len()
    }

    pub(super) fn iter(&self) -> impl Iterator<Item = &Slot> {
        self.slots.iter().flatten()
    }

    /// Makes `id`'s slot hold `envelope` (same id); `false` if it is not pending.
    pub(super) fn set(&mut self, envelope: Envelope) -> bool {
        let Some(position) = self.position(&envelope.id) else { return false };
        let Some(slot) = self.slots.get_mut(position as usize).and_then(Option::as_mut) else { return false };
        slot.set(&mut self.interner, envelope);
        true
    }

    /// Removes the earliest timer if it is due at `now`; returns its envelope's id (`None` for
    /// an entry that is no longer live).
    pub(super) fn pop_due(&mut self, now: Instant) -> Option<Option<String>> {
        let Reverse((key, _)) = self.timers.peek()?;
        if key.0 > now {
            return None;
        }
        let Reverse((key, position)) = self.timers.pop()?;
        let slot = self.slots.get_mut(position as usize).and_then(Option::as_mut).filter(|s| s.timer == Some(key));
        Some(slot.map(|slot| {
            slot.timer = None;
            self.armed -= 1;
            slot.id.to_string()
        }))
    }

    /// The earliest deadline in the heap (possibly of a stale entry: the driver then wakes
    /// early and finds nothing, never late).
    pub(super) fn next_deadline(&self) -> Option<Instant> {
        self.timers.peek().map(|Reverse((key, _))| key.0)
    }

    /// (Re-)arms `id`'s timer at `deadline`; `true` if it is now the earliest (wake the driver).
    pub(super) fn arm(&mut self, id: &str, deadline: Instant) -> bool {
        let Some(position) = self.position(id) else { return false };
        self.arm_at(position, deadline)
    }

    /// [`State::arm`] for the slot at slab `position`.
    pub(super) fn arm_at(&mut self, position: u32, deadline: Instant) -> bool {
        let Some(slot) = self.slots.get_mut(position as usize).and_then(Option::as_mut) else { return false };
        self.sequence += 1;
        let key = (deadline, self.sequence);
        if slot.timer.replace(key).is_none() {
            self.armed += 1;
        }
        let earliest = self.timers.peek().is_none_or(|Reverse((first, _))| key < *first);
        self.timers.push(Reverse((key, position)));
        self.sweep();
        earliest
    }

    /// Rebuilds the heap from the live timers once stale entries outnumber them.
    fn sweep(&mut self) {
        if self.timers.len() <= 2 * self.armed + 1024 {
            return;
        }
        let live: Vec<_> = (0u32..)
            .zip(&self.slots)
            .filter_map(|(position, slot)| Some(Reverse((slot.as_ref()?.timer?, position))))
            .collect();
        self.timers = BinaryHeap::from(live);
    }

    /// Adds `envelope` (its id must not be pending); returns its slab position and the instant
    /// its timer is for.
    pub(super) fn insert(&mut self, envelope: Envelope, cron: Option<CronSchedule>) -> (u32, Option<DateTime<Utc>>) {
        let slot = Slot::new(&mut self.interner, envelope, cron);
        let due = slot.timer_instant();
        let key = slot.context_key();
        match self.per_context.get_mut(key) {
            Some(n) => *n += 1,
            None => {
                self.per_context.insert(key.to_owned(), 1);
            }
        }
        let hash = self.hasher.hash_one(&*slot.id);
        let position = match self.free.pop() {
            Some(position) => {
                self.slots[position as usize] = Some(slot);
                position
            }
            None => {
                self.slots.push(Some(slot));
                u32::try_from(self.slots.len() - 1).unwrap_or(u32::MAX)
            }
        };
        let (slots, hasher) = (&self.slots, &self.hasher);
        self.index.insert_unique(hash, position, |&i| {
            slots.get(i as usize).and_then(Option::as_ref).map_or(0, |s| hasher.hash_one(&*s.id))
        });
        (position, due)
    }

    pub(super) fn take(&mut self, id: &str) -> Option<Slot> {
        let hash = self.hasher.hash_one(id);
        let slots = &self.slots;
        let entry = self
            .index
            .find_entry(hash, |&i| slots.get(i as usize).and_then(Option::as_ref).is_some_and(|s| &*s.id == id))
            .ok()?;
        let (position, _) = entry.remove();
        let slot = self.slots.get_mut(position as usize)?.take()?;
        self.free.push(position);
        if slot.timer.is_some() {
            self.armed -= 1;
        }
        let key = slot.context_key();
        if let Some(n) = self.per_context.get_mut(key) {
            *n -= 1;
            if *n == 0 {
                self.per_context.remove(key);
            }
        }
        Some(slot)
    }

    pub(super) fn pending_in(&self, context: &str) -> usize {
        self.per_context.get(context).copied().unwrap_or(0)
    }
}

pub(super) fn context_key(envelope: &Envelope) -> &str {
    envelope.context_id.as_deref().unwrap_or("")
}
