//! Test support for hook-core's specs: a scripted hook that records its calls, and a log capture.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use hook_core::{Error, ExecutionHook, HookContext, HookFuture, HookResult};

/// What a [`Scripted`] hook does when it runs.
#[derive(Clone, Debug)]
pub(crate) enum Script {
    /// Answer with this result.
    Answer(HookResult),
    /// Sleep (virtual time under a paused clock), then answer.
    SleepThen(Duration, HookResult),
    /// Return an error.
    Fail(&'static str),
    /// Panic.
    Panic(&'static str),
    /// Answer with `updated_input` = the seen input with `key` set to `value`.
    AppendInput(&'static str, &'static str),
    /// Deny when the seen input has `key`, else allow.
    DenyIfKey(&'static str),
}

/// A hook that follows a script and records every context it saw.
#[derive(Debug)]
pub(crate) struct Scripted {
    pub(crate) id: String,
    pub(crate) script: Script,
    pub(crate) budget: Option<Duration>,
    pub(crate) matches: bool,
    /// What [`ExecutionHook::judges_the_final_input`] answers.
    pub(crate) judges: bool,
    pub(crate) seen: Mutex<Vec<HookContext>>,
}

impl Scripted {
    pub(crate) fn new(id: &str, script: Script) -> Arc<Self> {
        Arc::new(Scripted {
            id: id.to_owned(),
            script,
            budget: None,
            matches: true,
            judges: false,
            seen: Mutex::new(Vec::new()),
        })
    }

    /// A hook whose verdict must hold for the input that finally runs.
    pub(crate) fn judging(id: &str, script: Script) -> Arc<Self> {
        Arc::new(Scripted { judges: true, ..Arc::into_inner(Self::new(id, script)).unwrap() })
    }

    pub(crate) fn with_budget(id: &str, budget: Duration, script: Script) -> Arc<Self> {
        Arc::new(Scripted { budget: Some(budget), ..Arc::into_inner(Self::new(id, script)).unwrap() })
    }

    pub(crate) fn declining(id: &str) -> Arc<Self> {
        Arc::new(Scripted {
            matches: false,
            ..Arc::into_inner(Self::new(id, Script::Answer(HookResult::allow()))).unwrap()
        })
    }

    pub(crate) fn calls(&self) -> usize {
        self.seen.lock().unwrap().len()
    }
}

impl ExecutionHook for Scripted {
    fn id(&self) -> &str {
        &self.id
    }

    fn execution_budget(&self) -> Option<Duration> {
        self.budget
    }

    fn matches(&self, _ctx: &HookContext) -> bool {
        self.matches
    }

    fn judges_the_final_input(&self) -> bool {
        self.judges
    }

    fn execute<'a>(&'a self, ctx: &'a HookContext) -> HookFuture<'a> {
        self.seen.lock().unwrap().push(ctx.clone());
        Box::pin(async move {
            match &self.script {
                Script::Answer(r) => Ok(r.clone()),
                Script::SleepThen(d, r) => {
                    tokio::time::sleep(*d).await;
                    Ok(r.clone())
                }
                Script::Fail(msg) => Err(Error::hook(*msg)),
                Script::Panic(msg) => panic!("{msg}"),
                Script::AppendInput(k, v) => {
                    let mut input = ctx.tool.as_ref().map(|t| t.input.clone()).unwrap_or_default();
                    input[*k] = serde_json::Value::from(*v);
                    Ok(HookResult::allow().with_updated_input(input))
                }
                Script::DenyIfKey(k) => {
                    let has = ctx.tool.as_ref().is_some_and(|t| t.input.get(*k).is_some());
                    Ok(if has { HookResult::deny(format!("{k} is not allowed")) } else { HookResult::allow() })
                }
            }
        })
    }
}

/// Captures formatted log lines for the duration of a test (current-thread runtime).
#[derive(Clone, Default)]
pub(crate) struct Logs(Arc<Mutex<Vec<u8>>>);

impl Logs {
    pub(crate) fn capture() -> (Self, tracing::subscriber::DefaultGuard) {
        let logs = Logs::default();
        let writer = logs.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(move || writer.clone())
            .with_ansi(false)
            .with_max_level(tracing::Level::DEBUG)
            .finish();
        (logs, tracing::subscriber::set_default(subscriber))
    }

    pub(crate) fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }
}

impl std::io::Write for Logs {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
