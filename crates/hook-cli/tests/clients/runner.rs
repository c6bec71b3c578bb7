//! One headless session of a real client in a sandbox: a temp HOME and project (everything under
//! the test's temp dir), the client's own settings with a recording hook on each of its events,
//! a [`ScriptedModel`] on a Unix socket, and the client in a network namespace of its own
//! (`unshare -rn`: loopback only) where a small Node.js bridge serves the model's socket on
//! `127.0.0.1:MODEL_PORT`. Nothing the client or its hooks do can reach another address.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::Value;
use tempfile::TempDir;
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::Command;
use tokio::task::JoinHandle;

use crate::model::{Recorded, ScriptedModel, Turn};

/// The longest one session may take. A session takes 3–12 s on an idle machine; the margin is
/// for a loaded 2-core CI runner.
const RUN_TIMEOUT: Duration = Duration::from_secs(240);

/// The port the model answers on, on the loopback of the client's own network namespace (each
/// session has its own namespace, so one fixed port serves them all).
pub(crate) const MODEL_PORT: u16 = 18080;

/// The hook timeout written into every client's settings, in seconds.
pub(crate) const HOOK_TIMEOUT_SECS: u64 = 20;

/// The shell command the scripted model asks for: it leaves a marker file (so a test knows the
/// tool ran) and prints `tool-output`, a text its own command line does not hold (so a test
/// knows the output reached the model).
pub(crate) fn marker_command(root: &Path) -> String {
    format!("touch {} && printf 'tool-%s\\n' output", root.join("tool-ran").display())
}

/// The text the marker command prints.
pub(crate) const TOOL_OUTPUT: &str = "tool-output";

/// A client's names for the events the rows use.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Events {
    pub(crate) session_start: &'static str,
    pub(crate) prompt: &'static str,
    /// Before a tool runs (PreToolUse-equivalent).
    pub(crate) pre_tool: &'static str,
    /// After a tool ran (PostToolUse-equivalent).
    pub(crate) post_tool: &'static str,
    pub(crate) stop: &'static str,
    pub(crate) session_end: &'static str,
}

impl Events {
    pub(crate) fn all(&self) -> [&'static str; 6] {
        [self.session_start, self.prompt, self.pre_tool, self.post_tool, self.stop, self.session_end]
    }
}

