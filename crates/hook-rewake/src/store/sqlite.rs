//! The embedded SQLite store (rusqlite, bundled): one row per pending envelope, one per mail.
//!
//! The columns the scheduler queries (`attempt`, lease, `next_fire_at_us`, `hook_id`,
//! `project_dir`, `seq`) sit beside the JSON body, so the same schema maps one-to-one onto a
//! server database. WAL with `synchronous = NORMAL` survives a killed process (every commit is
//! in the log). The schema is versioned with `PRAGMA user_version` and migrated on open.
//!
//! Other processes' writes (a one-shot `claude` enqueueing) are noticed by a watcher thread,
//! started by the first [`RewakeStore::wake_signal`] call: on its own connection it reads
//! `PRAGMA data_version` (which changes when another connection commits) every 20 ms and raises
//! the signal, so a service reads new rows within about 20 ms plus one query.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError, Weak};
use std::time::Duration;

use chrono::{DateTime, Utc};
use rusqlite::{Connection, Transaction, TransactionBehavior, params};
use tokio::sync::Notify;

use super::record::{decode_mailbox, decode_stored, encode, encode_mail, micros, stored_project};
use super::{Lease, LeaseOutcome, Mail, RewakeStore, StoreSnapshot, StoredEnvelope};
use crate::envelope::Envelope;
use crate::error::Error;

/// The schema this build writes. Version 1 is 0.1's (then unversioned: `user_version` 0).
const SCHEMA_VERSION: i64 = 2;

const PRAGMAS: &str = "
    PRAGMA journal_mode = WAL;
    PRAGMA synchronous = NORMAL;
";

/// 0.1's schema; files written by 0.1 already have it.
const V1: &str = "
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

/// 0.2: leases, project and session columns, a change sequence, session mailboxes.
const V2: &str = "
    ALTER TABLE rewake_envelope ADD COLUMN project_dir TEXT;
    ALTER TABLE rewake_envelope ADD COLUMN session_id TEXT;
    ALTER TABLE rewake_envelope ADD COLUMN lease_owner TEXT;
    ALTER TABLE rewake_envelope ADD COLUMN lease_until_us INTEGER;
    ALTER TABLE rewake_envelope ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
    UPDATE rewake_envelope SET
        project_dir = json_extract(body, '$.context.project_dir'),
        session_id = json_extract(body, '$.context.session_id'),
        seq = rowid;
    DROP INDEX IF EXISTS rewake_envelope_hook;
    CREATE INDEX rewake_envelope_hook ON rewake_envelope (project_dir, hook_id);
    CREATE INDEX rewake_envelope_seq ON rewake_envelope (seq);
    CREATE TABLE rewake_meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
    INSERT INTO rewake_meta (key, value) SELECT 'seq', coalesce(max(seq), 0) FROM rewake_envelope;
    CREATE TABLE rewake_mail (
        id             TEXT PRIMARY KEY,
        session_id     TEXT NOT NULL,
        created_at_us  INTEGER NOT NULL,
        expires_at_us  INTEGER NOT NULL,
        claim_owner    TEXT,
        claim_until_us INTEGER,
        body           TEXT NOT NULL
    );
    CREATE INDEX rewake_mail_session ON rewake_mail (session_id);
    CREATE INDEX rewake_mail_expiry ON rewake_mail (expires_at_us);
";

const COLUMNS: &str = "id, body, lease_owner, lease_until_us";

/// How often the wake-signal watcher reads the file's data version.
const WATCH_EVERY: Duration = Duration::from_millis(20);

/// Pending envelopes and mailboxes in a SQLite file. An unreadable row is skipped with a WARN
/// (and left in place for inspection), never fatal.
#[derive(Debug)]
pub struct SqliteStore {
    conn: Mutex<Connection>,
    path: PathBuf,
    signal: OnceLock<Arc<Notify>>,
}

impl SqliteStore {
    /// Opens (creating if needed) the store at `path` and migrates its schema to this build's.
    /// A file written by a newer build is refused.
    ///
    /// The file holds session payloads: it is created readable by its owner only (0600), and an
    /// existing file that others can read is made so (SQLite gives its `-wal` and `-shm` files
    /// the main file's mode).
    pub fn open(path: impl AsRef<Path>) -> Result<Self, Error> {
        let path = path.as_ref().to_owned();
        owner_only(&path)?;
        let mut conn = Connection::open(&path)?;
        conn.busy_timeout(Duration::from_secs(5))?;
        conn.execute_batch(PRAGMAS)?;
        migrate(&mut conn)?;
        Ok(SqliteStore { conn: Mutex::new(conn), path, signal: OnceLock::new() })
    }

