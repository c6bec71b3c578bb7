//! The MCP server registry (R-ACT-MCP-2): Claude Code's `.mcp.json` shape, read from
//! `~/.aimon/mcp.json` and `<project>/.aimon/mcp.json` (project wins by name), with `${VAR}` and
//! `${VAR:-default}` expanded in `command`, `args`, `env`, `url` and `headers` as Claude Code does
//! (REL-5). Each server keeps one session, opened on first use, reused, and reopened when it died
//! or when two calls in a row did not answer in time (REL-5).

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;
use std::sync::atomic::{AtomicU32, Ordering};

use serde_json::{Map, Value};
use tokio::sync::Mutex;

use crate::error::Error;
use crate::mcp::transport::{CallError, Caller, ServerConfig, Session, ToolOutput};

/// After this many calls in a row that did not answer (timed out or were given up), the session
/// is closed and the server restarted on the next call (REL-5).
const HUNG_CALLS_BEFORE_RESTART: u32 = 2;

#[derive(Debug)]
struct Server {
    config: ServerConfig,
    /// The open session and its generation number.
    session: Mutex<Option<(u64, Session)>>,
    /// Calls in a row that did not answer.
    unanswered: AtomicU32,
}

/// Counts a call as unanswered when it is dropped before its answer (its hook timed out).
#[derive(Debug)]
struct Pending<'a>(Option<&'a AtomicU32>);

impl Pending<'_> {
    /// The server answered (whatever it said): the count starts again.
    fn answered(mut self) {
        if let Some(count) = self.0.take() {
            count.store(0, Ordering::SeqCst);
        }
    }
}

impl Drop for Pending<'_> {
    fn drop(&mut self) {
        if let Some(count) = self.0 {
            count.fetch_add(1, Ordering::SeqCst);
        }
    }
}

/// The MCP servers hooks may call, by name.
///
/// ```
/// use hook_actions::McpServers;
/// let servers = McpServers::from_json(r#"{"mcpServers": {
///     "policy": {"command": "policy-server", "args": ["--stdio"]},
///     "remote": {"type": "http", "url": "http://127.0.0.1:9/mcp"}
/// }}"#).unwrap();
/// assert_eq!(servers.names(), ["policy", "remote"]);
/// ```
pub struct McpServers {
    servers: BTreeMap<String, Server>,
}

impl fmt::Debug for McpServers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpServers").field("names", &self.names()).finish()
    }
}

impl McpServers {
    /// No servers.
    pub fn empty() -> Self {
        McpServers { servers: BTreeMap::new() }
    }

    /// Reads `<home>/.aimon/mcp.json`, then `<project>/.aimon/mcp.json` (a project server replaces
    /// a user server of the same name). A missing file is silent; an unreadable file or an invalid
    /// entry is skipped and reported in the returned warnings.
    pub fn load(home: Option<&Path>, project: Option<&Path>) -> (McpServers, Vec<String>) {
        let mut servers = McpServers::empty();
        let mut warnings = Vec::new();
        for root in [home, project].into_iter().flatten() {
            let path = hook_core::AimonDir::under(root).mcp();
            let text = match std::fs::read_to_string(&path) {
                Ok(text) => text,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    tracing::debug!("hooks: no mcp server registry at {}", path.display());
                    continue;
                }
                Err(e) => {
                    warnings.push(format!("hooks: cannot read {}: {e}", path.display()));
                    continue;
                }
            };
            match parse(&text) {
                Ok((found, problems)) => {
                    warnings.extend(problems.into_iter().map(|p| format!("hooks: {}: {p}", path.display())));
                    servers.servers.extend(found.into_iter().map(|(name, config)| (name, Server::new(config))));
                }
                Err(e) => warnings.push(format!("hooks: {}: {e}", path.display())),
            }
        }
        (servers, warnings)
    }

    /// Parses one registry document; any invalid entry is an error.
    pub fn from_json(text: &str) -> Result<McpServers, Error> {
        let (found, problems) = parse(text)?;
        if let Some(first) = problems.into_iter().next() {
            return Err(Error::McpRegistry(first));
        }
        Ok(McpServers { servers: found.into_iter().map(|(name, config)| (name, Server::new(config))).collect() })
    }

    /// Server names, sorted.
    pub fn names(&self) -> Vec<String> {
        self.servers.keys().cloned().collect()
    }

    /// Calls `tool` on `server`, opening (or reopening) its session first when needed.
    pub(crate) async fn call(&self, server: &str, tool: &str, args: Map<String, Value>) -> Result<ToolOutput, String> {
        let entry = self.servers.get(server).ok_or_else(|| format!("unknown mcp server '{server}'"))?;
        let (generation, caller) = entry.caller(server).await?;
        let pending = Pending(Some(&entry.unanswered));
        let result = caller.call(tool, args).await;
        pending.answered();
        match result {
            Ok(output) => Ok(output),
            Err(CallError::Closed(e)) => {
                entry.forget(generation).await;
                Err(format!("mcp server '{server}' closed the session: {e}"))
            }
            Err(CallError::Other(e)) => Err(format!("mcp call failed: {e}")),
        }
    }
}

