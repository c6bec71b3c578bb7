//! `aimon-hooks serve` over real sockets (R-SRV): the same answers as `run` and `claude`, the
//! bearer token, the limits, hot reload, warm MCP sessions, shutdown; `claude` forwarding.

use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::daemon::Daemon;
use crate::support::{Outcome, Sandbox, command, one_hook};

impl Daemon {
    /// The projects of most tests are the person's own: trust them all (the gate itself is
    /// pinned in trust.rs and by `trusting_a_project_takes_effect_on_the_daemons_next_call`).
    fn trusting(sandbox: &Sandbox) -> Daemon {
        Daemon::start_with_env(sandbox, &[("AIMON_TRUST_PROJECT_HOOKS", "1")])
    }

    fn tcp(&self, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> Reply {
        let auth = format!("Bearer {}", self.token);
        let mut all = vec![("Authorization", auth.as_str())];
        all.extend_from_slice(headers);
        exchange(TcpStream::connect(("127.0.0.1", self.port)).expect("connect"), method, path, &all, body)
    }

    fn unix(&self, method: &str, path: &str, body: &[u8]) -> Reply {
        exchange(UnixStream::connect(&self.socket).expect("connect to the socket"), method, path, &[], body)
    }

    /// Sends SIGTERM and waits for the exit code.
    fn stop(mut self) -> i32 {
        terminate(self.child.id());
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return std::os::unix::process::ExitStatusExt::signal(&status)
                    .map_or_else(|| status.code().unwrap_or(-1), |s| 1000 + s);
            }
            assert!(Instant::now() < deadline, "serve did not stop within 15 s of SIGTERM");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

fn terminate(pid: u32) {
    let status = std::process::Command::new("kill").args(["-TERM", &pid.to_string()]).status().expect("kill runs");
    assert!(status.success());
}

/// One HTTP answer.
struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {:?}", self.body))
    }
}

/// A minimal HTTP/1.1 exchange with `Connection: close` (the tests need raw control of requests).
fn exchange(
    mut stream: impl std::io::Read + std::io::Write,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Reply {
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).expect("send the head");
    // The server may answer (413) before reading the whole body and close: that is fine.
    let _ = stream.write_all(body);
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or_else(|| panic!("no HTTP answer: {text:?}"));
    let mut lines = head.lines();
    let status = lines.next().and_then(|l| l.split(' ').nth(1)).and_then(|s| s.parse().ok()).expect("a status line");
    let headers = lines.filter_map(|l| l.split_once(": ")).map(|(k, v)| (k.to_owned(), v.to_owned())).collect();
    Reply { status, headers, body: body.to_owned() }
}

/// A project directory of its own under the sandbox, with these hooks.
fn project(sandbox: &Sandbox, name: &str, hooks: &str) -> PathBuf {
    let dir = sandbox.root().join("projects").join(name);
    std::fs::create_dir_all(dir.join(".git")).expect("mkdir");
    sandbox.write(&format!("projects/{name}/.aimon/hooks.json"), hooks);
    dir
}

fn payload(event: &str, cwd: &Path, extra: Value) -> Value {
    let mut p = json!({"session_id": "s-1", "transcript_path": "/tmp/t.jsonl", "cwd": cwd,
                       "permission_mode": "default", "hook_event_name": event});
    if let (Some(p), Value::Object(extra)) = (p.as_object_mut(), extra) {
        p.extend(extra);
    }
    p
}

fn bash_input(command: &str) -> Value {
    json!({"tool_name": "Bash", "tool_input": {"command": command}, "tool_use_id": "toolu_1"})
}

/// `elapsedMs` differs from run to run; everything else must not.
fn without_timing(mut v: Value) -> Value {
    if let Some(hooks) = v.get_mut("hooks").and_then(Value::as_array_mut) {
        for hook in hooks {
            hook["elapsedMs"] = json!(0);
        }
    }
    v
}

struct Case {
    name: &'static str,
    hooks: Value,
    event: &'static str,
    extra: Value,
}

