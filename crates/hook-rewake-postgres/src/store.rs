//! `PgStore`: the `RewakeStore` contract on PostgreSQL.
//!
//! Each trait method is one statement or one transaction on a pooled connection:
//!
//! - `lease` is one conditional `UPDATE … WHERE id = $1 AND attempt = $2 AND (lease_until_us IS
//!   NULL OR lease_until_us <= $now)`. Two processes racing for the same `(id, attempt)` queue
//!   on the row lock and the loser re-checks the condition against the winner's row, so exactly
//!   one gets `Taken` and the other a definite `Held(until)`. (`FOR UPDATE SKIP LOCKED` fits a
//!   scan that takes *any* due rows; the contract leases one known row, where skipping would
//!   only answer "busy, don't know until when".) The same statement returns the row as it was
//!   when it started, which says why nothing changed (`Held`, `Moved` or `Gone`); only when
//!   that row looked free (a contender committed meanwhile) does a second `SELECT` read it again.
//! - The change cursor is a counter row (`rewake_counter`) that every insert and advance
//!   increments inside its transaction. The row lock it takes is held until commit, so numbers
//!   are handed out in commit order and a reader that saw number *n* has seen every row up to
//!   *n*. A plain `SEQUENCE` hands numbers out in start order: a reader could move its cursor
//!   past a row whose transaction commits late and never see it.
//! - Inserts and advances `NOTIFY aimon_rewake` in the same transaction (delivered on commit).

use std::path::Path;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};
use hook_rewake::{Envelope, Error, Lease, LeaseOutcome, Mail, RewakeStore, StoreSnapshot, StoredEnvelope};
use tokio::sync::Notify;
use tokio_postgres::{NoTls, Row};

use crate::bridge::Bridge;
use crate::error::{pool_error, store_error};
use crate::health::Health;
use crate::{listen, schema};
use hook_rewake::store_support::{
    decode_mailbox, decode_stored, encode_envelope as encode, encode_mail, stored_micros as micros, stored_project,
};

/// Connections per store: enough for a service's concurrent fires, few for the server.
const POOL_SIZE: usize = 8;

/// Rows per `INSERT` statement of a batch (the batch is still one transaction).
const INSERT_CHUNK: usize = 5_000;

const COLUMNS: &str = "id, body, lease_owner, lease_until_us";

/// The shared rewake store on PostgreSQL (R-RW-10): several processes on several machines share
/// one schedule and one mailbox through it.
///
/// [`PgStore::connect`] applies the schema migrations, opens a pool of connections and a
/// dedicated `LISTEN` connection. The client runs on the store's own two-thread runtime; each
/// [`RewakeStore`] method hands its statement to that runtime and waits for the answer (at most
/// 30 s), so the methods may be called from a tokio runtime and from plain threads alike.
///
/// When the server is unreachable every method fails with [`Error::Store`] ("unreachable"), and
/// nothing is dropped: the service keeps its in-memory table and the caller sees the error. The
/// store logs one WARN when an outage begins and one INFO when it ends; in between, one call
/// every second tries the server and the others fail at once. Once the server is back, the next
/// call opens a fresh connection and the `LISTEN` connection re-subscribes by itself (and raises
/// the [wake signal](RewakeStore::wake_signal) once, since notifications sent during the outage
/// are lost).
#[derive(Debug)]
pub struct PgStore {
    pool: Pool,
    health: Health,
    signal: Arc<Notify>,
    bridge: Bridge,
}

