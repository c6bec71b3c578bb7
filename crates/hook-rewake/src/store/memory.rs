//! The in-memory store: survives a service restart inside one process, not a process restart.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Mutex, MutexGuard, PoisonError};

use chrono::{DateTime, Utc};

use super::{Lease, LeaseOutcome, Mail, RewakeStore, StoreSnapshot, StoredEnvelope};
use crate::envelope::Envelope;
use crate::error::Error;

/// Envelopes and mailboxes in maps; share one `Arc<MemoryStore>` between successive services.
#[derive(Debug, Default)]
pub struct MemoryStore {
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    rows: HashMap<String, Row>,
    mail: HashMap<String, (Mail, Option<Lease>)>,
    seq: u64,
}

#[derive(Debug)]
struct Row {
    envelope: Envelope,
    lease: Option<Lease>,
    seq: u64,
}

impl Row {
    fn stored(&self) -> StoredEnvelope {
        StoredEnvelope::new(self.envelope.clone(), self.lease.clone())
    }
}

impl Inner {
    fn next_seq(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn inner(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

fn free(lease: Option<&Lease>, now: DateTime<Utc>) -> bool {
    lease.is_none_or(|l| l.until <= now)
}

impl RewakeStore for MemoryStore {
    fn load(&self) -> Result<StoreSnapshot, Error> {
        self.changes_since(0)
    }

    fn changes_since(&self, cursor: u64) -> Result<StoreSnapshot, Error> {
        let inner = self.inner();
        let rows = inner.rows.values().filter(|r| r.seq > cursor).map(Row::stored).collect();
        Ok(StoreSnapshot::new(rows, inner.seq))
    }

    fn insert_batch(&self, envelopes: &[Envelope]) -> Result<(), Error> {
        let mut inner = self.inner();
        for (i, envelope) in envelopes.iter().enumerate() {
            let duplicate = inner.rows.contains_key(&envelope.id) || envelopes[..i].iter().any(|e| e.id == envelope.id);
            if duplicate {
                return Err(Error::Store(format!("envelope '{}' is already stored", envelope.id)));
            }
        }
        for envelope in envelopes {
            let seq = inner.next_seq();
            inner.rows.insert(envelope.id.clone(), Row { envelope: envelope.clone(), lease: None, seq });
        }
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
        let mut inner = self.inner();
        let Some(row) = inner.rows.get_mut(id) else { return Ok(LeaseOutcome::Gone) };
        if row.envelope.attempt != attempt {
            return Ok(LeaseOutcome::Moved(Box::new(row.stored())));
        }
        if !free(row.lease.as_ref(), now) {
            return Ok(LeaseOutcome::Held(row.lease.as_ref().map_or(now, |l| l.until)));
        }
        row.lease = Some(lease.clone());
        if let Some(body) = body {
            row.envelope = body.clone();
        }
        Ok(LeaseOutcome::Taken)
    }

    fn finish(&self, id: &str, attempt: u32, owner: &str, next: Option<&Envelope>) -> Result<bool, Error> {
        let mut inner = self.inner();
        let held = inner
            .rows
            .get(id)
            .is_some_and(|r| r.envelope.attempt == attempt && r.lease.as_ref().is_some_and(|l| l.owner == owner));
        if !held {
            return Ok(false);
        }
        match next {
            Some(next) => {
                let seq = inner.next_seq();
                inner.rows.insert(id.to_owned(), Row { envelope: next.clone(), lease: None, seq });
            }
            None => {
                inner.rows.remove(id);
            }
        }
        Ok(true)
    }

    fn remove(&self, id: &str) -> Result<bool, Error> {
        Ok(self.inner().rows.remove(id).is_some())
    }

    fn remove_hook(&self, project_dir: Option<&Path>, hook_id: &str) -> Result<Vec<String>, Error> {
        let mut inner = self.inner();
        let ids: Vec<String> = inner
            .rows
            .values()
            .filter(|r| r.envelope.hook_id == hook_id && r.envelope.project_dir() == project_dir)
            .map(|r| r.envelope.id.clone())
            .collect();
        for id in &ids {
            inner.rows.remove(id);
        }
        Ok(ids)
    }

    fn put_mail(&self, mail: &Mail) -> Result<bool, Error> {
        let mut inner = self.inner();
        if inner.mail.contains_key(&mail.id) {
            return Ok(false);
        }
        inner.mail.insert(mail.id.clone(), (mail.clone(), None));
        Ok(true)
    }

    fn take_mail(&self, session_id: &str, claim: &Lease, now: DateTime<Utc>) -> Result<Vec<Mail>, Error> {
        let mut inner = self.inner();
        let mut taken: Vec<Mail> = inner
            .mail
            .values_mut()
            .filter(|(m, c)| m.session_id == session_id && m.expires_at > now && free(c.as_ref(), now))
            .map(|(m, c)| {
                *c = Some(claim.clone());
                m.clone()
            })
            .collect();
        taken.sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
        Ok(taken)
    }

    fn ack_mail(&self, owner: &str, ids: &[String]) -> Result<usize, Error> {
        let mut inner = self.inner();
        let mut acked = 0;
        for id in ids {
            if inner.mail.get(id).is_some_and(|(_, c)| c.as_ref().is_some_and(|c| c.owner == owner)) {
                inner.mail.remove(id);
                acked += 1;
            }
        }
        Ok(acked)
    }

    fn purge_mail(&self, now: DateTime<Utc>) -> Result<usize, Error> {
        let mut inner = self.inner();
        let before = inner.mail.len();
        inner.mail.retain(|_, (m, _)| m.expires_at > now);
        Ok(before - inner.mail.len())
    }

    fn mail_depth(&self) -> Result<usize, Error> {
        Ok(self.inner().mail.len())
    }
}