/// How one client is installed, configured, trusted and run headless.
#[derive(Debug)]
pub(crate) struct Client {
    pub(crate) name: &'static str,
    pub(crate) events: Events,
    /// The client's executable, installed on first use.
    pub(crate) install: fn() -> PathBuf,
    /// Writes the client's settings in the sandbox: the scripted model as its endpoint, a
    /// `command` hook per `(event, command)` in the PROJECT's own hooks file, and, when `trusted`,
    /// the trust a script can give those project hooks.
    pub(crate) configure: fn(&Sandbox, &[(&'static str, String)], bool),
    /// The arguments and environment of one headless session in the project.
    pub(crate) invocation: fn(&Sandbox) -> Invocation,
    /// A pre-tool answer that denies in the client's own form.
    pub(crate) deny: fn(&str) -> Value,
    /// A post-tool answer that adds `text` as context for the model, in the client's own form.
    pub(crate) post_context: fn(&str) -> Value,
    /// The client's documented behaviour when a pre-tool hook exits 1: `true` when the call is
    /// blocked (fail closed), `false` when it runs (fail open).
    pub(crate) crash_blocks: bool,
    /// Whether the stderr of a pre-tool hook that exits 2 reaches the model as the reason.
    pub(crate) exit2_reason_reaches_model: bool,
}

/// One headless session's command line.
#[derive(Debug, Default)]
pub(crate) struct Invocation {
    pub(crate) args: Vec<String>,
    pub(crate) env: Vec<(String, String)>,
}

/// What the recording hook does for one event after saving its stdin.
#[derive(Debug, Clone)]
pub(crate) enum Answer {
    /// Print this on stdout and exit 0.
    Print(String),
    /// Write `stderr` and exit with `code`.
    Exit { code: i32, stderr: String },
}

/// The sandbox's directories, handed to a client's `configure` and `invocation`.
#[derive(Debug)]
pub(crate) struct Sandbox {
    pub(crate) root: PathBuf,
}

impl Sandbox {
    pub(crate) fn home(&self) -> PathBuf {
        self.root.join("home")
    }

    pub(crate) fn project(&self) -> PathBuf {
        self.root.join("project")
    }

    /// The model's base URL as the client sees it, without a path.
    pub(crate) fn model_url(&self) -> String {
        format!("http://127.0.0.1:{MODEL_PORT}")
    }
}

/// A session being set up: answers, trust and the script are added, then [`run`].
///
/// [`run`]: Scenario::run
#[derive(Debug)]
pub(crate) struct Scenario {
    client: &'static Client,
    dir: TempDir,
    sandbox: Sandbox,
    turns: Vec<Turn>,
    trusted: bool,
    hooks: bool,
    /// Instead of the recording hook: this `.aimon/hooks.json`, behind `aimon-hooks <client>` as
    /// `aimon-hooks init <client> --project` routes it.
    aimon: Option<Value>,
    /// Run the whole client under `aimon-hooks guard` (the project's `.aimon/hooks.json` rules
    /// checked at every exec of its process tree).
    guarded: bool,
}

impl Scenario {
    pub(crate) fn new(client: &'static Client) -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        // Canonical, so the paths the test builds are the ones the client reports.
        let root = dir.path().canonicalize().expect("canonical temp dir");
        for sub in ["home", "project", "calls", "answers"] {
            std::fs::create_dir_all(root.join(sub)).expect("sandbox dirs");
        }
        let turns = vec![Turn::Shell(marker_command(&root)), Turn::text("scripted-model: done")];
        Scenario {
            client,
            dir,
            sandbox: Sandbox { root },
            turns,
            trusted: true,
            hooks: true,
            aimon: None,
            guarded: false,
        }
    }

    /// The sandbox root (the marker file and the hook's records live there).
    pub(crate) fn root(&self) -> &Path {
        &self.sandbox.root
    }

    /// What the recording hook answers on `event` (every other event: exit 0, no output).
    pub(crate) fn answer(self, event: &str, answer: Answer) -> Self {
        let base = self.sandbox.root.join("answers").join(event);
        let (stdout, stderr, code) = match answer {
            Answer::Print(text) => (text, String::new(), 0),
            Answer::Exit { code, stderr } => (String::new(), stderr, code),
        };
        write(&base.with_extension("stdout"), &stdout);
        write(&base.with_extension("stderr"), &stderr);
        write(&base.with_extension("exit"), &code.to_string());
        self
    }

    /// Leave the project's hooks untrusted (no trust recipe applied).
    pub(crate) fn untrusted(mut self) -> Self {
        self.trusted = false;
        self
    }

    /// The project's `.aimon/hooks.json` is `hooks`, run by `aimon-hooks <client>` in the settings
    /// `aimon-hooks init <client> --project` writes (the recording hook is not installed).
    pub(crate) fn aimon(mut self, hooks: Value) -> Self {
        self.aimon = Some(hooks);
        self
    }

    /// The client itself runs under `aimon-hooks guard --project <project> --home <home> --`.
    pub(crate) fn guarded(mut self) -> Self {
        self.guarded = true;
        self
    }

    /// No hooks at all (the baseline of the cost measurement).
    pub(crate) fn without_hooks(mut self) -> Self {
        self.hooks = false;
        self
    }

    /// What the model answers, one [`Turn`] per agent request (default: the marker command, then
    /// a text).
    pub(crate) fn model(mut self, turns: Vec<Turn>) -> Self {
        self.turns = turns;
        self
    }

    /// Writes the settings, starts the model, runs the client once in its own network namespace
    /// and returns what happened. Panics, showing everything seen, when the client does not
    /// finish within [`RUN_TIMEOUT`].
    pub(crate) async fn run(self) -> Run {
        let client = self.client;
        let bin = tokio::task::spawn_blocking(client.install)
            .await
            .unwrap_or_else(|failed| std::panic::resume_unwind(failed.into_panic()));
        let root = self.sandbox.root.clone();
        let hook = root.join("hook.sh");
        write(&hook, &recording_hook(&root));
        let hooks: Vec<(&'static str, String)> = if self.hooks && self.aimon.is_none() {
            client.events.all().into_iter().map(|event| (event, format!("sh {} {event}", hook.display()))).collect()
        } else {
            Vec::new()
        };
        // Behind aimon-hooks the client always trusts the folder; `untrusted` is then our own gate.
        (client.configure)(&self.sandbox, &hooks, self.trusted || self.aimon.is_some());
        let invocation = (client.invocation)(&self.sandbox);
        if let Some(policy) = &self.aimon {
            init_aimon(client.name, &self.sandbox, policy, self.trusted, &invocation);
        }
        let launcher = root.join("netns-launch.js");
        write(&launcher, LAUNCHER);
        let model = ScriptedModel::start(&root.join("model.sock"), self.turns.clone()).await;

        let mut cmd = Command::new("unshare");
        // `ip` lives in /usr/sbin, which a user's PATH may lack.
        let script = "PATH=\"$PATH:/usr/sbin:/sbin\" ip link set lo up && exec node \"$0\" \"$@\"";
        cmd.args(["-rn", "sh", "-c", script])
            .arg(&launcher)
            .arg(model.socket())
            .arg(MODEL_PORT.to_string())
            .args(
                self.guarded
                    .then(|| {
                        let (project, home) = (self.sandbox.project(), self.sandbox.home());
                        [
                            env!("CARGO_BIN_EXE_aimon-hooks").as_ref(),
                            "guard".as_ref(),
                            "--project".as_ref(),
                            project.as_os_str(),
                        ]
                        .into_iter()
                        .chain(["--home".as_ref(), home.as_os_str(), "--".as_ref()])
                        .map(std::ffi::OsStr::to_owned)
                        .collect::<Vec<_>>()
                    })
                    .into_iter()
                    .flatten(),
            )
            .arg(&bin)
            .args(&invocation.args)
            .current_dir(self.sandbox.project())
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.sandbox.home())
            .env("LANG", "C.UTF-8")
            .envs(invocation.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(true);
        let started = Instant::now();
        let mut child =
            cmd.spawn().unwrap_or_else(|e| panic!("cannot start unshare (util-linux) for {}: {e}", client.name));
        let group = child.id();
        let stdout = read_all(child.stdout.take());
        let stderr = read_all(child.stderr.take());
        let status = tokio::time::timeout(RUN_TIMEOUT, child.wait()).await;
        let elapsed = started.elapsed();
        // The client and everything it left behind (a hung hook, the bridge) go with the group.
        if let Some(group) = group.and_then(|pid| i32::try_from(pid).ok()) {
            let _ = nix::sys::signal::killpg(nix::unistd::Pid::from_raw(group), nix::sys::signal::Signal::SIGKILL);
        }
        let timed_out = status.is_err();
        let run = Run {
            client: client.name,
            code: status.ok().and_then(|s| s.ok()).and_then(|s| s.code()),
            stdout: collect(stdout).await,
            stderr: collect(stderr).await,
            elapsed,
            requests: model.requests(),
            root,
            _dir: self.dir,
        };
        run.check(!timed_out, format_args!("{} did not finish within {RUN_TIMEOUT:?}", client.name));
        if std::env::var_os("AIMON_CLIENT_EXPLAIN").is_some() {
            eprintln!("{}", run.explain());
        }
        run
    }
}

/// A finished session: what the client printed, what it sent the model, what its hooks saw.
#[derive(Debug)]
pub(crate) struct Run {
    client: &'static str,
    pub(crate) code: Option<i32>,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
    /// Wall time of the client process.
    pub(crate) elapsed: Duration,
    requests: Vec<Recorded>,
    root: PathBuf,
    _dir: TempDir,
}

impl Run {
    /// Panics with `what` and everything seen unless `ok`.
    pub(crate) fn check(&self, ok: bool, what: impl std::fmt::Display) {
        assert!(ok, "{what}\n{}", self.explain());
    }

    /// Whether the scripted shell call ran (its marker file exists).
    pub(crate) fn tool_ran(&self) -> bool {
        self.root.join("tool-ran").exists()
    }

    /// The requests that offered tools (the agent loop), without side calls.
    pub(crate) fn agent_requests(&self) -> Vec<&Recorded> {
        self.requests.iter().filter(|r| r.offers_tools()).collect()
    }

    /// Whether `text` occurs in the conversation of any agent request (tool results, hook
    /// context, deny reasons).
    pub(crate) fn model_saw(&self, text: &str) -> bool {
        self.agent_requests().iter().any(|r| r.conversation().iter().any(|s| s.contains(text)))
    }

    /// Every hook call in order: the event it was configured for and the stdin it got (parsed,
    /// or the text as a string when it is not JSON).
    pub(crate) fn hook_calls(&self) -> Vec<(String, String)> {
        std::fs::read_to_string(self.root.join("calls.log"))
            .unwrap_or_default()
            .lines()
            .filter_map(|line| line.split_once(' '))
            .map(|(event, file)| {
                let stdin = std::fs::read_to_string(self.root.join("calls").join(file)).unwrap_or_default();
                (event.to_owned(), stdin)
            })
            .collect()
    }

    /// The stdin of every call of the hook on `event`, parsed.
    pub(crate) fn payloads(&self, event: &str) -> Vec<Value> {
        self.hook_calls()
            .into_iter()
            .filter(|(e, _)| e == event)
            .map(|(_, stdin)| serde_json::from_str(&stdin).unwrap_or(Value::String(stdin)))
            .collect()
    }

    /// Saves the first stdin seen on each event as `<dir>/<event>.json`, verbatim.
    pub(crate) fn save_payloads(&self, dir: &Path) {
        std::fs::create_dir_all(dir).unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
        let mut seen = std::collections::BTreeSet::new();
        for (event, stdin) in self.hook_calls() {
            if seen.insert(event.clone()) {
                write(&dir.join(format!("{event}.json")), &stdin);
            }
        }
    }

    /// Everything seen, for a failure message: exit, output, hook calls, and each request's
    /// conversation (long texts cut).
    pub(crate) fn explain(&self) -> String {
        let mut out = format!(
            "--- {} exit: {:?} after {:?}\n--- stdout:\n{}\n--- stderr:\n{}\n--- tool ran: {}\n",
            self.client,
            self.code,
            self.elapsed,
            cut(&self.stdout, 4000),
            cut(&self.stderr, 4000),
            self.tool_ran()
        );
        for (event, stdin) in self.hook_calls() {
            let _ = writeln!(out, "--- hook {event}: {}", cut(&stdin, 300));
        }
        for (i, request) in self.requests.iter().enumerate() {
            let kind = if request.offers_tools() { "agent" } else { "side call" };
            let _ = writeln!(out, "--- request {i}: {} {} ({kind})", request.method, request.path);
            for text in request.conversation() {
                let _ = writeln!(out, "  {}", cut(text, 300));
            }
        }
        out
    }
}

/// Writes the project's `.aimon/hooks.json` and runs `aimon-hooks init <client> --project` in it.
/// With `trusted`, `aimon-hooks trust --project` trusts its hooks.
fn init_aimon(client: &str, sandbox: &Sandbox, policy: &Value, trusted: bool, invocation: &Invocation) {
    let project = sandbox.project();
    write(&project.join(".aimon/hooks.json"), &serde_json::to_string_pretty(policy).expect("json"));
    let mut commands = vec![vec!["init", client, "--project"]];
    if trusted {
        commands.push(vec!["trust", "--project", "."]);
    }
    for args in commands {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_aimon-hooks"))
            .args(&args)
            .current_dir(&project)
            .env("HOME", sandbox.home())
            .envs(invocation.env.iter().map(|(k, v)| (k, v)))
            .output()
            .expect("aimon-hooks runs");
        assert!(out.status.success(), "aimon-hooks {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
}

/// The recording hook: `sh hook.sh EVENT` saves its stdin under `calls/`, logs the call in
/// `calls.log`, then answers as `answers/EVENT.{stdout,stderr,exit}` say (none: exit 0, silent).
fn recording_hook(root: &Path) -> String {
    format!(
        r#"#!/bin/sh
root='{root}'
event="$1"
file=$(mktemp "$root/calls/$event.XXXXXX")
cat > "$file"
printf '%s %s\n' "$event" "$(basename "$file")" >> "$root/calls.log"
answer="$root/answers/$event"
[ -f "$answer.stdout" ] && cat "$answer.stdout"
[ -f "$answer.stderr" ] && cat "$answer.stderr" >&2
[ -f "$answer.exit" ] && exit "$(cat "$answer.exit")"
exit 0
"#,
        root = root.display()
    )
}

/// Runs inside the client's network namespace: serves the model's Unix socket on
/// 127.0.0.1:PORT, then runs the client and exits with its status.
const LAUNCHER: &str = r#"'use strict';
const net = require('net');
const { spawn } = require('child_process');
const [socket, port, command, ...args] = process.argv.slice(2);
const bridge = net.createServer((tcp) => {
  const unix = net.connect(socket);
  tcp.pipe(unix);
  unix.pipe(tcp);
  tcp.on('error', () => unix.destroy());
  unix.on('error', () => tcp.destroy());
});
bridge.listen(Number(port), '127.0.0.1', () => {
  const child = spawn(command, args, { stdio: 'inherit' });
  child.on('error', (e) => { console.error(`cannot start ${command}: ${e.message}`); process.exit(127); });
  child.on('exit', (code, signal) => process.exit(code === null ? 128 : code));
});
"#;

fn read_all(pipe: Option<impl AsyncRead + Unpin + Send + 'static>) -> JoinHandle<Vec<u8>> {
    tokio::spawn(async move {
        let mut buf = Vec::new();
        if let Some(mut pipe) = pipe {
            // A read error ends the capture; what was read so far is kept.
            let _ = pipe.read_to_end(&mut buf).await;
        }
        buf
    })
}

/// The captured bytes, or a note when a stray grandchild keeps the pipe open.
async fn collect(reader: JoinHandle<Vec<u8>>) -> String {
    match tokio::time::timeout(Duration::from_secs(10), reader).await {
        Ok(Ok(bytes)) => String::from_utf8_lossy(&bytes).into_owned(),
        _ => "(output not captured: the pipe stayed open)".to_owned(),
    }
}

fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

pub(crate) fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
}
