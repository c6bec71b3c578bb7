//! Versioned migrations, applied on start under an advisory lock so that concurrent starters
//! apply each version once.

use deadpool_postgres::Pool;
use hook_rewake::Error;

use crate::error::{pool_error, store_error};

/// Serialises starters across the database (an arbitrary constant: "aimonrw" in ASCII).
const MIGRATION_LOCK: i64 = 0x61_69_6d_6f_6e_72_77;

/// Every version in order; a version is never edited once released, only added.
const MIGRATIONS: &[(i64, &str)] = &[(1, V1)];

/// The schema: the same columns as hook-rewake's SQLite schema, with the change counter in a
/// row (see `store.rs` for why not a SEQUENCE) and `NOTIFY` on the `aimon_rewake` channel.
const V1: &str = "
    CREATE TABLE rewake_counter (name TEXT PRIMARY KEY, value BIGINT NOT NULL);
    INSERT INTO rewake_counter (name, value) VALUES ('change', 0);
    CREATE TABLE rewake_envelope (
        id              TEXT PRIMARY KEY,
        hook_id         TEXT NOT NULL,
        project_dir     TEXT,
        session_id      TEXT,
        context_id      TEXT,
        attempt         BIGINT NOT NULL,
        next_fire_at_us BIGINT,
        expires_at_us   BIGINT,
        lease_owner     TEXT,
        lease_until_us  BIGINT,
        seq             BIGINT NOT NULL,
        body            TEXT NOT NULL
    );
    CREATE INDEX rewake_envelope_seq ON rewake_envelope (seq);
    CREATE INDEX rewake_envelope_hook ON rewake_envelope (project_dir, hook_id);
    CREATE INDEX rewake_envelope_due ON rewake_envelope (next_fire_at_us);
    CREATE TABLE rewake_mail (
        id             TEXT PRIMARY KEY,
        session_id     TEXT NOT NULL,
        created_at_us  BIGINT NOT NULL,
        expires_at_us  BIGINT NOT NULL,
        claim_owner    TEXT,
        claim_until_us BIGINT,
        body           TEXT NOT NULL
    );
    CREATE INDEX rewake_mail_session ON rewake_mail (session_id);
    CREATE INDEX rewake_mail_expiry ON rewake_mail (expires_at_us);
";

/// The newest version this build knows.
pub(crate) fn latest() -> i64 {
    MIGRATIONS.last().map_or(0, |(v, _)| *v)
}

/// Brings the database to [`latest`]; a database migrated by a newer build is refused.
pub(crate) async fn migrate(pool: Pool) -> Result<(), Error> {
    let mut client = pool.get().await.map_err(pool_error)?;
    let tx = client.transaction().await.map_err(store_error)?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK]).await.map_err(store_error)?;
    tx.batch_execute(
        "CREATE TABLE IF NOT EXISTS rewake_schema_migrations (
             version    BIGINT PRIMARY KEY,
             applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
         )",
    )
    .await
    .map_err(store_error)?;
    let row = tx
        .query_one("SELECT coalesce(max(version), 0) FROM rewake_schema_migrations", &[])
        .await
        .map_err(store_error)?;
    let current: i64 = row.get(0);
    if current > latest() {
        return Err(Error::Store(format!(
            "the rewake database has schema version {current}, newer than this build's {}",
            latest()
        )));
    }
    for (version, sql) in MIGRATIONS.iter().filter(|(v, _)| *v > current) {
        tx.batch_execute(sql).await.map_err(store_error)?;
        tx.execute("INSERT INTO rewake_schema_migrations (version) VALUES ($1)", &[version])
            .await
            .map_err(store_error)?;
    }
    tx.commit().await.map_err(store_error)
}
