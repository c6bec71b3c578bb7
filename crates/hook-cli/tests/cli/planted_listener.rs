//! Issue #36: nothing that listens on `~/.aimon/serve.sock` can switch the policy off. A deny of
//! the person's own tier (`~/.aimon/hooks.json`) holds in all five clients against a planted
//! listener that answers success (an empty 200, an allowing answer), garbage, or accepts and
//! hangs; against one that relays the hello to the real daemon; against a real `serve` of another
//! home and a real one in audit mode — each answered in-process, quickly. The genuine daemon still
//! gets the calls.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::process::Child;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::serve_process::{serve_command, wait_until};
use crate::support::{Outcome, Sandbox};

const REASON: &str = "no pushing";
/// How long a call may take when something plants itself on the socket: the clients give a hook
/// 30-60 s, and a hang there lets the call through.
const QUICK: Duration = Duration::from_secs(2);
/// When a call that is still running is killed.
const HUNG: Duration = Duration::from_secs(10);

/// The five clients: their subcommand line and a `git push` call in their dialect.
fn pushes(project: &Path) -> Vec<(&'static [&'static str], Value)> {
    let command = "git push origin main";
    vec![
        (
            &["claude"],
            json!({"session_id": "s", "transcript_path": "/tmp/t.jsonl", "cwd": project, "permission_mode": "default",
                   "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": command},
                   "tool_use_id": "t"}),
        ),
        (
            &["codex"],
            json!({"session_id": "s", "turn_id": "t", "transcript_path": null, "cwd": project,
                   "hook_event_name": "PreToolUse", "model": "m", "permission_mode": "default", "tool_name": "Bash",
                   "tool_input": {"command": command}, "tool_use_id": "c"}),
        ),
        (
            &["gemini"],
            json!({"session_id": "s", "transcript_path": "/tmp/t", "cwd": project, "hook_event_name": "BeforeTool",
                   "timestamp": "2026-12-03T00:00:00Z", "tool_name": "run_shell_command",
                   "tool_input": {"command": command}}),
        ),
        (
            &["qwen"],
            json!({"session_id": "s", "transcript_path": "/tmp/t", "cwd": project, "hook_event_name": "PreToolUse",
                   "permission_mode": "default", "tool_name": "run_shell_command",
                   "tool_input": {"command": command}, "tool_use_id": "t"}),
        ),
        (
            &["copilot", "--event", "preToolUse"],
            json!({"sessionId": "s", "timestamp": 1, "cwd": project, "toolName": "bash",
                   "toolArgs": {"command": command, "description": "d"}}),
        ),
    ]
}

/// A sandbox whose person denies `git push` in their own tier and has run `serve` before (their
/// token is there: what a planted listener faces is the proof, not a missing file).
fn sandbox() -> Sandbox {
    let sandbox = Sandbox::new();
    let deny = json!({"hooks": {"PreToolUse": [{"matcher": "Bash(git push:*)",
                      "hooks": [{"type": "deny", "reason": REASON}]}]}});
    sandbox.write("home/.aimon/hooks.json", &deny.to_string());
    sandbox.write("home/.aimon/serve.token", "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n");
    sandbox
}

fn socket(sandbox: &Sandbox) -> PathBuf {
    sandbox.home().join(".aimon/serve.sock")
}

/// Every client's `git push`, sent with something on the socket: each is answered as the same
/// call is in-process (`--no-serve`), which is a deny naming the reason, and quickly.
fn assert_every_push_is_denied_here(sandbox: &Sandbox, what: &str) {
    for (args, payload) in pushes(&sandbox.project()) {
        let here = Outcome::of(sandbox.cmd().args(args).arg("--no-serve").write_stdin(payload.to_string()));
        assert!(here.stdout.contains(REASON) || here.stderr.contains(REASON), "{args:?} in-process: {}", here.stdout);
        let started = Instant::now();
        // Bounded, so a client that waits on a hanging listener fails here instead of hanging.
        let out = Outcome::of(sandbox.cmd().args(args).write_stdin(payload.to_string()).timeout(HUNG));
        let took = started.elapsed();
        assert_eq!(
            (out.code, out.stdout.as_str()),
            (here.code, here.stdout.as_str()),
            "{what}, {args:?}: {}",
            out.stderr
        );
        assert!(
            out.stderr.contains("is not your aimon-hooks serve"),
            "{what}, {args:?}: the person is told: {}",
            out.stderr
        );
        assert!(took < QUICK, "{what}, {args:?}: answered in {took:?}");
    }
}

