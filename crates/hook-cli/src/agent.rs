//! `aimon-hooks <client>` (R-CLI-2): one agent call, answered in the client's terms. The call
//! goes to `serve` when it accepts on its socket and proves it is the person's own (R-SRV-5,
//! hook-server's `forward`), else through hook-host's pipeline in this process with [`OneShot`]
//! as its host: the tiers loaded for the call, rewakes written to the store, mail taken from it.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use hook_config::Recording;
use hook_core::{CancellationToken, EventVerdict, HookContext, HookEventType, HookRegistry};
use hook_host::{CallHints, Host, StoreLocation};
use hook_rewake::RewakeStore;
use hook_server::{ForwardHints, Forwarded};
use hook_wire::{Answer, Client, Extras};

use crate::cli::CallArgs;
use crate::env::Env;
use crate::load::{self, Loaded, Scope};
use crate::trust::Trust;

/// The pipeline's host for a call answered in this process.
#[derive(Debug)]
pub(crate) struct OneShot {
    home: Option<PathBuf>,
    /// What the call's hooks record to: the decision log (written once the answer is out, when
    /// the host and the loaded project let go of it) and the audit switch.
    recording: Recording,
}

impl Host for OneShot {
    type Project = Loaded;

    fn home(&self) -> Option<&Path> {
        self.home.as_deref()
    }

    fn open(&self, dir: &Path, event: HookEventType) -> Result<Loaded, String> {
        let tiers = crate::cli::TierArgs { project: Some(dir.to_owned()), home: None };
        load::load_recording(&tiers, &[], false, Scope::Event(event), Trust::Store, self.recording.clone())
            .map_err(|e| format!("{e:#}"))
    }

    fn registry<'a>(&'a self, project: &'a Loaded) -> &'a Arc<HookRegistry> {
        &project.registry
    }

    fn any_withheld(&self, project: &Loaded) -> bool {
        !project.untrusted.is_empty()
    }

    fn trust_command(&self, project: &Loaded) -> String {
        project.gate.command()
    }

    async fn dispatch(&self, project: &Loaded, ctx: &HookContext) -> EventVerdict {
        let engine = crate::rewake::enqueueing(Env::get().engine(project.registry.clone()));
        engine.run_event(ctx, &CancellationToken::new()).await
    }

    fn mailbox(&self) -> Result<Option<Arc<dyn RewakeStore>>, hook_host::Error> {
        StoreLocation::select(Env::get().store.as_deref(), self.home.as_deref())?.open_existing()
    }
}

