//! Termination signals (R-CLI-11): SIGTERM, SIGINT or SIGHUP received while a command runs hooks
//! kills the process groups of the hooks it started, and the process exits with 128 + the signal
//! number. (Claude Code stops a timed-out hook with SIGTERM: nothing of it may be left behind.)

use std::future::Future;

use anyhow::Context as _;
use hook_actions::HookProcessGroups;
use tokio::signal::unix::{SignalKind, signal};

/// Runs `command` until it finishes or a termination signal arrives.
pub(crate) async fn or_terminated(command: impl Future<Output = anyhow::Result<u8>>) -> anyhow::Result<u8> {
    let listen = |kind: SignalKind| signal(kind).context("cannot install the signal handlers");
    let mut term = listen(SignalKind::terminate())?;
    let mut int = listen(SignalKind::interrupt())?;
    let mut hup = listen(SignalKind::hangup())?;
    let received = async {
        tokio::select! {
            _ = term.recv() => SignalKind::terminate(),
            _ = int.recv() => SignalKind::interrupt(),
            _ = hup.recv() => SignalKind::hangup(),
        }
    };
    tokio::select! {
        code = command => code,
        kind = received => {
            let killed = HookProcessGroups::kill_all();
            let number = kind.as_raw_value();
            tracing::debug!("hooks: signal {number} received; killed {killed} hook process group(s)");
            Ok(u8::try_from(128 + number).unwrap_or(u8::MAX))
        }
    }
}