impl Server {
    fn new(config: ServerConfig) -> Self {
        Server { config, session: Mutex::new(None), unanswered: AtomicU32::new(0) }
    }

    async fn caller(&self, name: &str) -> Result<(u64, Caller), String> {
        let mut slot = self.session.lock().await;
        let hung = self.unanswered.load(Ordering::SeqCst) >= HUNG_CALLS_BEFORE_RESTART;
        let next = match slot.as_ref() {
            Some((generation, session)) if session.is_alive() && !hung => {
                return Ok((*generation, session.caller()));
            }
            Some((generation, _)) if hung => {
                tracing::warn!(
                    "hooks: mcp server '{name}' did not answer {HUNG_CALLS_BEFORE_RESTART} calls in a row; restarting it"
                );
                generation + 1
            }
            Some((generation, _)) => {
                tracing::info!("hooks: mcp server '{name}' is gone; restarting it");
                generation + 1
            }
            None => 0,
        };
        self.unanswered.store(0, Ordering::SeqCst);
        *slot = None;
        let session = Session::open(&self.config).await?;
        let caller = session.caller();
        *slot = Some((next, session));
        Ok((next, caller))
    }

    async fn forget(&self, generation: u64) {
        let mut slot = self.session.lock().await;
        if slot.as_ref().is_some_and(|(g, _)| *g == generation) {
            // Keep the generation counting up: the next session is numbered after this one.
            *slot = None;
        }
    }
}

/// The servers of one document, plus one problem per invalid entry; `${VAR}` reads the process
/// environment.
fn parse(text: &str) -> Result<(BTreeMap<String, ServerConfig>, Vec<String>), Error> {
    parse_with(text, &|name| std::env::var(name).ok())
}

/// Looks an environment variable up.
type Env<'a> = &'a dyn Fn(&str) -> Option<String>;

/// [`parse`] with another environment.
fn parse_with(text: &str, env: Env<'_>) -> Result<(BTreeMap<String, ServerConfig>, Vec<String>), Error> {
    let doc: Value = serde_json::from_str(text).map_err(|e| Error::McpRegistry(format!("not JSON: {e}")))?;
    let doc = doc.as_object().ok_or_else(|| Error::McpRegistry("the top level is not an object".into()))?;
    let Some(entries) = doc.get("mcpServers") else { return Ok((BTreeMap::new(), Vec::new())) };
    let entries = entries.as_object().ok_or_else(|| Error::McpRegistry("'mcpServers' is not an object".into()))?;
    let mut found = BTreeMap::new();
    let mut problems = Vec::new();
    for (name, entry) in entries {
        match server(entry, env) {
            Ok(config) => {
                found.insert(name.clone(), config);
            }
            Err(problem) => problems.push(format!("mcp server '{name}': {problem}")),
        }
    }
    Ok((found, problems))
}

