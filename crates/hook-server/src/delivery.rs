//! Session mail is deleted once the answer carrying it is written (R-RW-11b): the answer's body
//! acknowledges the mail when the connection has taken all of it, never before.
//!
//! The body does not announce its length (such an answer goes out chunked: with a
//! `Content-Length`, hyper drops the body as soon as the last byte is buffered, before it is
//! sent), so hyper comes back for more after buffering the bytes; that poll first lets the
//! connection flush them to the socket (one yield), and the next one acknowledges and ends the
//! body. A connection that fails or is dropped before that (the client hung up, the daemon died)
//! drops the body unfinished: the mail stays claimed until its claim expires and is then
//! delivered again (at-least-once).

use std::pin::Pin;
use std::task::{Context, Poll};

use axum::body::{Body, Bytes};
use hook_host::TakenMail;
use http_body::Frame;

/// An answer body that acknowledges `mail` once written.
pub(crate) struct AckOnWritten {
    data: Option<Bytes>,
    yielded: bool,
    mail: Option<TakenMail>,
}

impl AckOnWritten {
    pub(crate) fn body(data: impl Into<Bytes>, mail: TakenMail) -> Body {
        Body::new(AckOnWritten { data: Some(data.into()), yielded: false, mail: Some(mail) })
    }
}

impl http_body::Body for AckOnWritten {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let this = self.get_mut();
        if let Some(data) = this.data.take() {
            return Poll::Ready(Some(Ok(Frame::data(data))));
        }
        if !this.yielded {
            this.yielded = true;
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        if let Some(mail) = this.mail.take()
            && let Err(err) = mail.ack()
        {
            tracing::warn!("hooks: delivered mail could not be removed from the mailbox: {err}");
        }
        Poll::Ready(None)
    }

    fn is_end_stream(&self) -> bool {
        self.mail.is_none() && self.data.is_none()
    }
}
