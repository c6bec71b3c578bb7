//! The HTTP routes (R-SRV-3) and the shared state behind them.
//!
//! `POST /v1/run/{event}` answers exactly `run`'s JSON object (exit code in `X-Aimon-Exit`);
//! `POST /v1/<client>` (one per [`hook_wire::Client`], `/v1/claude`) answers through hook-host's
//! one pipeline, as the client's `http` handler reads it (always 200) or, with
//! `X-Aimon-Form: command`, in the command form the forwarding `aimon-hooks <client>` prints
//! verbatim (`{"stdout", "stderr", "exit"}`), `POST /v1/<client>/ack` redeems the mail receipt;
//! `GET /v1/health`, `GET /v1/hooks`, `GET /metrics`, `GET /v1/stream` (fires, see `stream`). Limits are layers around the router.

mod stream;

use std::ffi::OsStr;
use std::future::Future;
use std::os::unix::ffi::OsStrExt as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{MatchedPath, Query, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use hook_config::{BuildEnv, DeclarativeHook, TierPaths, load_tiers};
use hook_core::{
    CancellationToken, EventVerdict, ExecutionHook as _, HookContext, HookEngine, HookEventType, HookExecutionPolicy,
    HookRegistry,
};
use hook_host::{CallHints, FireEvent, FireHost, Host, ProjectRegistries, RunOutput, exit_code};
use hook_rewake::RewakeStore;
use hook_wire::Client;
use http_body_util::BodyExt as _;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use tokio::sync::broadcast;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::timeout::RequestBodyTimeoutLayer;

use crate::delivery::{AckOnWritten, MAIL_HEADER, Receipts};
use crate::error::Error;
use crate::form::CommandForm;
use crate::metrics::Metrics;
use crate::projects::{Project, Projects};

/// The largest request body, in bytes (1 MiB).
pub const BODY_LIMIT: usize = 1 << 20;
/// How long a client may take to send its body.
const BODY_TIMEOUT: Duration = Duration::from_secs(10);
/// The header carrying the exit code `run`/`claude` would use.
pub const EXIT_HEADER: &str = "x-aimon-exit";
/// The request header asking `/v1/<client>` for the command form (`command`).
pub const FORM_HEADER: &str = "x-aimon-form";
/// The request header carrying the client's project directory (`CLAUDE_PROJECT_DIR`).
pub const PROJECT_HEADER: &str = "x-claude-project-dir";
/// The request header carrying the working directory of a forwarding process: relative paths of
/// its call are taken against it.
pub const BASE_HEADER: &str = "x-aimon-base";
/// The request header (`1`) saying the forwarding client runs the call's command under the
/// exec-time guard.
pub(crate) const GUARDED_HEADER: &str = "x-aimon-guarded";

/// What a [`HookService`] is built from.
#[derive(Debug, Clone)]
pub struct ServiceOptions {
    /// The home directory: its `.aimon/` is the USER tier of every project.
    pub home: Option<PathBuf>,
    /// Relative project paths and calls without any hint are taken against this directory.
    pub base: PathBuf,
    /// How many project engines stay loaded (least recently used go first).
    pub max_projects: usize,
    /// Hook work running at once per project; more waits in a queue.
    pub project_slots: usize,
    /// Hook work running at once in all; more waits in a queue.
    pub global_slots: usize,
    /// The decision log every project's hooks record to, and whether they all only audit
    /// (`serve --audit`); the service adds its audit counter (`/metrics`).
    pub recording: hook_config::Recording,
    /// Every project's files are trusted (the binary's reading of `AIMON_TRUST_PROJECT_HOOKS=1`);
    /// else the person's trust store decides.
    pub trust_project_hooks: bool,
    /// The cap on consecutive "keep working" answers per session (the binary's reading of
    /// `CLAUDE_CODE_STOP_HOOK_BLOCK_CAP`); else each event's own.
    pub continuation_cap: Option<u32>,
}

impl ServiceOptions {
    /// The defaults: 64 projects, two slots per core per project, 64 in all.
    pub fn new(home: Option<PathBuf>, base: PathBuf) -> Self {
        let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
        let recording = hook_config::Recording::new();
        ServiceOptions {
            home,
            base,
            max_projects: 64,
            project_slots: 2 * cores,
            global_slots: 64,
            recording,
            trust_project_hooks: false,
            continuation_cap: None,
        }
    }
}

/// The hook engine of every project, behind HTTP routes. Cheap to clone.
#[derive(Debug, Clone)]
pub struct HookService {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    base: PathBuf,
    projects: Projects,
    metrics: Arc<Metrics>,
    rewake: OnceLock<Rewake>,
    /// Cancelled when the daemon shuts down: open fire streams end.
    closing: CancellationToken,
    /// Mail of command-form answers until the process that forwarded the call says it printed them.
    receipts: Receipts,
    /// [`ServiceOptions::continuation_cap`].
    continuation_cap: Option<u32>,
}

/// Rewake in the daemon: the store the session mailboxes live in and the service firing it.
#[derive(Debug)]
struct Rewake {
    store: Arc<dyn RewakeStore>,
    host: FireHost,
}

#[derive(Debug, Default, Deserialize)]
struct Params {
    project: Option<PathBuf>,
    #[serde(default)]
    parallel: bool,
    #[serde(default)]
    stop_on_blocked: bool,
}

impl HookService {
    /// A service with no project loaded yet.
    pub fn new(options: ServiceOptions) -> Self {
        let metrics = Arc::new(Metrics::new());
        // Audit-mode decisions are counted as each hook makes them, by the hook's own build.
        let counted = metrics.clone();
        let recording = options.recording.with_audit_counter(Arc::new(move |audited| counted.audited(audited)));
        let projects = Projects::new(
            options.home,
            options.max_projects,
            options.project_slots,
            options.global_slots,
            metrics.clone(),
            recording,
            options.trust_project_hooks,
        );
        HookService {
            inner: Arc::new(Inner {
                base: options.base,
                projects,
                metrics,
                rewake: OnceLock::new(),
                closing: CancellationToken::new(),
                receipts: Receipts::default(),
                continuation_cap: options.continuation_cap,
            }),
        }
    }

    /// Runs rewake on `store` (call once, inside the runtime): the rewakes hooks ask for are
    /// scheduled there, each fire re-runs its hook from its project's engine and leaves the
    /// answer in the session's mailbox, and `/v1/<client>` answers carry that mail. Envelopes that
    /// one-shot `run`/`claude` processes wrote to the store are picked up every `poll`.
    pub fn start_rewake(&self, store: Arc<dyn RewakeStore>, poll: Duration) -> Result<(), Error> {
        let inner = Arc::downgrade(&self.inner);
        let registries: ProjectRegistries = Arc::new(move |dir: Option<&Path>| {
            let project = inner.upgrade()?.projects.get(dir?).ok()?;
            Some(project.registry.clone())
        });
        let host = FireHost::start(store.clone(), registries, poll)?;
        host.ready();
        let _ = self.inner.rewake.set(Rewake { store, host });
        Ok(())
    }

    /// Every route with its limits (body size and time, panics contained), without
    /// authentication: the daemon adds the bearer check on TCP; an embedder adds its own.
    pub fn router(&self) -> Router {
        let run = post(run).layer(RequestBodyLimitLayer::new(BODY_LIMIT));
        let mut router = Router::new().route("/v1/run/{event}", run);
        for &client in Client::ALL {
            let call = move |state, headers, uri, body| client_call(client, state, headers, uri, body);
            router = router.route(&format!("/v1/{client}"), post(call)).route(&format!("/v1/{client}/ack"), post(ack));
        }
        router
            .route("/v1/health", get(health))
            .route("/v1/hooks", get(hooks))
            .route("/metrics", get(metrics))
            .route("/v1/stream", get(stream::stream))
            .route_layer(middleware::from_fn_with_state(self.clone(), count))
            .layer(RequestBodyTimeoutLayer::new(BODY_TIMEOUT))
            .layer(CatchPanicLayer::new())
            .with_state(self.clone())
    }

    /// Ends every open `/v1/stream` (call when shutting down: a stream never ends by itself).
    pub fn end_streams(&self) {
        self.inner.closing.cancel();
    }

    /// A subscription to the fires, ended by [`HookService::end_streams`]; `None` without rewake.
    pub(crate) fn fire_subscription(&self) -> Option<(broadcast::Receiver<FireEvent>, CancellationToken)> {
        let rewake = self.inner.rewake.get()?;
        Some((rewake.host.subscribe(), self.inner.closing.clone()))
    }

    /// Unloads every project: hot reload stops and MCP sessions close once no call holds them.
    pub fn unload(&self) {
        self.inner.projects.clear();
    }

    /// The project of a call (R-SRV-2): `project` parameter, else the `X-Claude-Project-Dir`
    /// header, else the payload's `cwd` walked up to its project root.
    pub(crate) fn project_dir(&self, explicit: Option<&Path>, headers: &HeaderMap, cwd: Option<&Path>) -> PathBuf {
        hook_host::call_project(&self.hints(explicit, headers), cwd, self.inner.projects.home())
    }

    /// The hints of a call: the `project` parameter, the client's project directory header, and
    /// the forwarding process's working directory (else the daemon's base).
    fn hints<'a>(&'a self, explicit: Option<&'a Path>, headers: &'a HeaderMap) -> CallHints<'a> {
        let path = |name| headers.get(name).map(|v: &HeaderValue| Path::new(OsStr::from_bytes(v.as_bytes())));
        CallHints {
            explicit,
            client_project_dir: path(PROJECT_HEADER),
            base: path(BASE_HEADER).filter(|b| b.is_absolute()).unwrap_or(&self.inner.base),
            guarded: headers.get(GUARDED_HEADER).is_some_and(|v| v.as_bytes() == b"1"),
        }
    }

    /// Dispatches `ctx`, waiting for a hook slot when the event has hooks. The evaluation runs on
    /// the blocking pool: matching a long command is CPU work (bounded by the analyser's budget,
    /// yet up to a tenth of a second), and on the runtime's workers it would hold up every other
    /// session's call meanwhile.
    async fn dispatch(&self, project: &Project, ctx: &HookContext, policy: HookExecutionPolicy) -> EventVerdict {
        let slots = if project.has_hooks(ctx.event) { Some(self.inner.projects.slots(project).await) } else { None };
        let mut engine = HookEngine::new(project.registry.clone()).with_policy(policy);
        if let Some(cap) = self.inner.continuation_cap {
            engine = engine.with_continuation_cap(cap);
        }
        if let Some(rewake) = self.inner.rewake.get() {
            engine = engine.with_rewake(rewake.host.service().clone());
        }
        let verdict = if slots.is_none() {
            // No hook for the event: nothing to match, nothing to move off the workers.
            engine.run_event(ctx, &CancellationToken::new()).await
        } else {
            let runtime = tokio::runtime::Handle::current();
            let owned = ctx.clone();
            // When this call is dropped (the daemon stops), its evaluation is cancelled: the
            // executor then drops its hooks, which kills their process groups.
            let cancel = CancellationToken::new();
            let _cancel_on_drop = cancel.clone().drop_guard();
            let evaluation = tokio::task::spawn_blocking(move || runtime.block_on(engine.run_event(&owned, &cancel)));
            match evaluation.await {
                Ok(done) => done,
                Err(e) => match e.try_into_panic() {
                    Ok(panic) => std::panic::resume_unwind(panic),
                    // Cancelled: the daemon is shutting down. The call is refused, not let through.
                    Err(_) => refused(ctx.event),
                },
            }
        };
        drop(slots);
        self.inner.metrics.verdict(&verdict);
        verdict
    }

    /// A loaded project that can answer, or the sentence saying why it cannot.
    fn usable_project(&self, dir: &Path) -> Result<Arc<Project>, String> {
        let project = self.inner.projects.get(dir).map_err(|e| e.to_string())?;
        match project.config_error() {
            Some(error) => Err(error),
            None => Ok(project),
        }
    }
}

