//! The forwarding side of `aimon-hooks <client>` (R-SRV-5): the daemon proves who it is on the
//! connection (`proof.rs`), then one request carries the payload's bytes as they were read (the
//! daemon reads them, once), and the answer comes back in its command form.

use std::os::unix::ffi::OsStrExt as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use axum::body::Bytes;
use axum::http::{HeaderValue, Request, StatusCode, header};
use http_body_util::{BodyExt as _, Full, Limited};
use hyper::client::conn::http1::SendRequest;
use hyper_util::rt::TokioIo;
use tokio::net::UnixStream;

use hook_wire::{Answer, Client};

use crate::delivery::MAIL_HEADER;
use crate::form::CommandForm;
use crate::proof::{self, HELLO_PATH, NONCE_HEADER, PROOF_HEADER, STANCE_LIMIT, Stance};
use crate::routes::{BASE_HEADER, FORM_HEADER, GUARDED_HEADER, PROJECT_HEADER};

/// How long `aimon-hooks <client>` waits for the daemon's socket to accept.
pub const CONNECT_TIMEOUT: Duration = Duration::from_millis(50);

/// How long the socket's peer has, from the connect on, to prove it is the person's own `serve`
/// before the call is answered in-process instead: a listener that accepts and never answers
/// costs a call this much, not the client's whole hook timeout.
pub const PROOF_TIMEOUT: Duration = Duration::from_millis(500);

/// What forwarding a call came to.
#[derive(Debug, PartialEq)]
pub enum Forwarded {
    /// No daemon accepted within [`CONNECT_TIMEOUT`]: evaluate in-process.
    NotRunning,
    /// Something accepted, but did not prove within [`PROOF_TIMEOUT`] that it is the person's own
    /// `serve` deciding as this process would (another user, a wrong or missing proof, garbage,
    /// silence, another home's policy, audit mode): nothing was sent to it; evaluate in-process.
    /// The text says why.
    Unproven(String),
    /// The daemon's answer, to print as it is.
    Answered(Answer),
    /// The daemon's answer, carrying session mail: print it, then redeem the receipt (the mail
    /// is deleted), or the mail is delivered again once its claim expires.
    AnsweredWithMail(Answer, MailReceipt),
    /// The request was sent but no usable answer came back; the hooks may have run, so they are
    /// not run again. The text says what went wrong.
    Failed(String),
}

/// Where a forwarded call says its project is, beyond its payload (the daemon derives the project).
#[derive(Debug, Clone, Copy)]
pub struct ForwardHints<'a> {
    /// The client's project directory (`CLAUDE_PROJECT_DIR`), when set.
    pub client_project_dir: Option<&'a Path>,
    /// The forwarding process's working directory: relative paths are taken against it.
    pub base: &'a Path,
    /// The person's home directory: the daemon must serve its policy and prove it holds its
    /// token (`~/.aimon/serve.token`).
    pub home: &'a Path,
    /// Whether this process audits every hook (`AIMON_AUDIT=1` as the caller read it): only
    /// then may a daemon in audit mode answer.
    pub audit: bool,
    /// The client runs the call's command under the exec-time guard (hook-host's `CallHints`).
    pub guarded: bool,
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
        let (mut sender, _driver) = connect(&self.socket).await.ok_or("the daemon's socket does not accept")?;
        let request = Request::post(format!("/v1/{}/ack", self.client.name()))
            .header(header::HOST, "localhost")
            .header(MAIL_HEADER, self.receipt)
            .body(Full::new(Bytes::new()))
            .map_err(|e| format!("cannot build the request: {e}"))?;
        let response = sender.send_request(request).await.map_err(|e| format!("no answer from serve: {e}"))?;
        match response.status() {
            StatusCode::NO_CONTENT => Ok(()),
            status => Err(format!("serve answered {status}")),
        }
    }
}

/// The task driving a connection; aborted when dropped, so a connection given up on ends.
pub(crate) struct Driver(tokio::task::JoinHandle<()>);