impl PgStore {
    /// Connects to the database at `url` (`postgres://user@host:port/db`, or the key=value form
    /// libpq accepts), migrates the schema, and starts listening for other processes' changes.
    /// Fails when the server cannot be reached or holds a newer schema.
    pub fn connect(url: &str) -> Result<Self, Error> {
        let config =
            tokio_postgres::Config::from_str(url).map_err(|e| Error::Store(format!("invalid PostgreSQL URL: {e}")))?;
        let bridge = Bridge::new()?;
        let manager =
            Manager::from_config(config.clone(), NoTls, ManagerConfig { recycling_method: RecyclingMethod::Fast });
        let pool = {
            let _runtime = bridge.handle().enter();
            Pool::builder(manager)
                .max_size(POOL_SIZE)
                .runtime(Runtime::Tokio1)
                .create_timeout(Some(Duration::from_secs(10)))
                .wait_timeout(Some(Duration::from_secs(20)))
                .build()
                .map_err(|e| Error::Store(format!("cannot build the PostgreSQL pool: {e}")))?
        };
        bridge.call(schema::migrate(pool.clone()))?;
        let signal = Arc::new(Notify::new());
        bridge.handle().spawn(listen::listen(config, signal.clone()));
        Ok(PgStore { pool, health: Health::default(), signal, bridge })
    }

    /// Runs `call` with a pooled connection on the store's runtime. While the server is
    /// unreachable, calls fail at once except one probe every few seconds (see `health.rs`).
    fn run<T, F, Fut>(&self, call: F) -> Result<T, Error>
    where
        T: Send + 'static,
        F: FnOnce(deadpool_postgres::Object) -> Fut + Send + 'static,
        Fut: Future<Output = Result<T, Error>> + Send,
    {
        self.health.admit()?;
        let pool = self.pool.clone();
        // The outer result says whether a connection was had; the inner one is the call's.
        let answer = self.bridge.call(async move {
            match pool.get().await {
                Ok(client) => Ok(call(client).await),
                Err(err) => Err(pool_error(err)),
            }
        });
        match answer {
            Ok(answer) => {
                self.health.up();
                answer
            }
            Err(err) => {
                self.health.down(&err);
                Err(err)
            }
        }
    }
}

fn int(n: u32) -> i64 {
    i64::from(n)
}

/// Decodes rows of `COLUMNS`; unreadable ones are skipped with a WARN (and left in place).
fn read_rows(rows: &[Row]) -> Vec<StoredEnvelope> {
    rows.iter().filter_map(|row| stored(row, 0)).collect()
}

/// The envelope in columns `at..at + 4` of `row` (laid out as `COLUMNS`); `None` with a WARN
/// when unreadable.
fn stored(row: &Row, at: usize) -> Option<StoredEnvelope> {
    decode_stored(row.get(at), row.get(at + 1), row.get(at + 2), row.get(at + 3))
}

/// Takes the next `n` change numbers (locking the counter until commit); returns the first.
async fn reserve_seq(tx: &deadpool_postgres::Transaction<'_>, n: usize) -> Result<i64, Error> {
    let n = i64::try_from(n).map_err(|_| Error::Store("batch too large".into()))?;
    let row = tx
        .query_one("UPDATE rewake_counter SET value = value + $1 WHERE name = 'change' RETURNING value", &[&n])
        .await
        .map_err(store_error)?;
    Ok(row.get::<_, i64>(0) - n + 1)
}

/// One envelope as the columns of a row.
struct Columns {
    id: String,
    hook_id: String,
    project_dir: Option<String>,
    session_id: Option<String>,
    context_id: Option<String>,
    attempt: i64,
    next_fire_at_us: Option<i64>,
    expires_at_us: Option<i64>,
    body: String,
}

impl Columns {
    fn of(envelope: &Envelope) -> Result<Self, Error> {
        Ok(Columns {
            id: envelope.id.clone(),
            hook_id: envelope.hook_id.clone(),
            project_dir: stored_project(envelope),
            session_id: envelope.session_id().map(str::to_owned),
            context_id: envelope.context_id.clone(),
            attempt: int(envelope.attempt),
            next_fire_at_us: micros(envelope.next_fire_at),
            expires_at_us: micros(envelope.expires_at),
            body: encode(envelope)?,
        })
    }
}