fn server(entry: &Value, env: Env<'_>) -> Result<ServerConfig, String> {
    let entry = entry.as_object().ok_or("not an object")?;
    let raw = |key: &str| entry.get(key).and_then(Value::as_str);
    let text = |key: &str| raw(key).map(|t| expand(t, env)).transpose();
    let map = |key: &str| -> Result<BTreeMap<String, String>, String> {
        match entry.get(key) {
            None => Ok(BTreeMap::new()),
            Some(Value::Object(m)) => m
                .iter()
                .map(|(k, v)| {
                    let v = v.as_str().ok_or(format!("'{key}.{k}' is not a string"))?;
                    Ok((k.clone(), expand(v, env)?))
                })
                .collect(),
            Some(_) => Err(format!("'{key}' is not an object")),
        }
    };
    match raw("type") {
        None | Some("stdio") => {
            let command = text("command")?.filter(|c| !c.trim().is_empty()).ok_or("'command' is missing")?;
            let args = match entry.get("args") {
                None => Vec::new(),
                Some(Value::Array(items)) => items
                    .iter()
                    .map(|a| {
                        a.as_str().ok_or_else(|| "'args' holds a non-string".to_owned()).and_then(|a| expand(a, env))
                    })
                    .collect::<Result<_, _>>()?,
                Some(_) => return Err("'args' is not an array".into()),
            };
            Ok(ServerConfig::Stdio { command, args, env: map("env")? })
        }
        Some("http" | "streamable-http") => {
            let url = text("url")?.filter(|u| !u.trim().is_empty()).ok_or("'url' is missing")?;
            Ok(ServerConfig::Http { url, headers: map("headers")? })
        }
        Some(other) => Err(format!("transport type '{other}' is not supported (use stdio or http)")),
    }
}

