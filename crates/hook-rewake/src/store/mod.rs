//! Durable stores: pending envelopes with fire leases, and session mailboxes (R-RW-9/10/11).
//!
//! The service keeps its own timer table in memory and writes through to a store. The contract
//! is shaped for a shared database server (R-RW-10): several processes may load the same rows,
//! and a fire is guarded by a *lease* on `(id, attempt)`:
//!
//! 1. when an envelope is due, the firing process calls [`RewakeStore::lease`] with its owner id
//!    and an expiry of the hook's budget + 5 s grace + 30 s ([`lease_span`]); there is no renewal;
//! 2. only with [`LeaseOutcome::Taken`] does it run the hook;
//! 3. when the hook has finished, [`RewakeStore::finish`] deletes the row (one-shot, or the last
//!    fire of a cron envelope) or advances it to the next attempt, and clears the lease.
//!
//! A process killed between 1 and 3 leaves the lease to expire; the row is still there with the
//! same attempt, so another (or the restarted) process leases and fires the same `(id, attempt)`
//! again: at-least-once, never lost. The hook sees `rewake_id`/`rewake_attempt` to deduplicate.
//!
//! Every method is one atomic step (one transaction). Times are passed in by the caller (the
//! service clock), never read from the system clock, so tests can drive them. A PostgreSQL
//! implementation maps each method onto one statement or transaction: `lease` is an
//! `UPDATE … WHERE id = $1 AND attempt = $2 AND (lease_until IS NULL OR lease_until <= $now)`
//! (or a `SELECT … FOR UPDATE SKIP LOCKED` scan), `take_mail` an `UPDATE … RETURNING`.

mod mail;
mod memory;
mod record;
mod sqlite;

use std::fmt;
use std::path::Path;
use std::time::Duration;

use chrono::{DateTime, Utc};

pub use self::mail::Mail;
pub use self::memory::MemoryStore;
pub use self::record::{
    decode_mailbox, decode_stored, encode as encode_envelope, encode_mail, micros as stored_micros, stored_project,
};
pub use self::sqlite::SqliteStore;

use crate::envelope::Envelope;
use crate::error::Error;

/// Who holds a fire (or a mailbox claim), and until when.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lease {
    /// The holder: unique per process and service (`<host>-<pid>-<start>`).
    pub owner: String,
    /// After this instant the lease may be taken by anyone (takeover).
    pub until: DateTime<Utc>,
}

impl Lease {
    /// A lease held by `owner` until `until`.
    pub fn new(owner: impl Into<String>, until: DateTime<Utc>) -> Self {
        Lease { owner: owner.into(), until }
    }
}

/// How long a fire lease lasts for a hook with execution budget `budget` (R-RW-9): the budget,
/// the executor's 5 s grace, and 30 s for the store round trips. Leases are never renewed.
pub(crate) fn lease_span(budget: Duration) -> Duration {
    budget.saturating_add(Duration::from_secs(35))
}

/// One stored envelope and the lease on its current attempt, if any.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct StoredEnvelope {
    /// The envelope (its `attempt` is the fire the lease, if any, is for).
    pub envelope: Envelope,
    /// The lease on `(envelope.id, envelope.attempt)`; expired leases are reported too.
    pub lease: Option<Lease>,
}

impl StoredEnvelope {
    /// A row as stored.
    pub fn new(envelope: Envelope, lease: Option<Lease>) -> Self {
        StoredEnvelope { envelope, lease }
    }
}

/// Rows plus the change cursor they are current to.
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct StoreSnapshot {
    /// The rows.
    pub envelopes: Vec<StoredEnvelope>,
    /// Pass to [`RewakeStore::changes_since`] to see only rows written after this snapshot.
    pub cursor: u64,
}

impl StoreSnapshot {
    /// A snapshot of `envelopes` current to `cursor`.
    pub fn new(envelopes: Vec<StoredEnvelope>, cursor: u64) -> Self {
        StoreSnapshot { envelopes, cursor }
    }
}

/// The answer to [`RewakeStore::lease`].
#[derive(Clone, Debug, PartialEq)]
pub enum LeaseOutcome {
    /// The lease is yours: run the hook, then call [`RewakeStore::finish`].
    Taken,
    /// Another owner holds an unexpired lease on this attempt until the given instant: do not
    /// fire; try again then (that is how a dead owner's fire is taken over).
    Held(DateTime<Utc>),
    /// The row has moved on to another attempt (fired and advanced elsewhere): here it is now.
    Moved(Box<StoredEnvelope>),
    /// No such row: fired to completion or cancelled elsewhere. Do not fire.
    Gone,
}

