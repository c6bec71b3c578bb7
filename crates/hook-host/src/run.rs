//! `run`'s pipeline and answer (R-CLI-1), the same from `aimon-hooks run` and `serve`'s
//! `POST /v1/run/{event}`: [`answer_run`] (payload → project → engine → verdict, written once),
//! the policy its flags select, the JSON object it prints, its exit code, and the deny of a
//! payload it cannot read.

use std::borrow::Cow;
use std::future::Future;
use std::path::Path;

use hook_core::{
    DecisionChannel, EventVerdict, ExecutionMode, ExecutionReport, HookContext, HookEventType, HookExecutionPolicy,
    HookFeedback, HookResult, HookRun, Verdict,
};
use hook_wire::Client;
use serde::Serialize;
use serde_json::Value;

use crate::error::Error;
use crate::pipeline::{CallHints, call_project};

/// Where `run`'s hooks come from and how they run: the tiers loaded for the one call
/// (`aimon-hooks run`), or the daemon's engine of the project (`POST /v1/run/{event}`).
pub trait RunHost: Sync {
    /// One project's loaded hooks.
    type Project: Send + Sync;

    /// The home directory (the walk from a payload's `cwd` up to a project root stops below it).
    fn home(&self) -> Option<&Path>;

    /// The hooks of the project at `dir`, ready to run `event`, or the sentence saying why its
    /// configuration cannot run them.
    fn open(&self, dir: &Path, event: HookEventType) -> Result<Self::Project, String>;

    /// Runs `ctx` on `project`'s hooks under `policy`.
    fn dispatch(
        &self,
        project: &Self::Project,
        ctx: &HookContext,
        policy: HookExecutionPolicy,
    ) -> impl Future<Output = EventVerdict> + Send;
}

/// `run`'s pipeline: the Claude-Code-shaped payload `bytes` (from `source`, for error sentences)
/// of `event` is read as `aimon-hooks claude` reads it ([`Client::Claude`]'s `parse` and
/// `context`), its project found from `hints` and the payload's `cwd`, and its hooks run under
/// `policy`. A payload that cannot be read is denied where `event` can veto
/// ([`unreadable_verdict`]), else [`Error::Payload`]; a configuration that cannot run is
/// [`Error::Config`].
pub async fn answer_run<H: RunHost>(
    host: &H,
    event: HookEventType,
    bytes: &[u8],
    source: &str,
    hints: CallHints<'_>,
    policy: HookExecutionPolicy,
) -> Result<EventVerdict, Error> {
    let client = Client::Claude;
    let refuse = |sentence: String| unreadable_verdict(event, &sentence).ok_or(Error::Payload(sentence));
    let payload = match client.parse(bytes, source) {
        Ok(payload) => payload,
        Err(e) => return refuse(e.to_string()),
    };
    let dir = call_project(&hints, client.cwd(&payload), host.home());
    let project = host.open(&dir, event).map_err(Error::Config)?;
    let ctx = match client.context(event, payload, &dir) {
        // The decision log names `run`'s calls `aimon`.
        Ok(ctx) => ctx.with_client("aimon"),
        Err(e) => return refuse(e.to_string()),
    };
    Ok(host.dispatch(&project, &ctx, policy).await)
}

/// The policy `run`'s flags select (R-CLI-1).
pub fn run_policy(stop_on_blocked: bool, fail_closed: bool, parallel: bool) -> HookExecutionPolicy {
    let mut policy = match (fail_closed, stop_on_blocked) {
        (false, false) => HookExecutionPolicy::fail_open(),
        (false, true) => HookExecutionPolicy::stop_on_blocked(),
        (true, false) => HookExecutionPolicy::fail_closed(),
        (true, true) => HookExecutionPolicy::fail_closed_stop_on_blocked(),
    };
    if parallel {
        policy.mode = ExecutionMode::Parallel;
    }
    policy
}

