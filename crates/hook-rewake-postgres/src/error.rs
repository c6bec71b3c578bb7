//! PostgreSQL's errors said as [`hook_rewake::Error::Store`]: a statement's, and the pool's (an
//! unreachable server, with the causes that say why).

use deadpool_postgres::PoolError;
use hook_rewake::Error;

/// A statement's error: the server's message, or that the connection closed.
pub(crate) fn store_error(err: tokio_postgres::Error) -> Error {
    match err.as_db_error() {
        Some(db) => Error::Store(format!("postgres: {}", db.message())),
        None if err.is_closed() => Error::Store("the PostgreSQL connection closed mid-call".into()),
        None => Error::Store(format!("postgres: {err}")),
    }
}

/// The pool's error: the server cannot be reached, and why.
pub(crate) fn pool_error(err: PoolError) -> Error {
    let cause = match &err {
        PoolError::Backend(err) => with_causes(err),
        other => other.to_string(),
    };
    Error::Store(format!("the PostgreSQL rewake store is unreachable: {cause}"))
}

/// `err` and its causes, `: `-separated ("error connecting to server: Connection refused …").
fn with_causes(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        let more = cause.to_string();
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        source = cause.source();
    }
    text
}