async fn insert_chunk(tx: &deadpool_postgres::Transaction<'_>, rows: &[Columns], first_seq: i64) -> Result<(), Error> {
    let strings = |f: fn(&Columns) -> &String| rows.iter().map(|r| f(r).clone()).collect::<Vec<String>>();
    let optional = |f: fn(&Columns) -> &Option<String>| rows.iter().map(|r| f(r).clone()).collect::<Vec<_>>();
    let (ids, hooks, bodies) = (strings(|r| &r.id), strings(|r| &r.hook_id), strings(|r| &r.body));
    let (projects, sessions, contexts) =
        (optional(|r| &r.project_dir), optional(|r| &r.session_id), optional(|r| &r.context_id));
    let attempts: Vec<i64> = rows.iter().map(|r| r.attempt).collect();
    let next: Vec<Option<i64>> = rows.iter().map(|r| r.next_fire_at_us).collect();
    let expires: Vec<Option<i64>> = rows.iter().map(|r| r.expires_at_us).collect();
    tx.execute(
        "INSERT INTO rewake_envelope (id, hook_id, project_dir, session_id, context_id, attempt,
                                      next_fire_at_us, expires_at_us, body, seq)
         SELECT u.id, u.hook_id, u.project_dir, u.session_id, u.context_id, u.attempt,
                u.next_fire_at_us, u.expires_at_us, u.body, $10 + u.ord - 1
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int8[],
                     $7::int8[], $8::int8[], $9::text[])
              WITH ORDINALITY AS u(id, hook_id, project_dir, session_id, context_id, attempt,
                                   next_fire_at_us, expires_at_us, body, ord)",
        &[&ids, &hooks, &projects, &sessions, &contexts, &attempts, &next, &expires, &bodies, &first_seq],
    )
    .await
    .map_err(store_error)?;
    Ok(())
}

impl RewakeStore for PgStore {
    fn load(&self) -> Result<StoreSnapshot, Error> {
        self.changes_since(0)
    }

    fn changes_since(&self, cursor: u64) -> Result<StoreSnapshot, Error> {
        let cursor = i64::try_from(cursor).unwrap_or(i64::MAX);
        self.run(move |mut client| async move {
            let tx = client
                .build_transaction()
                .isolation_level(tokio_postgres::IsolationLevel::RepeatableRead)
                .read_only(true)
                .start()
                .await
                .map_err(store_error)?;
            let seq: i64 = tx
                .query_one("SELECT value FROM rewake_counter WHERE name = 'change'", &[])
                .await
                .map_err(store_error)?
                .get(0);
            let rows = tx
                .query(&format!("SELECT {COLUMNS} FROM rewake_envelope WHERE seq > $1"), &[&cursor])
                .await
                .map_err(store_error)?;
            tx.commit().await.map_err(store_error)?;
            Ok(StoreSnapshot::new(read_rows(&rows), u64::try_from(seq).unwrap_or(0)))
        })
    }

    fn insert_batch(&self, envelopes: &[Envelope]) -> Result<(), Error> {
        if envelopes.is_empty() {
            return Ok(());
        }
        let rows = envelopes.iter().map(Columns::of).collect::<Result<Vec<_>, _>>()?;
        self.run(move |mut client| async move {
            let tx = client.transaction().await.map_err(store_error)?;
            let first = reserve_seq(&tx, rows.len()).await?;
            for (i, chunk) in rows.chunks(INSERT_CHUNK).enumerate() {
                let offset = i64::try_from(i * INSERT_CHUNK).unwrap_or(i64::MAX);
                insert_chunk(&tx, chunk, first + offset).await?;
            }
            tx.batch_execute(listen::NOTIFY).await.map_err(store_error)?;
            tx.commit().await.map_err(store_error)
        })
    }