    fn conn(&self) -> MutexGuard<'_, Connection> {
        self.conn.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Creates `path` with mode 0600 when it does not exist, and takes the group's and others' bits
/// off when it does.
fn owner_only(path: &Path) -> Result<(), Error> {
    use std::os::unix::fs::{OpenOptionsExt as _, PermissionsExt as _};
    let failed = |e: std::io::Error| Error::Store(format!("cannot open {}: {e}", path.display()));
    let file = std::fs::OpenOptions::new().create(true).append(true).mode(0o600).open(path).map_err(failed)?;
    let mode = file.metadata().map_err(failed)?.permissions().mode();
    if mode & 0o077 != 0 {
        file.set_permissions(std::fs::Permissions::from_mode(mode & 0o700)).map_err(failed)?;
    }
    Ok(())
}

/// Raises `signal` whenever another connection commits to the file at `path`, until the signal
/// is dropped. Runs on a thread of its own with its own connection.
fn watch(path: &Path, signal: Weak<Notify>) -> Result<(), Error> {
    let conn = Connection::open(path)?;
    conn.busy_timeout(Duration::from_secs(5))?;
    let version = |conn: &Connection| conn.query_row("PRAGMA data_version", [], |row| row.get::<_, i64>(0));
    let mut last = version(&conn)?;
    let spawned = std::thread::Builder::new().name("rewake-sqlite-watch".into()).spawn(move || {
        loop {
            std::thread::sleep(WATCH_EVERY);
            let Some(signal) = signal.upgrade() else { return };
            match version(&conn) {
                Ok(now) if now != last => {
                    last = now;
                    signal.notify_waiters();
                    signal.notify_one();
                }
                Ok(_) => {}
                Err(err) => tracing::debug!("rewake: cannot read the store's data version: {err}"),
            }
        }
    });
    spawned.map(drop).map_err(|e| Error::Store(format!("cannot start the store watcher: {e}")))
}

fn migrate(conn: &mut Connection) -> Result<(), Error> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let version: i64 = tx.query_row("PRAGMA user_version", [], |row| row.get(0))?;
    if version > SCHEMA_VERSION {
        return Err(Error::Store(format!(
            "the rewake store has schema version {version}, newer than this build's {SCHEMA_VERSION}"
        )));
    }
    if version < 1 {
        tx.execute_batch(V1)?;
    }
    if version < 2 {
        tx.execute_batch(V2)?;
    }
    tx.execute_batch(&format!("PRAGMA user_version = {SCHEMA_VERSION}"))?;
    tx.commit()?;
    Ok(())
}

/// Reserves `n` change sequence numbers; returns the first.
fn reserve_seq(tx: &Transaction<'_>, n: usize) -> Result<i64, Error> {
    let n = i64::try_from(n).map_err(|_| Error::Store("batch too large".into()))?;
    let last: i64 =
        tx.query_row("UPDATE rewake_meta SET value = value + ?1 WHERE key = 'seq' RETURNING value", [n], |r| r.get(0))?;
    Ok(last - n + 1)
}

/// Decodes rows of `COLUMNS`; unreadable ones are skipped with a WARN.
fn read_rows(stmt: &mut rusqlite::Statement<'_>, params: impl rusqlite::Params) -> Result<Vec<StoredEnvelope>, Error> {
    let rows = stmt.query_map(params, |row| {
        Ok((
            row.get::<_, String>(0)?,
            row.get::<_, String>(1)?,
            row.get::<_, Option<String>>(2)?,
            row.get::<_, Option<i64>>(3)?,
        ))
    })?;
    let mut envelopes = Vec::new();
    for row in rows {
        let (id, body, owner, until) = row?;
        envelopes.extend(decode_stored(&id, &body, owner, until));
    }
    Ok(envelopes)
}

fn current_seq(conn: &Connection) -> Result<u64, Error> {
    let seq: i64 = conn.query_row("SELECT value FROM rewake_meta WHERE key = 'seq'", [], |r| r.get(0))?;
    Ok(u64::try_from(seq).unwrap_or(0))
}

impl RewakeStore for SqliteStore {
    fn load(&self) -> Result<StoreSnapshot, Error> {
        self.changes_since(0)
    }

