//! Taking a session's mail for an answer, and acknowledging it once written (R-RW-11/11b).

use std::sync::Arc;
use std::time::Duration;

use chrono::{TimeDelta, Utc};
use hook_core::HookContext;
use hook_rewake::{Lease, Mail, RewakeStore};

use crate::error::Error;

/// How long taken mail stays claimed before it can be taken again if the answer carrying it was
/// never written (the process died in between).
pub const MAIL_CLAIM: Duration = Duration::from_secs(60);

/// Mail taken for one answer: acknowledge it with [`TakenMail::ack`] once the answer is written.
#[derive(Debug)]
#[must_use = "unacknowledged mail is delivered again once its claim expires"]
pub struct TakenMail {
    store: Arc<dyn RewakeStore>,
    owner: String,
    mails: Vec<Mail>,
}

impl TakenMail {
    /// The mails, oldest first.
    pub fn mails(&self) -> &[Mail] {
        &self.mails
    }

    /// The mails as one text for the model, oldest first, separated by blank lines.
    pub fn text(&self) -> String {
        self.mails.iter().map(|m| m.text.as_str()).collect::<Vec<_>>().join("\n\n")
    }

    /// Deletes the mails: the answer carrying them is written. Returns how many.
    pub fn ack(self) -> Result<usize, Error> {
        let ids: Vec<String> = self.mails.iter().map(|m| m.id.clone()).collect();
        Ok(self.store.ack_mail(&self.owner, &ids)?)
    }
}

/// Takes the mail of `ctx`'s session when its event carries mail (the events table's
/// [`hook_core::EventSpec::mail`]). Calls from inside a subagent (`agent_id` in the payload)
/// leave it for the main agent, whose session the mail belongs to. `None` when there is
/// nothing to deliver.
pub fn take_mail(store: &Arc<dyn RewakeStore>, ctx: &HookContext) -> Result<Option<TakenMail>, Error> {
    if ctx.event.spec().mail.is_none() || ctx.fields.contains_key(hook_wire::claude::PayloadKey::AGENT_ID) {
        return Ok(None);
    }
    let Some(session) = ctx.session_id.as_deref().filter(|s| !s.is_empty()) else { return Ok(None) };
    let now = Utc::now();
    let until = TimeDelta::from_std(MAIL_CLAIM).ok().and_then(|d| now.checked_add_signed(d)).unwrap_or(now);
    let owner = format!("mail-{}-{:x}", std::process::id(), now.timestamp_micros());
    let mails = store.take_mail(session, &Lease::new(owner.clone(), until), now)?;
    Ok((!mails.is_empty()).then(|| TakenMail { store: store.clone(), owner, mails }))
}
