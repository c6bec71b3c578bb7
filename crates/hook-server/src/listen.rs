//! The daemon: a Unix socket (mode 0600) where it proves who it is to forwarding clients
//! (`proof.rs`) and, optionally, loopback TCP behind a bearer token; slow clients cut off,
//! connections bounded, and a graceful shutdown.
//!
//! Shutdown (R-SRV-6): stop accepting, let in-flight requests finish for the grace period, then
//! drop what still runs — dropping a hook's call kills its process group (hook-actions) — and
//! unload the projects, which closes their MCP sessions; last, every hook process group still
//! live in this process is killed through hook-actions' registry (`HookProcessGroups`, R-CLI-11),
//! so a daemon stopped by SIGTERM leaves no hook process behind. The socket file is removed.

use std::future::Future;
use std::net::SocketAddr;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, Response, StatusCode};
use axum::routing::get;
use hook_actions::HookProcessGroups;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, TcpSocket, UnixListener};
use tokio::sync::Semaphore;
use tokio::task::JoinSet;
use tower_http::validate_request::ValidateRequestHeaderLayer;

use crate::auth::Bearer;
use crate::client::Refused;
use crate::error::Error;
use crate::proof::{self, HELLO_PATH, NONCE_HEADER, PROOF_HEADER, Stance};
use crate::routes::{HookService, ServiceOptions};
use crate::token::ensure_token;

/// The default TCP address of `--listen`.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:7787";
/// How long a client may take to send its request headers.
const HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// Open connections at most; more wait to be accepted.
const MAX_CONNECTIONS: usize = 4096;
/// The accept queue of each listener (the kernel caps it at `net.core.somaxconn`). A short queue
/// overflowing under a burst of connections drops SYNs, and a dropped SYN is retried only after a
/// second: a health check would wait that long.
const BACKLOG: u32 = 4096;
/// The open-file limit the daemon raises its soft limit to, when the hard limit allows.
const OPEN_FILES: u64 = 16_384;
/// How long the accept loop pauses after a failed accept (out of files, most likely), so it does
/// not spin.
const ACCEPT_PAUSE: Duration = Duration::from_millis(20);

/// How `serve` runs.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// The engine's options (home, base directory, bounds).
    pub service: ServiceOptions,
    /// The Unix socket path.
    pub socket: PathBuf,
    /// The TCP address, when TCP is wanted.
    pub listen: Option<SocketAddr>,
    /// The rewake store URL (`sqlite:PATH`, or `postgres://…` with the `postgres` feature);
    /// default `~/.aimon/rewake.db` (the binary passes `$AIMON_REWAKE_STORE` here).
    pub store: Option<String>,
    /// How long in-flight requests may run on after the shutdown signal.
    pub grace: Duration,
}

/// `~/.aimon/serve.sock`.
pub fn default_socket(home: &Path) -> PathBuf {
    hook_core::AimonDir::under(home).serve_socket()
}

/// Binds the socket at `path` (mode 0600), replacing a stale file; refuses when something
/// answers there: another daemon of `home`, or what cannot prove it is one (said as such).
async fn bind_socket(path: &Path, home: Option<&Path>, audit: bool) -> Result<UnixListener, Error> {
    let io = |what, source| Error::Io { what, path: path.to_owned(), source };
    if path.exists() {
        if tokio::net::UnixStream::connect(path).await.is_ok() {
            return Err(match home.map(|home| crate::client::proven(path, home, audit)) {
                Some(proving) => match proving.await {
                    Err(Refused::Unproven(why)) => Error::Unproven { path: path.to_owned(), why },
                    Ok(_) | Err(Refused::Absent) => Error::AlreadyRunning(path.to_owned()),
                },
                None => Error::AlreadyRunning(path.to_owned()),
            });
        }
        std::fs::remove_file(path).map_err(|e| io("remove the stale socket", e))?;
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| io("create the directory of", e))?;
    }
    let listener = tokio::net::UnixSocket::new_stream()
        .and_then(|socket| {
            socket.bind(path)?;
            socket.listen(BACKLOG)
        })
        .map_err(|e| io("bind the socket", e))?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
        .map_err(|e| io("restrict the permissions of", e))?;
    Ok(listener)
}

/// Binds `addr` with the deep accept queue of [`BACKLOG`].
fn bind_tcp(addr: SocketAddr) -> std::io::Result<TcpListener> {
    let socket = if addr.is_ipv4() { TcpSocket::new_v4()? } else { TcpSocket::new_v6()? };
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(BACKLOG)
}

