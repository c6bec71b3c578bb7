//! Session mail is deleted once the answer carrying it is written (R-RW-11b): the answer's body
//! acknowledges the mail when the connection has taken all of it, never before.
//!
//! The body keeps its exact length (the answer is framed as any other, with `Content-Length`).
//! hyper takes the bytes into its write buffer, drops the body and flushes in the same step of
//! the connection; the drop acknowledges the mail only if the bytes were taken. An answer that is
//! never taken — the client hung up first (hyper then drops the request), the connection failed,
//! the daemon died — acknowledges nothing: the mail stays claimed until its claim expires and is
//! then delivered again (at-least-once).

use std::pin::Pin;
use std::task::{Context, Poll};

use axum::body::{Body, Bytes};
use hook_host::TakenMail;
use http_body::{Frame, SizeHint};

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
