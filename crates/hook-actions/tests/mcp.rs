//! MCP hooks against an MCP server built with rmcp here, reached both as a child process (stdio)
//! and over streamable HTTP (R-ACT-MCP-1…3, R-ACT-TPL, R-CFG-4c).
//!
//! The stdio server is this very binary: run with `AIMON_TEST_MCP_SERVER=1` in its environment,
//! `main` serves MCP on stdin/stdout instead of running the tests. That is why this target has
//! `harness = false`: libtest would print to stdout, which is the protocol channel. The small
//! runner below takes a name filter like libtest and runs each test on a fresh runtime.
//!
//! Contents: decision mapping (text and structured content, and the text fallback when structured
//! content carries no decision), rendered args, `isError`, an unknown server, timeout, crash then
//! recovery (stdio), restart after two unanswered calls, `${VAR}` expansion in mcp.json, server
//! restart (HTTP), session reuse; and the real reference servers from npm
//! (`@modelcontextprotocol/server-filesystem` and `server-everything`, pinned), installed on first
//! use under `target/npm-cache/` (node and npm are needed; the test fails naming them otherwise).

use std::fs::File;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::process::{Command, ExitCode, Stdio};
use std::sync::Arc;
use std::time::Duration;

use hook_actions::{McpAction, McpServers, McpSpec};
use hook_core::{
    CancellationToken, Decision, ExecutionHook, FlowControl, HookContext, HookEventType, HookResult, ToolCall,
};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, ServerCapabilities, ServerConfig};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use serde_json::{Map, Value, json};

const SERVER_ENV: &str = "AIMON_TEST_MCP_SERVER";

// ---------------------------------------------------------------------------------------------
// The policy server.

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct CheckArgs {
    /// The command the agent wants to run.
    #[serde(default)]
    command: String,
    /// Anything else, echoed back in the reason.
    #[serde(default)]
    extra: Option<Value>,
}

