//! The embedded SQLite store (rusqlite, bundled): one table, one row per pending envelope.
//!
//! The columns the scheduler queries (`attempt`, `next_fire_at_us`, `expires_at_us`, `hook_id`)
//! sit beside the JSON body, so the same schema maps one-to-one onto a server database later.
//! WAL with `synchronous = NORMAL` survives a killed process (every commit is in the log).

use std::path::Path;
use std::sync::{Mutex, MutexGuard, PoisonError};

use rusqlite::{Connection, params};

use super::RewakeStore;
use super::record::{decode, encode, micros};
use crate::envelope::Envelope;
use crate::error::Error;

const SCHEMA: &str = "
    PRAGMA journal_mode = WAL;
    PRAGMA synchronous = NORMAL;
    CREATE TABLE IF NOT EXISTS rewake_envelope (
        id              TEXT PRIMARY KEY,
        hook_id         TEXT NOT NULL,
        context_id      TEXT,
        attempt         INTEGER NOT NULL,
        next_fire_at_us INTEGER,
        expires_at_us   INTEGER,
        body            TEXT NOT NULL
    );
    CREATE INDEX IF NOT EXISTS rewake_envelope_due ON rewake_envelope (next_fire_at_us);
    CREATE INDEX IF NOT EXISTS rewake_envelope_hook ON rewake_envelope (hook_id);
";

/// Pending envelopes in a SQLite file. An unreadable row is skipped with a WARN (and left in
/// place for inspection), never fatal.
#[derive(Debug)]
pub struct SqliteStore {
    conn: Mutex<Connection>,
}

impl SqliteStore {
    /// Opens (creating if needed) the store at `path`.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, Error> {
        let conn = Connection::open(path)?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        conn.execute_batch(SCHEMA)?;
        Ok(SqliteStore { conn: Mutex::new(conn) })
    }

    fn conn(&self) -> MutexGuard<'_, Connection> {
        self.conn.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl RewakeStore for SqliteStore {
    fn load(&self) -> Result<Vec<Envelope>, Error> {
        let conn = self.conn();
        let mut stmt = conn.prepare("SELECT id, body FROM rewake_envelope")?;
        let rows = stmt.query_map([], |row| Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?)))?;
        let mut envelopes = Vec::new();
        for row in rows {
            let (id, body) = row?;
            match decode(&body) {
                Ok(envelope) => envelopes.push(envelope),
                Err(err) => tracing::warn!(envelope = %id, "rewake: skipping unreadable stored envelope '{id}': {err}"),
            }
        }
        Ok(envelopes)
    }

    fn insert(&self, envelope: &Envelope) -> Result<(), Error> {
        let body = encode(envelope)?;
        self.conn().execute(
            "INSERT INTO rewake_envelope (id, hook_id, context_id, attempt, next_fire_at_us, expires_at_us, body)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                envelope.id,
                envelope.hook_id,
                envelope.context_id,
                envelope.attempt,
                micros(envelope.next_fire_at),
                micros(envelope.expires_at),
                body
            ],
        )?;
        Ok(())
    }

    fn claim_fire(&self, id: &str, attempt: u32, next: Option<&Envelope>) -> Result<bool, Error> {
        let conn = self.conn();
        let changed = match next {
            None => conn.execute("DELETE FROM rewake_envelope WHERE id = ?1 AND attempt = ?2", params![id, attempt])?,
            Some(next) => conn.execute(
                "UPDATE rewake_envelope SET attempt = ?3, next_fire_at_us = ?4, body = ?5
                 WHERE id = ?1 AND attempt = ?2",
                params![id, attempt, next.attempt, micros(next.next_fire_at), encode(next)?],
            )?,
        };
        Ok(changed == 1)
    }

    fn remove(&self, id: &str) -> Result<bool, Error> {
        Ok(self.conn().execute("DELETE FROM rewake_envelope WHERE id = ?1", params![id])? == 1)
    }
}