fn cases() -> Vec<Case> {
    let deny = json!({"type": "deny", "reason": "no shell"});
    let block_json = r#"echo '{"decision":"block","reason":"not now"}'"#;
    let context = r#"echo '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"remember x"}}'"#;
    vec![
        Case {
            name: "deny",
            hooks: one_hook("PreToolUse", "Bash", deny.clone()),
            event: "PreToolUse",
            extra: bash_input("ls"),
        },
        Case {
            name: "exit2",
            hooks: one_hook("PreToolUse", "*", command("echo 'stop it' >&2; exit 2")),
            event: "PreToolUse",
            extra: bash_input("rm -rf /"),
        },
        Case {
            name: "nomatch",
            hooks: one_hook("PreToolUse", "Edit", deny.clone()),
            event: "PreToolUse",
            extra: bash_input("ls"),
        },
        Case {
            name: "posttool",
            hooks: one_hook("PostToolUse", "*", command("echo 'bad output' >&2; exit 2")),
            event: "PostToolUse",
            extra: json!({"tool_name": "Write", "tool_input": {"file_path": "/tmp/a"}, "tool_response": {"success": true}}),
        },
        Case {
            name: "precompact",
            hooks: one_hook("PreCompact", "*", command(block_json)),
            event: "PreCompact",
            extra: json!({"trigger": "auto", "custom_instructions": ""}),
        },
        Case {
            name: "permission",
            hooks: one_hook("PermissionRequest", "Bash", deny),
            event: "PermissionRequest",
            extra: bash_input("ls"),
        },
        Case {
            name: "session",
            hooks: one_hook("SessionStart", "*", command(context)),
            event: "SessionStart",
            extra: json!({"source": "startup"}),
        },
        Case { name: "broken", hooks: json!("{ not json"), event: "PreToolUse", extra: bash_input("ls") },
        Case { name: "broken-post", hooks: json!("{ not json"), event: "PostToolUse", extra: bash_input("ls") },
    ]
}

fn hooks_text(hooks: &Value) -> String {
    match hooks {
        Value::String(raw) => raw.clone(),
        other => other.to_string(),
    }
}

#[test]
fn run_and_claude_answer_the_same_in_process_forwarded_and_over_http() {
    let sandbox = Sandbox::new();
    let daemon = Daemon::trusting(&sandbox);
    for case in cases() {
        let dir = project(&sandbox, case.name, &hooks_text(&case.hooks));
        let body = payload(case.event, &dir, case.extra).to_string();
        let name = case.name;

        // run ⇄ /v1/run
        let cli = Outcome::of(sandbox.cmd().current_dir(&dir).args(["run", case.event]).write_stdin(body.clone()));
        let http = daemon.tcp("POST", &format!("/v1/run/{}", case.event), &[], body.as_bytes());
        assert_eq!(http.header("x-aimon-exit"), Some(cli.code.to_string().as_str()), "{name}: exit code");
        if cli.code == 1 {
            assert_eq!(http.status, 500, "{name}: a configuration error is the daemon's, not the request's");
            let error = http.json()["error"].as_str().expect("an error sentence").to_owned();
            assert!(cli.stderr.contains(&error), "{name}: {error:?} not in {:?}", cli.stderr);
        } else {
            assert_eq!(http.status, 200, "{name}");
            assert_eq!(without_timing(http.json()), without_timing(cli.json()), "{name}: run's JSON");
        }

        // claude in-process ⇄ claude forwarded: the same bytes (WARN lines are the log of whichever
        // process evaluated, so they are not part of the answer).
        let claude = |extra: &[&str]| {
            Outcome::of(
                sandbox
                    .cmd()
                    .current_dir(&dir)
                    .env("AIMON_TRUST_PROJECT_HOOKS", "1")
                    .arg("claude")
                    .args(extra)
                    .write_stdin(body.clone()),
            )
        };
        let local = claude(&["--no-serve"]);
        let forwarded = claude(&[]);
        assert_eq!(
            (forwarded.code, &forwarded.stdout, answer_lines(&forwarded.stderr)),
            (local.code, &local.stdout, answer_lines(&local.stderr)),
            "{name}: forwarded claude"
        );

        // claude ⇄ /v1/claude (the http handler's form): always 200.
        let http = daemon.tcp("POST", "/v1/claude", &[], body.as_bytes());
        assert_eq!(http.status, 200, "{name}");
        match local.code {
            0 if local.stdout.is_empty() => assert_eq!(http.body, "", "{name}: nothing to say"),
            0 => assert_eq!(http.json(), local.json(), "{name}: the same JSON answer"),
            2 => {
                let v = http.json();
                let reason = v["hookSpecificOutput"]["permissionDecisionReason"].as_str().or(v["reason"].as_str());
                assert_eq!(reason.map(str::trim), Some(local.stderr.trim()), "{name}: a refusal naming the problem");
            }
            _ => assert_eq!(http.body, "", "{name}: a report on an event that cannot refuse is an empty body"),
        }
    }
    let forwarded_and_http = 2 * cases().len();
    let metrics = daemon.unix("GET", "/metrics", b"").body;
    let line = format!("hook_server_requests_total{{route=\"/v1/claude\",status=\"200\"}} {forwarded_and_http}");
    assert!(metrics.contains(&line), "every forwarded claude reached the daemon: {metrics}");
    assert_eq!(daemon.stop(), 128 + 15, "serve exits 128 + SIGTERM");
}

