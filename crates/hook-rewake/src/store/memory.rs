//! The in-memory store: survives a service restart inside one process, not a process restart.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use super::RewakeStore;
use crate::envelope::Envelope;
use crate::error::Error;

/// Envelopes in a map; share one `Arc<MemoryStore>` between successive services.
#[derive(Debug, Default)]
pub struct MemoryStore {
    rows: Mutex<HashMap<String, Envelope>>,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn rows(&self) -> std::sync::MutexGuard<'_, HashMap<String, Envelope>> {
        self.rows.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl RewakeStore for MemoryStore {
    fn load(&self) -> Result<Vec<Envelope>, Error> {
        Ok(self.rows().values().cloned().collect())
    }

    fn insert(&self, envelope: &Envelope) -> Result<(), Error> {
        self.rows().insert(envelope.id.clone(), envelope.clone());
        Ok(())
    }

    fn claim_fire(&self, id: &str, attempt: u32, next: Option<&Envelope>) -> Result<bool, Error> {
        let mut rows = self.rows();
        if rows.get(id).is_none_or(|row| row.attempt != attempt) {
            return Ok(false);
        }
        match next {
            Some(next) => rows.insert(id.to_owned(), next.clone()),
            None => rows.remove(id),
        };
        Ok(true)
    }

    fn remove(&self, id: &str) -> Result<bool, Error> {
        Ok(self.rows().remove(id).is_some())
    }
}
