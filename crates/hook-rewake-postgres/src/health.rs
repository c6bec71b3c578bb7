//! Outages: one WARN when the server becomes unreachable, one INFO when it is back, and calls in
//! between fail at once instead of each waiting for a connection that will not come.
//!
//! A call that cannot get a connection marks the store down. While it is down, one call per
//! [`PROBE_EVERY`] tries the server again (the probe); every other call fails at once with the
//! last error. The first call that gets a connection ends the outage.

use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use hook_rewake::Error;

/// How often a store that is down tries the server again.
pub(crate) const PROBE_EVERY: Duration = Duration::from_secs(1);

/// An outage in progress.
#[derive(Debug)]
struct Outage {
    since: Instant,
    next_probe: Instant,
    last: String,
}

/// Whether the server answered the last call that tried it.
#[derive(Debug, Default)]
pub(crate) struct Health {
    outage: Mutex<Option<Outage>>,
}

impl Health {
    fn outage(&self) -> MutexGuard<'_, Option<Outage>> {
        self.outage.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// `Err` when the store is down and this call is not the probe; a call that may try the
    /// server gets `Ok` (and, during an outage, becomes the probe).
    pub(crate) fn admit(&self) -> Result<(), Error> {
        let mut outage = self.outage();
        let Some(outage) = outage.as_mut() else { return Ok(()) };
        let now = Instant::now();
        if now >= outage.next_probe {
            outage.next_probe = now + PROBE_EVERY;
            return Ok(());
        }
        Err(Error::Store(format!("{} (down for {} s)", outage.last, now.duration_since(outage.since).as_secs())))
    }

    /// A call got a connection: the outage, if any, is over.
    pub(crate) fn up(&self) {
        if let Some(outage) = self.outage().take() {
            tracing::info!(
                "rewake: the PostgreSQL rewake store is reachable again after {} s",
                outage.since.elapsed().as_secs()
            );
        }
    }

    /// A call could not get a connection: the store is down (WARN once per outage).
    pub(crate) fn down(&self, err: &Error) {
        let now = Instant::now();
        let last = match err {
            Error::Store(text) => text.clone(),
            other => other.to_string(),
        };
        let mut outage = self.outage();
        match outage.as_mut() {
            Some(outage) => outage.last = last,
            None => {
                tracing::warn!(
                    "rewake: {last}; rewake calls fail until it is back (tried again every {} s)",
                    PROBE_EVERY.as_secs()
                );
                *outage = Some(Outage { since: now, next_probe: now + PROBE_EVERY, last });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn during_an_outage_one_call_per_interval_probes_and_the_rest_fail_at_once() {
        let health = Health::default();
        assert!(health.admit().is_ok(), "a healthy store admits every call");
        health.down(&Error::Store("the PostgreSQL rewake store is unreachable: connection refused".into()));
        let err = health.admit().expect_err("the next call fails at once").to_string();
        assert_eq!(
            err,
            "rewake store failed: the PostgreSQL rewake store is unreachable: connection refused (down for 0 s)"
        );
        health.outage().as_mut().expect("down").next_probe = Instant::now();
        assert!(health.admit().is_ok(), "the probe goes through");
        assert!(health.admit().is_err(), "only one probe per interval");
        health.up();
        assert!(health.admit().is_ok(), "the outage is over");
        assert!(health.outage().is_none());
    }
}