/// What a planted listener does with each connection.
#[derive(Clone, Copy, Debug)]
enum Plant {
    /// Every request: 200 with an empty body.
    Empty200,
    /// Every request: 200 with an allowing answer in the command form the daemon sends.
    Allowing,
    /// Bytes that are not HTTP, then the connection is closed.
    Garbage,
    /// Closes every connection at once.
    Closes,
    /// Accepts and never reads or writes.
    Hangs,
}

/// A listener on the socket path, answering as its [`Plant`] says until dropped.
struct Planted {
    path: PathBuf,
    stop: Arc<AtomicBool>,
}

impl Planted {
    fn on(path: &Path, handle: impl Fn(UnixStream) + Send + Sync + 'static) -> Planted {
        let listener = UnixListener::bind(path).expect("plant a listener on the socket path");
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = stop.clone();
        let handle = Arc::new(handle);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if stopped.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let handle = handle.clone();
                std::thread::spawn(move || handle(stream));
            }
        });
        Planted { path: path.to_owned(), stop }
    }

    fn plant(path: &Path, plant: Plant) -> Planted {
        Planted::on(path, move |stream| serve_planted(stream, plant))
    }
}

impl Drop for Planted {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = UnixStream::connect(&self.path);
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Reads one request (its head and a `content-length` body); `None` at the end of the stream.
fn read_request(reader: &mut BufReader<UnixStream>) -> Option<Vec<u8>> {
    let mut head = Vec::new();
    let mut length = 0;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        if let Some(value) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            length = value.trim().parse().unwrap_or(0);
        }
        head.extend_from_slice(line.as_bytes());
        if line == "\r\n" {
            break;
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    head.extend_from_slice(&body);
    Some(head)
}

fn serve_planted(stream: UnixStream, plant: Plant) {
    let mut out = stream.try_clone().expect("clone the stream");
    let mut reader = BufReader::new(stream);
    match plant {
        Plant::Hangs => {
            std::thread::sleep(Duration::from_secs(30));
        }
        Plant::Garbage => {
            let _ = out.write_all(b"\x00\xff\xfeSSH-2.0-not-http\r\n\r\n{\"exit\":0}");
        }
        Plant::Closes => {}
        Plant::Empty200 | Plant::Allowing => {
            let allow = json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}});
            let body = match plant {
                Plant::Allowing => json!({"stdout": allow.to_string(), "stderr": "", "exit": 0}).to_string(),
                _ => String::new(),
            };
            while read_request(&mut reader).is_some() {
                let response = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nx-aimon-proof: {}\r\ncontent-length: {}\r\n\r\n{body}",
                    "00".repeat(32),
                    body.len()
                );
                if out.write_all(response.as_bytes()).is_err() {
                    break;
                }
            }
        }
    }
}

#[test]
fn a_listener_planted_on_the_socket_never_answers_for_the_daemon_in_any_client() {
    let sandbox = sandbox();
    for plant in [Plant::Empty200, Plant::Allowing, Plant::Garbage, Plant::Closes, Plant::Hangs] {
        let _planted = Planted::plant(&socket(&sandbox), plant);
        assert_every_push_is_denied_here(&sandbox, &format!("{plant:?}"));
    }
    // A person who never ran serve has no token: nothing on the socket can be proven then.
    std::fs::remove_file(sandbox.home().join(".aimon/serve.token")).expect("remove the token");
    let _planted = Planted::plant(&socket(&sandbox), Plant::Allowing);
    assert_every_push_is_denied_here(&sandbox, "no token");
}

#[test]
fn a_fifo_in_place_of_the_token_does_not_hold_the_call() {
    // Opening a FIFO for reading waits for a writer: the client must not.
    let sandbox = sandbox();
    let token = sandbox.home().join(".aimon/serve.token");
    std::fs::remove_file(&token).expect("remove the token");
    let made = std::process::Command::new("mkfifo").arg(&token).status().expect("mkfifo runs");
    assert!(made.success(), "a FIFO in its place");
    let _planted = Planted::plant(&socket(&sandbox), Plant::Allowing);
    assert_every_push_is_denied_here(&sandbox, "a FIFO for a token");
}

#[test]
fn a_stale_socket_file_is_no_daemon_and_the_call_is_answered_here_without_a_warning() {
    let sandbox = sandbox();
    drop(UnixListener::bind(socket(&sandbox)).expect("bind"));
    assert!(socket(&sandbox).exists(), "the socket file outlives its listener");
    for (args, payload) in pushes(&sandbox.project()) {
        let here = Outcome::of(sandbox.cmd().args(args).arg("--no-serve").write_stdin(payload.to_string()));
        let out = Outcome::of(sandbox.cmd().args(args).write_stdin(payload.to_string()).timeout(HUNG));
        assert_eq!(
            (out.code, out.stdout.as_str(), out.stderr.as_str()),
            (here.code, here.stdout.as_str(), here.stderr.as_str()),
            "{args:?}"
        );
    }
}

