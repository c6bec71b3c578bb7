//! A firing loop as a service runs it, without the timers: load the due rows, lease each
//! `(id, attempt)`, fire, finish (advancing an envelope that has attempts left). Shared by the
//! tests, the worker processes and the benchmark.

use std::time::Duration;

use chrono::{TimeDelta, Utc};
use hook_rewake::{Lease, LeaseOutcome, RewakeStore};

use super::fixtures::next_attempt;

/// What one worker saw.
#[derive(Debug, Default)]
pub struct Tally {
    /// Every `(id, attempt)` this worker fired, in order.
    pub fired: Vec<(String, u32)>,
    /// Every store error (the worker retries after each).
    pub errors: Vec<String>,
    /// Fires whose finish answered `false`: the lease expired and was taken over meanwhile.
    pub lost_finishes: usize,
}

/// The order a worker walks the rows in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// By id: two workers race for every row, as two services whose timers fire together.
    ById,
    /// By id, backwards: two workers meet in the middle.
    Reverse,
}

/// Which rows a worker fires: those whose position in id order is `index` modulo `of` (the
/// firing tasks of one service split its due envelopes; services race for all of them).
#[derive(Clone, Copy, Debug)]
pub struct Share {
    pub index: usize,
    pub of: usize,
}

impl Share {
    /// Every row.
    pub const ALL: Share = Share { index: 0, of: 1 };
}

/// Fires everything in `store` (its `share` of it) until it is empty. `fire` runs between the
/// lease and the finish (the hook); `done` after a successful finish.
pub fn work(
    store: &dyn RewakeStore,
    owner: &str,
    span: Duration,
    order: Order,
    share: Share,
    mut fire: impl FnMut(&str, u32),
    mut done: impl FnMut(&str, u32),
) -> Tally {
    let mut tally = Tally::default();
    let pause = |ms| std::thread::sleep(Duration::from_millis(ms));
    let span = TimeDelta::from_std(span).expect("span");
    loop {
        let mut rows = match store.load() {
            Ok(snapshot) => snapshot.envelopes,
            Err(err) => {
                tally.errors.push(err.to_string());
                pause(50);
                continue;
            }
        };
        if rows.is_empty() {
            return tally;
        }
        rows.sort_by(|a, b| a.envelope.id.cmp(&b.envelope.id));
        let mut position = 0;
        rows.retain(|_| {
            position += 1;
            (position - 1) % share.of == share.index
        });
        if rows.is_empty() {
            return tally;
        }
        if order == Order::Reverse {
            rows.reverse();
        }
        let mut took = 0;
        for row in rows {
            let now = Utc::now();
            if row.lease.as_ref().is_some_and(|l| l.until > now) {
                continue;
            }
            let e = row.envelope;
            match store.lease(&e.id, e.attempt, &Lease::new(owner, now + span), now, None) {
                Ok(LeaseOutcome::Taken) => {
                    took += 1;
                    fire(&e.id, e.attempt);
                    tally.fired.push((e.id.clone(), e.attempt));
                    let next = (e.attempt < e.max_attempts).then(|| next_attempt(&e));
                    loop {
                        match store.finish(&e.id, e.attempt, owner, next.as_ref()) {
                            Ok(true) => {
                                done(&e.id, e.attempt);
                                break;
                            }
                            Ok(false) => {
                                tally.lost_finishes += 1;
                                break;
                            }
                            Err(err) => {
                                tally.errors.push(err.to_string());
                                pause(50);
                            }
                        }
                    }
                }
                Ok(_) => {}
                Err(err) => {
                    tally.errors.push(err.to_string());
                    pause(50);
                }
            }
        }
        if took == 0 {
            // Everything left is leased by someone else: wait for it to finish or expire.
            pause(100);
        }
    }
}