    fn changes_since(&self, cursor: u64) -> Result<StoreSnapshot, Error> {
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        let cursor = i64::try_from(cursor).unwrap_or(i64::MAX);
        let envelopes = {
            let mut stmt = tx.prepare(&format!("SELECT {COLUMNS} FROM rewake_envelope WHERE seq > ?1"))?;
            read_rows(&mut stmt, [cursor])?
        };
        let seq = current_seq(&tx)?;
        tx.commit()?;
        Ok(StoreSnapshot::new(envelopes, seq))
    }

    fn insert_batch(&self, envelopes: &[Envelope]) -> Result<(), Error> {
        if envelopes.is_empty() {
            return Ok(());
        }
        let mut conn = self.conn();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let first = reserve_seq(&tx, envelopes.len())?;
        {
            let mut stmt = tx.prepare_cached(
                "INSERT INTO rewake_envelope (id, hook_id, context_id, attempt, next_fire_at_us, expires_at_us, body,
                                              project_dir, session_id, seq)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            )?;
            for (seq, envelope) in (first..).zip(envelopes) {
                stmt.execute(params![
                    envelope.id,
                    envelope.hook_id,
                    envelope.context_id,
                    envelope.attempt,
                    micros(envelope.next_fire_at),
                    micros(envelope.expires_at),
                    encode(envelope)?,
                    stored_project(envelope),
                    envelope.session_id(),
                    seq
                ])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    fn lease(
        &self,
        id: &str,
        attempt: u32,
        lease: &Lease,
        now: DateTime<Utc>,
        body: Option<&Envelope>,
    ) -> Result<LeaseOutcome, Error> {
        let conn = self.conn();
        let (owner, until, now_us) = (&lease.owner, lease.until.timestamp_micros(), now.timestamp_micros());
        let free = "id = ?1 AND attempt = ?2 AND (lease_until_us IS NULL OR lease_until_us <= ?3)";
        let changed = match body {
            None => conn.execute(
                &format!("UPDATE rewake_envelope SET lease_owner = ?4, lease_until_us = ?5 WHERE {free}"),
                params![id, attempt, now_us, owner, until],
            )?,
            Some(body) => conn.execute(
                &format!(
                    "UPDATE rewake_envelope SET lease_owner = ?4, lease_until_us = ?5, next_fire_at_us = ?6, body = ?7
                     WHERE {free}"
                ),
                params![id, attempt, now_us, owner, until, micros(body.next_fire_at), encode(body)?],
            )?,
        };
        if changed == 1 {
            return Ok(LeaseOutcome::Taken);
        }
        let mut stmt = conn.prepare(&format!("SELECT {COLUMNS} FROM rewake_envelope WHERE id = ?1"))?;
        let Some(row) = read_rows(&mut stmt, [id])?.pop() else { return Ok(LeaseOutcome::Gone) };
        if row.envelope.attempt != attempt {
            return Ok(LeaseOutcome::Moved(Box::new(row)));
        }
        Ok(LeaseOutcome::Held(row.lease.map_or(now, |l| l.until)))
    }

    fn finish(&self, id: &str, attempt: u32, owner: &str, next: Option<&Envelope>) -> Result<bool, Error> {
        let mut conn = self.conn();
        let held = "id = ?1 AND attempt = ?2 AND lease_owner = ?3";
        let Some(next) = next else {
            let deleted =
                conn.execute(&format!("DELETE FROM rewake_envelope WHERE {held}"), params![id, attempt, owner])?;
            return Ok(deleted == 1);
        };
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let seq = reserve_seq(&tx, 1)?;
        let changed = tx.execute(
            &format!(
                "UPDATE rewake_envelope SET attempt = ?4, next_fire_at_us = ?5, expires_at_us = ?6, body = ?7,
                        lease_owner = NULL, lease_until_us = NULL, seq = ?8
                 WHERE {held}"
            ),
            params![
                id,
                attempt,
                owner,
                next.attempt,
                micros(next.next_fire_at),
                micros(next.expires_at),
                encode(next)?,
                seq
            ],
        )?;
        tx.commit()?;
        Ok(changed == 1)
    }

    fn remove(&self, id: &str) -> Result<bool, Error> {
        Ok(self.conn().execute("DELETE FROM rewake_envelope WHERE id = ?1", params![id])? == 1)
    }

    fn remove_hook(&self, project_dir: Option<&Path>, hook_id: &str) -> Result<Vec<String>, Error> {
        let conn = self.conn();
        let project = project_dir.map(|p| p.to_string_lossy().into_owned());
        let mut stmt =
            conn.prepare("DELETE FROM rewake_envelope WHERE project_dir IS ?1 AND hook_id = ?2 RETURNING id")?;
        let ids = stmt.query_map(params![project, hook_id], |row| row.get(0))?.collect::<Result<Vec<String>, _>>()?;
        Ok(ids)
    }

    fn put_mail(&self, mail: &Mail) -> Result<bool, Error> {
        let body = encode_mail(mail)?;
        let added = self.conn().execute(
            "INSERT OR IGNORE INTO rewake_mail (id, session_id, created_at_us, expires_at_us, body)
             VALUES (?1, ?2, ?3, ?4, ?5)",
            params![
                mail.id,
                mail.session_id,
                mail.created_at.timestamp_micros(),
                mail.expires_at.timestamp_micros(),
                body
            ],
        )?;
        Ok(added == 1)
    }

    fn take_mail(&self, session_id: &str, claim: &Lease, now: DateTime<Utc>) -> Result<Vec<Mail>, Error> {
        let conn = self.conn();
        let mut stmt = conn.prepare(
            "UPDATE rewake_mail SET claim_owner = ?2, claim_until_us = ?3
             WHERE session_id = ?1 AND expires_at_us > ?4 AND (claim_until_us IS NULL OR claim_until_us <= ?4)
             RETURNING id, body",
        )?;
        let rows = stmt.query_map(
            params![session_id, claim.owner, claim.until.timestamp_micros(), now.timestamp_micros()],
            |row| Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?)),
        )?;
        Ok(decode_mailbox(rows.collect::<Result<Vec<_>, _>>()?))
    }

