//! The rmcp adapter: the only file that names rmcp (its API churns, R-DEP). It opens a client
//! session over stdio or streamable HTTP and calls one tool.

use std::collections::{BTreeMap, HashMap};
use std::process::Stdio;

use reqwest::header::{HeaderName, HeaderValue};
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{Peer, RoleClient, RunningService, ServiceError};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use serde_json::{Map, Value};

/// How to reach one server.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ServerConfig {
    /// A child process speaking MCP on stdin/stdout.
    Stdio { command: String, args: Vec<String>, env: BTreeMap<String, String> },
    /// A streamable HTTP endpoint.
    Http { url: String, headers: BTreeMap<String, String> },
}

/// An open client session; dropping it closes the session (and kills a stdio server).
#[derive(Debug)]
pub(crate) struct Session(RunningService<RoleClient, ()>);

/// What a tool call returned.
#[derive(Debug)]
pub(crate) struct ToolOutput {
    pub(crate) is_error: bool,
    pub(crate) structured: Option<Value>,
    /// The text blocks, concatenated.
    pub(crate) text: String,
}

/// Why a call failed.
#[derive(Debug)]
pub(crate) enum CallError {
    /// The session's transport is gone (the server crashed or hung up).
    Closed(String),
    /// Anything else (a protocol error from the server, …).
    Other(String),
}

impl Session {
    /// Starts the server (stdio) or connects to it (HTTP) and completes the MCP handshake.
    pub(crate) async fn open(config: &ServerConfig) -> Result<Session, String> {
        let service = match config {
            ServerConfig::Stdio { command, args, env } => {
                let mut cmd = tokio::process::Command::new(command);
                cmd.args(args).envs(env);
                let (transport, _) = TokioChildProcess::builder(cmd)
                    .stderr(Stdio::inherit())
                    .spawn()
                    .map_err(|e| format!("cannot start mcp server '{command}': {e}"))?;
                ().serve(transport).await.map_err(|e| format!("mcp handshake failed: {e}"))?
            }
            ServerConfig::Http { url, headers } => {
                let mut custom = HashMap::new();
                for (name, value) in headers {
                    let name =
                        HeaderName::from_bytes(name.as_bytes()).map_err(|_| format!("invalid header name '{name}'"))?;
                    let value =
                        HeaderValue::from_str(value).map_err(|_| format!("invalid value for header '{name}'"))?;
                    custom.insert(name, value);
                }
                let config = StreamableHttpClientTransportConfig::with_uri(url.as_str()).custom_headers(custom);
                let transport = StreamableHttpClientTransport::from_config(config);
                ().serve(transport).await.map_err(|e| format!("mcp handshake failed: {e}"))?
            }
        };
        Ok(Session(service))
    }

    /// Whether the session can still carry calls.
    pub(crate) fn is_alive(&self) -> bool {
        !self.0.is_closed() && !self.0.peer().is_transport_closed()
    }

    /// A handle for calls; it does not keep the session alive.
    pub(crate) fn caller(&self) -> Caller {
        Caller(self.0.peer().clone())
    }
}

/// Calls tools on a session.
#[derive(Debug, Clone)]
pub(crate) struct Caller(Peer<RoleClient>);

impl Caller {
    /// Calls `tool` with `args`.
    pub(crate) async fn call(&self, tool: &str, args: Map<String, Value>) -> Result<ToolOutput, CallError> {
        let params = CallToolRequestParams::new(tool.to_owned()).with_arguments(args);
        match self.0.call_tool(params).await {
            Ok(result) => Ok(output(result)),
            Err(e @ (ServiceError::TransportClosed | ServiceError::TransportSend(_))) => {
                Err(CallError::Closed(e.to_string()))
            }
            Err(e) if self.0.is_transport_closed() => Err(CallError::Closed(e.to_string())),
            Err(e) => Err(CallError::Other(e.to_string())),
        }
    }
}

fn output(result: CallToolResult) -> ToolOutput {
    let text = result.content.iter().filter_map(|c| c.as_text()).map(|t| t.text.as_str()).collect();
    ToolOutput { is_error: result.is_error == Some(true), structured: result.structured_content, text }
}
