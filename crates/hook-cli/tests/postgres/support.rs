//! A project whose hooks count their fires, `aimon-hooks serve` daemons on a database URL, and a
//! minimal HTTP client for their TCP port.

use std::collections::HashMap;
use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::Duration;

use hook_rewake::{Envelope, RewakeStore, StoredEnvelope};
use hook_rewake_postgres::PgStore;
use serde_json::{Value, json};
use tempfile::TempDir;

use crate::serve_process::{serve_command, wait_until};

/// A temporary directory holding a project (`project/`), the daemons' homes and logs, and the
/// file the hooks count their fires into (`fires.log`).
pub(crate) struct Scene {
    dir: TempDir,
}

impl Scene {
    /// A project whose PostToolUse hook on Bash asks to be woken in `delay`; woken, it appends
    /// `<id> <attempt> <daemon pid>` to `fires.log` and tells the model `marker` (if not empty).
    /// PreToolUse denies `rm -rf /…`.
    pub(crate) fn new(delay: &str, marker: &str) -> Scene {
        let dir = tempfile::tempdir().expect("temp dir");
        let scene = Scene { dir };
        std::fs::create_dir_all(scene.project().join(".git")).expect("project");
        std::fs::create_dir_all(scene.project().join(".aimon")).expect("project");
        let fires = scene.fires_path();
        let mut woken = format!(
            r#"printf '%s %s %s\n' "$AIMON_REWAKE_ID" "$AIMON_REWAKE_ATTEMPT" "$PPID" >> '{}'"#,
            fires.display()
        );
        if !marker.is_empty() {
            woken.push_str(&format!(
                r#"; echo '{{"hookSpecificOutput":{{"hookEventName":"PostToolUse","additionalContext":"{marker}"}}}}'"#
            ));
        }
        let hook = format!(r#"if [ -n "$AIMON_REWAKE_ID" ]; then {woken}; fi"#);
        let rewake = json!({"trigger": {"delay": delay}, "maxAttempts": 1, "reason": "count the fire"});
        let hooks = json!({"hooks": {
            "PostToolUse": [{"matcher": "Bash", "hooks": [
                {"type": "command", "command": hook, "timeout": 10, "asyncRewake": rewake}]}],
            "PreToolUse": [{"matcher": "Bash(command=^rm\\s+-rf\\s+/)", "hooks": [{"type": "deny", "reason": "no rm -rf"}]}]
        }});
        std::fs::write(scene.project().join(".aimon/hooks.json"), hooks.to_string()).expect("hooks.json");
        scene
    }

    pub(crate) fn root(&self) -> &Path {
        self.dir.path()
    }

    pub(crate) fn project(&self) -> PathBuf {
        self.dir.path().join("project")
    }

    pub(crate) fn fires_path(&self) -> PathBuf {
        self.dir.path().join("fires.log")
    }

    /// Every fire the hooks counted: `(id, attempt, daemon pid)`, in file order.
    pub(crate) fn fires(&self) -> Vec<(String, u32, u32)> {
        std::fs::read_to_string(self.fires_path())
            .unwrap_or_default()
            .lines()
            .filter_map(|line| {
                let mut f = line.split(' ');
                let id = f.next()?.to_owned();
                Some((id, f.next()?.parse().ok()?, f.next()?.parse().ok()?))
            })
            .collect()
    }

    /// A Claude Code payload of `event` for `session` in the project (PostToolUse: `git push`).
    pub(crate) fn payload(&self, event: &str, session: &str) -> Value {
        let mut p = json!({"session_id": session, "transcript_path": "/tmp/t.jsonl", "cwd": self.project(),
                           "permission_mode": "default", "hook_event_name": event});
        match event {
            "PostToolUse" => {
                p["tool_name"] = "Bash".into();
                p["tool_input"] = json!({"command": "git push"});
                p["tool_response"] = json!({"stdout": "", "stderr": "", "interrupted": false});
                p["tool_use_id"] = "toolu_01".into();
            }
            "SessionStart" => p["source"] = "resume".into(),
            _ => {}
        }
        p
    }

    /// The `aimon-hooks` binary in the project, with its own HOME under the scene.
    pub(crate) fn command(&self) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_aimon-hooks"));
        cmd.current_dir(self.project())
            .env("HOME", self.root().join("cli-home"))
            .env("AIMON_TRUST_PROJECT_HOOKS", "1")
            .env_remove("AIMON_REWAKE_STORE")
            .env_remove("CLAUDE_PROJECT_DIR")
            .env_remove("RUST_LOG");
        cmd
    }
}