/// Where pending envelopes and session mailboxes live between restarts (R-RW-9/11).
///
/// Implementations: [`MemoryStore`] (one process, tests) and [`SqliteStore`] (embedded
/// default). Every method is atomic on its own; none blocks for longer than one round trip.
/// Errors are [`Error::Store`] with a lower-case message.
pub trait RewakeStore: Send + Sync + fmt::Debug {
    /// Every stored envelope with its lease, in no particular order, and the change cursor.
    /// Unreadable rows are skipped with a WARN (left in place), never fatal.
    fn load(&self) -> Result<StoreSnapshot, Error>;

    /// Rows inserted or advanced (by any process) after `cursor`, and the new cursor. A
    /// service polls this to pick up envelopes one-shot processes enqueued (R-RW-12). Removed
    /// rows are not reported: a lease on them answers [`LeaseOutcome::Gone`].
    fn changes_since(&self, cursor: u64) -> Result<StoreSnapshot, Error>;

    /// Adds a newly scheduled envelope (no lease). A duplicate id is an error.
    fn insert(&self, envelope: &Envelope) -> Result<(), Error> {
        self.insert_batch(std::slice::from_ref(envelope))
    }

    /// Adds many envelopes in one transaction: all or none (PERF-7's batch persist).
    fn insert_batch(&self, envelopes: &[Envelope]) -> Result<(), Error>;

    /// Takes the lease on fire `attempt` of envelope `id` for `lease.owner` until `lease.until`.
    /// Succeeds when the row has that attempt and no lease, or a lease that expired at or
    /// before `now` (any owner, including `lease.owner` itself). With `body`, the row's
    /// envelope is replaced by it in the same step (a resolved event envelope stores its merged
    /// payload and fire instant, so a takeover fires it the same way); `body.id` and
    /// `body.attempt` must equal `id` and `attempt`.
    fn lease(
        &self,
        id: &str,
        attempt: u32,
        lease: &Lease,
        now: DateTime<Utc>,
        body: Option<&Envelope>,
    ) -> Result<LeaseOutcome, Error>;

    /// Ends fire `attempt` of envelope `id` leased by `owner`: `next = None` deletes the row,
    /// `Some(next)` replaces it (same id, a higher attempt) without a lease. `false` (and no
    /// change) when the row is gone, has another attempt, or its lease is now someone else's
    /// (it expired and was taken over: the new owner finishes).
    fn finish(&self, id: &str, attempt: u32, owner: &str, next: Option<&Envelope>) -> Result<bool, Error>;

    /// Deletes an envelope whatever its lease (cancel, expiry); `true` if it was stored.
    fn remove(&self, id: &str) -> Result<bool, Error>;

    /// Deletes every envelope of hook `hook_id` in project `project_dir` (hook ids repeat
    /// across projects, R-RW-4b; `None` matches envelopes without a project); returns their ids.
    fn remove_hook(&self, project_dir: Option<&Path>, hook_id: &str) -> Result<Vec<String>, Error>;

    /// Puts `mail` in its session's mailbox; `false` (and no change) when mail with that id is
    /// already there (a re-fire of the same `(id, attempt)` does not mail twice).
    fn put_mail(&self, mail: &Mail) -> Result<bool, Error>;

    /// Takes the mailbox of `session_id` atomically: every unexpired mail that is unclaimed (or
    /// whose claim expired at or before `now`) is claimed for `claim.owner` until `claim.until`
    /// and returned, oldest first. Call [`RewakeStore::ack_mail`] once the answer carrying it
    /// is written; unacknowledged mail becomes takeable again when the claim expires.
    fn take_mail(&self, session_id: &str, claim: &Lease, now: DateTime<Utc>) -> Result<Vec<Mail>, Error>;

    /// Deletes mail `ids` claimed by `owner` (delivered); returns how many.
    fn ack_mail(&self, owner: &str, ids: &[String]) -> Result<usize, Error>;

    /// Deletes mail that expired at or before `now`; returns how many.
    fn purge_mail(&self, now: DateTime<Utc>) -> Result<usize, Error>;

    /// How many mails are stored (all sessions, claimed or not; metrics).
    fn mail_depth(&self) -> Result<usize, Error>;

    /// A signal raised when another process inserted or advanced rows (a shared store's
    /// `LISTEN/NOTIFY`; this process's own writes may raise it too, and so does a reconnect),
    /// so a waiting service polls [`RewakeStore::changes_since`] now rather than at its next
    /// tick. Each raise wakes every current waiter and leaves one permit for the next.
    /// `None` (the default): this store has no such signal; poll.
    fn wake_signal(&self) -> Option<std::sync::Arc<tokio::sync::Notify>> {
        None
    }
}
