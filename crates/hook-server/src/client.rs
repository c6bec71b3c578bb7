//! `aimon-hooks claude`'s side of forwarding (R-SRV-5): one request over the daemon's socket.

use std::os::unix::ffi::OsStrExt as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use axum::body::Bytes;
use axum::http::{HeaderValue, Request, StatusCode, header};
use http_body_util::{BodyExt as _, Full};
use hyper_util::rt::TokioIo;
use tokio::net::UnixStream;

use crate::delivery::MAIL_HEADER;
use crate::evaluate::{Printed, Stream};
use crate::routes::{EXIT_HEADER, FORM_HEADER, PROJECT_HEADER, STREAM_HEADER};

/// How long `claude` waits for the daemon's socket to accept.
pub const CONNECT_TIMEOUT: Duration = Duration::from_millis(50);

/// What forwarding a call came to.
#[derive(Debug, PartialEq, Eq)]
pub enum Forwarded {
    /// No daemon accepted within [`CONNECT_TIMEOUT`]: evaluate in-process.
    NotRunning,
    /// The daemon's answer, to print as it is.
    Answered(Printed),
    /// The daemon's answer, carrying session mail: print it, then redeem the receipt (the mail
    /// is deleted), or the mail is delivered again once its claim expires.
    AnsweredWithMail(Printed, MailReceipt),
    /// The request was sent but no usable answer came back; the hooks may have run, so they are
    /// not run again. The text says what went wrong.
    Failed(String),
}

/// [`forward_claude`] on a runtime of its own (current thread, I/O and timers only), for a
/// caller that has none yet: the forwarding `claude` builds nothing else before it.
pub fn forward_claude_blocking(socket: &Path, project: &Path, body: Vec<u8>) -> Forwarded {
    match runtime() {
        Ok(runtime) => runtime.block_on(forward_claude(socket, project, body)),
        Err(e) => {
            tracing::debug!("hooks: no runtime to forward with: {e}");
            Forwarded::NotRunning
        }
    }
}

fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread().enable_io().enable_time().build()
}

/// The receipt for the session mail of a forwarded answer.
#[derive(Debug, PartialEq, Eq)]
pub struct MailReceipt {
    socket: PathBuf,
    receipt: String,
}

impl MailReceipt {
    /// Tells the daemon the answer is printed, so it deletes the mail; on its own runtime. A
    /// failure only means the mail is delivered again later (logged at DEBUG).
    pub fn redeem_blocking(self) {
        let redeemed = match runtime() {
            Ok(runtime) => runtime.block_on(self.redeem()),
            Err(e) => Err(format!("no runtime: {e}")),
        };
        if let Err(e) = redeemed {
            tracing::debug!("hooks: the delivered mail could not be acknowledged, so it comes again: {e}");
        }
    }

    /// [`MailReceipt::redeem_blocking`] on the caller's runtime.
    pub async fn redeem(self) -> Result<(), String> {
        let mut sender = connect(&self.socket).await.ok_or("the daemon's socket does not accept")?;
        let request = Request::post("/v1/claude/ack")
            .header(header::HOST, "localhost")
            .header(MAIL_HEADER, self.receipt)
            .body(Full::new(Bytes::new()))
            .map_err(|e| format!("cannot build the request: {e}"))?;
        let response = sender.0.send_request(request).await.map_err(|e| format!("no answer from serve: {e}"))?;
        sender.1.abort();
        match response.status() {
            StatusCode::NO_CONTENT => Ok(()),
            status => Err(format!("serve answered {status}")),
        }
    }
}

/// A connection to the daemon's socket and the task driving it; `None` when it does not accept
/// within [`CONNECT_TIMEOUT`].
async fn connect(
    socket: &Path,
) -> Option<(hyper::client::conn::http1::SendRequest<Full<Bytes>>, tokio::task::JoinHandle<()>)> {
    let stream = tokio::time::timeout(CONNECT_TIMEOUT, UnixStream::connect(socket)).await.ok()?.ok()?;
    let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.ok()?;
    let driver = tokio::spawn(async move {
        let _ = connection.await;
    });
    Some((sender, driver))
}

/// Sends a Claude Code payload (`body`, as read) of the call in `project` to the daemon on `socket`.
pub async fn forward_claude(socket: &Path, project: &Path, body: Vec<u8>) -> Forwarded {
    let Some((mut sender, driver)) = connect(socket).await else { return Forwarded::NotRunning };
    let answer = async {
        let project = HeaderValue::from_bytes(project.as_os_str().as_bytes())
            .map_err(|_| "the project path cannot be sent in a header".to_owned())?;
        let request = Request::post("/v1/claude")
            .header(header::HOST, "localhost")
            .header(header::CONTENT_TYPE, "application/json")
            .header(FORM_HEADER, "command")
            .header(PROJECT_HEADER, project)
            .body(Full::new(Bytes::from(body)))
            .map_err(|e| format!("cannot build the request: {e}"))?;
        let response = sender.send_request(request).await.map_err(|e| format!("no answer from serve: {e}"))?;
        if response.status() != StatusCode::OK {
            return Err(format!("serve answered {}", response.status()));
        }
        let header = |name| response.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_owned);
        let exit = header(EXIT_HEADER).and_then(|v| v.parse::<u8>().ok());
        let stream = header(STREAM_HEADER).and_then(|v| Stream::parse(&v));
        let (Some(exit), Some(stream)) = (exit, stream) else {
            return Err("serve's answer lacks its exit code or stream".to_owned());
        };
        let receipt = header(MAIL_HEADER).map(|receipt| MailReceipt { socket: socket.to_owned(), receipt });
        let text = response.into_body().collect().await.map_err(|e| format!("cannot read serve's answer: {e}"))?;
        let text = String::from_utf8(text.to_bytes().to_vec()).map_err(|_| "serve's answer is not UTF-8".to_owned())?;
        Ok((Printed { stream, text, exit }, receipt))
    }
    .await;
    driver.abort();
    match answer {
        Ok((printed, None)) => Forwarded::Answered(printed),
        Ok((printed, Some(receipt))) => Forwarded::AnsweredWithMail(printed, receipt),
        Err(e) => Forwarded::Failed(e),
    }
}