/// Expands `${VAR}` and `${VAR:-default}` as Claude Code's `.mcp.json` does: a variable that is
/// set (for `:-`, set and not empty) gives its value, else the default; an unset variable without
/// a default makes the entry invalid. `$VAR` and anything else stay as written; values are not
/// expanded again.
fn expand(text: &str, env: Env<'_>) -> Result<String, String> {
    crate::template::substitute(text, |inner| {
        let (name, default) = match inner.split_once(":-") {
            Some((name, default)) => (name, Some(default)),
            None => (inner, None),
        };
        if name.is_empty() {
            return Ok(None);
        }
        match (env(name).filter(|v| default.is_none() || !v.is_empty()), default) {
            (Some(value), _) => Ok(Some(value)),
            (None, Some(default)) => Ok(Some(default.to_owned())),
            (None, None) => Err(format!("environment variable '{name}' is not set and has no default")),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_claude_code_shapes_parse() {
        let (found, problems) = parse(
            r#"{"mcpServers": {
                "a": {"command": "srv", "args": ["-v"], "env": {"K": "V"}},
                "b": {"type": "http", "url": "http://127.0.0.1:1/mcp", "headers": {"Authorization": "Bearer x"}}
            }}"#,
        )
        .expect("parses");
        assert!(problems.is_empty());
        assert_eq!(
            found["a"],
            ServerConfig::Stdio {
                command: "srv".into(),
                args: vec!["-v".into()],
                env: BTreeMap::from([("K".into(), "V".into())])
            }
        );
        assert_eq!(
            found["b"],
            ServerConfig::Http {
                url: "http://127.0.0.1:1/mcp".into(),
                headers: BTreeMap::from([("Authorization".into(), "Bearer x".into())])
            }
        );
    }

    #[test]
    fn invalid_entries_are_named_and_their_siblings_kept() {
        // One line per bad entry: (entry, problem).
        let cases = [
            (r#"{}"#, "mcp server 'x': 'command' is missing"),
            (
                r#"{"type": "sse", "url": "u"}"#,
                "mcp server 'x': transport type 'sse' is not supported (use stdio or http)",
            ),
            (r#"{"type": "http"}"#, "mcp server 'x': 'url' is missing"),
            (r#"{"command": "c", "args": "a b"}"#, "mcp server 'x': 'args' is not an array"),
            (r#"{"command": "c", "env": {"K": 1}}"#, "mcp server 'x': 'env.K' is not a string"),
            (r#"7"#, "mcp server 'x': not an object"),
        ];
        for (entry, want) in cases {
            let doc = format!(r#"{{"mcpServers": {{"x": {entry}, "ok": {{"command": "c"}}}}}}"#);
            let (found, problems) = parse(&doc).expect("document parses");
            assert_eq!(problems, [want.to_owned()], "{entry}");
            assert!(found.contains_key("ok"));
            let err = McpServers::from_json(&doc).expect_err("strict");
            assert_eq!(err.to_string(), format!("invalid mcp server registry: {want}"));
        }
    }

    #[test]
    fn variables_expand_in_every_field_as_in_claude_code() {
        // REL-5: (template, expanded or the problem).
        let env = |name: &str| match name {
            "TOKEN" => Some("s3cret".to_owned()),
            "EMPTY" => Some(String::new()),
            _ => None,
        };
        #[rustfmt::skip]
        let cases: &[(&str, Result<&str, &str>)] = &[
            ("${TOKEN}", Ok("s3cret")),
            ("Bearer ${TOKEN}!", Ok("Bearer s3cret!")),
            ("${UNSET:-fallback}", Ok("fallback")),
            ("${TOKEN:-fallback}", Ok("s3cret")),
            ("${EMPTY:-fallback}", Ok("fallback")),
            ("[${EMPTY}]", Ok("[]")),
            ("${UNSET:-}", Ok("")),
            ("$TOKEN ${} ${TOKEN", Ok("$TOKEN ${} ${TOKEN")),
            ("${A}${TOKEN}", Err("environment variable 'A' is not set and has no default")),
        ];
        for (template, want) in cases {
            assert_eq!(expand(template, &env).as_deref(), want.map_err(str::to_owned).as_deref(), "{template}");
        }
        let doc = r#"{"mcpServers": {
            "s": {"command": "${BIN:-/usr/bin/srv}", "args": ["--token=${TOKEN}"], "env": {"K": "${TOKEN}"}},
            "h": {"type": "http", "url": "${URL:-http://127.0.0.1:1/mcp}", "headers": {"Authorization": "Bearer ${TOKEN}"}},
            "bad": {"command": "srv", "args": ["${MISSING}"]}
        }}"#;
        let (found, problems) = parse_with(doc, &env).expect("parses");
        assert_eq!(
            found["s"],
            ServerConfig::Stdio {
                command: "/usr/bin/srv".into(),
                args: vec!["--token=s3cret".into()],
                env: BTreeMap::from([("K".into(), "s3cret".into())])
            }
        );
        assert_eq!(
            found["h"],
            ServerConfig::Http {
                url: "http://127.0.0.1:1/mcp".into(),
                headers: BTreeMap::from([("Authorization".into(), "Bearer s3cret".into())])
            }
        );
        assert_eq!(problems, ["mcp server 'bad': environment variable 'MISSING' is not set and has no default"]);
    }

    #[test]
    fn a_document_that_is_not_a_registry_is_an_error() {
        assert!(McpServers::from_json("[").is_err());
        assert!(McpServers::from_json("[]").is_err());
        assert!(McpServers::from_json(r#"{"mcpServers": []}"#).is_err());
        assert!(McpServers::from_json("{}").expect("empty is fine").names().is_empty());
    }

    #[test]
    fn the_project_registry_wins_by_name_and_bad_files_are_warnings() {
        let home = tempfile::tempdir().expect("tempdir");
        let project = tempfile::tempdir().expect("tempdir");
        let write = |root: &Path, text: &str| {
            std::fs::create_dir_all(root.join(".aimon")).expect("mkdir");
            std::fs::write(root.join(".aimon/mcp.json"), text).expect("write");
        };
        write(home.path(), r#"{"mcpServers": {"shared": {"command": "user"}, "mine": {"command": "m"}}}"#);
        write(project.path(), r#"{"mcpServers": {"shared": {"command": "project"}, "bad": {}}}"#);
        let (servers, warnings) = McpServers::load(Some(home.path()), Some(project.path()));
        assert_eq!(servers.names(), ["mine", "shared"]);
        let ServerConfig::Stdio { command, .. } = &servers.servers["shared"].config else { panic!("stdio") };
        assert_eq!(command, "project");
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].ends_with("mcp server 'bad': 'command' is missing"), "{warnings:?}");

        write(project.path(), "{not json");
        let (servers, warnings) = McpServers::load(Some(home.path()), Some(project.path()));
        assert_eq!((servers.names().len(), warnings.len()), (2, 1));
        let (servers, warnings) = McpServers::load(None, Some(&project.path().join("absent")));
        assert!(servers.names().is_empty() && warnings.is_empty());
    }
}
