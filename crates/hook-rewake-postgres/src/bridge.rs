//! The store's own runtime: the trait is synchronous and is called from inside the service's
//! tokio runtime, where blocking on a future of the same runtime would panic. Each call is
//! spawned onto this small runtime and the calling thread waits on a channel for the answer.

use std::future::Future;
use std::sync::mpsc;
use std::time::Duration;

use hook_rewake::Error;
use tokio::runtime::{Handle, Runtime};

/// The longest a store call may take before it fails (the server is down or hung).
const CALL_TIMEOUT: Duration = Duration::from_secs(30);

/// Two worker threads named `aimon-rewake-pg` that run the PostgreSQL client.
#[derive(Debug)]
pub(crate) struct Bridge {
    runtime: Option<Runtime>,
    handle: Handle,
}

impl Bridge {
    pub(crate) fn new() -> Result<Self, Error> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("aimon-rewake-pg")
            .enable_all()
            .build()
            .map_err(|e| Error::Store(format!("cannot start the PostgreSQL store's runtime: {e}")))?;
        let handle = runtime.handle().clone();
        Ok(Bridge { runtime: Some(runtime), handle })
    }

    pub(crate) fn handle(&self) -> &Handle {
        &self.handle
    }

    /// Runs `call` on the store's runtime and waits for its answer.
    pub(crate) fn call<T: Send + 'static>(
        &self,
        call: impl Future<Output = Result<T, Error>> + Send + 'static,
    ) -> Result<T, Error> {
        let (tx, rx) = mpsc::sync_channel(1);
        self.handle.spawn(async move {
            let answer = tokio::time::timeout(CALL_TIMEOUT, call).await.unwrap_or_else(|_| {
                Err(Error::Store(format!("PostgreSQL did not answer within {} s", CALL_TIMEOUT.as_secs())))
            });
            // The caller may be gone (its thread unwound); nothing to tell then.
            let _ = tx.send(answer);
        });
        rx.recv().map_err(|_| Error::Store("the PostgreSQL store's runtime stopped".into()))?
    }
}

impl Drop for Bridge {
    fn drop(&mut self) {
        // Dropping a runtime blocks, which panics inside another runtime: let it go in the
        // background (open connections close with it).
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}
