//! Warm MCP sessions through the daemon (R-SRV-2): an mcp hook's second call reuses the server
//! process the first call started.
//!
//! The stdio MCP server is this very binary: run with `AIMON_TEST_MCP_SERVER=1`, `main` serves
//! MCP on stdin/stdout (one tool, `whoami`, which denies with its process id). That is why this
//! target has `harness = false`: libtest would print to stdout, the protocol channel. The daemon
//! runs in this process (the library's `serve` on a temporary socket) and is called with the
//! forwarding client, as `aimon-hooks claude` calls it.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use hook_server::{ForwardHints, Forwarded, ServeOptions, ServiceOptions, forward, serve};
use hook_wire::Client;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{ServerCapabilities, ServerConfig};
use rmcp::{ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use serde_json::{Value, json};

const SERVER_ENV: &str = "AIMON_TEST_MCP_SERVER";

#[derive(Debug, Clone)]
struct PidServer {
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl PidServer {
    fn new() -> Self {
        PidServer { tool_router: Self::tool_router() }
    }

    #[tool(description = "Deny with the server's process id")]
    fn whoami(&self) -> String {
        json!({"decision": "deny", "reason": std::process::id().to_string()}).to_string()
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for PidServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

fn serve_stdio() -> ExitCode {
    let Ok(runtime) = tokio::runtime::Runtime::new() else { return ExitCode::FAILURE };
    runtime.block_on(async {
        match PidServer::new().serve(rmcp::transport::stdio()).await {
            Ok(service) => {
                let _ = service.waiting().await;
                ExitCode::SUCCESS
            }
            Err(_) => ExitCode::FAILURE,
        }
    })
}

/// Live (non-zombie) children of this process.
fn children() -> usize {
    let me = std::process::id().to_string();
    std::fs::read_dir("/proc")
        .expect("this test needs /proc")
        .filter_map(|e| std::fs::read_to_string(e.ok()?.path().join("stat")).ok())
        .filter(|stat| {
            let fields: Vec<&str> = stat.rsplit_once(')').map_or(vec![], |(_, rest)| rest.split_whitespace().collect());
            fields.len() > 1 && fields[0] != "Z" && fields[1] == me
        })
        .count()
}

async fn a_second_mcp_call_reuses_the_server_process() {
    let root = tempfile::tempdir().expect("tempdir");
    let (home, project) = (root.path().join("home"), root.path().join("project"));
    std::fs::create_dir_all(home.join(".aimon")).expect("home");
    std::fs::create_dir_all(project.join(".aimon")).expect("project");
    let exe = std::env::current_exe().expect("own path");
    let registry = json!({"mcpServers": {"policy": {"command": exe, "env": {SERVER_ENV: "1"}}}});
    std::fs::write(project.join(".aimon/mcp.json"), registry.to_string()).expect("mcp.json");
    let hooks = json!({"hooks": {"PreToolUse": [{"matcher": "Bash",
        "hooks": [{"type": "mcp", "server": "policy", "tool": "whoami", "timeout": 20}]}]}});
    std::fs::write(project.join(".aimon/hooks.json"), hooks.to_string()).expect("hooks.json");
    // The daemon runs a project's own mcp hooks only once the person trusted them.
    hook_config::TrustStore::in_home(&home).trust(&project).expect("trust the project");

    let socket = home.join(".aimon/serve.sock");
    let options = ServeOptions {
        service: ServiceOptions::new(Some(home.clone()), root.path().to_owned()),
        socket: socket.clone(),
        listen: None,
        store: None,
        grace: Duration::from_secs(2),
    };
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let daemon = tokio::spawn(serve(options, async move {
        let _ = stopped.await;
    }));
    let deadline = Instant::now() + Duration::from_secs(10);
    while !socket.exists() {
        assert!(Instant::now() < deadline, "the daemon did not bind its socket");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }

    let payload = json!({"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"},
                         "cwd": project})
    .to_string();
    let mut pids = Vec::new();
    for call in 1..=2 {
        let hints = ForwardHints {
            client_project_dir: Some(&project),
            base: &project,
            home: &home,
            audit: false,
            guarded: false,
        };
        let Forwarded::Answered(printed) = forward(&socket, Client::Claude, hints, payload.clone().into_bytes()).await
        else {
            panic!("call {call}: the daemon did not answer");
        };
        assert_eq!((printed.stderr.as_str(), printed.exit), ("", 0), "call {call}: {printed:?}");
        let answer: Value = serde_json::from_str(&printed.stdout).expect("a JSON answer");
        assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "deny", "call {call}: {answer}");
        pids.push(answer["hookSpecificOutput"]["permissionDecisionReason"].as_str().map(str::to_owned));
        assert_eq!(children(), 1, "call {call}: exactly one MCP server process");
    }
    assert_eq!(pids[0], pids[1], "the second call was answered by the first call's server");

    let _ = stop.send(());
    daemon.await.expect("the daemon task").expect("the daemon ran");
    let deadline = Instant::now() + Duration::from_secs(10);
    while children() > 0 {
        assert!(Instant::now() < deadline, "the MCP server outlived the daemon's shutdown");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(!socket.exists(), "the socket file is removed on shutdown");
}

fn main() -> ExitCode {
    if std::env::var_os(SERVER_ENV).is_some() {
        return serve_stdio();
    }
    println!("\nrunning 1 test");
    let outcome = std::panic::catch_unwind(|| {
        let runtime = tokio::runtime::Runtime::new().expect("runtime");
        runtime.block_on(a_second_mcp_call_reuses_the_server_process());
    });
    println!("test a_second_mcp_call_reuses_the_server_process ... {}", if outcome.is_ok() { "ok" } else { "FAILED" });
    if outcome.is_ok() { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}