    fn ack_mail(&self, owner: &str, ids: &[String]) -> Result<usize, Error> {
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        let mut acked = 0;
        {
            let mut stmt = tx.prepare_cached("DELETE FROM rewake_mail WHERE id = ?1 AND claim_owner = ?2")?;
            for id in ids {
                acked += stmt.execute(params![id, owner])?;
            }
        }
        tx.commit()?;
        Ok(acked)
    }

    fn purge_mail(&self, now: DateTime<Utc>) -> Result<usize, Error> {
        Ok(self.conn().execute("DELETE FROM rewake_mail WHERE expires_at_us <= ?1", [now.timestamp_micros()])?)
    }

    fn mail_depth(&self) -> Result<usize, Error> {
        let n: i64 = self.conn().query_row("SELECT count(*) FROM rewake_mail", [], |r| r.get(0))?;
        Ok(usize::try_from(n).unwrap_or(0))
    }

    /// Raised within about 20 ms of any commit to the file by another connection or process
    /// (this store's own writes included); the watcher starts on the first call.
    fn wake_signal(&self) -> Option<Arc<Notify>> {
        let signal = self.signal.get_or_init(|| {
            let signal = Arc::new(Notify::new());
            if let Err(err) = watch(&self.path, Arc::downgrade(&signal)) {
                tracing::warn!(
                    "rewake: cannot watch {} for other processes' envelopes; they are read at the next poll: {err}",
                    self.path.display()
                );
            }
            signal
        });
        Some(signal.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_from_a_newer_build_is_refused_with_a_sentence() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("rewake.db");
        SqliteStore::open(&path).expect("create");
        let raw = Connection::open(&path).expect("raw");
        let version: i64 = raw.query_row("PRAGMA user_version", [], |row| row.get(0)).expect("version");
        assert_eq!(version, SCHEMA_VERSION);
        raw.execute_batch("PRAGMA user_version = 99").expect("bump");
        drop(raw);
        let err = SqliteStore::open(&path).expect_err("newer schema refused");
        assert!(err.to_string().contains("schema version 99, newer than this build's 2"), "{err}");
    }

    #[test]
    fn the_store_and_its_journal_files_are_readable_by_their_owner_only() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().expect("tempdir");
        let mode = |p: &Path| std::fs::metadata(p).expect("stat").permissions().mode() & 0o777;
        let fresh = dir.path().join("rewake.db");
        let store = SqliteStore::open(&fresh).expect("create");
        let wal = dir.path().join("rewake.db-wal");
        assert_eq!(mode(&fresh), 0o600);
        assert!(wal.exists(), "WAL mode keeps a -wal file while open");
        assert_eq!(mode(&wal), 0o600);
        drop(store);
        let old = dir.path().join("old.db");
        std::fs::write(&old, b"").expect("write");
        std::fs::set_permissions(&old, std::fs::Permissions::from_mode(0o644)).expect("chmod");
        SqliteStore::open(&old).expect("open");
        assert_eq!(mode(&old), 0o600, "an existing store others could read is closed to them");
    }
}
