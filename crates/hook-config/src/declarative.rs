//! Declarative hooks: each valid handler becomes one managed [`ExecutionHook`] (R-CFG-ID-1/2).

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use hook_actions::{
    DenyAction, HttpAction, HttpBody, HttpSpec, McpAction, McpServers, McpSpec, ShellAction, ShellSpec,
};
use hook_core::{ExecutionHook, HookContext, HookEventType, HookFuture, MatchSubject, RewakeSpec};
use hook_predicate::{PathAnchors, ToolInputPredicate};
use serde_json::Value;

use crate::ids::HookIds;
use crate::spec::{HandlerAction, HandlerSpec, LoadedConfig};
use crate::tier::{Tier, TierPaths};

/// What building declarative hooks needs from the environment.
#[derive(Clone, Debug)]
pub struct BuildEnv {
    /// The project root (anchor of relative path rules, root of PROJECT/LOCAL/SKILL `/…` rules).
    pub anchors_project: PathBuf,
    /// The home directory (`~/…` rules, root of USER `/…` rules).
    pub home: Option<PathBuf>,
    /// MCP servers for `mcp` handlers.
    pub mcp_servers: Arc<McpServers>,
    /// Treat every handler as `failClosed` (the CLI's `--fail-closed`).
    pub fail_closed_all: bool,
}

impl BuildEnv {
    /// The environment of `paths`, with the MCP servers of `~/.aimon/mcp.json` and
    /// `<project>/.aimon/mcp.json` (their WARNs are logged).
    pub fn new(paths: &TierPaths) -> Self {
        let (servers, warnings) = McpServers::load(paths.home.as_deref(), Some(&paths.project));
        for w in warnings {
            tracing::warn!("{w}");
        }
        BuildEnv {
            anchors_project: paths.project.clone(),
            home: paths.home.clone(),
            mcp_servers: Arc::new(servers),
            fail_closed_all: false,
        }
    }

    /// Sets `fail_closed_all`.
    pub fn with_fail_closed_all(mut self, on: bool) -> Self {
        self.fail_closed_all = on;
        self
    }

    fn anchors(&self, tier: Tier) -> PathAnchors {
        let root = match tier {
            Tier::User => self.home.clone().unwrap_or_else(|| self.anchors_project.clone()),
            _ => self.anchors_project.clone(),
        };
        let anchors = PathAnchors::new(self.anchors_project.clone()).with_tier_root(root);
        match &self.home {
            Some(h) => anchors.with_home(h.clone()),
            None => anchors,
        }
    }
}

/// How a handler's `if` applies (R-CFG-3b).
#[derive(Debug)]
enum IfRule {
    /// No `if`.
    Absent,
    /// `if` on an event that does not honour it: the handler never runs.
    Unsupported,
    /// A parsed permission-rule pattern.
    Rule(Box<dyn ToolInputPredicate>),
}

/// Why a hook does not run for a context.
#[derive(Clone, Copy, Debug)]
enum Skip {
    Event,
    Matcher,
    IfUnsupported,
    IfRule,
}

/// One handler of hooks.json (or of a skill) as a managed hook: the entry matcher and `if`
/// decide whether it runs; the action runs it; its asyncRewake spec is attached to every result.
pub struct DeclarativeHook {
    id: String,
    source: String,
    tier: Tier,
    event: HookEventType,
    matcher: String,
    /// `None`: matches everything (`*`, empty, or a matcher ignored on this event).
    predicate: Option<Box<dyn ToolInputPredicate>>,
    if_rule: IfRule,
    action: Arc<dyn ExecutionHook>,
    rewake: Option<RewakeSpec>,
    handler: HandlerSpec,
}

impl fmt::Debug for DeclarativeHook {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DeclarativeHook")
            .field("id", &self.id)
            .field("event", &self.event)
            .field("matcher", &self.matcher)
            .field("handler", &self.handler.summary())
            .finish()
    }
}

/// Parses a pattern, falling back to the exact-name predicate (the WARN was given at load time).
fn parse_or_fallback(pattern: &str, anchors: &PathAnchors) -> Box<dyn ToolInputPredicate> {
    hook_predicate::parse(pattern, anchors).unwrap_or_else(|e| e.fallback())
}

