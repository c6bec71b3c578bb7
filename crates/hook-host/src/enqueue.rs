//! One-shot processes write their envelopes to the store, where `serve` fires them (R-RW-12).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Once, OnceLock};

use chrono::Utc;
use hook_core::{RewakeRequest, RewakeSink};
use hook_rewake::{Envelope, RewakeStore};

use crate::store::StoreLocation;

/// A [`RewakeSink`] that stamps each first envelope (attempt 1) and inserts it into the store;
/// the store is opened on the first request, so a call without rewakes never touches it.
#[derive(Debug)]
pub struct EnqueueSink {
    location: StoreLocation,
    store: OnceLock<Option<Arc<dyn RewakeStore>>>,
    written: AtomicUsize,
}

impl EnqueueSink {
    /// A sink writing to `location`.
    pub fn new(location: StoreLocation) -> Self {
        EnqueueSink { location, store: OnceLock::new(), written: AtomicUsize::new(0) }
    }

    /// How many envelopes this sink wrote.
    pub fn written(&self) -> usize {
        self.written.load(Ordering::Relaxed)
    }

    fn store(&self) -> Option<&Arc<dyn RewakeStore>> {
        self.store
            .get_or_init(|| match self.location.open() {
                Ok(store) => Some(store),
                Err(err) => {
                    tracing::warn!("hooks: {err}; rewake dropped");
                    None
                }
            })
            .as_ref()
    }
}

impl RewakeSink for EnqueueSink {
    fn schedule(&self, request: RewakeRequest) {
        let hook_id = request.hook_id.clone();
        let Some(store) = self.store() else { return };
        let mut envelope = Envelope::new(request.hook_id, request.context, request.spec, 1);
        let written = envelope.stamp(Utc::now()).map(drop).and_then(|()| store.insert(&envelope));
        if let Err(err) = written {
            tracing::warn!(hook = %hook_id, "hooks: could not write the rewake of hook '{hook_id}' to {}: {err}", self.location);
            return;
        }
        self.written.fetch_add(1, Ordering::Relaxed);
        static ONCE: Once = Once::new();
        ONCE.call_once(|| {
            tracing::warn!("hooks: rewake envelopes are written to {}; 'aimon-hooks serve' fires them", self.location);
        });
    }
}