/// The daemon as the pipeline's host: cached per-project engines, hook slots, metrics, and the
/// rewake service and mailboxes when rewake runs.
struct Daemon<'s>(&'s HookService);

impl Host for Daemon<'_> {
    type Project = Arc<Project>;

    fn home(&self) -> Option<&Path> {
        self.0.inner.projects.home()
    }

    fn open(&self, dir: &Path, _: HookEventType) -> Result<Arc<Project>, String> {
        self.0.usable_project(dir)
    }

    fn registry<'a>(&'a self, project: &'a Arc<Project>) -> &'a Arc<HookRegistry> {
        &project.registry
    }

    fn any_withheld(&self, project: &Arc<Project>) -> bool {
        hook_host::registry_withholds(&project.registry)
    }

    fn trust_command(&self, project: &Arc<Project>) -> String {
        self.0.inner.projects.gate(&project.dir).command()
    }

    fn dispatch(&self, project: &Arc<Project>, ctx: &HookContext) -> impl Future<Output = EventVerdict> + Send {
        HookService::dispatch(self.0, project, ctx, HookExecutionPolicy::default())
    }

    fn mailbox(&self) -> Result<Option<Arc<dyn RewakeStore>>, hook_host::Error> {
        Ok(self.0.inner.rewake.get().map(|rewake| rewake.store.clone()))
    }
}