#[test]
fn the_persons_serve_will_not_start_beside_a_planted_listener_and_says_what_it_found() {
    let sandbox = sandbox();
    let _planted = Planted::plant(&socket(&sandbox), Plant::Allowing);
    let bin = Path::new(env!("CARGO_BIN_EXE_aimon-hooks"));
    let out = serve_command(bin, &sandbox.home(), &sandbox.project(), &[])
        .stderr(std::process::Stdio::piped())
        .output()
        .expect("aimon-hooks serve runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("is not your aimon-hooks serve"), "{stderr}");
    assert!(socket(&sandbox).exists(), "the listener's socket is left for the person to look at");
}

/// A real `aimon-hooks serve` run as the agent could: `home` as HOME, `args` after `serve`, `env`.
struct Serve(Child);

impl Serve {
    fn start(sandbox: &Sandbox, home: &Path, args: &[&str], env: &[(&str, &str)]) -> Serve {
        let bin = Path::new(env!("CARGO_BIN_EXE_aimon-hooks"));
        let child = serve_command(bin, home, &sandbox.project(), args)
            .envs(env.iter().copied())
            .spawn()
            .expect("aimon-hooks serve starts");
        let socket = socket(sandbox);
        wait_until(Duration::from_secs(60), "serve did not listen", || UnixStream::connect(&socket).is_ok());
        Serve(child)
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `POST /v1/<client>` straight to the daemon on `socket`, in command form: what it would have
/// answered a forwarding client.
fn ask_directly(socket: &Path, client: &str, payload: &Value) -> String {
    let mut stream = UnixStream::connect(socket).expect("connect");
    let body = payload.to_string();
    let request = format!(
        "POST /v1/{client} HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\ncontent-type: application/json\r\n\
         x-aimon-form: command\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).expect("send");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).expect("read");
    answer
}

#[test]
fn a_real_serve_of_another_home_on_the_persons_socket_is_not_believed() {
    let sandbox = sandbox();
    let empty = sandbox.root().join("empty");
    std::fs::create_dir_all(&empty).expect("an empty home");
    let socket = socket(&sandbox);
    let socket_arg = socket.display().to_string();
    let _serve =
        Serve::start(&sandbox, &empty, &["--home", &empty.display().to_string(), "--socket", &socket_arg], &[]);
    let (_, claude) = pushes(&sandbox.project()).remove(0);
    let direct = ask_directly(&socket, "claude", &claude);
    assert!(direct.starts_with("HTTP/1.1 200") && !direct.contains(REASON), "it would let the push through: {direct}");
    assert_every_push_is_denied_here(&sandbox, "serve --home <empty>");
}

#[test]
fn a_real_serve_of_another_home_holding_the_persons_token_through_a_link_is_not_believed() {
    // serve reads the token, not the agent: a link in a home of the agent's hands serve the
    // person's token, so the proof holds; the home it serves is another, with none of their rules.
    let sandbox = sandbox();
    let other = sandbox.root().join("other");
    std::fs::create_dir_all(other.join(".aimon")).expect("another home");
    std::os::unix::fs::symlink(sandbox.home().join(".aimon/serve.token"), other.join(".aimon/serve.token"))
        .expect("link the token");
    let socket = socket(&sandbox);
    let _serve = Serve::start(&sandbox, &other, &["--socket", &socket.display().to_string()], &[]);
    assert_every_push_is_denied_here(&sandbox, "serve of another home with the person's token");
}

#[test]
fn a_real_serve_of_this_home_with_the_token_of_another_is_not_believed() {
    // The agent points serve at a home of its own whose token it wrote itself: the policy is
    // another home's, and the token is not the one the client reads.
    let sandbox = sandbox();
    let own = sandbox.root().join("own");
    sandbox.write("own/.aimon/serve.token", "feedfacefeedfacefeedfacefeedfacefeedfacefeedfacefeedfacefeedface\n");
    let socket = socket(&sandbox);
    let _serve = Serve::start(&sandbox, &own, &["--socket", &socket.display().to_string()], &[]);
    assert_every_push_is_denied_here(&sandbox, "serve with a token of the agent's");
}

#[test]
fn a_real_serve_in_audit_mode_is_not_believed_by_a_client_that_enforces() {
    let sandbox = sandbox();
    let socket = socket(&sandbox);
    let _serve =
        Serve::start(&sandbox, &sandbox.home(), &["--socket", &socket.display().to_string()], &[("AIMON_AUDIT", "1")]);
    let (_, claude) = pushes(&sandbox.project()).remove(0);
    let direct = ask_directly(&socket, "claude", &claude);
    assert!(direct.starts_with("HTTP/1.1 200") && !direct.contains(REASON), "audit decides nothing: {direct}");
    assert_every_push_is_denied_here(&sandbox, "serve in audit mode");
}

#[test]
fn a_listener_relaying_the_hello_to_the_real_daemon_is_not_the_process_the_proof_names() {
    // The agent moves the real daemon's socket aside (its listener stays reachable by the new
    // name), plants its own, hands the hello to the real daemon and answers the call itself.
    let sandbox = sandbox();
    let socket = socket(&sandbox);
    let _serve = Serve::start(&sandbox, &sandbox.home(), &[], &[]);
    let moved = sandbox.home().join(".aimon/real.sock");
    std::fs::rename(&socket, &moved).expect("move the real socket aside");
    let _planted = Planted::on(&socket, move |stream| {
        let mut out = stream.try_clone().expect("clone");
        let mut reader = BufReader::new(stream);
        while let Some(request) = read_request(&mut reader) {
            let answer = if request.starts_with(b"GET /v1/hello") {
                let mut real = UnixStream::connect(&moved).expect("the real daemon");
                let head = String::from_utf8_lossy(&request).replace("\r\n\r\n", "\r\nconnection: close\r\n\r\n");
                real.write_all(head.as_bytes()).expect("relay the hello");
                let mut answer = Vec::new();
                real.read_to_end(&mut answer).expect("the real daemon's hello");
                String::from_utf8_lossy(&answer).replace("connection: close\r\n", "")
            } else {
                let body = json!({"stdout": "", "stderr": "", "exit": 0}).to_string();
                format!("HTTP/1.1 200 OK\r\ncontent-length: {}\r\n\r\n{body}", body.len())
            };
            if out.write_all(answer.as_bytes()).is_err() {
                break;
            }
        }
    });
    assert_every_push_is_denied_here(&sandbox, "a relay of the real daemon's hello");
}

#[test]
fn the_persons_own_serve_is_proven_and_answers_the_forwarded_calls() {
    let sandbox = sandbox();
    let socket = socket(&sandbox);
    let _serve = Serve::start(&sandbox, &sandbox.home(), &[], &[]);
    for (args, payload) in pushes(&sandbox.project()) {
        let here = Outcome::of(sandbox.cmd().args(args).arg("--no-serve").write_stdin(payload.to_string()));
        let out = Outcome::of(sandbox.cmd().args(args).write_stdin(payload.to_string()));
        assert_eq!((out.code, out.stdout.as_str()), (here.code, here.stdout.as_str()), "{args:?}: {}", out.stderr);
        assert!(!out.stderr.contains("not your aimon-hooks serve"), "{args:?}: {}", out.stderr);
    }
    for client in ["claude", "codex", "gemini", "qwen", "copilot"] {
        assert_eq!(answered(&socket, client), 1, "the daemon answered {client}'s call");
    }
    // The same home spelled through a link is the same home.
    let link = sandbox.root().join("link");
    std::os::unix::fs::symlink(sandbox.home(), &link).expect("link the home");
    let (args, payload) = pushes(&sandbox.project()).remove(0);
    let out = Outcome::of(sandbox.cmd().env("HOME", &link).args(args).write_stdin(payload.to_string()));
    assert!(out.stdout.contains(REASON) && !out.stderr.contains("not your"), "{}{}", out.stdout, out.stderr);
    assert_eq!(answered(&socket, "claude"), 2, "forwarded through the link too");
}

/// How many calls of `client` the daemon on `socket` answered 200, from its `/metrics`.
fn answered(socket: &Path, client: &str) -> u64 {
    let mut stream = UnixStream::connect(socket).expect("connect");
    stream.write_all(b"GET /metrics HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\n\r\n").expect("ask");
    let mut metrics = String::new();
    stream.read_to_string(&mut metrics).expect("metrics");
    let series = format!("hook_server_requests_total{{route=\"/v1/{client}\",status=\"200\"}} ");
    metrics.lines().find_map(|l| l.strip_prefix(series.as_str())).map_or(0, |n| n.trim().parse().expect("a count"))
}
