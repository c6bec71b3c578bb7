//! `GET /v1/stream` (R-SRV-4): every rewake fire as a server-sent event.
//!
//! Each fire is sent once its hook has run, as `event: fire` with `id: <envelope id>#<attempt>`
//! and one JSON object of data (keys as `rewake list --json` names them, plus what the hook did;
//! docs/serve.md lists them). A subscriber that falls more than 1,024 fires behind misses the
//! oldest and gets `event: lagged` with `{"missed": n}`: fires never wait for a subscriber. A
//! comment line every 15 s keeps idle connections open. `?project=DIR` and `?session=ID` keep
//! only that project's or session's fires. Streams end when the daemon shuts down.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::Stream;
use hook_core::CancellationToken;
use hook_host::FireEvent;
use serde::{Deserialize, Serialize};
use serde_json::json;
use tokio::sync::broadcast::{self, error::RecvError};

use super::{HookService, error};

/// How often an idle stream sends a keep-alive comment.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

#[derive(Debug, Default, Deserialize)]
struct StreamParams {
    project: Option<PathBuf>,
    session: Option<String>,
}

/// Which fires a subscriber asked for.
#[derive(Debug, Default)]
pub(crate) struct Filter {
    project: Option<PathBuf>,
    session: Option<String>,
}

impl Filter {
    fn accepts(&self, event: &FireEvent) -> bool {
        let envelope = &event.fire.envelope;
        self.project.as_deref().is_none_or(|p| envelope.project_dir() == Some(p))
            && self.session.as_deref().is_none_or(|s| envelope.session_id() == Some(s))
    }
}

/// What a stream sends, before it is framed as SSE.
#[derive(Debug, PartialEq)]
pub(crate) enum Item {
    /// A fire: its `id:` line and its data.
    Fire(String, Box<FireData>),
    /// The subscriber missed this many fires.
    Lagged(u64),
}

/// The data object of one fire. Fields in the order of their names, the order the object has
/// always been printed in.
#[derive(Debug, PartialEq, Serialize)]
pub(crate) struct FireData {
    attempt: u32,
    blocked: bool,
    decision: Option<&'static str>,
    elapsed_ms: Option<u64>,
    error: Option<String>,
    event: &'static str,
    feedback: Option<String>,
    fired_at: String,
    hook_id: String,
    id: String,
    outcome: &'static str,
    payload: BTreeMap<String, String>,
    project: Option<String>,
    reason: String,
    session_id: Option<String>,
}

impl FireData {
    fn new(event: &FireEvent) -> Self {
        let fire = &event.fire;
        let e = &fire.envelope;
        let run = event.run.as_ref();
        FireData {
            attempt: e.attempt,
            blocked: run.is_some_and(|r| r.result.is_blocked()),
            decision: run.map(|r| r.result.decision.as_str()),
            elapsed_ms: run.map(|r| u64::try_from(r.elapsed.as_millis()).unwrap_or(u64::MAX)),
            error: run.and_then(|r| r.error.clone().or_else(|| r.result.failure.clone())),
            event: e.event.name(),
            feedback: run.and_then(|r| r.result.feedback.clone()),
            fired_at: fire.fired_at.to_rfc3339(),
            hook_id: e.hook_id.clone(),
            id: e.id.clone(),
            outcome: if run.is_some() { "ran" } else { "dropped" },
            payload: fire.payload.clone(),
            project: e.project_dir().map(|p| p.display().to_string()),
            reason: e.reason.clone(),
            session_id: e.session_id().map(str::to_owned),
        }
    }
}

/// The items of one subscription, until `closing` is cancelled or the fire host stops.
pub(crate) fn items(
    fires: broadcast::Receiver<FireEvent>,
    filter: Filter,
    closing: CancellationToken,
) -> impl Stream<Item = Item> + Send + 'static {
    futures_util::stream::unfold((fires, filter, closing), |(mut fires, filter, closing)| async move {
        loop {
            let received = tokio::select! {
                biased;
                () = closing.cancelled() => return None,
                received = fires.recv() => received,
            };
            let item = match received {
                Ok(event) if filter.accepts(&event) => {
                    let e = &event.fire.envelope;
                    Item::Fire(format!("{}#{}", e.id, e.attempt), Box::new(FireData::new(&event)))
                }
                Ok(_) => continue,
                Err(RecvError::Lagged(missed)) => Item::Lagged(missed),
                Err(RecvError::Closed) => return None,
            };
            return Some((item, (fires, filter, closing)));
        }
    })
}