/// The verdict of a call whose evaluation could not finish: a deny where the event can veto.
fn refused(event: HookEventType) -> EventVerdict {
    hook_host::unreadable_verdict(event, "the daemon stopped before the call was evaluated")
        .unwrap_or_else(|| EventVerdict::from_report(event, hook_core::ExecutionReport::default()))
}

/// Counts each answered request by route and status.
async fn count(State(service): State<HookService>, request: Request, next: Next) -> Response {
    let route = request.extensions().get::<MatchedPath>().map_or_else(String::new, |p| p.as_str().to_owned());
    let response = next.run(request).await;
    service.inner.metrics.request(&route, response.status().as_u16());
    response
}

/// A JSON error answer: `{"error": sentence}`.
pub(crate) fn error(status: StatusCode, sentence: impl Into<String>) -> Response {
    (status, axum::Json(json!({"error": sentence.into()}))).into_response()
}

fn with_exit(mut response: Response, exit: u8) -> Response {
    response.headers_mut().insert(EXIT_HEADER, HeaderValue::from(u16::from(exit)));
    response
}

/// `POST /v1/run/{event}`.
async fn run(
    State(service): State<HookService>,
    axum::extract::Path(name): axum::extract::Path<String>,
    headers: HeaderMap,
    uri: Uri,
    body: Bytes,
) -> Response {
    let Ok(event) = HookEventType::resolve(&name) else {
        let names: Vec<&str> = HookEventType::ALL.iter().map(|e| e.name()).collect();
        let sentence =
            format!("unknown event '{name}'; expected one of {} (or their Claude Code names)", names.join(", "));
        return with_exit(error(StatusCode::NOT_FOUND, sentence), 1);
    };
    let params = match Query::<Params>::try_from_uri(&uri) {
        Ok(q) => q.0,
        Err(e) => {
            return with_exit(error(StatusCode::BAD_REQUEST, format!("the query string is not understood: {e}")), 1);
        }
    };
    let hints = service.hints(params.project.as_deref(), &headers);
    let policy = hook_host::run_policy(params.stop_on_blocked, false, params.parallel);
    match hook_host::answer_run(&Runner(&service), event, &body, "the request body", hints, policy).await {
        Ok(verdict) => run_output(&verdict),
        Err(hook_host::Error::Config(sentence)) => with_exit(error(StatusCode::INTERNAL_SERVER_ERROR, sentence), 1),
        Err(e) => with_exit(error(StatusCode::BAD_REQUEST, e.to_string()), 1),
    }
}

