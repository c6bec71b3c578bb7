//! Durable stores for pending envelopes (R-RW-9/10).
//!
//! The service keeps its own table in memory and writes through to a store. The store contract
//! is shaped for a shared database server later (R-RW-10): a fire is *claimed* with a
//! compare-and-set on `(id, attempt)`, so when several processes load the same rows only the
//! one whose claim succeeds fires. SQLite (one process) and the memory store implement it today.

mod memory;
mod record;
mod sqlite;

use std::fmt;

pub use self::memory::MemoryStore;
pub use self::sqlite::SqliteStore;

use crate::envelope::Envelope;
use crate::error::Error;

/// Where pending envelopes live between restarts.
pub trait RewakeStore: Send + Sync + fmt::Debug {
    /// Every stored envelope (stamped), in no particular order.
    fn load(&self) -> Result<Vec<Envelope>, Error>;
    /// Adds a newly scheduled envelope.
    fn insert(&self, envelope: &Envelope) -> Result<(), Error>;
    /// Claims fire number `attempt` of envelope `id`: succeeds only if the stored row still has
    /// that attempt number. `next = None` deletes the row (a one-shot, or a cron envelope's last
    /// fire); `Some` replaces it (a cron envelope's next fire). `false` means the envelope is gone
    /// or another process fired it: do not fire.
    fn claim_fire(&self, id: &str, attempt: u32, next: Option<&Envelope>) -> Result<bool, Error>;
    /// Deletes an envelope (cancel, expiry); `true` if it was stored.
    fn remove(&self, id: &str) -> Result<bool, Error>;
}