    fn lease(
        &self,
        id: &str,
        attempt: u32,
        lease: &Lease,
        now: DateTime<Utc>,
        body: Option<&Envelope>,
    ) -> Result<LeaseOutcome, Error> {
        let (id, attempt, owner) = (id.to_owned(), int(attempt), lease.owner.clone());
        let (until, now_us) = (lease.until.timestamp_micros(), now.timestamp_micros());
        let body = body.map(|b| Ok::<_, Error>((micros(b.next_fire_at), encode(b)?))).transpose()?;
        self.run(move |client| async move {
            // One round trip: the UPDATE, and the row as it was when the statement started (what
            // the caller is told when the UPDATE changed nothing).
            let free = "id = $1 AND attempt = $2 AND (lease_until_us IS NULL OR lease_until_us <= $3)";
            let set = match body {
                None => "lease_owner = $4, lease_until_us = $5",
                Some(_) => "lease_owner = $4, lease_until_us = $5, next_fire_at_us = $6, body = $7",
            };
            let sql = format!(
                "WITH taken AS (UPDATE rewake_envelope SET {set} WHERE {free} RETURNING 1)
                 SELECT EXISTS (SELECT 1 FROM taken), r.id, CASE WHEN r.attempt <> $2 THEN r.body END,
                        r.lease_owner, r.lease_until_us, r.attempt
                 FROM (SELECT 1) AS one LEFT JOIN rewake_envelope r ON r.id = $1"
            );
            let stmt = client.prepare_cached(&sql).await.map_err(store_error)?;
            let row = match &body {
                None => client.query_one(&stmt, &[&id, &attempt, &now_us, &owner, &until]).await,
                Some((next_fire, text)) => {
                    client.query_one(&stmt, &[&id, &attempt, &now_us, &owner, &until, next_fire, text]).await
                }
            }
            .map_err(store_error)?;
            if row.get::<_, bool>(0) {
                return Ok(LeaseOutcome::Taken);
            }
            if row.get::<_, Option<String>>(1).is_none() {
                return Ok(LeaseOutcome::Gone);
            }
            if row.get::<_, Option<i64>>(5) != Some(attempt) {
                return Ok(stored(&row, 1).map_or(LeaseOutcome::Gone, |r| LeaseOutcome::Moved(Box::new(r))));
            }
            if let Some(until) = row.get::<_, Option<i64>>(4).filter(|until| *until > now_us) {
                return Ok(LeaseOutcome::Held(DateTime::from_timestamp_micros(until).unwrap_or(now)));
            }
            // The row looked free when the statement started, yet the UPDATE found it taken: a
            // contender committed meanwhile. Read it again.
            let stmt = client
                .prepare_cached(&format!("SELECT {COLUMNS} FROM rewake_envelope WHERE id = $1"))
                .await
                .map_err(store_error)?;
            let rows = client.query(&stmt, &[&id]).await.map_err(store_error)?;
            let Some(row) = read_rows(&rows).pop() else { return Ok(LeaseOutcome::Gone) };
            if int(row.envelope.attempt) != attempt {
                return Ok(LeaseOutcome::Moved(Box::new(row)));
            }
            Ok(LeaseOutcome::Held(row.lease.map_or(now, |l| l.until)))
        })
    }

    fn finish(&self, id: &str, attempt: u32, owner: &str, next: Option<&Envelope>) -> Result<bool, Error> {
        let (id, attempt, owner) = (id.to_owned(), int(attempt), owner.to_owned());
        let held = "id = $1 AND attempt = $2 AND lease_owner = $3";
        let Some(next) = next else {
            return self.run(move |client| async move {
                let stmt = client
                    .prepare_cached(&format!("DELETE FROM rewake_envelope WHERE {held}"))
                    .await
                    .map_err(store_error)?;
                Ok(client.execute(&stmt, &[&id, &attempt, &owner]).await.map_err(store_error)? == 1)
            });
        };
        let next = Columns::of(next)?;
        self.run(move |mut client| async move {
            let tx = client.transaction().await.map_err(store_error)?;
            let changed = tx
                .execute(
                    &format!(
                        "UPDATE rewake_envelope SET attempt = $4, next_fire_at_us = $5, expires_at_us = $6, body = $7,
                                lease_owner = NULL, lease_until_us = NULL
                         WHERE {held}"
                    ),
                    &[&id, &attempt, &owner, &next.attempt, &next.next_fire_at_us, &next.expires_at_us, &next.body],
                )
                .await
                .map_err(store_error)?;
            if changed != 1 {
                return Ok(false);
            }
            let seq = reserve_seq(&tx, 1).await?;
            tx.execute("UPDATE rewake_envelope SET seq = $2 WHERE id = $1", &[&id, &seq]).await.map_err(store_error)?;
            tx.batch_execute(listen::NOTIFY).await.map_err(store_error)?;
            tx.commit().await.map_err(store_error)?;
            Ok(true)
        })
    }