/// The daemon as `run`'s host: the project's cached engine, its hook slots and metrics.
struct Runner<'s>(&'s HookService);

impl hook_host::RunHost for Runner<'_> {
    type Project = Arc<Project>;

    fn home(&self) -> Option<&Path> {
        self.0.inner.projects.home()
    }

    fn open(&self, dir: &Path, _: HookEventType) -> Result<Arc<Project>, String> {
        self.0.usable_project(dir)
    }

    fn dispatch(
        &self,
        project: &Arc<Project>,
        ctx: &HookContext,
        policy: HookExecutionPolicy,
    ) -> impl Future<Output = EventVerdict> + Send {
        self.0.dispatch(project, ctx, policy)
    }
}

/// `run`'s JSON object for `verdict`, its exit code in the header.
fn run_output(verdict: &EventVerdict) -> Response {
    match serde_json::to_string(&RunOutput::new(verdict)) {
        Ok(text) => {
            with_exit(([(header::CONTENT_TYPE, "application/json")], text).into_response(), exit_code(verdict.outcome))
        }
        Err(e) => error(StatusCode::INTERNAL_SERVER_ERROR, format!("cannot encode the verdict: {e}")),
    }
}

/// `POST /v1/<client>`: always 200.
async fn client_call(
    client: Client,
    State(service): State<HookService>,
    headers: HeaderMap,
    uri: Uri,
    body: Body,
) -> Response {
    let command_form = headers.get(FORM_HEADER).is_some_and(|v| v.as_bytes() == b"command");
    let declared = headers.get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    let answered = match read_limited(body, declared).await {
        Ok(bytes) => {
            let params = Query::<Params>::try_from_uri(&uri).map(|q| q.0).unwrap_or_default();
            let hints = service.hints(params.project.as_deref(), &headers);
            hook_host::answer_call(&Daemon(&service), client, &bytes, "the request body", hints).await
        }
        Err((prefix, error)) => hook_host::unreadable_call(client, &prefix, &error),
    };
    let mut response = Response::new(Body::empty());
    let answer = answered.answer;
    let data = if command_form {
        let map = response.headers_mut();
        map.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
        map.insert(EXIT_HEADER, HeaderValue::from(u16::from(answer.exit)));
        let form = CommandForm { stdout: answer.stdout, stderr: answer.stderr, exit: answer.exit };
        Bytes::from(serde_json::to_vec(&form).unwrap_or_default())
    } else {
        match answer.http {
            Some(json) => {
                response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
                Bytes::from(json.to_string())
            }
            None => Bytes::new(),
        }
    };
    let mail = answered.mail.map(|mail| if command_form { service.inner.receipts.issue(mail) } else { Err(mail) });
    let mail = match mail {
        Some(Ok(receipt)) => {
            if let Ok(value) = HeaderValue::from_str(&receipt) {
                response.headers_mut().insert(MAIL_HEADER, value);
            }
            None
        }
        Some(Err(mail)) => Some(mail),
        None => None,
    };
    *response.body_mut() = match mail {
        Some(mail) => AckOnWritten::body(data, mail),
        None => Body::from(data),
    };
    response
}

