//! The forwarding side of `aimon-hooks <client>` (R-SRV-5): one request over the daemon's socket
//! carrying the payload's bytes as they were read (the daemon reads them, once), and the answer
//! back in its command form.

use std::os::unix::ffi::OsStrExt as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use axum::body::Bytes;
use axum::http::{HeaderValue, Request, StatusCode, header};
use http_body_util::{BodyExt as _, Full};
use hyper_util::rt::TokioIo;
use tokio::net::UnixStream;

use hook_wire::{Answer, Client};
use serde::{Deserialize, Serialize};

use crate::delivery::MAIL_HEADER;
use crate::routes::{BASE_HEADER, FORM_HEADER, PROJECT_HEADER};

/// How long `aimon-hooks <client>` waits for the daemon's socket to accept.
pub const CONNECT_TIMEOUT: Duration = Duration::from_millis(50);

/// What forwarding a call came to.
#[derive(Debug, PartialEq)]
pub enum Forwarded {
    /// No daemon accepted within [`CONNECT_TIMEOUT`]: evaluate in-process.
    NotRunning,
    /// The daemon's answer, to print as it is.
    Answered(Answer),
    /// The daemon's answer, carrying session mail: print it, then redeem the receipt (the mail
    /// is deleted), or the mail is delivered again once its claim expires.
    AnsweredWithMail(Answer, MailReceipt),
    /// The request was sent but no usable answer came back; the hooks may have run, so they are
    /// not run again. The text says what went wrong.
    Failed(String),
}

/// The command form of an answer, as the daemon sends it to a forwarding process.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct CommandForm {
    pub(crate) stdout: String,
    pub(crate) stderr: String,
    pub(crate) exit: u8,
}

/// Where a forwarded call says its project is, beyond its payload (the daemon derives the project).
#[derive(Debug, Clone, Copy)]
pub struct ForwardHints<'a> {
    /// The client's project directory (`CLAUDE_PROJECT_DIR`), when set.
    pub client_project_dir: Option<&'a Path>,
    /// The forwarding process's working directory: relative paths are taken against it.
    pub base: &'a Path,
}

/// [`forward`] on a runtime of its own (current thread, I/O and timers only), for a caller that
/// has none yet: the forwarding command builds nothing else before it.
pub fn forward_blocking(socket: &Path, client: Client, hints: ForwardHints<'_>, body: Vec<u8>) -> Forwarded {
    match runtime() {
        Ok(runtime) => runtime.block_on(forward(socket, client, hints, body)),
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
    client: Client,
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
        let request = Request::post(format!("/v1/{}/ack", self.client.name()))
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

/// Sends a call of `client` (its payload's bytes, as read) to the daemon on `socket`.
pub async fn forward(socket: &Path, client: Client, hints: ForwardHints<'_>, body: Vec<u8>) -> Forwarded {
    let Some((mut sender, driver)) = connect(socket).await else { return Forwarded::NotRunning };
    let answer = async {
        let path = |p: &Path| {
            HeaderValue::from_bytes(p.as_os_str().as_bytes())
                .map_err(|_| format!("the path {} cannot be sent in a header", p.display()))
        };
        let mut request = Request::post(format!("/v1/{}", client.name()))
            .header(header::HOST, "localhost")
            .header(header::CONTENT_TYPE, "application/json")
            .header(FORM_HEADER, "command")
            .header(BASE_HEADER, path(hints.base)?);
        if let Some(dir) = hints.client_project_dir {
            request = request.header(PROJECT_HEADER, path(dir)?);
        }
        let request =
            request.body(Full::new(Bytes::from(body))).map_err(|e| format!("cannot build the request: {e}"))?;
        let response = sender.send_request(request).await.map_err(|e| format!("no answer from serve: {e}"))?;
        if response.status() != StatusCode::OK {
            return Err(format!("serve answered {}", response.status()));
        }
        let receipt = response.headers().get(MAIL_HEADER).and_then(|v| v.to_str().ok()).map(|receipt| MailReceipt {
            socket: socket.to_owned(),
            client,
            receipt: receipt.to_owned(),
        });
        let body = response.into_body().collect().await.map_err(|e| format!("cannot read serve's answer: {e}"))?;
        let form: CommandForm =
            serde_json::from_slice(&body.to_bytes()).map_err(|e| format!("serve's answer is not understood: {e}"))?;
        Ok((Answer { stdout: form.stdout, stderr: form.stderr, exit: form.exit, http: None }, receipt))
    }
    .await;
    driver.abort();
    match answer {
        Ok((answer, None)) => Forwarded::Answered(answer),
        Ok((answer, Some(receipt))) => Forwarded::AnsweredWithMail(answer, receipt),
        Err(e) => Forwarded::Failed(e),
    }
}