    fn remove(&self, id: &str) -> Result<bool, Error> {
        let id = id.to_owned();
        self.run(move |client| async move {
            let n = client.execute("DELETE FROM rewake_envelope WHERE id = $1", &[&id]).await.map_err(store_error)?;
            Ok(n == 1)
        })
    }

    fn remove_hook(&self, project_dir: Option<&Path>, hook_id: &str) -> Result<Vec<String>, Error> {
        let project = project_dir.map(|p| p.to_string_lossy().into_owned());
        let hook_id = hook_id.to_owned();
        self.run(move |client| async move {
            let rows = client
                .query(
                    "DELETE FROM rewake_envelope WHERE project_dir IS NOT DISTINCT FROM $1 AND hook_id = $2
                     RETURNING id",
                    &[&project, &hook_id],
                )
                .await
                .map_err(store_error)?;
            Ok(rows.iter().map(|r| r.get(0)).collect())
        })
    }

    fn put_mail(&self, mail: &Mail) -> Result<bool, Error> {
        let body = encode_mail(mail)?;
        let (id, session) = (mail.id.clone(), mail.session_id.clone());
        let (created, expires) = (mail.created_at.timestamp_micros(), mail.expires_at.timestamp_micros());
        self.run(move |client| async move {
            let added = client
                .execute(
                    "INSERT INTO rewake_mail (id, session_id, created_at_us, expires_at_us, body)
                     VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO NOTHING",
                    &[&id, &session, &created, &expires, &body],
                )
                .await
                .map_err(store_error)?;
            Ok(added == 1)
        })
    }

    fn take_mail(&self, session_id: &str, claim: &Lease, now: DateTime<Utc>) -> Result<Vec<Mail>, Error> {
        let (session, owner) = (session_id.to_owned(), claim.owner.clone());
        let (until, now_us) = (claim.until.timestamp_micros(), now.timestamp_micros());
        self.run(move |client| async move {
            let rows = client
                .query(
                    "UPDATE rewake_mail SET claim_owner = $2, claim_until_us = $3
                     WHERE session_id = $1 AND expires_at_us > $4
                       AND (claim_until_us IS NULL OR claim_until_us <= $4)
                     RETURNING id, body",
                    &[&session, &owner, &until, &now_us],
                )
                .await
                .map_err(store_error)?;
            Ok(decode_mailbox(rows.iter().map(|row| (row.get(0), row.get(1)))))
        })
    }

    fn ack_mail(&self, owner: &str, ids: &[String]) -> Result<usize, Error> {
        let (owner, ids) = (owner.to_owned(), ids.to_vec());
        self.run(move |client| async move {
            let n = client
                .execute("DELETE FROM rewake_mail WHERE id = ANY($1) AND claim_owner = $2", &[&ids, &owner])
                .await
                .map_err(store_error)?;
            Ok(usize::try_from(n).unwrap_or(usize::MAX))
        })
    }

    fn purge_mail(&self, now: DateTime<Utc>) -> Result<usize, Error> {
        let now_us = now.timestamp_micros();
        self.run(move |client| async move {
            let n = client
                .execute("DELETE FROM rewake_mail WHERE expires_at_us <= $1", &[&now_us])
                .await
                .map_err(store_error)?;
            Ok(usize::try_from(n).unwrap_or(usize::MAX))
        })
    }

    fn mail_depth(&self) -> Result<usize, Error> {
        self.run(move |client| async move {
            let n: i64 = client.query_one("SELECT count(*) FROM rewake_mail", &[]).await.map_err(store_error)?.get(0);
            Ok(usize::try_from(n).unwrap_or(0))
        })
    }

    fn wake_signal(&self) -> Option<Arc<Notify>> {
        Some(self.signal.clone())
    }
}