impl Drop for Driver {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// HTTP/1 over an accepted stream.
async fn handshake(stream: UnixStream) -> Option<(SendRequest<Full<Bytes>>, Driver)> {
    let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.ok()?;
    let driver = tokio::spawn(async move {
        let _ = connection.await;
    });
    Some((sender, Driver(driver)))
}

/// A connection to the daemon's socket and the task driving it; `None` when it does not accept
/// within [`CONNECT_TIMEOUT`].
async fn connect(socket: &Path) -> Option<(SendRequest<Full<Bytes>>, Driver)> {
    let stream = tokio::time::timeout(CONNECT_TIMEOUT, UnixStream::connect(socket)).await.ok()?.ok()?;
    handshake(stream).await
}

/// Why a connection is not used for the call.
pub(crate) enum Refused {
    /// Nothing accepts on the socket.
    Absent,
    /// Something accepts but is not proven; the text says why.
    Unproven(String),
}

/// A connection to the person's own `serve` on `socket`, proven (`proof.rs`): the peer runs as
/// this user, answers the hello with the MAC of a fresh nonce and its stance under the token of
/// `home`, is the very process the stance names, serves `home`'s policy and audits nothing this
/// process would enforce. Bounded by [`PROOF_TIMEOUT`] as a whole.
pub(crate) async fn proven(
    socket: &Path,
    home: &Path,
    audit: bool,
) -> Result<(SendRequest<Full<Bytes>>, Driver), Refused> {
    let unproven = |why: String| Refused::Unproven(why);
    let prove = async {
        let Ok(Ok(stream)) = tokio::time::timeout(CONNECT_TIMEOUT, UnixStream::connect(socket)).await else {
            return Err(Refused::Absent);
        };
        let peer = stream.peer_cred().map_err(|e| unproven(format!("its credentials cannot be read: {e}")))?;
        if peer.uid() != nix::unistd::geteuid().as_raw() {
            return Err(unproven(format!("it runs as user {}, not as you", peer.uid())));
        }
        let token_file = crate::token::token_path(home);
        let token = read_token(&token_file)
            .map_err(|e| unproven(format!("the token {} cannot be read: {e}", token_file.display())))?;
        let key = token.trim_ascii();
        let nonce = proof::nonce().map_err(unproven)?;
        let (mut sender, driver) = handshake(stream).await.ok_or_else(|| unproven("no HTTP/1 on it".to_owned()))?;
        let hello = Request::get(HELLO_PATH)
            .header(header::HOST, "localhost")
            .header(NONCE_HEADER, &nonce)
            .body(Full::new(Bytes::new()))
            .map_err(|e| unproven(format!("cannot build the hello: {e}")))?;
        let response =
            sender.send_request(hello).await.map_err(|e| unproven(format!("no answer to the hello: {e}")))?;
        if response.status() != StatusCode::OK {
            return Err(unproven(format!("it answered the hello with {}", response.status())));
        }
        let mac = response.headers().get(PROOF_HEADER).map(|v| v.as_bytes().to_vec()).unwrap_or_default();
        let body = Limited::new(response.into_body(), STANCE_LIMIT)
            .collect()
            .await
            .map_err(|e| unproven(format!("its hello cannot be read: {e}")))?
            .to_bytes();
        if !proof::verify(key, nonce.as_bytes(), &body, &mac) {
            return Err(unproven("its hello does not prove your token".to_owned()));
        }
        let stance = Stance::decode(&body).ok_or_else(|| unproven("its hello is not understood".to_owned()))?;
        if i32::try_from(stance.pid).ok() != peer.pid() {
            return Err(unproven(format!("the proof is process {}'s, not its own", stance.pid)));
        }
        if let Some(why) = stance.short_of(&Stance::of_this_process(home, audit)) {
            return Err(unproven(why));
        }
        sender.ready().await.map_err(|e| unproven(format!("the connection closed after the hello: {e}")))?;
        Ok((sender, driver))
    };
    tokio::time::timeout(PROOF_TIMEOUT, prove)
        .await
        .unwrap_or_else(|_| Err(unproven(format!("it did not prove itself within {} ms", PROOF_TIMEOUT.as_millis()))))
}

/// The token's bytes, from a regular file of at most [`TOKEN_LIMIT`] bytes. Opened without
/// blocking: a FIFO put in its place must not hold the call beyond [`PROOF_TIMEOUT`] (the read is
/// synchronous, so the timeout could not end it).
fn read_token(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(nix::fcntl::OFlag::O_NONBLOCK.bits() | nix::fcntl::OFlag::O_NOCTTY.bits())
        .open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::other("it is not a regular file"));
    }
    let mut token = Vec::new();
    file.take(TOKEN_LIMIT).read_to_end(&mut token)?;
    Ok(token)
}

/// The most of the token file read: a token is 64 hex digits.
const TOKEN_LIMIT: u64 = 4096;

/// Sends a call of `client` (its payload's bytes, as read) to the daemon on `socket`, once it is
/// proven to be the person's own.
pub async fn forward(socket: &Path, client: Client, hints: ForwardHints<'_>, body: Vec<u8>) -> Forwarded {
    let (mut sender, driver) = match proven(socket, hints.home, hints.audit).await {
        Ok(connection) => connection,
        Err(Refused::Absent) => return Forwarded::NotRunning,
        Err(Refused::Unproven(why)) => return Forwarded::Unproven(why),
    };
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
        if hints.guarded {
            request = request.header(GUARDED_HEADER, "1");
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
    drop(driver);
    match answer {
        Ok((answer, None)) => Forwarded::Answered(answer),
        Ok((answer, Some(receipt))) => Forwarded::AnsweredWithMail(answer, receipt),
        Err(e) => Forwarded::Failed(e),
    }
}