/// `POST /v1/<client>/ack`: the forwarding process printed the answer whose receipt it sends in
/// the mail header; its mail is deleted. 204, or 404 for a receipt unknown, redeemed or expired.
async fn ack(State(service): State<HookService>, headers: HeaderMap) -> Response {
    let receipt = headers.get(MAIL_HEADER).and_then(|v| v.to_str().ok()).unwrap_or_default();
    let Some(mail) = service.inner.receipts.redeem(receipt) else {
        return error(StatusCode::NOT_FOUND, "no mail waits for that receipt (redeemed already, or expired)");
    };
    match mail.ack() {
        Ok(_) => StatusCode::NO_CONTENT.into_response(),
        Err(e) => error(StatusCode::INTERNAL_SERVER_ERROR, format!("cannot remove the delivered mail: {e}")),
    }
}

/// `GET /v1/health`.
async fn health() -> Response {
    axum::Json(json!({"status": "ok"})).into_response()
}

/// One row of `list --json` (R-CLI-4).
pub fn hook_row(hook: &DeclarativeHook) -> Map<String, Value> {
    let mut row = Map::new();
    row.insert("tier".into(), hook.tier().name().into());
    row.insert("event".into(), hook.event().name().into());
    row.insert("matcher".into(), hook.matcher().into());
    row.insert("handler".into(), hook.describe().into());
    row.insert("id".into(), hook.id().into());
    row.insert("source".into(), hook.source().into());
    row.insert("trusted".into(), hook.trusted().into());
    row.insert("at".into(), hook.location().map_or(Value::Null, Value::String));
    row.insert("mode".into(), if hook.audited() { "audit" } else { "enforce" }.into());
    row
}