#[derive(Debug, Clone)]
struct PolicyServer {
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl PolicyServer {
    fn new() -> Self {
        PolicyServer { tool_router: Self::tool_router() }
    }

    #[tool(description = "Deny commands containing rm (answers as text content)")]
    fn check(&self, Parameters(args): Parameters<CheckArgs>) -> String {
        if args.command.contains("rm") {
            json!({"decision": "deny", "reason": format!("rm is not allowed: {}", args.command)}).to_string()
        } else {
            json!({"decision": "allow"}).to_string()
        }
    }

    #[tool(description = "Rewrite the command (answers as structured content)")]
    fn rewrite(&self, Parameters(args): Parameters<CheckArgs>) -> CallToolResult {
        CallToolResult::structured(
            json!({"decision": "allow", "updatedInput": {"command": format!("{} --dry-run", args.command)}}),
        )
    }

    #[tool(description = "Echo the arguments back as a denial reason")]
    fn echo(&self, Parameters(args): Parameters<CheckArgs>) -> String {
        let reason = json!({"command": args.command, "extra": args.extra}).to_string();
        json!({"decision": "deny", "reason": reason}).to_string()
    }

    #[tool(description = "Deny with the server's process id")]
    fn whoami(&self) -> String {
        json!({"decision": "deny", "reason": std::process::id().to_string()}).to_string()
    }

    #[tool(description = "Report a tool failure")]
    fn broken(&self) -> CallToolResult {
        CallToolResult::error(vec![ContentBlock::text("policy engine unavailable")])
    }

    #[tool(description = "Answer after ten seconds")]
    async fn slow(&self) -> String {
        tokio::time::sleep(Duration::from_secs(10)).await;
        json!({"decision": "deny", "reason": "too late"}).to_string()
    }

    #[tool(description = "Answer like server-filesystem: the decision in the text, structured content without one")]
    fn wrapped(&self) -> CallToolResult {
        let text = json!({"decision": "deny", "reason": "read from the text"}).to_string();
        let mut result = CallToolResult::structured(json!({"content": text}));
        result.content = vec![ContentBlock::text(text)];
        result
    }

    #[tool(description = "Deny with the value of the environment variable named by `command`")]
    fn getenv(&self, Parameters(args): Parameters<CheckArgs>) -> String {
        let value = std::env::var(&args.command).unwrap_or_else(|_| "<unset>".into());
        json!({"decision": "deny", "reason": value}).to_string()
    }

    #[tool(description = "Answer something that is not a decision")]
    fn chatter(&self) -> String {
        "all good, nothing to see".into()
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for PolicyServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

fn serve_stdio() -> ExitCode {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(async {
        match PolicyServer::new().serve(rmcp::transport::stdio()).await {
            Ok(service) => {
                let _ = service.waiting().await;
                ExitCode::SUCCESS
            }
            Err(_) => ExitCode::FAILURE,
        }
    })
}

/// An HTTP MCP server on 127.0.0.1; cancelling the token stops it.
async fn serve_http(addr: &str) -> (String, CancellationToken) {
    let ct = CancellationToken::new();
    let service: StreamableHttpService<PolicyServer, LocalSessionManager> = StreamableHttpService::new(
        || Ok(PolicyServer::new()),
        Default::default(),
        StreamableHttpServerConfig::default().with_sse_keep_alive(None).with_cancellation_token(ct.child_token()),
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind(addr).await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let stop = ct.clone();
    tokio::spawn(async move {
        let _ = axum::serve(listener, router).with_graceful_shutdown(async move { stop.cancelled_owned().await }).await;
    });
    (format!("http://{addr}/mcp"), ct)
}

// ---------------------------------------------------------------------------------------------
// Helpers.

fn stdio_servers() -> Arc<McpServers> {
    let exe = std::env::current_exe().expect("own path");
    let doc = json!({"mcpServers": {"policy": {"command": exe, "env": {SERVER_ENV: "1"}}}});
    Arc::new(McpServers::from_json(&doc.to_string()).expect("registry"))
}

fn http_servers(url: &str) -> Arc<McpServers> {
    let doc = json!({"mcpServers": {"policy": {"type": "http", "url": url}}});
    Arc::new(McpServers::from_json(&doc.to_string()).expect("registry"))
}

fn pre_tool(command: &str) -> HookContext {
    HookContext::new(HookEventType::PRE_TOOL).with_tool(ToolCall::new("Bash", json!({"command": command})))
}

fn args(v: Value) -> Map<String, Value> {
    v.as_object().cloned().expect("object")
}

async fn call(servers: &Arc<McpServers>, spec: McpSpec, ctx: &HookContext) -> HookResult {
    McpAction::new("mcp@test#0", "test#0", spec, servers.clone()).execute(ctx).await.expect("an mcp hook never errors")
}

fn axes(r: &HookResult) -> (Decision, FlowControl) {
    (r.decision, r.flow)
}

const ALLOW: (Decision, FlowControl) = (Decision::Allow, FlowControl::Continue);
const DENY: (Decision, FlowControl) = (Decision::Deny, FlowControl::Continue);
const BLOCK: (Decision, FlowControl) = (Decision::Allow, FlowControl::Block);

// ---------------------------------------------------------------------------------------------
// Tests shared by both transports.

async fn decisions_map_from_text_and_structured_content(servers: Arc<McpServers>) {
    // R-ACT-MCP-3: (tool input, tool, axes, feedback, updated input).
    let check = || McpSpec::new("policy", "check").with_args(args(json!({"command": "${tool_input.command}"})));
    let r = call(&servers, check(), &pre_tool("rm -rf /")).await;
    assert_eq!((axes(&r), r.feedback.as_deref()), (DENY, Some("rm is not allowed: rm -rf /")));
    let r = call(&servers, check(), &pre_tool("ls")).await;
    assert_eq!(r, HookResult::explicit_allow(), "the server said allow in so many words");
    let rewrite = McpSpec::new("policy", "rewrite").with_args(args(json!({"command": "${tool_input.command}"})));
    let r = call(&servers, rewrite, &pre_tool("make")).await;
    assert_eq!((axes(&r), r.updated_input), (ALLOW, Some(json!({"command": "make --dry-run"}))));
    let r = call(&servers, McpSpec::new("policy", "chatter"), &pre_tool("ls")).await;
    assert_eq!(r, HookResult::allow());
}

async fn args_are_rendered_structurally(servers: Arc<McpServers>) {
    // R-ACT-MCP-1, R-ACT-TPL-2: hostile input stays one JSON string.
    let hostile = "a\"b'; $(id) `id`\n}";
    let spec = McpSpec::new("policy", "echo").with_args(args(json!({
        "command": "${tool_input.command}",
        "extra": {"tool": "${context.tool_name}", "source": "${context.skill_name}", "n": 1, "raw": "${session_id}"}
    })));
    let r = call(&servers, spec, &pre_tool(hostile)).await;
    let echoed: Value = serde_json::from_str(r.feedback.as_deref().expect("reason")).expect("JSON");
    assert_eq!(
        echoed,
        json!({"command": hostile, "extra": {"tool": "Bash", "source": "test#0", "n": 1, "raw": "${session_id}"}})
    );
}

async fn is_error_warns_and_passes_unless_fail_closed(servers: Arc<McpServers>) {
    // R-ACT-MCP-3, R-CFG-4c
    let r = call(&servers, McpSpec::new("policy", "broken"), &pre_tool("ls")).await;
    assert_eq!((axes(&r), r.failure.as_deref()), (ALLOW, Some("tool reported an error: policy engine unavailable")));
    let r = call(&servers, McpSpec::new("policy", "broken").with_fail_closed(true), &pre_tool("ls")).await;
    assert_eq!(axes(&r), BLOCK);
    let r = call(&servers, McpSpec::new("policy", "no_such_tool"), &pre_tool("ls")).await;
    assert!(r.failure.as_deref().is_some_and(|f| f.starts_with("mcp call failed")), "{:?}", r.failure);
}

async fn a_slow_tool_times_out_and_the_session_stays_usable(servers: Arc<McpServers>) {
    // REL-2: a hung peer cannot hold the turn beyond the hook's timeout.
    let slow = McpSpec::new("policy", "slow").with_timeout(Duration::from_millis(500));
    let r = call(&servers, slow.clone(), &pre_tool("ls")).await;
    assert_eq!((axes(&r), r.failure.as_deref()), (ALLOW, Some("timed out after 500ms")));
    let r = call(&servers, slow.with_fail_closed(true), &pre_tool("ls")).await;
    assert_eq!(axes(&r), BLOCK);
    let check = McpSpec::new("policy", "check").with_args(args(json!({"command": "rm x"})));
    assert_eq!(axes(&call(&servers, check, &pre_tool("ls")).await), DENY);
}

async fn pid(servers: &Arc<McpServers>) -> Result<u32, String> {
    let r = call(servers, McpSpec::new("policy", "whoami"), &pre_tool("ls")).await;
    match (r.failure, r.feedback) {
        (Some(failure), _) => Err(failure),
        (None, Some(pid)) => Ok(pid.parse().expect("a pid")),
        (None, None) => Err("no answer".into()),
    }
}

// ---------------------------------------------------------------------------------------------
// The tests.

async fn stdio_decisions_map_from_text_and_structured_content() {
    decisions_map_from_text_and_structured_content(stdio_servers()).await;
}

async fn stdio_args_are_rendered_structurally() {
    args_are_rendered_structurally(stdio_servers()).await;
}

async fn stdio_is_error_warns_and_passes_unless_fail_closed() {
    is_error_warns_and_passes_unless_fail_closed(stdio_servers()).await;
}

async fn stdio_a_slow_tool_times_out_and_the_session_stays_usable() {
    a_slow_tool_times_out_and_the_session_stays_usable(stdio_servers()).await;
}

async fn stdio_the_session_is_opened_once_and_reused() {
    // R-ACT-MCP-2: lazily opened, then reused (same server process).
    let servers = stdio_servers();
    let first = pid(&servers).await.expect("first call");
    assert_ne!(first, std::process::id());
    assert_eq!(pid(&servers).await, Ok(first));
}

async fn stdio_a_crashed_server_is_restarted_on_the_next_call() {
    // R-ACT-MCP-2: kill -9 the server; at most one call fails, then a new process answers.
    let servers = stdio_servers();
    let before = pid(&servers).await.expect("first call");
    let killed = std::process::Command::new("kill").args(["-KILL", &before.to_string()]).status().expect("kill");
    assert!(killed.success());
    let after = match pid(&servers).await {
        Ok(p) => p,
        Err(failure) => {
            assert!(failure.contains("closed"), "{failure}");
            pid(&servers).await.expect("the call after the failure restarts the server")
        }
    };
    assert_ne!(after, before);
    assert_eq!(pid(&servers).await, Ok(after));
}

async fn unknown_servers_and_unstartable_commands_are_failures() {
    let r = call(&stdio_servers(), McpSpec::new("nope", "check").with_fail_closed(true), &pre_tool("ls")).await;
    assert_eq!((axes(&r), r.failure.as_deref()), (BLOCK, Some("unknown mcp server 'nope'")));
    let doc = r#"{"mcpServers": {"policy": {"command": "/nonexistent/aimon-mcp-server"}}}"#;
    let servers = Arc::new(McpServers::from_json(doc).expect("registry"));
    let r = call(&servers, McpSpec::new("policy", "check"), &pre_tool("ls")).await;
    assert!(r.failure.as_deref().is_some_and(|f| f.starts_with("cannot start mcp server")), "{:?}", r.failure);
}

async fn stdio_structured_content_without_a_decision_falls_back_to_the_text() {
    // REL-5: `structuredContent: {"content": "<text>"}` (server-filesystem's shape) says nothing;
    // the text content parsed as JSON decides.
    let r = call(&stdio_servers(), McpSpec::new("policy", "wrapped"), &pre_tool("ls")).await;
    assert_eq!((axes(&r), r.feedback.as_deref(), r.failure), (DENY, Some("read from the text"), None));
}

async fn stdio_a_server_that_misses_two_calls_in_a_row_is_restarted() {
    // REL-5: one unanswered call keeps the server; two in a row restart it (the old one is gone).
    let servers = stdio_servers();
    let slow = McpSpec::new("policy", "slow").with_timeout(Duration::from_millis(300));
    let first = pid(&servers).await.expect("first call");
    let r = call(&servers, slow.clone(), &pre_tool("ls")).await;
    assert_eq!(r.failure.as_deref(), Some("timed out after 300ms"));
    assert_eq!(pid(&servers).await, Ok(first), "one miss then an answer: the same server");
    for _ in 0..2 {
        call(&servers, slow.clone(), &pre_tool("ls")).await;
    }
    let second = pid(&servers).await.expect("the call after two misses restarts the server");
    assert_ne!(second, first);
    assert!(gone(first).await, "the hung server {first} is still running");
    assert_eq!(pid(&servers).await, Ok(second));
}

async fn stdio_mcp_json_variables_expand_like_claude_codes() {
    // REL-5: `${VAR:-default}` in command and env, `${VAR}` in args and env.
    let exe = std::env::current_exe().expect("own path");
    let home = std::env::var("HOME").expect("HOME is set");
    let doc = json!({"mcpServers": {"policy": {
        "command": format!("${{AIMON_TEST_UNSET_SERVER:-{}}}", exe.display()),
        "args": ["--home=${HOME}"],
        "env": {SERVER_ENV: "${AIMON_TEST_UNSET_FLAG:-1}", "AIMON_TEST_SEEN": "${HOME}/x"}
    }}});
    let servers = Arc::new(McpServers::from_json(&doc.to_string()).expect("registry"));
    let getenv = McpSpec::new("policy", "getenv").with_args(args(json!({"command": "AIMON_TEST_SEEN"})));
    let r = call(&servers, getenv, &pre_tool("ls")).await;
    assert_eq!((r.feedback, r.failure), (Some(format!("{home}/x")), None));
    let err = McpServers::from_json(r#"{"mcpServers": {"p": {"command": "${AIMON_TEST_UNSET_SERVER}"}}}"#)
        .expect_err("an unset variable without a default");
    assert!(
        err.to_string().ends_with("environment variable 'AIMON_TEST_UNSET_SERVER' is not set and has no default"),
        "{err}"
    );
}

/// Waits until no live process has `pid` (a zombie counts as gone).
async fn gone(pid: u32) -> bool {
    for _ in 0..250 {
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            Err(_) => return true,
            Ok(stat) if stat.rsplit(')').next().is_some_and(|rest| rest.trim_start().starts_with('Z')) => return true,
            Ok(_) => tokio::time::sleep(Duration::from_millis(20)).await,
        }
    }
    false
}

// ---------------------------------------------------------------------------------------------
// The reference servers from npm.

/// The pinned version of `@modelcontextprotocol/server-filesystem` and `server-everything`.
const NPM_SERVERS_VERSION: &str = "2026.8.31";

/// Installs the pinned reference servers with npm under `target/npm-cache/` on first use (a file
/// lock keeps concurrent test processes apart) and returns their `node_modules/.bin`.
fn npm_servers() -> PathBuf {
    let exe = std::env::current_exe().expect("own path");
    // target/<profile>/deps/<this test>
    let target = exe.ancestors().nth(3).expect("the target directory");
    let dir = target.join("npm-cache").join(format!("mcp-{NPM_SERVERS_VERSION}"));
    std::fs::create_dir_all(&dir).expect("npm cache directory");
    let lock = File::create(dir.join(".lock")).expect("lock file");
    lock.lock().expect("lock");
    let marker = dir.join(".installed");
    if !marker.exists() {
        let packages = ["server-filesystem", "server-everything"]
            .map(|p| format!("@modelcontextprotocol/{p}@{NPM_SERVERS_VERSION}"));
        let status = Command::new("npm")
            .args(["install", "--no-audit", "--no-fund", "--no-save", "--prefix"])
            .arg(&dir)
            .args(&packages)
            .stdout(Stdio::null())
            .status();
        match status {
            Ok(status) => assert!(status.success(), "npm install {} failed ({status})", packages.join(" ")),
            Err(e) => panic!(
                "the MCP interop tests install the reference servers with npm, which could not run ({e}): \
                 install node and npm (apt-get install nodejs npm)"
            ),
        }
        File::create(&marker).expect("install marker");
    }
    dir.join("node_modules").join(".bin")
}

fn npm_server(name: &str, bin: &Path, args: Value) -> Arc<McpServers> {
    let doc = json!({"mcpServers": {name: {"command": bin, "args": args}}});
    Arc::new(McpServers::from_json(&doc.to_string()).expect("registry"))
}

async fn npm_server_filesystem_a_policy_file_read_with_read_text_file_is_honoured() {
    // REL-5: server-filesystem answers `structuredContent: {"content": "<file text>"}`; the text
    // holds the decision.
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().canonicalize().expect("canonical");
    std::fs::write(root.join("deny.json"), r#"{"decision":"deny","reason":"the policy file says no"}"#).expect("write");
    std::fs::write(root.join("allow.json"), r#"{"decision":"allow"}"#).expect("write");
    let bin = npm_servers().join("mcp-server-filesystem");
    let servers = npm_server("fs", &bin, json!([root]));
    let read = |file: &str| {
        McpSpec::new("fs", "read_text_file").with_args(args(json!({"path": root.join(file)}))).with_fail_closed(true)
    };
    let r = call(&servers, read("deny.json"), &pre_tool("rm -rf /")).await;
    assert_eq!((axes(&r), r.feedback.as_deref(), r.failure), (DENY, Some("the policy file says no"), None));
    let r = call(&servers, read("allow.json"), &pre_tool("ls")).await;
    assert_eq!(r, HookResult::explicit_allow());
}

async fn npm_server_everything_echo_returning_a_json_decision_is_honoured() {
    // server-everything's echo answers the text `Echo: <message>`; the JSON after the label decides.
    let bin = npm_servers().join("mcp-server-everything");
    let servers = npm_server("everything", &bin, json!(["stdio"]));
    let message = r#"{"decision":"deny","reason":"echoed: ${tool_input.command}"}"#;
    let echo = McpSpec::new("everything", "echo").with_args(args(json!({"message": message})));
    let r = call(&servers, echo, &pre_tool("git push")).await;
    assert_eq!((axes(&r), r.feedback.as_deref(), r.failure), (DENY, Some("echoed: git push"), None));
}

async fn http_decisions_map_from_text_and_structured_content() {
    let (url, stop) = serve_http("127.0.0.1:0").await;
    decisions_map_from_text_and_structured_content(http_servers(&url)).await;
    stop.cancel();
}

async fn http_args_are_rendered_structurally() {
    let (url, stop) = serve_http("127.0.0.1:0").await;
    args_are_rendered_structurally(http_servers(&url)).await;
    stop.cancel();
}

async fn http_is_error_warns_and_passes_unless_fail_closed() {
    let (url, stop) = serve_http("127.0.0.1:0").await;
    is_error_warns_and_passes_unless_fail_closed(http_servers(&url)).await;
    stop.cancel();
}

async fn http_a_slow_tool_times_out_and_the_session_stays_usable() {
    let (url, stop) = serve_http("127.0.0.1:0").await;
    a_slow_tool_times_out_and_the_session_stays_usable(http_servers(&url)).await;
    stop.cancel();
}

async fn http_a_restarted_server_gets_a_new_session() {
    // R-ACT-MCP-2 over HTTP: the server goes away (its sessions with it) and comes back on the
    // same address; at most one call fails, then a new session answers.
    let (url, stop) = serve_http("127.0.0.1:0").await;
    let servers = http_servers(&url);
    let check = McpSpec::new("policy", "check").with_args(args(json!({"command": "rm x"})));
    assert_eq!(axes(&call(&servers, check.clone(), &pre_tool("ls")).await), DENY);
    stop.cancel();
    tokio::time::sleep(Duration::from_millis(200)).await;
    let addr = url.trim_start_matches("http://").trim_end_matches("/mcp").to_owned();
    let r = call(&servers, check.clone(), &pre_tool("ls")).await;
    assert_eq!(axes(&r), ALLOW, "the server is down: no decision");
    assert!(r.failure.is_some());
    let (_, stop) = serve_http(&addr).await;
    let mut r = call(&servers, check.clone(), &pre_tool("ls")).await;
    if r.failure.is_some() {
        r = call(&servers, check, &pre_tool("ls")).await;
    }
    assert_eq!((axes(&r), r.failure), (DENY, None));
    stop.cancel();
}

// ---------------------------------------------------------------------------------------------
// The runner.

type Test = fn() -> Pin<Box<dyn Future<Output = ()>>>;

macro_rules! tests {
    ($($name:ident),* $(,)?) => {
        &[$((stringify!($name), (|| Box::pin($name())) as Test)),*]
    };
}

fn main() -> ExitCode {
    if std::env::var_os(SERVER_ENV).is_some() {
        return serve_stdio();
    }
    let all: &[(&str, Test)] = tests![
        stdio_decisions_map_from_text_and_structured_content,
        stdio_args_are_rendered_structurally,
        stdio_is_error_warns_and_passes_unless_fail_closed,
        stdio_a_slow_tool_times_out_and_the_session_stays_usable,
        stdio_the_session_is_opened_once_and_reused,
        stdio_a_crashed_server_is_restarted_on_the_next_call,
        unknown_servers_and_unstartable_commands_are_failures,
        stdio_structured_content_without_a_decision_falls_back_to_the_text,
        stdio_a_server_that_misses_two_calls_in_a_row_is_restarted,
        stdio_mcp_json_variables_expand_like_claude_codes,
        npm_server_filesystem_a_policy_file_read_with_read_text_file_is_honoured,
        npm_server_everything_echo_returning_a_json_decision_is_honoured,
        http_decisions_map_from_text_and_structured_content,
        http_args_are_rendered_structurally,
        http_is_error_warns_and_passes_unless_fail_closed,
        http_a_slow_tool_times_out_and_the_session_stays_usable,
        http_a_restarted_server_gets_a_new_session,
    ];
    let filters: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    let selected: Vec<_> = all
        .iter()
        .filter(|(name, _)| filters.is_empty() || filters.iter().any(|f| name.contains(f.as_str())))
        .collect();
    println!("\nrunning {} tests", selected.len());
    let mut failed = Vec::new();
    for (name, test) in &selected {
        let outcome = std::panic::catch_unwind(|| {
            let runtime = tokio::runtime::Runtime::new().expect("runtime");
            runtime.block_on(test());
        });
        println!("test {name} ... {}", if outcome.is_ok() { "ok" } else { "FAILED" });
        if outcome.is_err() {
            failed.push(*name);
        }
    }
    let passed = selected.len() - failed.len();
    println!(
        "\ntest result: {}. {passed} passed; {} failed",
        if failed.is_empty() { "ok" } else { "FAILED" },
        failed.len()
    );
    if failed.is_empty() { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}