/// `run`'s verdict on a payload that could not be read: denied with `error` as the reason where
/// `event` can veto (its JSON and exit code then say so as for any deny); `None` elsewhere.
pub fn unreadable_verdict(event: HookEventType, error: &str) -> Option<EventVerdict> {
    if matches!(event.spec().decision, DecisionChannel::Advisory | DecisionChannel::Continuation) {
        return None;
    }
    let reason = format!("aimon-hooks: {error}");
    let mut report = ExecutionReport::default();
    report.merged = HookResult::deny(reason.clone());
    let mut verdict = EventVerdict::from_report(event, report);
    // No hook ran, so the report holds no reason of its own.
    verdict.reason = Some(reason);
    Some(verdict)
}

/// The JSON object `run` prints: every field below, camelCase, in this order, always present
/// (`null` when empty); `hooks` lists each invoked hook.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunOutput<'a> {
    event: &'static str,
    outcome: &'static str,
    decision: &'static str,
    flow: &'static str,
    reason: Option<Cow<'a, str>>,
    feedback: Option<Cow<'a, str>>,
    updated_input: Option<&'a Value>,
    updated_output: Option<&'a Value>,
    system_message: Option<Cow<'a, str>>,
    hooks: Vec<HookLine<'a>>,
}

/// One invoked hook: every field below, camelCase, in this order.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct HookLine<'a> {
    id: &'a str,
    source: &'a str,
    decision: &'static str,
    flow: &'static str,
    elapsed_ms: u64,
    error: Option<&'a str>,
}

impl<'a> RunOutput<'a> {
    /// The object for `verdict`.
    pub fn new(verdict: &'a EventVerdict) -> Self {
        let merged = &verdict.report.merged;
        RunOutput {
            event: verdict.event.name(),
            outcome: verdict.outcome.as_str(),
            decision: merged.decision.as_str(),
            flow: merged.flow.as_str(),
            reason: model_text(verdict.reason.as_deref()),
            feedback: model_text(verdict.feedback.as_deref()),
            updated_input: merged.updated_input.as_ref(),
            updated_output: merged.updated_output.as_ref(),
            system_message: model_text(merged.system_message.as_deref()),
            hooks: verdict.report.runs.iter().map(HookLine::new).collect(),
        }
    }
}

impl<'a> HookLine<'a> {
    fn new(run: &'a HookRun) -> Self {
        HookLine {
            id: &run.hook_id,
            source: &run.source,
            decision: run.result.decision.as_str(),
            flow: run.result.flow.as_str(),
            elapsed_ms: u64::try_from(run.elapsed.as_millis()).unwrap_or(u64::MAX),
            error: run.error.as_deref().or(run.result.failure.as_deref()),
        }
    }
}

/// Text for the model, cut again for the merged answer (R-CC-6).
fn model_text(text: Option<&str>) -> Option<Cow<'_, str>> {
    text.map(|t| HookFeedback::clamp(t, HookFeedback::MAX_CHARS))
}

