//! One headless Claude Code session in a sandbox: a temp HOME, a temp project whose Claude Code
//! settings route its events to aimon-hooks along one [`Route`] (both with `aimon-hooks serve`
//! running for that HOME), a fake `git` first on PATH that records its calls, and a
//! [`ScriptedModel`] behind `ANTHROPIC_BASE_URL`. [`on_both_routes`] makes one test per route.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::Value;
use tempfile::TempDir;
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::Command;
use tokio::task::JoinHandle;

use crate::install::claude_code;
use crate::model::{Recorded, ScriptedModel, Turn};
use crate::serve_process::{serve_command, wait_until};

/// The longest one Claude Code session may take. A session takes about a second on an idle
/// machine; the margin is for a loaded 2-core CI runner.
const RUN_TIMEOUT: Duration = Duration::from_secs(240);

/// How Claude Code reaches the hooks; each test runs once per route ([`on_both_routes`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Route {
    /// `command` handlers running `aimon-hooks claude` (`init claude --project`), which forwards
    /// each call to the running `serve` over its socket.
    Command,
    /// `http` handlers posting to the running `serve` over TCP with its token
    /// (`init claude --project --http`).
    Http,
}

/// One `#[tokio::test]` per [`Route`] for each `async fn name(route: Route)` named, in the
/// modules `command` and `http`: `gates::http::a_git_push_…`.
macro_rules! on_both_routes {
    ($($name:ident),* $(,)?) => {
        mod command {
            $(
                #[tokio::test(flavor = "multi_thread")]
                async fn $name() {
                    super::$name($crate::runner::Route::Command).await;
                }
            )*
        }
        mod http {
            $(
                #[tokio::test(flavor = "multi_thread")]
                async fn $name() {
                    super::$name($crate::runner::Route::Http).await;
                }
            )*
        }
    };
}
pub(crate) use on_both_routes;

