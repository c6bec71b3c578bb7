//! Session mail is deleted once the answer carrying it is written (R-RW-11b).
//!
//! A command-form answer (to a forwarding `aimon-hooks claude`) is only written once that process
//! has printed it, which the daemon cannot see: the answer carries a receipt
//! ([`MAIL_HEADER`]) and the process redeems it (`POST /v1/claude/ack`) after printing. A receipt
//! never redeemed (the process died or could not print) leaves the mail claimed, to be delivered
//! again once the claim expires; receipts older than the claim are forgotten.
//!
//! Any other answer (Claude Code's own `http` hook calls) acknowledges the mail in its body, when
//! the connection has taken all of it, never before.
//! The body keeps its exact length (the answer is framed as any other, with `Content-Length`).
//! hyper takes the bytes into its write buffer, drops the body and flushes in the same step of
//! the connection; the drop acknowledges the mail only if the bytes were taken. An answer that is
//! never taken — the client hung up first (hyper then drops the request), the connection failed,
//! the daemon died — acknowledges nothing: the mail stays claimed until its claim expires and is
//! then delivered again (at-least-once).

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::Mutex;
use std::task::{Context, Poll};
use std::time::Instant;

use axum::body::{Body, Bytes};
use hook_host::{MAIL_CLAIM, TakenMail};
use http_body::{Frame, SizeHint};

/// The header of a command-form answer carrying mail: the receipt to redeem once it is printed.
pub const MAIL_HEADER: &str = "x-aimon-mail";

/// Mail of command-form answers, by receipt, until the process that printed the answer redeems it.
#[derive(Debug, Default)]
pub(crate) struct Receipts(Mutex<HashMap<String, (Instant, TakenMail)>>);

impl Receipts {
    /// Keeps `mail` under a new random receipt; the mail back when no receipt can be made.
    pub(crate) fn issue(&self, mail: TakenMail) -> Result<String, TakenMail> {
        let mut bytes = [0u8; 16];
        if getrandom::fill(&mut bytes).is_err() {
            return Err(mail);
        }
        let receipt: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let now = Instant::now();
        let mut pending = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        pending.retain(|_, (issued, _)| now.duration_since(*issued) < MAIL_CLAIM);
        pending.insert(receipt.clone(), (now, mail));
        Ok(receipt)
    }

    /// The mail of `receipt`, once: `None` for an unknown, redeemed or expired receipt.
    pub(crate) fn redeem(&self, receipt: &str) -> Option<TakenMail> {
        let mut pending = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let (issued, mail) = pending.remove(receipt)?;
        (issued.elapsed() < MAIL_CLAIM).then_some(mail)
    }
}

/// An answer body that acknowledges `mail` once its bytes were taken for writing.
pub(crate) struct AckOnWritten {
    data: Option<Bytes>,
    mail: Option<TakenMail>,
}

impl AckOnWritten {
    pub(crate) fn body(data: impl Into<Bytes>, mail: TakenMail) -> Body {
        Body::new(AckOnWritten { data: Some(data.into()), mail: Some(mail) })
    }
}

impl http_body::Body for AckOnWritten {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        Poll::Ready(self.get_mut().data.take().map(|data| Ok(Frame::data(data))))
    }

    fn is_end_stream(&self) -> bool {
        self.data.is_none()
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::with_exact(self.data.as_ref().map_or(0, |d| u64::try_from(d.len()).unwrap_or(u64::MAX)))
    }
}

impl Drop for AckOnWritten {
    fn drop(&mut self) {
        if self.data.is_some() {
            return;
        }
        if let Some(Err(err)) = self.mail.take().map(TakenMail::ack) {
            tracing::warn!("hooks: delivered mail could not be removed from the mailbox: {err}");
        }
    }
}