/// The process exit code `run` ends with: 2 when blocked or denied, else 0.
pub fn exit_code(outcome: Verdict) -> u8 {
    match outcome {
        Verdict::Blocked | Verdict::Denied => 2,
        Verdict::Proceed | Verdict::Ask => 0,
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::sync::{Arc, Mutex};

    use hook_core::{CancellationToken, FnHook, HookEngine, HookRegistry};

    use super::*;

    /// A host whose one hook denies and keeps the context it was given; `open` fails with
    /// `broken` when set.
    struct Recorder {
        registry: Arc<HookRegistry>,
        seen: Arc<Mutex<Vec<HookContext>>>,
        broken: Option<&'static str>,
    }

    impl Recorder {
        fn new(event: HookEventType) -> Self {
            let (registry, seen) = (Arc::new(HookRegistry::new()), Arc::new(Mutex::new(Vec::new())));
            let keep = seen.clone();
            registry.register(
                event,
                FnHook::new("recorder", move |ctx: HookContext| {
                    keep.lock().expect("not poisoned").push(ctx);
                    async { Ok(HookResult::deny("recorded")) }
                }),
            );
            Recorder { registry, seen, broken: None }
        }
    }

    impl RunHost for Recorder {
        type Project = PathBuf;

        fn home(&self) -> Option<&Path> {
            None
        }

        fn open(&self, dir: &Path, _: HookEventType) -> Result<PathBuf, String> {
            self.broken.map_or_else(|| Ok(dir.to_owned()), |why| Err(why.to_owned()))
        }

        async fn dispatch(&self, _: &PathBuf, ctx: &HookContext, policy: HookExecutionPolicy) -> EventVerdict {
            HookEngine::new(self.registry.clone()).with_policy(policy).run_event(ctx, &CancellationToken::new()).await
        }
    }

    fn hints(project: &Path) -> CallHints<'_> {
        CallHints { explicit: Some(project), client_project_dir: None, base: Path::new("/"), guarded: false }
    }

    #[tokio::test]
    async fn run_reads_a_payload_as_claude_does_and_runs_it_in_the_named_project() {
        let host = Recorder::new(HookEventType::POST_TOOL);
        let payload =
            br#"{"session_id": "s", "cwd": "/elsewhere", "tool_name": "Bash", "tool_input": {"command": "ls"}}"#;
        let verdict = answer_run(
            &host,
            HookEventType::POST_TOOL,
            payload,
            "stdin",
            hints(Path::new("/p")),
            HookExecutionPolicy::fail_open(),
        )
        .await
        .expect("a verdict");
        assert_eq!(verdict.event, HookEventType::POST_TOOL);
        let seen = host.seen.lock().expect("not poisoned");
        let ctx = seen.first().expect("the hook ran");
        let claude = Client::Claude.context(
            HookEventType::POST_TOOL,
            Client::Claude.parse(payload, "x").expect("JSON"),
            Path::new("/p"),
        );
        let claude = claude.expect("a context").with_client("aimon");
        assert_eq!(ctx, &claude, "the context `claude` builds, its client `aimon` (the decision log's name)");
        let status = ctx.tool.as_ref().and_then(|t| t.result_status.as_deref());
        assert_eq!(status, Some("success"), "a PostToolUse comes after a success, under run too");
    }

    #[tokio::test]
    async fn an_unreadable_payload_denies_where_it_can_and_a_broken_configuration_is_an_error() {
        let mut host = Recorder::new(HookEventType::PRE_TOOL);
        let policy = HookExecutionPolicy::fail_open;
        let p = Path::new("/p");
        let denied = answer_run(&host, HookEventType::PRE_TOOL, b"{not json", "stdin", hints(p), policy()).await;
        assert_eq!(denied.expect("a deny").outcome, Verdict::Denied);
        let no_tool = answer_run(&host, HookEventType::PRE_TOOL, b"{}", "stdin", hints(p), policy()).await;
        assert_eq!(no_tool.expect("a deny").outcome, Verdict::Denied, "a tool event without its tool");
        let advisory = answer_run(&host, HookEventType::POST_TOOL, b"[", "stdin", hints(p), policy()).await;
        assert!(matches!(advisory, Err(Error::Payload(_))), "{advisory:?}");
        host.broken = Some("bad hooks.json");
        let broken =
            answer_run(&host, HookEventType::PRE_TOOL, b"{\"tool_name\": \"Bash\"}", "stdin", hints(p), policy()).await;
        assert!(matches!(&broken, Err(Error::Config(why)) if why == "bad hooks.json"), "{broken:?}");
        assert!(host.seen.lock().expect("not poisoned").is_empty(), "no hook ran");
    }

    #[test]
    fn an_unreadable_payload_is_a_deny_of_run_where_the_event_can_veto() {
        let verdict = unreadable_verdict(HookEventType::PRE_TOOL, "not JSON").expect("preTool can veto");
        assert_eq!((verdict.outcome, verdict.reason.as_deref()), (Verdict::Denied, Some("aimon-hooks: not JSON")));
        assert_eq!(exit_code(verdict.outcome), 2);
        let blocked = unreadable_verdict(HookEventType::USER_PROMPT_SUBMIT, "x").expect("a block channel");
        assert_eq!(exit_code(blocked.outcome), 2);
        assert!(unreadable_verdict(HookEventType::POST_TOOL, "x").is_none());
        assert!(unreadable_verdict(HookEventType::ON_STOP, "x").is_none(), "a failure never keeps the agent working");
    }
}
