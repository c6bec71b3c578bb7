//! The `LISTEN` connection: other processes' inserts and advances raise the store's wake
//! signal. It reconnects by itself (backing off up to 5 s) and raises the signal after every
//! (re)connect, since notifications sent while it was away are lost.

use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use tokio::sync::{Notify, mpsc};
use tokio_postgres::{AsyncMessage, NoTls};

/// What writers run inside their transaction (delivered on commit).
pub(crate) const NOTIFY: &str = "NOTIFY aimon_rewake";

const LISTEN: &str = "LISTEN aimon_rewake";
const FIRST_BACKOFF: Duration = Duration::from_millis(100);
const MAX_BACKOFF: Duration = Duration::from_secs(5);

/// Wakes every current waiter, and leaves one permit for a waiter that arrives later.
fn raise(signal: &Notify) {
    signal.notify_waiters();
    signal.notify_one();
}

/// Runs until the store's runtime shuts down.
pub(crate) async fn listen(config: tokio_postgres::Config, signal: Arc<Notify>) {
    let mut backoff = FIRST_BACKOFF;
    let mut warned = false;
    loop {
        match config.connect(NoTls).await {
            Ok((client, mut connection)) => {
                let (tx, mut rx) = mpsc::unbounded_channel();
                let driver = tokio::spawn(async move {
                    let mut messages = futures_util::stream::poll_fn(move |cx| connection.poll_message(cx));
                    while let Some(message) = messages.next().await {
                        match message {
                            Ok(AsyncMessage::Notification(_)) => {
                                if tx.send(()).is_err() {
                                    break;
                                }
                            }
                            Ok(_) => {}
                            Err(err) => {
                                tracing::warn!("rewake: the PostgreSQL LISTEN connection failed: {err}");
                                break;
                            }
                        }
                    }
                });
                match client.batch_execute(LISTEN).await {
                    Ok(()) => {
                        if warned {
                            tracing::info!("rewake: the PostgreSQL LISTEN connection is back");
                        }
                        backoff = FIRST_BACKOFF;
                        warned = false;
                        raise(&signal);
                        while rx.recv().await.is_some() {
                            raise(&signal);
                        }
                    }
                    Err(err) => tracing::debug!("rewake: LISTEN failed: {err}"),
                }
                driver.abort();
            }
            Err(err) => {
                if !warned {
                    tracing::warn!("rewake: cannot reach PostgreSQL for LISTEN; retrying: {err}");
                    warned = true;
                }
            }
        }
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(MAX_BACKOFF);
    }
}