impl DeclarativeHook {
    /// Builds the hook for `handler` of an entry of `event` with `matcher`, declared by `source`
    /// (`project#0`, or a skill name) of `tier`. The id comes from `ids` (R-CFG-ID-2); use one
    /// [`HookIds`] per source. Patterns that do not parse fall back to exact names (R-PRED-5);
    /// the loader reports them.
    pub fn build(
        event: HookEventType,
        matcher: &str,
        handler: &HandlerSpec,
        tier: Tier,
        source: &str,
        ids: &mut HookIds,
        env: &BuildEnv,
    ) -> Arc<DeclarativeHook> {
        let id = ids.next(event, matcher, handler, source);
        let anchors = env.anchors(tier);
        let trimmed = matcher.trim();
        let predicate = (!trimmed.is_empty() && trimmed != "*" && event.spec().matcher != MatchSubject::Nothing)
            .then(|| parse_or_fallback(matcher, &anchors));
        let if_rule = match &handler.if_rule {
            None => IfRule::Absent,
            Some(_) if !event.supports_if() => IfRule::Unsupported,
            Some(rule) => IfRule::Rule(parse_or_fallback(rule, &anchors)),
        };
        let fail_closed = handler.fail_closed || env.fail_closed_all;
        let action: Arc<dyn ExecutionHook> = match &handler.action {
            HandlerAction::Command { command } => {
                let mut spec = ShellSpec::new(command.clone()).with_fail_closed(fail_closed);
                spec.timeout = handler.timeout;
                Arc::new(ShellAction::new(id.clone(), source, spec))
            }
            HandlerAction::Http { url, method, headers, body, allowed_env_vars } => {
                let mut spec = HttpSpec::new(url.clone())
                    .with_method(method.clone())
                    .with_headers(headers.clone())
                    .with_allowed_env_vars(allowed_env_vars.clone())
                    .with_fail_closed(fail_closed);
                spec.timeout = handler.timeout;
                if let Some(body) = body {
                    spec = spec.with_body(match body {
                        Value::String(t) => HttpBody::Template(t.clone()),
                        other => HttpBody::Structured(other.clone()),
                    });
                }
                Arc::new(HttpAction::new(id.clone(), source, spec))
            }
            HandlerAction::Mcp { server, tool, args } => {
                let mut spec = McpSpec::new(server.clone(), tool.clone()).with_fail_closed(fail_closed);
                spec.args = args.clone();
                spec.timeout = handler.timeout;
                Arc::new(McpAction::new(id.clone(), source, spec, env.mcp_servers.clone()))
            }
            HandlerAction::Deny { reason } => Arc::new(DenyAction::new(id.clone(), source, reason.clone())),
        };
        Arc::new(DeclarativeHook {
            id,
            source: source.to_owned(),
            tier,
            event,
            matcher: matcher.to_owned(),
            predicate,
            if_rule,
            action,
            rewake: handler.rewake.clone(),
            handler: handler.clone(),
        })
    }

    /// Why the hook would not run for `ctx`, without allocating (`matches` is on the hot path).
    fn skip(&self, ctx: &HookContext) -> Option<Skip> {
        if ctx.event != self.event {
            return Some(Skip::Event);
        }
        if let Some(p) = &self.predicate {
            let hit = match self.event.spec().matcher {
                MatchSubject::Tool => ctx.tool.as_ref().is_some_and(|t| p.test(&t.name, &t.input)),
                _ => ctx.match_subject().is_some_and(|s| p.test(s, &Value::Null)),
            };
            if !hit {
                return Some(Skip::Matcher);
            }
        }
        match &self.if_rule {
            IfRule::Absent => None,
            IfRule::Unsupported => Some(Skip::IfUnsupported),
            IfRule::Rule(p) => (!ctx.tool.as_ref().is_some_and(|t| p.test(&t.name, &t.input))).then_some(Skip::IfRule),
        }
    }

    /// `None` when the hook would run for `ctx`; otherwise why not (R-CLI-9).
    pub fn explain(&self, ctx: &HookContext) -> Option<String> {
        Some(match self.skip(ctx)? {
            Skip::Event => format!("declared on event '{}', not '{}'", self.event, ctx.event),
            Skip::Matcher => {
                let subject = match self.event.spec().matcher {
                    MatchSubject::Field(key) | MatchSubject::FileName(key) => {
                        format!("'{key}' {}", ctx.match_subject().map_or("(absent)".to_owned(), |s| format!("'{s}'")))
                    }
                    _ => ctx.tool_name().map_or("no tool".to_owned(), |t| format!("tool '{t}'")),
                };
                format!("matcher '{}' does not match {subject}", self.matcher)
            }
            Skip::IfUnsupported => format!("'if' is not supported on event '{}'", self.event),
            Skip::IfRule => {
                format!("'if' rule '{}' does not match", self.handler.if_rule.as_deref().unwrap_or_default())
            }
        })
    }

    /// A one-line summary of the handler (`command "echo hi" timeout=5s`).
    pub fn describe(&self) -> String {
        self.handler.summary()
    }

    /// The tier it was declared in.
    pub fn tier(&self) -> Tier {
        self.tier
    }

    /// The event it is registered on.
    pub fn event(&self) -> HookEventType {
        self.event
    }

    /// The entry matcher as written.
    pub fn matcher(&self) -> &str {
        &self.matcher
    }

    /// The handler it was built from.
    pub fn handler(&self) -> &HandlerSpec {
        &self.handler
    }
}

impl ExecutionHook for DeclarativeHook {
    fn id(&self) -> &str {
        &self.id
    }

    fn source(&self) -> &str {
        &self.source
    }

    fn execution_budget(&self) -> Option<Duration> {
        self.action.execution_budget()
    }

    fn matches(&self, ctx: &HookContext) -> bool {
        self.skip(ctx).is_none()
    }

    fn execute<'a>(&'a self, ctx: &'a HookContext) -> HookFuture<'a> {
        Box::pin(async move {
            let mut result = self.action.execute(ctx).await?;
            if let Some(spec) = &self.rewake {
                result.rewake_specs.push(spec.clone());
            }
            Ok(result)
        })
    }
}

/// Builds the managed hooks of a loaded config in dispatch order, one [`HookIds`] per file.
pub fn build_hooks(config: &LoadedConfig, env: &BuildEnv) -> Vec<(HookEventType, Arc<DeclarativeHook>)> {
    let mut out = Vec::new();
    for file in &config.files {
        let source = file.source();
        let mut ids = HookIds::new();
        for entry in &file.entries {
            for handler in &entry.handlers {
                let hook =
                    DeclarativeHook::build(entry.event, &entry.matcher, handler, file.tier, &source, &mut ids, env);
                out.push((entry.event, hook));
            }
        }
    }
    out
}