/// `GET /v1/hooks?project=DIR`: what `list --json` prints for the project.
async fn hooks(State(service): State<HookService>, headers: HeaderMap, uri: Uri) -> Response {
    let params = match Query::<Params>::try_from_uri(&uri) {
        Ok(q) => q.0,
        Err(e) => return error(StatusCode::BAD_REQUEST, format!("the query string is not understood: {e}")),
    };
    let dir = service.project_dir(params.project.as_deref(), &headers, None);
    let paths = TierPaths::new(service.inner.projects.home().map(Path::to_owned), dir);
    let config = match load_tiers(&paths) {
        Ok((config, _)) => config,
        Err(e) => return with_exit(error(StatusCode::INTERNAL_SERVER_ERROR, e.sentence()), 1),
    };
    let rows: Vec<Value> = config
        .into_hooks(
            &BuildEnv::gated(&paths, service.inner.projects.gate(&paths.project))
                .with_recording(service.inner.projects.recording().clone()),
        )
        .iter()
        .map(|(_, h)| Value::Object(hook_row(h)))
        .collect();
    match serde_json::to_string_pretty(&rows) {
        Ok(text) => ([(header::CONTENT_TYPE, "application/json")], format!("{text}\n")).into_response(),
        Err(e) => error(StatusCode::INTERNAL_SERVER_ERROR, format!("cannot encode the hooks: {e}")),
    }
}

/// `GET /metrics`.
async fn metrics(State(service): State<HookService>) -> Response {
    let content_type = "application/openmetrics-text; version=1.0.0; charset=utf-8";
    ([(header::CONTENT_TYPE, content_type)], service.inner.metrics.render()).into_response()
}

/// How much of a body announced over [`BODY_LIMIT`] is read to find the event it names.
const SNIFF_LIMIT: usize = 64 << 10;

/// Reads a body of at most [`BODY_LIMIT`] bytes; otherwise what was read and why it stopped.
/// The buffer is sized by the `declared` Content-Length; a body announced over the limit is read
/// only as far as [`SNIFF_LIMIT`], so refusing it costs no megabyte buffer.
async fn read_limited(mut body: Body, declared: Option<u64>) -> Result<Vec<u8>, (Vec<u8>, String)> {
    let too_large = "the request body is larger than 1 MiB";
    let declared = declared.map_or(0, |n| usize::try_from(n).unwrap_or(usize::MAX));
    let keep = if declared > BODY_LIMIT { SNIFF_LIMIT } else { BODY_LIMIT };
    let mut buf = Vec::with_capacity(declared.min(keep));
    while let Some(frame) = body.frame().await {
        let frame = match frame {
            Ok(frame) => frame,
            Err(e) => return Err((buf, format!("cannot read the request body: {e}"))),
        };
        if let Ok(data) = frame.into_data() {
            if buf.len() + data.len() > keep {
                let room = keep - buf.len();
                buf.extend_from_slice(&data[..room]);
                return Err((buf, too_large.to_owned()));
            }
            buf.extend_from_slice(&data);
        }
    }
    if declared > BODY_LIMIT {
        return Err((buf, too_large.to_owned()));
    }
    Ok(buf)
}
