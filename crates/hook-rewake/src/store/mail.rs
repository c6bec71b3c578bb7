//! One mail in a session mailbox (R-RW-11/11b).

use std::path::PathBuf;
use std::time::Duration;

use chrono::{DateTime, TimeDelta, Utc};

use crate::envelope::Fire;

/// A fire's answer waiting for the next model-context hook call of its session.
///
/// Keyed by the main agent's `session_id` (a subagent's mail goes to its parent session). The
/// id is `<envelope id>#<attempt>`, so a re-fire of the same `(id, attempt)` after a crash does
/// not mail twice.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Mail {
    /// `<envelope id>#<attempt>`.
    pub id: String,
    /// The main agent's session.
    pub session_id: String,
    /// The project the envelope belongs to.
    pub project_dir: Option<PathBuf>,
    /// The hook whose fire wrote it.
    pub hook_id: String,
    /// The envelope that fired.
    pub envelope_id: String,
    /// The fire's attempt number.
    pub attempt: u32,
    /// What the model is told (`additionalContext`, or the reason of an onStop block).
    pub text: String,
    /// The fire's hook blocked (a refusal rather than information).
    pub block: bool,
    /// When it was written.
    pub created_at: DateTime<Utc>,
    /// After this instant it is dropped undelivered.
    pub expires_at: DateTime<Utc>,
}

impl Mail {
    /// How long undelivered mail is kept by default.
    pub const DEFAULT_TTL: Duration = Duration::from_secs(24 * 3600);

    /// The mail of `fire` for `session_id`, written at `now`, kept for `ttl`.
    pub fn new(
        fire: &Fire,
        session_id: impl Into<String>,
        text: impl Into<String>,
        block: bool,
        now: DateTime<Utc>,
        ttl: Duration,
    ) -> Self {
        let envelope = &fire.envelope;
        let expires_at = TimeDelta::from_std(ttl)
            .ok()
            .and_then(|ttl| now.checked_add_signed(ttl))
            .unwrap_or(DateTime::<Utc>::MAX_UTC);
        Mail {
            id: format!("{}#{}", envelope.id, envelope.attempt),
            session_id: session_id.into(),
            project_dir: envelope.project_dir().map(PathBuf::from),
            hook_id: envelope.hook_id.clone(),
            envelope_id: envelope.id.clone(),
            attempt: envelope.attempt,
            text: text.into(),
            block,
            created_at: now,
            expires_at,
        }
    }
}