fn sse_event(item: Item) -> Result<Event, axum::Error> {
    match item {
        Item::Fire(id, data) => Event::default().event("fire").id(id).json_data(data),
        Item::Lagged(missed) => Ok(Event::default().event("lagged").data(json!({"missed": missed}).to_string())),
    }
}

/// `GET /v1/stream[?project=DIR][&session=ID]`.
pub(crate) async fn stream(State(service): State<HookService>, headers: HeaderMap, uri: Uri) -> Response {
    let params = match Query::<StreamParams>::try_from_uri(&uri) {
        Ok(q) => q.0,
        Err(e) => return error(StatusCode::BAD_REQUEST, format!("the query string is not understood: {e}")),
    };
    let Some((fires, closing)) = service.fire_subscription() else {
        return error(StatusCode::SERVICE_UNAVAILABLE, "rewake is not running in this server");
    };
    let project = params.project.map(|p| service.project_dir(Some(&p), &headers, None));
    let filter = Filter { project, session: params.session };
    let events = futures_util::StreamExt::map(items(fires, filter, closing), sse_event);
    Sse::new(events).keep_alive(KeepAlive::new().interval(KEEP_ALIVE)).into_response()
}

#[cfg(test)]
mod tests {
    use chrono::Utc;
    use futures_util::StreamExt as _;
    use hook_core::{HookContext, HookEventType, RewakeSpec, RewakeTrigger};
    use hook_rewake::{Envelope, Fire};

    use super::*;

    fn event(n: u32, session: &str, project: &str) -> FireEvent {
        let mut ctx = HookContext::new(HookEventType::POST_TOOL);
        ctx.session_id = Some(session.to_owned());
        ctx.project_dir = Some(PathBuf::from(project));
        let spec = RewakeSpec::new(RewakeTrigger::Delay(Duration::from_secs(1)), "check");
        let mut envelope = Envelope::new("project#0", ctx, spec, 1);
        envelope.id = format!("rw-{n}");
        FireEvent::new(Fire::new(envelope, Utc::now()), None)
    }

    fn ids(items: &[Item]) -> Vec<String> {
        items
            .iter()
            .map(|i| match i {
                Item::Fire(id, _) => id.clone(),
                Item::Lagged(n) => format!("lagged {n}"),
            })
            .collect()
    }

    #[tokio::test]
    async fn a_subscriber_that_falls_behind_is_told_how_many_fires_it_missed_and_sending_never_waits() {
        let (tx, rx) = broadcast::channel(4);
        let stream = items(rx, Filter::default(), CancellationToken::new());
        for n in 0..10 {
            tx.send(event(n, "s", "/p")).expect("sending does not wait for the subscriber");
        }
        drop(tx);
        let got: Vec<Item> = stream.collect().await;
        assert_eq!(ids(&got), ["lagged 6", "rw-6#1", "rw-7#1", "rw-8#1", "rw-9#1"]);
    }

    #[tokio::test]
    async fn closing_ends_an_idle_stream() {
        let (_tx, rx) = broadcast::channel::<FireEvent>(4);
        let closing = CancellationToken::new();
        let stream = items(rx, Filter::default(), closing.clone());
        closing.cancel();
        let got: Vec<Item> = tokio::time::timeout(Duration::from_secs(5), stream.collect()).await.expect("it ends");
        assert!(got.is_empty());
    }

    #[tokio::test]
    async fn filters_keep_only_the_project_and_session_asked_for() {
        let cases: [(Option<&str>, Option<&str>, &[&str]); 4] = [
            (None, None, &["rw-0#1", "rw-1#1", "rw-2#1"]),
            (Some("/a"), None, &["rw-0#1", "rw-1#1"]),
            (None, Some("s2"), &["rw-1#1", "rw-2#1"]),
            (Some("/a"), Some("s2"), &["rw-1#1"]),
        ];
        for (project, session, expected) in cases {
            let (tx, rx) = broadcast::channel(16);
            let filter = Filter { project: project.map(PathBuf::from), session: session.map(str::to_owned) };
            let stream = items(rx, filter, CancellationToken::new());
            for (n, (s, p)) in [("s1", "/a"), ("s2", "/a"), ("s2", "/b")].into_iter().enumerate() {
                tx.send(event(u32::try_from(n).expect("small"), s, p)).expect("send");
            }
            drop(tx);
            let got: Vec<Item> = stream.collect().await;
            assert_eq!(ids(&got), expected, "project {project:?} session {session:?}");
        }
    }
}