/// Routes every Claude Code event of `project` to aimon-hooks the way a person does, run in the
/// project with `home` as HOME: `aimon-hooks init claude --project`, with `--http --fail-open
/// --url URL` for the http route.
fn route_events_to_aimon(project: &Path, home: &Path, http: Option<&str>) {
    let mut init = std::process::Command::new(env!("CARGO_BIN_EXE_aimon-hooks"));
    init.args(["init", "claude", "--project"]);
    if let Some(url) = http {
        init.args(["--http", "--fail-open", "--url", url]);
    }
    let out = init.current_dir(project).env("HOME", home).output().expect("aimon-hooks init claude runs");
    let file = if http.is_some() { "settings.local.json" } else { "settings.json" };
    assert!(
        out.status.success() && project.join(".claude").join(file).exists(),
        "aimon-hooks init claude --project failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `aimon-hooks serve` for one sandbox's HOME (its socket, and TCP on `port` when given), killed
/// when dropped.
#[derive(Debug)]
pub(crate) struct Daemon {
    child: std::process::Child,
    socket: PathBuf,
}

impl Daemon {
    pub(crate) fn start(home: &Path, project: &Path, port: Option<u16>) -> Daemon {
        let listen = port.map(|port| format!("127.0.0.1:{port}"));
        let args: Vec<&str> = listen.iter().flat_map(|address| ["--listen", address.as_str()]).collect();
        let child = serve_command(Path::new(env!("CARGO_BIN_EXE_aimon-hooks")), home, project, &args)
            .env("AIMON_TRUST_PROJECT_HOOKS", "1")
            .spawn()
            .expect("aimon-hooks serve starts");
        let socket = home.join(".aimon/serve.sock");
        wait_until(Duration::from_secs(20), &format!("serve did not listen on {}", socket.display()), || {
            std::os::unix::net::UnixStream::connect(&socket).is_ok()
                && port.is_none_or(|port| std::net::TcpStream::connect(("127.0.0.1", port)).is_ok())
        });
        Daemon { child, socket }
    }

    /// How many `/v1/claude` calls the daemon answered, by its `/metrics`.
    pub(crate) fn claude_calls(&self) -> u64 {
        use std::io::{Read as _, Write as _};
        let mut stream = std::os::unix::net::UnixStream::connect(&self.socket).expect("the daemon's socket");
        stream.write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").expect("ask /metrics");
        let mut text = String::new();
        stream.read_to_string(&mut text).expect("read /metrics");
        text.lines()
            .filter(|l| l.starts_with("hook_server_requests_total{route=\"/v1/claude\""))
            .filter_map(|l| l.rsplit(' ').next()?.parse::<u64>().ok())
            .sum()
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").expect("bind").local_addr().expect("addr").port()
}

/// A session being set up: the sandbox exists, hooks and the script are added, then [`run`].
///
/// [`run`]: Scenario::run
#[derive(Debug)]
pub(crate) struct Scenario {
    dir: TempDir,
    root: PathBuf,
    turns: Vec<Turn>,
    route: Route,
    port: Option<u16>,
    /// `--allowedTools Bash Write` (true unless [`Scenario::default_permissions`]).
    allowed_tools: bool,
}

impl Scenario {
    pub(crate) fn new(route: Route) -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        // Canonical, so the paths the test builds are the ones Claude Code reports.
        let root = dir.path().canonicalize().expect("canonical temp dir");
        for sub in ["home", "project", "bin"] {
            std::fs::create_dir_all(root.join(sub)).expect("sandbox dirs");
        }
        let calls = root.join("git-calls");
        let git = root.join("bin/git");
        // It answers the guard's own questions as a git with no aliases would (no exec-path of
        // its own, its builtins, `config --get alias.*` unset: exit 1), unrecorded: they are not
        // the tools' calls.
        write(
            &git,
            &format!(
                "#!/bin/sh\ncase \"$*\" in --exec-path) echo /nonexistent; exit 0;; --list-cmds=builtins) printf 'push\\nstatus\\n'; exit 0;; 'config --get alias.'*) exit 1;; esac\n\
                 printf '%s\\n' \"$*\" >> '{}'\necho \"fake-git-output: $*\"\n",
                calls.display()
            ),
        );
        make_executable(&git);
        let port = (route == Route::Http).then(free_port);
        let url = port.map(|port| format!("http://127.0.0.1:{port}/v1/claude"));
        route_events_to_aimon(&root.join("project"), &root.join("home"), url.as_deref());
        Scenario { dir, root, turns: Vec::new(), route, port, allowed_tools: true }
    }

    pub(crate) fn project(&self) -> PathBuf {
        self.root.join("project")
    }

    /// The HOME Claude Code (and so every hook it runs) sees.
    pub(crate) fn home(&self) -> PathBuf {
        self.root.join("home")
    }

    /// `<project>/.aimon/hooks.json`.
    pub(crate) fn project_hooks(self, hooks: &Value) -> Self {
        self.project_hooks_text(&serde_json::to_string_pretty(hooks).expect("json"))
    }

    /// `<project>/.aimon/hooks.json` with exactly this text (which need not parse).
    pub(crate) fn project_hooks_text(self, text: &str) -> Self {
        write(&self.project().join(".aimon/hooks.json"), text);
        self
    }

    /// `<home>/.aimon/hooks.json` (the USER tier).
    pub(crate) fn user_hooks(self, hooks: &Value) -> Self {
        write(&self.root.join("home/.aimon/hooks.json"), &serde_json::to_string_pretty(hooks).expect("json"));
        self
    }

    /// Every Bash command run under `aimon-hooks guard` (`init claude --project --guard`), with the
    /// parse-time PreToolUse route taken out again, so only the guard stands between the model's
    /// commands and the rules (every other event still reaches the daemon).
    pub(crate) fn guard_only(self) -> Self {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_aimon-hooks"))
            .args(["init", "claude", "--project", "--guard"])
            .current_dir(self.project())
            .env("HOME", self.home())
            .output()
            .expect("aimon-hooks init claude --guard runs");
        assert!(out.status.success(), "init claude --guard failed: {}", String::from_utf8_lossy(&out.stderr));
        let file = self.project().join(".claude/settings.json");
        let mut settings: Value =
            serde_json::from_str(&std::fs::read_to_string(&file).expect("settings")).expect("settings JSON");
        let prefix = settings["env"]["CLAUDE_CODE_SHELL_PREFIX"].as_str().unwrap_or_default().to_owned();
        assert!(prefix.ends_with("aimon-hooks --guard"), "no guard prefix in {settings}");
        settings["hooks"].as_object_mut().expect("hooks").remove("PreToolUse");
        write(&file, &serde_json::to_string_pretty(&settings).expect("json"));
        self
    }

    /// The project's Claude Code settings without their route for `event` (the one `init claude`
    /// wrote), so Claude Code never calls aimon-hooks on it.
    pub(crate) fn unrouted(self, event: &str) -> Self {
        let name = if self.route == Route::Http { "settings.local.json" } else { "settings.json" };
        let file = self.project().join(".claude").join(name);
        let mut settings: Value =
            serde_json::from_str(&std::fs::read_to_string(&file).expect("settings")).expect("settings JSON");
        let removed = settings["hooks"].as_object_mut().and_then(|hooks| hooks.remove(event));
        assert!(removed.is_some(), "init claude routed no {event} in {settings}");
        write(&file, &serde_json::to_string_pretty(&settings).expect("json"));
        self
    }

    /// Claude Code in its default permission mode: no tool pre-approved (`--allowedTools` left
    /// out), so a call no hook allows and Claude Code does not approve on its own is a permission
    /// denial in a `-p` session.
    pub(crate) fn default_permissions(mut self) -> Self {
        self.allowed_tools = false;
        self
    }

    /// What the model answers, one [`Turn`] per agent request.
    pub(crate) fn model(mut self, turns: Vec<Turn>) -> Self {
        self.turns = turns;
        self
    }

    /// Runs `claude -p "do the task" --output-format json --allowedTools Bash Write` in the
    /// project, with `aimon-hooks serve` running for the sandbox's HOME. Panics, showing
    /// everything seen, when Claude Code times out, fails or prints something other than its
    /// JSON result.
    pub(crate) async fn run(self) -> Run {
        let daemon = Daemon::start(&self.home(), &self.project(), self.port);
        let sandbox =
            Sandbox { root: self.root, route: self.route, daemon, dir: self.dir, allowed_tools: self.allowed_tools };
        sandbox.session("do the task", None, self.turns).await
    }
}

/// What outlives one `claude -p` session: the temp dirs, the route, the running daemon.
#[derive(Debug)]
struct Sandbox {
    root: PathBuf,
    route: Route,
    daemon: Daemon,
    dir: TempDir,
    allowed_tools: bool,
}

impl Sandbox {
    /// One `claude -p PROMPT` in the project (`--resume ID` when given), its model answering
    /// `turns`.
    async fn session(self, prompt: &str, resume: Option<&str>, turns: Vec<Turn>) -> Run {
        let claude = tokio::task::spawn_blocking(claude_code)
            .await
            .unwrap_or_else(|failed| std::panic::resume_unwind(failed.into_panic()));
        let model = ScriptedModel::start_tcp(turns).await;
        let served_before = self.daemon.claude_calls();
        let path = std::env::var_os("PATH").unwrap_or_default();
        let path = std::env::join_paths(std::iter::once(self.root.join("bin")).chain(std::env::split_paths(&path)))
            .expect("PATH");
        let mut cmd = Command::new(claude);
        cmd.args(["-p", prompt, "--output-format", "json"]);
        if self.allowed_tools {
            cmd.args(["--allowedTools", "Bash", "Write"]);
        }
        if let Some(id) = resume {
            cmd.args(["--resume", id]);
        }
        cmd.current_dir(self.root.join("project"))
            .env_clear()
            .env("PATH", path)
            .env("HOME", self.root.join("home"))
            .env("ANTHROPIC_BASE_URL", model.base_url())
            .env("ANTHROPIC_API_KEY", "sk-test")
            .env("DISABLE_TELEMETRY", "1")
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .env("DISABLE_AUTOUPDATER", "1")
            .env("AIMON_TRUST_PROJECT_HOOKS", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        let started = Instant::now();
        let mut child = cmd.spawn().unwrap_or_else(|e| panic!("cannot start {}: {e}", claude.display()));
        let stdout = read_all(child.stdout.take());
        let stderr = read_all(child.stderr.take());
        let status = tokio::time::timeout(RUN_TIMEOUT, child.wait()).await;
        let timed_out = status.is_err();
        if timed_out {
            child.kill().await.ok();
        }
        let mut run = Run {
            root: self.root,
            code: status.ok().and_then(|s| s.ok()).and_then(|s| s.code()),
            stdout: collect(stdout).await,
            stderr: collect(stderr).await,
            elapsed: started.elapsed(),
            requests: model.requests(),
            result: Value::Null,
            route: self.route,
            served: self.daemon.claude_calls().saturating_sub(served_before),
            daemon: self.daemon,
            dir: self.dir,
        };
        run.check(!timed_out, format_args!("Claude Code did not finish within {RUN_TIMEOUT:?}"));
        run.check(run.code == Some(0), "Claude Code exited with a failure");
        run.check(run.served > 0, "the daemon answered no call: the hooks were not reached through it");
        // Read as Claude Code meant it: the result may echo a tool input holding a lone surrogate.
        run.result = match run.stdout.trim() {
            "" => Value::Null,
            text => hook_wire::parse_payload(text, "Claude Code's stdout").map_or(Value::Null, Value::Object),
        };
        run.check(run.result.is_object(), "Claude Code's stdout is not its JSON result");
        run
    }
}

/// A finished session: what Claude Code printed, what it sent the model, what its tools did.
#[derive(Debug)]
pub(crate) struct Run {
    root: PathBuf,
    code: Option<i32>,
    stdout: String,
    stderr: String,
    /// Wall time of the `claude` process.
    pub(crate) elapsed: Duration,
    requests: Vec<Recorded>,
    /// Claude Code's `--output-format json` result object.
    pub(crate) result: Value,
    /// The route the hooks were reached by.
    pub(crate) route: Route,
    /// How many `/v1/claude` calls the daemon answered (forwarded or posted) in this session.
    pub(crate) served: u64,
    daemon: Daemon,
    dir: TempDir,
}

impl Run {
    /// Continues this session the way a person does the next day: `claude -p PROMPT --resume
    /// <its session_id>` in the same sandbox, with the same daemon still running, a new model
    /// answering `turns`.
    pub(crate) async fn resume(self, prompt: &str, turns: Vec<Turn>) -> Run {
        let id = self.result["session_id"].as_str().map(str::to_owned);
        self.check(id.is_some(), "Claude Code's result names no session_id to resume");
        let sandbox =
            Sandbox { root: self.root, route: self.route, daemon: self.daemon, dir: self.dir, allowed_tools: true };
        sandbox.session(prompt, id.as_deref(), turns).await
    }

    /// Waits (at most `within`) until the store holds no pending rewake envelope
    /// (`aimon-hooks rewake list --json` prints none): every rewake of the sandbox has fired and
    /// its answer has been posted to the session's mailbox.
    pub(crate) fn wait_until_no_rewake_is_pending(&self, within: Duration) {
        let pending = || {
            let out = std::process::Command::new(env!("CARGO_BIN_EXE_aimon-hooks"))
                .args(["rewake", "list", "--json"])
                .current_dir(self.project())
                .env("HOME", self.home())
                .output()
                .expect("aimon-hooks rewake list runs");
            let rows: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
            rows.as_array().map_or(usize::MAX, Vec::len)
        };
        let started = Instant::now();
        while pending() != 0 {
            self.check(started.elapsed() < within, format_args!("a rewake was still pending after {within:?}"));
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// The sandbox's project (its transcripts are under [`Run::home`]'s `.claude/projects/`).
    pub(crate) fn project(&self) -> PathBuf {
        self.root.join("project")
    }

    /// The sandbox's HOME.
    pub(crate) fn home(&self) -> PathBuf {
        self.root.join("home")
    }

    /// Panics with `what` and everything seen unless `ok`.
    pub(crate) fn check(&self, ok: bool, what: impl std::fmt::Display) {
        assert!(ok, "{what}\n{}", self.explain());
    }

    /// The arguments of every `git` call the tools made, one string per call. Claude Code's own
    /// probes (it asks `git ls-files` whether `settings.local.json` is tracked, with hooks and
    /// fsmonitor switched off) are not the tools' calls and are left out.
    pub(crate) fn git_calls(&self) -> Vec<String> {
        std::fs::read_to_string(self.root.join("git-calls"))
            .unwrap_or_default()
            .lines()
            .filter(|call| !call.starts_with("-c core.hooksPath=/dev/null "))
            .map(str::to_owned)
            .collect()
    }

    /// The requests that offered tools (the agent loop), without side calls.
    pub(crate) fn agent_requests(&self) -> Vec<&Recorded> {
        self.requests.iter().filter(|r| r.offers_tools()).collect()
    }

    /// Whether `text` occurs in any string of any agent request's `messages` (tool results,
    /// system reminders, injected system messages).
    pub(crate) fn model_saw(&self, text: &str) -> bool {
        self.agent_requests().iter().any(|r| strings(&r.body["messages"]).iter().any(|s| s.contains(text)))
    }

    /// The `tool_name`s of Claude Code's `permission_denials`.
    pub(crate) fn denied_tools(&self) -> Vec<String> {
        self.result["permission_denials"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|d| d["tool_name"].as_str().map(str::to_owned))
            .collect()
    }

    /// Everything seen, for a failure message: exit, stdout, stderr, and each request with its
    /// messages (long texts cut).
    fn explain(&self) -> String {
        let mut out = format!(
            "--- route: {:?}; calls the daemon answered: {}\n--- claude exit: {:?} after {:?}\n--- stdout:\n{}\n--- stderr:\n{}\n--- git calls: {:?}\n",
            self.route,
            self.served,
            self.code,
            self.elapsed,
            self.stdout,
            self.stderr,
            self.git_calls()
        );
        for (i, request) in self.requests.iter().enumerate() {
            let kind = if request.offers_tools() { "agent" } else { "side call" };
            let _ = writeln!(out, "--- request {i}: {} ({kind})", request.path);
            for message in request.body["messages"].as_array().into_iter().flatten() {
                let role = message["role"].as_str().unwrap_or("?");
                let blocks = match &message["content"] {
                    Value::Array(blocks) => blocks.iter().map(describe).collect(),
                    other => vec![describe(other)],
                };
                for block in blocks {
                    let _ = writeln!(out, "  [{role}] {}", cut(&block, 400));
                }
            }
        }
        out
    }
}

/// One content block as a line: its text, a tool call with its input, a tool result with its
/// content.
fn describe(block: &Value) -> String {
    match block["type"].as_str() {
        Some("tool_use") => format!("tool_use {} {}", block["name"].as_str().unwrap_or("?"), block["input"]),
        Some("tool_result") => {
            let error = if block["is_error"] == true { " (is_error)" } else { "" };
            format!("tool_result{error}: {}", strings(&block["content"]).join(" "))
        }
        _ => strings(block).into_iter().filter(|s| !matches!(*s, "text" | "ephemeral")).collect::<Vec<_>>().join(" "),
    }
}

/// Every string inside `value`, depth first.
fn strings(value: &Value) -> Vec<&str> {
    match value {
        Value::String(s) => vec![s.as_str()],
        Value::Array(items) => items.iter().flat_map(strings).collect(),
        Value::Object(map) => map.values().flat_map(strings).collect(),
        _ => Vec::new(),
    }
}

fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

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

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
}

fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}