#[test]
fn tcp_needs_the_bearer_token_and_the_socket_does_not() {
    let sandbox = Sandbox::new();
    let daemon = Daemon::trusting(&sandbox);
    let mode =
        std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(&daemon.socket).expect("socket").permissions());
    assert_eq!(mode & 0o777, 0o600, "the socket is the owner's only");
    let token = std::fs::metadata(sandbox.home().join(".aimon/serve.token")).expect("token");
    assert_eq!(std::os::unix::fs::PermissionsExt::mode(&token.permissions()) & 0o777, 0o600);
    let tcp = |auth: Option<&str>| {
        let stream = TcpStream::connect(("127.0.0.1", daemon.port)).expect("connect");
        let headers: Vec<(&str, &str)> = auth.iter().map(|a| ("Authorization", *a)).collect();
        exchange(stream, "GET", "/v1/health", &headers, b"").status
    };
    assert_eq!(tcp(None), 401, "no token");
    assert_eq!(tcp(Some("Bearer wrong")), 401, "a wrong token");
    assert_eq!(tcp(Some(&format!("Bearer {}", daemon.token))), 200);
    assert_eq!(daemon.unix("GET", "/v1/health", b"").status, 200, "the socket relies on its file mode");
}

#[test]
fn bad_requests_get_400_404_413_on_run_and_a_200_on_claude() {
    let sandbox = Sandbox::new();
    let dir = project(&sandbox, "p", &one_hook("PreToolUse", "Edit", json!({"type": "deny"})).to_string());
    let daemon = Daemon::trusting(&sandbox);
    let r = daemon.tcp("POST", "/v1/run/preTool", &[], b"{ not json");
    assert_eq!((r.status, r.header("x-aimon-exit")), (200, Some("2")), "a payload run cannot read is denied");
    assert!(r.json()["reason"].as_str().is_some_and(|e| e.contains("not valid JSON")), "{}", r.body);
    let r = daemon.tcp("POST", "/v1/run/postTool", &[], b"{ not json");
    assert_eq!(r.status, 400, "an event that cannot veto has nothing to refuse");
    assert!(r.json()["error"].as_str().is_some_and(|e| e.contains("not valid JSON")), "{}", r.body);
    let r = daemon.tcp("POST", "/v1/run/noSuchEvent", &[], b"{}");
    assert_eq!(r.status, 404);
    assert!(r.json()["error"].as_str().is_some_and(|e| e.contains("noSuchEvent")), "{}", r.body);
    let mut big = payload("PreToolUse", &dir, bash_input("ls")).to_string().into_bytes();
    big.truncate(big.len() - 1);
    big.extend_from_slice(b", \"pad\": \"");
    big.resize(big.len() + (1 << 20), b'x');
    big.extend_from_slice(b"\"}");
    assert_eq!(daemon.tcp("POST", "/v1/run/preTool", &[], &big).status, 413);
    let r = daemon.tcp("POST", "/v1/claude", &[], &big);
    assert_eq!(r.status, 200, "claude never answers an error status");
    assert_eq!(r.json()["hookSpecificOutput"]["permissionDecision"], "deny", "an oversized preTool body is refused");
    let r = daemon.tcp("POST", "/v1/claude", &[], br#"{"hook_event_name": "PreToolUse", "tool_name": "#);
    assert_eq!((r.status, r.json()["hookSpecificOutput"]["permissionDecision"].as_str()), (200, Some("deny")));
    let r = daemon.tcp("POST", "/v1/claude", &[], br#"{"hook_event_name": "Stop", "#);
    assert_eq!((r.status, r.body.as_str()), (200, ""), "a broken body on an event that cannot refuse changes nothing");
    assert_eq!(daemon.tcp("GET", "/no/such/path", &[], b"").status, 404);
    let metrics = daemon.unix("GET", "/metrics", b"");
    assert!(
        metrics.body.contains("hook_server_requests_total{route=\"/v1/run/{event}\",status=\"413\"}"),
        "{}",
        metrics.body
    );
}

#[test]
fn an_edit_to_a_project_s_hooks_is_served_without_a_restart() {
    let sandbox = Sandbox::new();
    let dir =
        project(&sandbox, "p", &one_hook("PreToolUse", "Bash", json!({"type": "deny", "reason": "first"})).to_string());
    let daemon = Daemon::trusting(&sandbox);
    let body = payload("PreToolUse", &dir, bash_input("ls")).to_string();
    let reason = || {
        daemon.tcp("POST", "/v1/claude", &[], body.as_bytes()).json()["hookSpecificOutput"]["permissionDecisionReason"]
            .clone()
    };
    assert_eq!(reason(), "first");
    let hooks = one_hook("PreToolUse", "Bash", json!({"type": "deny", "reason": "second"})).to_string();
    std::fs::write(dir.join(".aimon/hooks.json"), hooks).expect("edit");
    let deadline = Instant::now() + Duration::from_secs(10);
    while reason() != "second" {
        assert!(Instant::now() < deadline, "the edit was not served within 10 s");
        std::thread::sleep(Duration::from_millis(100));
    }
    let metrics = daemon.unix("GET", "/metrics", b"").body;
    assert!(metrics.contains("hook_server_reloads_total{successful=\"true\"} 1"), "{metrics}");
}

#[test]
fn trusting_a_project_takes_effect_on_the_daemons_next_call() {
    let sandbox = Sandbox::new();
    let gate = command("echo 'stopped by the project gate' >&2; exit 2");
    let dir = project(&sandbox, "p", &one_hook("PreToolUse", "Bash", gate).to_string());
    let daemon = Daemon::start_with_env(&sandbox, &[("AIMON_TRUST_PROJECT_HOOKS", "0")]);
    let body = payload("PreToolUse", &dir, bash_input("ls")).to_string();
    let decision = || {
        let reply = daemon.tcp("POST", "/v1/claude", &[], body.as_bytes());
        assert_eq!(reply.status, 200, "{}", reply.body);
        if reply.body.is_empty() { Value::Null } else { reply.json() }
    };
    let listed_trusted = || {
        let path = format!("/v1/hooks?project={}", dir.display());
        daemon.tcp("GET", &path, &[], b"").json()[0]["trusted"].clone()
    };
    let untrusted = decision();
    assert_ne!(untrusted["hookSpecificOutput"]["permissionDecision"], "deny", "{untrusted}");
    assert_eq!(listed_trusted(), false, "/v1/hooks shows what the daemon does");
    let notice = untrusted["systemMessage"].as_str().unwrap_or_default();
    assert!(notice.contains("not trusted") && notice.contains("aimon-hooks trust --project"), "{untrusted}");
    let out = Outcome::of(sandbox.cmd().arg("trust").arg("--project").arg(&dir));
    assert_eq!(out.code, 0, "trust failed: {}", out.stderr);
    let trusted = decision();
    assert_eq!(trusted["hookSpecificOutput"]["permissionDecision"], "deny", "{trusted}");
    assert_eq!(trusted["hookSpecificOutput"]["permissionDecisionReason"], "stopped by the project gate", "{trusted}");
    assert_eq!(listed_trusted(), true);
    assert!(trusted.get("systemMessage").is_none(), "{trusted}");
}

#[test]
fn sigterm_with_a_hook_running_leaves_no_process_of_its_group() {
    let sandbox = Sandbox::new();
    let pidfile = sandbox.root().join("hook.pid");
    let hook = command(&format!("echo $$ > {}; sleep 30 & sleep 30; wait", pidfile.display()));
    let dir = project(&sandbox, "p", &one_hook("PreToolUse", "*", hook).to_string());
    let daemon = Daemon::trusting(&sandbox);
    let body = payload("PreToolUse", &dir, bash_input("ls")).to_string();
    let socket = daemon.socket.clone();
    let request = std::thread::spawn(move || {
        let mut stream = UnixStream::connect(socket).expect("connect");
        let head = format!("POST /v1/claude HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\n\r\n{body}", body.len());
        stream.write_all(head.as_bytes()).expect("send");
        let mut out = Vec::new();
        let _ = stream.read_to_end(&mut out);
    });
    let deadline = Instant::now() + Duration::from_secs(10);
    let pgid = loop {
        if let Some(pid) = std::fs::read_to_string(&pidfile).ok().and_then(|t| t.trim().parse::<i32>().ok()) {
            break pid;
        }
        assert!(Instant::now() < deadline, "the hook did not start");
        std::thread::sleep(Duration::from_millis(20));
    };
    while live_members(pgid) < 3 {
        assert!(Instant::now() < deadline, "the hook's shell and its two sleeps did not all start");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(daemon.stop(), 128 + 15);
    assert_eq!(live_members(pgid), 0, "no process of the hook's group is left");
    request.join().expect("the client thread");
}

/// Issue #42: a hook no request waits for — a rewake fire's, run by the daemon itself — is killed
/// when serve is stopped: its `sleep 60` is gone within ten seconds of the SIGTERM (the grace
/// period is five). Here the binary's exit would take it along too; hook-server's
/// `tests/shutdown.rs` shows the process-group registry call of `serve` doing it.
#[test]
fn sigterm_to_serve_kills_a_rewake_fires_sleeping_hook_within_ten_seconds() {
    let sandbox = Sandbox::new();
    let pidfile = sandbox.root().join("sleep.pid");
    let hook = format!(r#"if [ -n "$AIMON_REWAKE_ID" ]; then sleep 60 & echo $! > {}; wait; fi"#, pidfile.display());
    let rewake = json!({"trigger": {"delay": "1s"}, "maxAttempts": 1, "reason": "a fire that sleeps"});
    let hooks = one_hook(
        "PostToolUse",
        "Bash",
        json!({"type": "command", "command": hook, "timeout": 120, "asyncRewake": rewake}),
    );
    let dir = project(&sandbox, "p", &hooks.to_string());
    let daemon = Daemon::trusting(&sandbox);
    let push = payload("PostToolUse", &dir, bash_input("git push")).to_string();
    assert_eq!(daemon.tcp("POST", "/v1/claude", &[], push.as_bytes()).status, 200);
    let deadline = Instant::now() + Duration::from_secs(30);
    let sleep = loop {
        if let Some(pid) = std::fs::read_to_string(&pidfile).ok().and_then(|t| t.trim().parse::<i32>().ok()) {
            break pid;
        }
        assert!(Instant::now() < deadline, "the rewake's hook never ran");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(alive(sleep), "the hook's sleep runs before the SIGTERM");
    terminate(daemon.child.id());
    let bound = Instant::now() + Duration::from_secs(10);
    while alive(sleep) {
        assert!(Instant::now() < bound, "the hook's sleep {sleep} outlived serve's SIGTERM by ten seconds");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(daemon.stop(), 128 + 15, "serve exits 128 + SIGTERM");
}

/// Whether process `pid` exists and is not a zombie.
fn alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .is_ok_and(|stat| stat.rsplit_once(')').is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z')))
}

/// Stderr without the WARN log lines.
fn answer_lines(stderr: &str) -> Vec<&str> {
    stderr.lines().filter(|l| !l.starts_with("WARN hooks:")).collect()
}

/// Processes of group `pgid` that are not zombies (an orphaned zombie waits for init to reap it).
fn live_members(pgid: i32) -> usize {
    let Ok(entries) = std::fs::read_dir("/proc") else { panic!("this test needs /proc") };
    entries
        .filter_map(|e| std::fs::read_to_string(e.ok()?.path().join("stat")).ok())
        .filter(|stat| {
            let fields: Vec<&str> = stat.rsplit_once(')').map_or(vec![], |(_, rest)| rest.split_whitespace().collect());
            fields.len() > 3 && fields[0] != "Z" && fields[2] == pgid.to_string()
        })
        .count()
}

#[test]
fn a_rewake_asked_through_the_daemon_fires_and_its_answer_reaches_the_sessions_next_call_once() {
    let sandbox = Sandbox::new();
    // The first run asks to be woken in a second; the woken run (AIMON_REWAKE_ID set) tells the model.
    let hook = r#"if [ -n "$AIMON_REWAKE_ID" ]; then echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"ci-is-green-marker"}}'; fi"#;
    let rewake = json!({"trigger": {"delay": "1s"}, "maxAttempts": 1, "reason": "check CI after the push"});
    let hooks = one_hook(
        "PostToolUse",
        "Bash",
        json!({"type": "command", "command": hook, "timeout": 10, "asyncRewake": rewake}),
    );
    let dir = project(&sandbox, "p", &hooks.to_string());
    let daemon = Daemon::trusting(&sandbox);
    let push = payload("PostToolUse", &dir, bash_input("git push")).to_string();
    let first = daemon.tcp("POST", "/v1/claude", &[], push.as_bytes());
    assert_eq!(first.status, 200);
    assert!(!first.body.contains("ci-is-green-marker"), "the first answer cannot know yet: {}", first.body);

    // The session's next call that can carry context gets the fire's answer, exactly once.
    let start = payload("SessionStart", &dir, json!({"source": "resume"})).to_string();
    let next = || daemon.tcp("POST", "/v1/claude", &[], start.as_bytes());
    let deadline = Instant::now() + Duration::from_secs(30);
    let delivered = loop {
        let reply = next();
        if reply.body.contains("ci-is-green-marker") {
            break reply;
        }
        assert!(Instant::now() < deadline, "the rewake's answer never reached the session: {}", reply.body);
        std::thread::sleep(Duration::from_millis(200));
    };
    assert_eq!(delivered.json()["hookSpecificOutput"]["hookEventName"], "SessionStart");
    assert!(!next().body.contains("ci-is-green-marker"), "mail is delivered once");
    let other = payload("SessionStart", &dir, json!({"source": "resume", "session_id": "s-2"})).to_string();
    assert!(!daemon.tcp("POST", "/v1/claude", &[], other.as_bytes()).body.contains("ci-is-green-marker"));
}

/// The names of a process's threads, from /proc.
fn thread_names(pid: u32) -> Vec<String> {
    let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).expect("the process's threads");
    tasks
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("comm")).ok())
        .map(|name| name.trim().to_owned())
        .collect()
}

#[test]
fn serve_allocates_with_jemalloc_and_runs_its_purging_thread() {
    let sandbox = Sandbox::new();
    let daemon = Daemon::trusting(&sandbox);
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut names = thread_names(daemon.child.id());
    while !names.iter().any(|n| n.starts_with("jemalloc_bg")) {
        assert!(Instant::now() < deadline, "no jemalloc background thread in serve; its threads: {names:?}");
        std::thread::sleep(Duration::from_millis(50));
        names = thread_names(daemon.child.id());
    }
}