/// Raises the soft limit of open files to the hard one (at most [`OPEN_FILES`]): every
/// connection is a file, and the usual soft default of 1024 is below R-SRV-7's 1,000 clients
/// plus the daemon's own files.
fn raise_open_files() {
    use nix::sys::resource::{Resource, getrlimit, setrlimit};
    match getrlimit(Resource::RLIMIT_NOFILE) {
        Ok((soft, hard)) if soft < OPEN_FILES.min(hard) => {
            if let Err(e) = setrlimit(Resource::RLIMIT_NOFILE, OPEN_FILES.min(hard), hard) {
                tracing::warn!("hooks: cannot raise the open-file limit from {soft}: {e}");
            }
        }
        Ok(_) => {}
        Err(e) => tracing::warn!("hooks: cannot read the open-file limit: {e}"),
    }
}

/// How often the daemon looks in the rewake store for envelopes one-shot processes wrote, in
/// case the store's wake signal missed one: the signal (SQLite's data version read every 20 ms,
/// PostgreSQL's NOTIFY) picks them up at once.
const REWAKE_POLL: Duration = Duration::from_secs(10);

/// Runs the daemon until `shutdown` completes, then shuts down gracefully. The daemon is the
/// process's: once it has stopped, every command hook of this process still running is killed and
/// any started later is killed at its start ([`hook_actions::HookProcessGroups::kill_all`]).
pub async fn serve(options: ServeOptions, shutdown: impl Future<Output = ()>) -> Result<(), Error> {
    raise_open_files();
    let service = HookService::new(options.service.clone());
    // The token keys the hello's proof on the socket as well as TCP's bearer check.
    let token = options.service.home.as_deref().map(ensure_token).transpose()?;
    let unix =
        bind_socket(&options.socket, options.service.home.as_deref(), options.service.recording.audits_all()).await?;
    let tcp = match options.listen {
        Some(addr) => {
            let token = token.as_deref().ok_or(Error::NoHome)?;
            let listener = bind_tcp(addr).map_err(|source| Error::Listen { addr, source })?;
            tracing::info!("hooks: serve listens on http://{}", listener.local_addr().unwrap_or(addr));
            Some((listener, service.router().layer(ValidateRequestHeaderLayer::custom(Bearer::new(token)))))
        }
        None => None,
    };
    tracing::info!("hooks: serve listens on {}", options.socket.display());
    // Rewake: the store named by --store (or $AIMON_REWAKE_STORE, which the binary reads), else
    // ~/.aimon/rewake.db — the one `run` and `claude` write to. Every store write is committed
    // when it returns, so nothing is left to flush at shutdown. A shared store that is down is
    // waited for (store.rs).
    let location = hook_host::StoreLocation::select(options.store.as_deref(), options.service.home.as_deref())?;
    let waiting_for_store = crate::store::start_rewake(&service, location, REWAKE_POLL).await?;
    let local = match (&token, &options.service.home) {
        (Some(token), Some(home)) => {
            service.router().route(HELLO_PATH, get(hello(token, home, options.service.recording.audits_all())))
        }
        _ => {
            tracing::warn!("hooks: no home directory, so no token: forwarding clients cannot prove this daemon");
            service.router()
        }
    };
    let graceful = GracefulShutdown::new();
    let slots = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    let mut connections = JoinSet::new();
    tokio::pin!(shutdown);
    loop {
        let Ok(slot) = slots.clone().acquire_owned().await else { break };
        tokio::select! {
            () = &mut shutdown => break,
            accepted = unix.accept() => match accepted {
                Ok((stream, _)) => spawn(&mut connections, &graceful, stream, local.clone(), slot),
                Err(e) => accept_failed("the socket", &e).await,
            },
            accepted = accept_tcp(tcp.as_ref().map(|(l, _)| l)) => match (accepted, &tcp) {
                (Ok(stream), Some((_, app))) => spawn(&mut connections, &graceful, stream, app.clone(), slot),
                (Err(e), _) => accept_failed("TCP", &e).await,
                (Ok(_), None) => {}
            },
            Some(_) = connections.join_next() => {}
        }
    }
    if let Some(task) = waiting_for_store {
        task.abort();
    }
    drop(unix);
    drop(tcp);
    if let Err(e) = std::fs::remove_file(&options.socket) {
        tracing::debug!("hooks: cannot remove {}: {e}", options.socket.display());
    }
    tracing::info!("hooks: serve stops: finishing {} connection(s)", connections.len());
    service.end_streams();
    if tokio::time::timeout(options.grace, graceful.shutdown()).await.is_err() {
        tracing::warn!("hooks: requests still running after {:?}; stopping them and their hooks", options.grace);
    }
    // Dropping a request's future kills the process groups of its hooks.
    connections.shutdown().await;
    service.unload();
    // What no dropped future took with it (a hook of a rewake fire, of a task still winding
    // down) is killed by hook-actions' registry of live hook process groups, as `run` and
    // `claude` do on a signal; a hook started after this is killed at its start.
    let killed = HookProcessGroups::kill_all();
    if killed > 0 {
        tracing::info!("hooks: serve stops: killed {killed} hook process group(s) still running");
    }
    Ok(())
}