/// How many times each `(id, attempt)` fired.
pub(crate) fn counts(fires: &[(String, u32, u32)]) -> HashMap<(String, u32), usize> {
    let mut counts = HashMap::new();
    for (id, attempt, _) in fires {
        *counts.entry((id.clone(), *attempt)).or_default() += 1;
    }
    counts
}

/// `n` copies of `template` with ids `<prefix>-<i>`, due one after another from `start` over
/// `spread` (what a burst of hooks asking for rewakes leaves in the store).
pub(crate) fn copies(template: &Envelope, prefix: &str, n: usize, start: Duration, spread: Duration) -> Vec<Envelope> {
    let now = chrono::Utc::now();
    (0..n)
        .map(|i| {
            let mut e = template.clone();
            e.id = format!("{prefix}-{i:05}");
            let offset = start + spread.mul_f64(i as f64 / n as f64);
            e.next_fire_at = Some(now + chrono::TimeDelta::from_std(offset).expect("offset"));
            e
        })
        .collect()
}

/// The pending rows of the store at `url`.
pub(crate) fn rows(store: &PgStore) -> Vec<StoredEnvelope> {
    store.load().expect("the test reads the store").envelopes
}

/// A running `aimon-hooks serve --listen 127.0.0.1:PORT --store URL` with its own HOME; stderr
/// goes to `<name>.log` in the scene. Killed when dropped.
pub(crate) struct Daemon {
    child: Child,
    port: u16,
    token: String,
    log: PathBuf,
}

impl Daemon {
    pub(crate) fn start(scene: &Scene, name: &str, url: &str) -> Daemon {
        let home = scene.root().join(name);
        std::fs::create_dir_all(&home).expect("home");
        let log = scene.root().join(format!("{name}.log"));
        let port = std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).expect("port").port();
        let listen = format!("127.0.0.1:{port}");
        let bin = Path::new(env!("CARGO_BIN_EXE_aimon-hooks"));
        let child = serve_command(bin, &home, &scene.project(), &["--listen", &listen, "--store", url])
            .env("AIMON_TRUST_PROJECT_HOOKS", "1")
            .stderr(std::fs::File::create(&log).expect("log file"))
            .spawn()
            .expect("aimon-hooks serve starts");
        let mut daemon = Daemon { child, port, token: String::new(), log };
        let token = home.join(".aimon/serve.token");
        wait_until(Duration::from_secs(30), "serve did not listen", || {
            if let Ok(Some(status)) = daemon.child.try_wait() {
                panic!("serve exited at start ({status}): {}", daemon.stderr());
            }
            TcpStream::connect(("127.0.0.1", port)).is_ok() && token.exists()
        });
        daemon.token = std::fs::read_to_string(&token).expect("token").trim().to_owned();
        daemon
    }

    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// SIGKILL, and reap.
    pub(crate) fn kill_9(&mut self) {
        self.child.kill().expect("SIGKILL");
        self.child.wait().expect("reap");
    }

    /// What the daemon wrote to stderr so far.
    pub(crate) fn stderr(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// POSTs `body` to `path`; the status and the JSON answer.
    pub(crate) fn post(&self, path: &str, body: &Value) -> (u16, Value) {
        let body = body.to_string();
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).expect("connect");
        stream.set_read_timeout(Some(Duration::from_secs(60))).expect("timeout");
        let head = format!(
            "POST {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nAuthorization: Bearer {}\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            self.token,
            body.len()
        );
        stream.write_all(head.as_bytes()).and_then(|()| stream.write_all(body.as_bytes())).expect("send");
        let mut raw = String::new();
        stream.read_to_string(&mut raw).expect("answer");
        let (head, body) = raw.split_once("\r\n\r\n").unwrap_or_else(|| panic!("no HTTP answer: {raw:?}"));
        let status = head.split(' ').nth(1).and_then(|s| s.parse().ok()).expect("status");
        // Claude Code reads an empty answer as "nothing to say".
        let answer = if body.is_empty() {
            Value::Null
        } else {
            serde_json::from_str(body).unwrap_or_else(|e| panic!("not JSON ({e}): {body:?}"))
        };
        (status, answer)
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
