//! Issue #42: when `serve` returns, no command hook of its process is left running, even one that
//! no request waits for and no dropped future takes with it: a rewake fire's hook, run by the
//! daemon's rewake service, is killed by hook-actions' process-group registry, which `serve`
//! calls last. The daemon runs in this process (the library's `serve`), and the test's runtime
//! outlives it, so nothing but `serve` itself can have killed the hook. Its own test binary:
//! the registry, once called, kills every later hook of the process at its start.

use std::path::Path;
use std::time::{Duration, Instant};

use hook_server::{ServeOptions, ServiceOptions, serve};
use serde_json::json;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

/// Whether process `pid` exists and is not a zombie.
fn alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .is_ok_and(|stat| stat.rsplit_once(')').is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z')))
}

/// One `POST /v1/claude` on the daemon's socket; the status line.
async fn post_claude(socket: &Path, body: &str) -> String {
    let mut stream = tokio::net::UnixStream::connect(socket).await.expect("connect to the socket");
    let head = format!(
        "POST /v1/claude HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(head.as_bytes()).await.expect("send");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).await.expect("read the answer");
    answer.lines().next().unwrap_or_default().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rewake_fires_hook_still_sleeping_is_killed_when_serve_returns() {
    let root = tempfile::tempdir().expect("tempdir");
    let (home, project) = (root.path().join("home"), root.path().join("project"));
    std::fs::create_dir_all(home.join(".aimon")).expect("home");
    std::fs::create_dir_all(project.join(".aimon")).expect("project");
    let pidfile = root.path().join("sleep.pid");
    // The call asks to be woken in a second; the woken run (AIMON_REWAKE_ID set) sleeps.
    let command = format!(r#"if [ -n "$AIMON_REWAKE_ID" ]; then sleep 60 & echo $! > {}; wait; fi"#, pidfile.display());
    let rewake = json!({"trigger": {"delay": "1s"}, "maxAttempts": 1, "reason": "a fire that sleeps"});
    let hooks = json!({"hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": command, "timeout": 120, "asyncRewake": rewake}]}]}});
    std::fs::write(project.join(".aimon/hooks.json"), hooks.to_string()).expect("hooks.json");
    hook_config::TrustStore::in_home(&home).trust(&project).expect("trust the project");

    let socket = home.join(".aimon/serve.sock");
    let options = ServeOptions {
        service: ServiceOptions::new(Some(home.clone()), root.path().to_owned()),
        socket: socket.clone(),
        listen: None,
        store: Some(format!("sqlite:{}", root.path().join("rewake.db").display())),
        grace: Duration::from_secs(1),
    };
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let daemon = tokio::spawn(serve(options, async move {
        let _ = stopped.await;
    }));
    let deadline = Instant::now() + Duration::from_secs(10);
    while tokio::net::UnixStream::connect(&socket).await.is_err() {
        assert!(!daemon.is_finished(), "the daemon stopped: {:?}", daemon.await);
        assert!(Instant::now() < deadline, "the daemon did not listen on its socket");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }

    let call = json!({"hook_event_name": "PostToolUse", "session_id": "s-1", "cwd": project, "tool_name": "Bash",
                      "tool_input": {"command": "git push"}, "tool_response": {}, "tool_use_id": "toolu_1"});
    let status = post_claude(&socket, &call.to_string()).await;
    assert!(status.contains(" 200 "), "{status}");
    let deadline = Instant::now() + Duration::from_secs(30);
    let sleep = loop {
        if let Some(pid) = std::fs::read_to_string(&pidfile).ok().and_then(|t| t.trim().parse::<i32>().ok()) {
            break pid;
        }
        assert!(Instant::now() < deadline, "the rewake's hook never ran");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(alive(sleep), "the fire's sleep runs before the shutdown");

    let _ = stop.send(());
    daemon.await.expect("the daemon task").expect("the daemon ran");
    let bound = Instant::now() + Duration::from_secs(2);
    while alive(sleep) {
        assert!(Instant::now() < bound, "the fire's sleep {sleep} outlived serve by two seconds");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
