//! Running the command: its own process group, one-line stdin, bounded capture while the pipes
//! keep draining, the group killed whole when the call is dropped (R-ACT-SH-2b/5/6, R-EXEC-5).

use std::path::Path;
use std::process::{ExitStatus, Stdio};

use hook_core::{HookContext, HookEventType};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::{ChildStdin, Command};

use crate::answer::{Answer, Reply};
use crate::payload::Payload;
use crate::shell::{ShellSpec, groups};

/// Each of stdout and stderr keeps at most this many bytes; the rest is read and dropped.
pub(crate) const MAX_CAPTURE: usize = 1 << 20;

/// Runs `spec.command` for `ctx`. Dropping the future kills the whole process group.
pub(crate) async fn call(spec: &ShellSpec, ctx: &HookContext, source: &str) -> Reply {
    let payload = Payload::new(ctx, source);
    let command = |dir: Option<&Path>| {
        let mut cmd = Command::new("sh");
        cmd.arg("-c")
            .arg(&spec.command)
            .envs(payload.env())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(true);
        if let Some(dir) = dir {
            cmd.current_dir(dir);
        }
        cmd
    };
    let dir = working_dir(ctx);
    let spawned = command(dir).spawn().or_else(|e| match dir {
        // The directory went away between the look and the spawn: the process's own will do.
        Some(_) => command(None).spawn(),
        None => Err(e),
    });
    let mut child = match spawned {
        Ok(child) => child,
        Err(e) => return Reply::Failed(format!("spawn failure: {e}")),
    };
    // Declared after `child`, so it is dropped first: the group is signalled while its leader is
    // not yet reaped, so the group id cannot have been reused.
    let mut group = GroupGuard::new(child.id().and_then(|id| i32::try_from(id).ok()));
    let (_, stdout, stderr, status) = tokio::join!(
        feed(child.stdin.take(), payload.line()),
        capture(child.stdout.take()),
        capture(child.stderr.take()),
        child.wait(),
    );
    group.disarm();
    match status {
        Ok(status) => classify(ctx.event, status, &stdout, &stderr),
        Err(e) => Reply::Failed(format!("wait failure: {e}")),
    }
}

/// Where the command runs: the context's `cwd`, else the project directory, whichever is a
/// directory (a payload's `cwd` may be gone, a file, or not a path at all); `None` is the
/// process's own working directory. No payload value can keep the hook from starting.
fn working_dir(ctx: &HookContext) -> Option<&Path> {
    [ctx.cwd.as_deref(), ctx.project_dir.as_deref()].into_iter().flatten().find(|dir| dir.is_dir())
}

/// Lists the process group among the live hook groups, and kills it when dropped while armed.
#[derive(Debug)]
struct GroupGuard(Option<i32>);

impl GroupGuard {
    fn new(pgid: Option<i32>) -> Self {
        if let Some(pgid) = pgid {
            groups::register(pgid);
        }
        GroupGuard(pgid)
    }

    /// The call ended: the group is no longer the hook's to kill.
    fn disarm(&mut self) {
        if let Some(pgid) = self.0.take() {
            groups::forget(pgid);
        }
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        if let Some(pgid) = self.0 {
            groups::forget(pgid);
            groups::kill(pgid);
        }
    }
}

async fn feed(stdin: Option<ChildStdin>, line: Vec<u8>) {
    if let Some(mut stdin) = stdin {
        // A command that does not read stdin closes the pipe: that is not an error.
        let _ = stdin.write_all(&line).await;
    }
}

/// Reads `pipe` to its end, keeping the first [`MAX_CAPTURE`] bytes.
async fn capture(pipe: Option<impl AsyncRead + Unpin>) -> Vec<u8> {
    let mut kept = Vec::new();
    let Some(mut pipe) = pipe else { return kept };
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match pipe.read(&mut buf).await {
            Ok(0) | Err(_) => return kept,
            Ok(n) => {
                let room = MAX_CAPTURE - kept.len();
                kept.extend_from_slice(&buf[..n.min(room)]);
            }
        }
    }
}

/// Exit code and stdout → reply (R-ACT-SH-3, R-CC-2).
fn classify(event: HookEventType, status: ExitStatus, stdout: &[u8], stderr: &[u8]) -> Reply {
    let stderr = String::from_utf8_lossy(stderr);
    match (status.code(), stdout_answer(event, stdout)) {
        (Some(2), json) => Reply::Answer(json.unwrap_or_default().veto(&stderr)),
        (Some(0), json) => {
            Reply::Answer(json.unwrap_or_else(|| Answer::from_plain_stdout(&String::from_utf8_lossy(stdout), event)))
        }
        (_, Some(json)) => Reply::Answer(json),
        (Some(code), None) => {
            let first = stderr.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
            Reply::Failed(format!("exited with status {code}{}{first}", if first.is_empty() { "" } else { ": " }))
        }
        (None, None) => Reply::Failed(format!("crashed: {status}")),
    }
}

/// Stdout whose first non-blank character is `{` and that parses as JSON is a decision.
fn stdout_answer(event: HookEventType, stdout: &[u8]) -> Option<Answer> {
    let text = String::from_utf8_lossy(stdout);
    let trimmed = text.trim_start();
    if !trimmed.starts_with('{') {
        if !trimmed.is_empty() {
            tracing::debug!("hook stdout is not JSON; ignored");
        }
        return None;
    }
    match serde_json::from_str(trimmed) {
        Ok(value) => Answer::from_json(&value, event),
        Err(e) => {
            tracing::debug!("hook stdout looks like JSON but does not parse ({e}); ignored");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cwd_that_is_missing_or_a_file_falls_back_to_the_project_then_to_the_process() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let file = tmp.path().join("file");
        std::fs::write(&file, "x").expect("write");
        let missing = tmp.path().join("missing");
        let mut ctx = HookContext::new(HookEventType::PRE_TOOL);
        for cwd in [&missing, &file] {
            ctx.cwd = Some(cwd.clone());
            ctx.project_dir = Some(tmp.path().to_owned());
            assert_eq!(working_dir(&ctx), Some(tmp.path()), "{}", cwd.display());
            ctx.project_dir = Some(missing.clone());
            assert_eq!(working_dir(&ctx), None, "{}", cwd.display());
        }
        ctx.cwd = Some("with\0nul".into());
        ctx.project_dir = None;
        assert_eq!(working_dir(&ctx), None);
    }

    #[tokio::test]
    async fn capture_keeps_the_first_mib_and_drains_the_rest() {
        // R-ACT-SH-6: a 100 MB writer finishes (the pipe keeps draining) and 1 MiB is kept.
        let mut child = Command::new("sh")
            .args(["-c", "head -c 100000000 /dev/zero"])
            .stdout(Stdio::piped())
            .spawn()
            .expect("spawn");
        let kept = capture(child.stdout.take()).await;
        assert_eq!(kept.len(), MAX_CAPTURE);
        assert!(child.wait().await.expect("wait").success());
    }
}