/// `GET /v1/hello` (`proof.rs`): this daemon's stance and the MAC of the client's nonce and the
/// stance under `token`; 400 without a well-formed nonce (nothing else is MAC'd).
fn hello(
    token: &str,
    home: &Path,
    audit: bool,
) -> impl Fn(HeaderMap) -> std::future::Ready<Response<Body>> + Clone + Send + Sync + 'static {
    let key: Arc<[u8]> = token.as_bytes().into();
    let stance: Arc<[u8]> = Stance::of_this_process(home, audit).encode().into();
    move |headers: HeaderMap| {
        let response = match headers.get(NONCE_HEADER).map(HeaderValue::as_bytes).filter(|n| proof::is_nonce(n)) {
            Some(nonce) => {
                let mac = proof::sign(&key, nonce, &stance);
                let mut response = Response::new(Body::from(stance.to_vec()));
                if let Ok(mac) = HeaderValue::from_str(&mac) {
                    response.headers_mut().insert(PROOF_HEADER, mac);
                }
                response
            }
            None => {
                let mut response = Response::new(Body::from("{\"error\":\"a hello needs a nonce\"}"));
                *response.status_mut() = StatusCode::BAD_REQUEST;
                response
            }
        };
        std::future::ready(response)
    }
}

/// Logs a failed accept and pauses: the error (out of files, most likely) is not the client's.
async fn accept_failed(on: &str, error: &std::io::Error) {
    tracing::warn!("hooks: cannot accept on {on}: {error}");
    tokio::time::sleep(ACCEPT_PAUSE).await;
}

async fn accept_tcp(listener: Option<&TcpListener>) -> std::io::Result<tokio::net::TcpStream> {
    match listener {
        Some(listener) => {
            let (stream, _) = listener.accept().await?;
            stream.set_nodelay(true)?;
            Ok(stream)
        }
        None => std::future::pending().await,
    }
}

fn spawn<S>(
    connections: &mut JoinSet<()>,
    graceful: &GracefulShutdown,
    stream: S,
    app: Router,
    slot: tokio::sync::OwnedSemaphorePermit,
) where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let connection = http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_TIMEOUT)
        .serve_connection(TokioIo::new(stream), TowerToHyperService::new(app));
    let connection = graceful.watch(connection);
    connections.spawn(async move {
        if let Err(e) = connection.await {
            tracing::debug!("hooks: connection ended: {e}");
        }
        drop(slot);
    });
}

/// SIGTERM, SIGINT and SIGHUP, listened for from creation on.
#[derive(Debug)]
pub struct ShutdownSignals {
    term: tokio::signal::unix::Signal,
    int: tokio::signal::unix::Signal,
    hup: tokio::signal::unix::Signal,
}

impl ShutdownSignals {
    /// Starts listening. Needs a tokio runtime.
    pub fn new() -> std::io::Result<Self> {
        use tokio::signal::unix::{SignalKind, signal};
        Ok(ShutdownSignals {
            term: signal(SignalKind::terminate())?,
            int: signal(SignalKind::interrupt())?,
            hup: signal(SignalKind::hangup())?,
        })
    }

    /// Resolves with the number of the first of the three signals to arrive.
    pub async fn recv(&mut self) -> i32 {
        use tokio::signal::unix::SignalKind;
        tokio::select! {
            _ = self.term.recv() => SignalKind::terminate().as_raw_value(),
            _ = self.int.recv() => SignalKind::interrupt().as_raw_value(),
            _ = self.hup.recv() => SignalKind::hangup().as_raw_value(),
        }
    }
}