/// Answers one call of `client` read from stdin: never an `Err`, every failure is answered in
/// the client's terms; once sent to a proven `serve`, the call is never re-run here, and nothing
/// is sent to a peer of the socket that is not proven (it is answered here, with a WARN). `named`: the event
/// the handler was routed for, given on the command line because the payload names none
/// (Copilot's camelCase dialect): the client's wire wraps the payload with it and gives the
/// answer in that dialect's form ([`Client::command_call`], [`Client::command_answer`]).
///
/// Called before anything else is built (PERF-SRV-2): the forwarding path needs only the
/// payload's bytes and one request over the socket, on a runtime of its own with no signal
/// handlers (no hook runs in this process then); the daemon reads the payload. Logging, the
/// signal handlers and the runtime of an in-process call are set up only when no daemon answers.
pub(crate) fn answer(client: Client, args: &CallArgs, named: Option<&str>, verbose: u8) -> u8 {
    let shape = |answer: Answer| client.command_answer(named, answer);
    let (bytes, source) = match crate::payload::bytes(None) {
        Ok((bytes, source)) => (client.command_call(named, &bytes), source),
        Err(e) => {
            let event = named.and_then(|_| client.sniff(&client.command_call(named, b"")));
            return emit(&shape(client.unreadable(event, &format!("{e:#}"))));
        }
    };
    // A failure before the payload is read refuses where the event (found in the bytes) can veto.
    let failed = |error: &str| {
        shape(match client.sniff(&bytes) {
            Some(event) => client.answer(event, Err(error), &Extras::default()).0,
            None => client.unreadable(None, error),
        })
    };
    let base = match Env::get().cwd() {
        Ok(cwd) => cwd.to_path_buf(),
        Err(e) => return emit(&failed(&e.to_string())),
    };
    let client_project_dir = client.project_dir_env().and_then(|name| Env::get().project_dir(name)).map(Path::to_owned);
    let home = crate::cli::TierArgs::default().home_dir();
    let guarded = Env::get().guards_commands(client);
    let no_serve = args.no_serve || Env::get().no_serve;
    let socket = args.socket.clone().or_else(|| home.as_deref().map(hook_server::default_socket));
    let mut unproven = None;
    if let (false, Some(socket), Some(home)) = (no_serve, socket, home.as_deref()) {
        let hints = ForwardHints {
            client_project_dir: client_project_dir.as_deref(),
            base: &base,
            home,
            audit: Env::get().audit,
            guarded,
        };
        match hook_server::forward_blocking(&socket, client, hints, bytes.clone()) {
            Forwarded::Answered(answer) => return emit(&shape(answer)),
            Forwarded::AnsweredWithMail(answer, receipt) => {
                let answer = shape(answer);
                match write(&answer) {
                    Ok(()) => receipt.redeem_blocking(),
                    Err(e) => tracing::debug!("hooks: cannot write the answer ({e}); its session mail comes again"),
                }
                return answer.exit;
            }
            Forwarded::Failed(e) => return emit(&failed(&format!("aimon-hooks serve did not answer: {e}"))),
            Forwarded::Unproven(why) => unproven = Some((socket, why)),
            Forwarded::NotRunning => {}
        }
    }
    crate::logging::init(verbose);
    if let Some((socket, why)) = unproven {
        tracing::warn!(
            "hooks: what listens on {} is not your aimon-hooks serve ({why}); answering here",
            socket.display()
        );
    }
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(e) => return emit(&failed(&format!("cannot start the async runtime: {e}"))),
    };
    // The decision log's line is written when `host` is dropped, after the answer went out.
    let host = OneShot { recording: Env::get().one_shot(home.as_deref()), home };
    let hints = CallHints { explicit: None, client_project_dir: client_project_dir.as_deref(), base: &base, guarded };
    // The client's environment is this process's: its commands read `$TMPDIR` as it does.
    let _tmpdir = hook_predicate::ClientTmpdir::enter(Env::get().tmpdir.as_deref());
    or_refused(
        || {
            let answered = runtime.block_on(crate::signals::or_terminated(async {
                let answered = hook_host::answer_call(&host, client, &bytes, &source, hints).await;
                match (write(&shape(answered.answer.clone())), answered.mail) {
                    (Ok(()), Some(mail)) => crate::rewake::ack(mail),
                    (Err(e), Some(_)) => {
                        tracing::warn!(
                            "hooks: cannot write the answer ({e}); its session mail is delivered again later"
                        );
                    }
                    (Err(e), None) => tracing::debug!("hooks: cannot write the answer: {e}"),
                    (Ok(()), None) => {}
                }
                Ok(answered.answer.exit)
            }));
            answered.unwrap_or_else(|e| emit(&failed(&format!("{e:#}"))))
        },
        &failed,
    )
}

/// Runs `answer_here`. A panic in it (a bug: nothing may panic on a payload) is answered by
/// `failed`, which refuses where the event can veto: exiting 101 would let the call through.
fn or_refused(answer_here: impl FnOnce() -> u8, failed: &dyn Fn(&str) -> Answer) -> u8 {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(answer_here))
        .unwrap_or_else(|_| emit(&failed("aimon-hooks failed while answering this call (an internal error)")))
}

/// Writes the answer's command form and returns its exit code.
fn emit(answer: &Answer) -> u8 {
    if let Err(e) = write(answer) {
        tracing::debug!("hooks: cannot write the answer: {e}");
    }
    answer.exit
}

/// Writes and flushes stdout, then stderr; `Ok` once both are written (session mail the answer
/// carries may then be acknowledged).
fn write(answer: &Answer) -> std::io::Result<()> {
    fn put(mut out: impl std::io::Write, text: &str) -> std::io::Result<()> {
        if !text.is_empty() {
            out.write_all(text.as_bytes())?;
        }
        out.flush()
    }
    put(std::io::stdout().lock(), &answer.stdout)?;
    put(std::io::stderr().lock(), &answer.stderr)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_while_answering_a_pre_tool_use_call_refuses_it() {
        let client = Client::Claude;
        let bytes = br#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git push"}}"#;
        let event = client.sniff(bytes).expect("the event is found in the payload");
        let failed = |error: &str| client.answer(event, Err(error), &Extras::default()).0;
        let refused = failed("x");
        assert_ne!(refused.exit, 0, "a failure refuses a PreToolUse call");
        let exit = or_refused(|| panic!("a bug in the analyser"), &failed);
        assert_eq!(exit, refused.exit);
        assert_eq!(or_refused(|| 0, &failed), 0, "no panic: the answer stands");
    }
}
