//! Opening the rewake store when the daemon starts (R-RW-10, R-SRV-4).
//!
//! A store that cannot be opened because its server is down (a shared PostgreSQL store) does not
//! keep the daemon from serving decisions: `serve` starts without rewake, says so in one WARN,
//! and tries the store again every [`RETRY`] until rewake starts (then one INFO line). Meanwhile
//! a hook that asks for a rewake gets hook-core's WARN that no rewake service is wired (its
//! rewake is not scheduled) and answers carry no session mail (it waits in the database). Any
//! other failure (a SQLite file that cannot be created, a bad URL, a postgres URL in a build
//! without the `postgres` feature) stops the daemon at start; a task opening the store that died
//! (a panic) is tried again like a store that is down.

use std::time::Duration;

use hook_host::StoreLocation;
use tokio::task::JoinHandle;

use crate::error::Error;
use crate::routes::HookService;

/// How often a daemon whose shared store was down at start tries it again.
const RETRY: Duration = Duration::from_secs(5);

/// Starts rewake on `location`, polling it every `poll`. A shared store that is down gives a
/// task that keeps trying (abort it at shutdown); anything else that fails is the daemon's
/// error.
pub(crate) async fn start_rewake(
    service: &HookService,
    location: StoreLocation,
    poll: Duration,
) -> Result<Option<JoinHandle<()>>, Error> {
    let shared = matches!(location, StoreLocation::Postgres(_));
    let err = match try_start(service, &location, poll).await {
        Ok(()) => return Ok(None),
        Err(err) if waits_for(&err, shared) => err,
        Err(err) => return Err(err),
    };
    let err = match err {
        Error::Rewake(err) => err.to_string(),
        other => other.to_string(),
    };
    tracing::warn!(
        "hooks: rewake is not running: {err}; decisions are served, rewakes that hooks ask for are not scheduled \
         until the store is back (tried again every {} s)",
        RETRY.as_secs()
    );
    let service = service.clone();
    Ok(Some(tokio::spawn(async move {
        loop {
            tokio::time::sleep(RETRY).await;
            match try_start(&service, &location, poll).await {
                Ok(()) => {
                    tracing::info!("hooks: rewake runs: the store {location} is back");
                    return;
                }
                Err(err) => tracing::debug!("hooks: rewake still cannot start: {err}"),
            }
        }
    })))
}

/// Whether the daemon serves without rewake and tries the store again after `err`: a shared
/// store that is down, or a task opening the store that died (a panic, not the store's fault).
/// A bad URL, a build without the store's feature or a SQLite file that cannot be made will not
/// mend by waiting.
fn waits_for(err: &Error, shared: bool) -> bool {
    match err {
        Error::Rewake(hook_host::Error::StoreUrl(_) | hook_host::Error::Unsupported(_)) => false,
        Error::StoreTask(_) => true,
        _ => shared,
    }
}

/// Opens the store (off the runtime's threads: connecting may wait on the network) and starts
/// rewake on it.
async fn try_start(service: &HookService, location: &StoreLocation, poll: Duration) -> Result<(), Error> {
    let opening = location.clone();
    let store =
        tokio::task::spawn_blocking(move || opening.open()).await.map_err(|e| Error::StoreTask(e.to_string()))??;
    service.start_rewake(store, poll)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routes::ServiceOptions;

    fn service() -> HookService {
        HookService::new(ServiceOptions::new(None, std::env::temp_dir()))
    }

    #[cfg(not(feature = "postgres"))]
    #[tokio::test]
    async fn without_the_postgres_feature_a_postgres_store_stops_the_daemon_with_a_sentence_naming_the_feature() {
        let location = StoreLocation::select(Some("postgres://aimon@127.0.0.1:1/aimon"), None).expect("url");
        let err = start_rewake(&service(), location, Duration::from_secs(1)).await.expect_err("refused at start");
        assert!(err.to_string().contains("cargo feature `postgres`"), "{err}");
    }

    #[cfg(feature = "postgres")]
    #[tokio::test]
    async fn an_unreachable_postgres_store_leaves_the_daemon_running_and_waiting_for_it() {
        // Port 1 on loopback: nothing listens there.
        let location = StoreLocation::select(Some("postgres://aimon@127.0.0.1:1/aimon"), None).expect("url");
        let waiting = start_rewake(&service(), location, Duration::from_secs(1)).await.expect("the daemon starts");
        let task = waiting.expect("a task keeps trying the store");
        assert!(!task.is_finished());
        task.abort();
    }

    #[test]
    fn a_store_task_that_died_is_waited_for_and_a_bad_url_is_not() {
        let cases = [
            (Error::StoreTask("the task panicked".to_owned()), false, true),
            (Error::StoreTask("the task panicked".to_owned()), true, true),
            (Error::Rewake(hook_host::Error::StoreUrl("bad".to_owned())), true, false),
            (Error::Rewake(hook_host::Error::Unsupported("no postgres".to_owned())), true, false),
            (Error::NoHome, true, true),
            (Error::NoHome, false, false),
        ];
        for (err, shared, waits) in cases {
            assert_eq!(waits_for(&err, shared), waits, "{err} (shared: {shared})");
        }
    }

    #[tokio::test]
    async fn a_sqlite_store_that_cannot_be_created_stops_the_daemon() {
        let location = StoreLocation::select(Some("sqlite:/proc/no/such/dir/rewake.db"), None).expect("url");
        let err = start_rewake(&service(), location, Duration::from_secs(1)).await.expect_err("refused at start");
        assert!(err.to_string().contains("cannot create the rewake store directory"), "{err}");
    }
}
