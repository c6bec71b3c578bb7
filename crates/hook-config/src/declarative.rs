//! Declarative hooks: each valid handler becomes one managed [`ExecutionHook`] (R-CFG-ID-1/2).

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use hook_actions::{
    AgentAction, AgentScope, DenyAction, HttpAction, McpAction, McpServers, ModelEndpoint, PromptAction, ReadGate,
    ShellAction,
};
use hook_core::{
    AnswerChannel, ExecutionHook, HandlerKind, HookContext, HookEventType, HookFuture, HookResult, MatchSubject,
    ToolCall,
};
use hook_predicate::{Call, PathAnchors, Verdict};
use serde_json::Value;

use crate::decision_log::{self, DecisionLog, Located, Recording, SourceFile};
use crate::handler::{HandlerAction, HandlerMode, HandlerSpec};
use crate::ids::HookIds;
use crate::matcher::{Matcher, MatcherCache};
use crate::packs::{self, FixedAnswer};
use crate::spec::LoadedConfig;
use crate::tier::{Tier, TierPaths};
use crate::trust::{TrustGate, sha256_hex};

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
    /// Which files may run code (R-CLI-12).
    pub trust: TrustGate,
    /// The project's `mcp.json` when it exists but is not trusted (its servers were not loaded).
    pub untrusted_mcp: Option<PathBuf>,
    /// Set by [`BuildEnv::for_file`]: why the file being built is not trusted.
    untrusted_file: Option<Arc<str>>,
    /// Set by [`BuildEnv::for_file`]: the file being built and its tier.
    file: Option<(Arc<SourceFile>, Tier)>,
    /// The person's own `~/.aimon/hooks.json`, whose top-level `model` (never another tier's) is
    /// the endpoint of `prompt` and `agent` hooks.
    user_file: Option<Arc<Path>>,
    /// The `deny` hooks an `agent` hook's reads are checked against.
    read_rules: ReadRules,
    /// Where the hooks record their decisions, and whether all of them only audit.
    recording: Recording,
}

/// The `deny` hooks of one build, set once the build has made them all.
type ReadRules = Arc<OnceLock<Vec<Arc<DeclarativeHook>>>>;

/// The person's model endpoint: `model` of `~/.aimon/hooks.json` (a file that cannot be read, or a
/// value that is not an endpoint, gives none; the loader WARNs about the value). Read when a model
/// hook first runs, so a build without one reads nothing more, and a reload reads it anew.
fn model_endpoint(user_file: &Path) -> Option<Arc<ModelEndpoint>> {
    let text = std::fs::read(user_file).ok()?;
    let mut root: Value = serde_json::from_slice(&text).ok()?;
    let model = root.get_mut(crate::parse::MODEL_KEY)?.take();
    serde_json::from_value(model).ok().map(Arc::new)
}

/// What an `agent` hook may read: the project, each path asked of the build's deny rules as a
/// `Read` call of it (a hook built outside [`LoadedConfig::into_hooks`], a skill's, reads nothing) (the hooks' own matchers, so a path a `Read` rule protects stays
/// protected).
fn agent_scope(project: &Path, rules: &ReadRules) -> AgentScope {
    let (rules, cwd) = (rules.clone(), project.to_owned());
    let gate: ReadGate = Arc::new(move |tool, input| {
        let mut ctx = HookContext::new(HookEventType::PRE_TOOL).with_tool(ToolCall::new(tool, input.clone()));
        ctx.cwd = Some(cwd.clone());
        // Rules not known (a hook built on its own, as a skill's): nothing is read.
        let Some(rules) = rules.get() else { return Some("the project's read rules are not known here".to_owned()) };
        rules.iter().find(|hook| hook.skip(&ctx).is_none()).map(|hook| match &hook.handler.action {
            HandlerAction::Deny(spec) => spec.reason.clone(),
            _ => format!("denied by hook '{}'", hook.id),
        })
    });
    AgentScope::new(project, gate)
}

impl BuildEnv {
    /// The environment of `paths`, trusting every file, with the MCP servers of
    /// `~/.aimon/mcp.json` and `<project>/.aimon/mcp.json` (their WARNs are logged).
    pub fn new(paths: &TierPaths) -> Self {
        Self::gated(paths, TrustGate::everything())
    }

    /// The environment of `paths` under `trust`: the project's `mcp.json` is read only when
    /// trusted (else one WARN), and hooks built from untrusted files are withheld.
    pub fn gated(paths: &TierPaths, trust: TrustGate) -> Self {
        BuildEnv { trust, ..Self::without_mcp(paths) }.with_mcp_servers_of(paths)
    }

    /// This environment with the MCP servers of `paths`' two `mcp.json` files read anew; the
    /// project's only when this environment's trust covers its current text (else one WARN).
    pub(crate) fn with_mcp_servers_of(mut self, paths: &TierPaths) -> Self {
        let mcp = hook_core::AimonDir::under(&paths.project).mcp();
        self.untrusted_mcp = match std::fs::read(&mcp) {
            Ok(bytes) if !self.trust.is_trusted(Tier::Project, &mcp, &sha256_hex(&bytes)) => {
                tracing::warn!(
                    "hooks: {} is not trusted, so its MCP servers are not used; {} to trust it",
                    mcp.display(),
                    self.trust.command()
                );
                Some(mcp)
            }
            _ => None,
        };
        let project = self.untrusted_mcp.is_none().then_some(paths.project.as_path());
        let (servers, warnings) = McpServers::load(paths.home.as_deref(), project);
        for w in warnings {
            tracing::warn!("{w}");
        }
        self.mcp_servers = Arc::new(servers);
        self
    }

    /// The environment of `paths` with no MCP servers, trusting every file (hot reload loads
    /// the servers itself; the exec guard needs only the `deny` hooks).
    pub fn without_mcp(paths: &TierPaths) -> Self {
        BuildEnv {
            anchors_project: paths.project.clone(),
            home: paths.home.clone(),
            mcp_servers: Arc::new(McpServers::empty()),
            fail_closed_all: false,
            trust: TrustGate::everything(),
            untrusted_mcp: None,
            untrusted_file: None,
            file: None,
            user_file: paths.user_file().map(Arc::from),
            read_rules: ReadRules::default(),
            recording: Recording::default(),
        }
    }

    /// The environment for building the hooks of one file (`path` of `tier`, whose text hashes
    /// to `sha256`): when the gate does not trust it, its `command`, `http` and `mcp` hooks are
    /// built withheld. Use it for SKILL.md files; [`build_hooks`] does it for the tier files.
    pub fn for_file(&self, tier: Tier, path: &Path, sha256: &str) -> BuildEnv {
        let mut env = self.clone();
        // A built-in pack is the binary's, trusted whichever tier turned it on.
        let trusted = packs::is_pack(path) || self.trust.is_trusted(tier, path, sha256);
        env.untrusted_file = (!trusted).then(|| self.trust.skipped_reason(path).into());
        env.file = Some((Arc::new(SourceFile::new(path.to_owned(), sha256.to_owned())), tier));
        env
    }

    /// The hooks built record to `recording` (their decision log, audit-all, the audit counter);
    /// the default records nothing and audits only `"mode": "audit"` handlers.
    pub fn with_recording(mut self, recording: Recording) -> Self {
        self.recording = recording;
        self
    }

    /// What the hooks built record to.
    pub fn recording(&self) -> &Recording {
        &self.recording
    }

    /// Sets `fail_closed_all`.
    pub fn with_fail_closed_all(mut self, on: bool) -> Self {
        self.fail_closed_all = on;
        self
    }

    fn anchors(&self, tier: Tier) -> PathAnchors {
        TierPaths::new(self.home.clone(), self.anchors_project.clone()).anchors(tier)
    }
}

/// What the hooks of one source (a file, a skill) share, made once for all of them.
pub(crate) struct Origin {
    tier: Tier,
    source: Arc<str>,
    /// What its patterns compile against.
    anchors: Arc<PathAnchors>,
}

impl Origin {
    pub(crate) fn new(tier: Tier, source: &str, env: &BuildEnv) -> Self {
        Origin { tier, source: source.into(), anchors: Arc::new(env.anchors(tier)) }
    }
}

/// The entry a handler is built from: its event, its matcher as written, the loader's matcher.
pub(crate) struct EntryOf<'a> {
    event: HookEventType,
    matcher: Arc<str>,
    cached: &'a MatcherCache,
    /// The id a rule pack gives the rule (`aimon/destructive#force-push`); else one from content.
    named: Option<&'a str>,
}

/// How a handler's `if` applies (R-CFG-3b).
#[derive(Debug)]
enum IfRule {
    /// No `if`.
    Absent,
    /// `if` on an event that does not honour it: the handler never runs.
    Unsupported,
    /// A permission-rule pattern.
    Rule(Arc<Matcher>),
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
    source: Arc<str>,
    tier: Tier,
    event: HookEventType,
    matcher: Arc<str>,
    /// `None`: matches everything (`*`, empty, or a matcher ignored on this event).
    predicate: Option<Arc<Matcher>>,
    if_rule: IfRule,
    /// The hook-actions action running the handler, made on first use (a build only registers).
    action: OnceLock<Box<dyn ExecutionHook>>,
    /// `failClosed`, the handler's or the build's (`--fail-closed`).
    fail_closed: bool,
    /// The servers an `mcp` action calls.
    mcp_servers: Arc<McpServers>,
    /// Where a `prompt` or `agent` action finds its model (see [`model_endpoint`]).
    user_file: Option<Arc<Path>>,
    /// What an `agent` action may read.
    agent_scope: Option<AgentScope>,
    handler: HandlerSpec,
    /// Why its file is not trusted, when it is not (R-CLI-12).
    untrusted: Option<Arc<str>>,
    /// Where it was declared, when built from a file.
    located: Option<Arc<Located>>,
    /// Its build's decision log and audit-all switch.
    recording: Recording,
    /// Whether its matcher is one Read or Edit rule or a `|`-list with some (see
    /// [`DeclarativeHook::guard_mounts`]); worked out on the first guarded call.
    lists_paths: OnceLock<bool>,
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
        let entry = EntryOf { event, matcher: matcher.into(), cached: &MatcherCache::default(), named: None };
        Self::build_cached(&entry, handler.clone(), &Origin::new(tier, source, env), ids, env)
    }

    /// [`DeclarativeHook::build`] of a pack's rule, whose id is `id` (`aimon/self#policy-files`).
    pub(crate) fn build_named(
        event: HookEventType,
        matcher: &str,
        handler: &HandlerSpec,
        source: &str,
        id: &str,
        env: &BuildEnv,
    ) -> Arc<DeclarativeHook> {
        let entry = EntryOf { event, matcher: matcher.into(), cached: &MatcherCache::default(), named: Some(id) };
        Self::build_cached(&entry, handler.clone(), &Origin::new(Tier::User, source, env), &mut HookIds::new(), env)
    }

    /// [`DeclarativeHook::build`] reusing the loader's compiled entry matcher (PERF-6), with what
    /// every hook of its source shares made once.
    pub(crate) fn build_cached(
        entry: &EntryOf<'_>,
        handler: HandlerSpec,
        origin: &Origin,
        ids: &mut HookIds,
        env: &BuildEnv,
    ) -> Arc<DeclarativeHook> {
        let (event, matcher, source, anchors) = (entry.event, &entry.matcher, &origin.source, &origin.anchors);
        let id = entry.named.map_or_else(|| ids.next(event, matcher, &handler, source), str::to_owned);
        let trimmed = matcher.trim();
        let predicate = (!trimmed.is_empty() && trimmed != "*" && event.spec().matcher != MatchSubject::Nothing)
            .then(|| entry.cached.take_or_new(matcher, anchors, entry.named.is_some()));
        let if_rule = match &handler.if_rule {
            None => IfRule::Absent,
            Some(_) if !event.supports_if() => IfRule::Unsupported,
            Some(rule) => IfRule::Rule(handler.if_compiled.take_or_new(rule, anchors, false)),
        };
        Arc::new(DeclarativeHook {
            id,
            source: source.clone(),
            tier: origin.tier,
            event,
            matcher: matcher.clone(),
            predicate,
            if_rule,
            action: OnceLock::new(),
            fail_closed: handler.fail_closed || env.fail_closed_all,
            mcp_servers: env.mcp_servers.clone(),
            user_file: matches!(handler.action, HandlerAction::Prompt(_) | HandlerAction::Agent(_))
                .then(|| env.user_file.clone())
                .flatten(),
            agent_scope: matches!(handler.action, HandlerAction::Agent(_))
                .then(|| agent_scope(&env.anchors_project, &env.read_rules)),
            located: env.file.as_ref().map(|(file, tier)| {
                // A SKILL.md's handlers are read from a document of their own: no line to tell.
                let pointer = handler.place.0.clone().filter(|_| *tier != Tier::Skill);
                Arc::new(Located::new(file.clone(), pointer))
            }),
            handler,
            untrusted: env.untrusted_file.clone(),
            recording: env.recording.clone(),
            lists_paths: OnceLock::new(),
        })
    }

    /// Whether the exec-time guard mounts the paths of this hook's Read and Edit rules in the
    /// command's namespace (hides them, or binds them read-only): a deny on a tool event that
    /// answers with a permission, without an `if` (which denies less than the rule's paths), not
    /// audited, whose matcher is one rule or a `|`-list of rules naming some paths.
    pub fn guard_mounts(&self) -> bool {
        let spec = self.event.spec();
        spec.matcher == MatchSubject::Tool
            && matches!(spec.answer, AnswerChannel::PermissionDecision | AnswerChannel::PermissionBehavior)
            && matches!(self.handler.action, HandlerAction::Deny(_))
            && self.handler.if_rule.is_none()
            && !self.audited()
            && self.predicate.is_some()
            && *self.lists_paths.get_or_init(|| hook_predicate::lists_rule_paths(&self.matcher))
    }

    /// The action, made from the handler the first time the hook runs: its kind's spec with the
    /// handler's common fields (`timeout`, `failClosed`) completing it; the spec goes on as is.
    fn action(&self) -> &dyn ExecutionHook {
        let make = || -> Box<dyn ExecutionHook> {
            let (id, source, timeout, fail_closed) = (&*self.id, &*self.source, self.handler.timeout, self.fail_closed);
            match &self.handler.action {
                HandlerAction::Command(spec) => {
                    let mut spec = spec.clone().with_fail_closed(fail_closed);
                    spec.timeout = timeout;
                    Box::new(ShellAction::new(id, source, spec))
                }
                HandlerAction::Http(spec) => {
                    let mut spec = spec.clone().with_fail_closed(fail_closed);
                    spec.timeout = timeout;
                    Box::new(HttpAction::new(id, source, spec))
                }
                HandlerAction::Mcp(spec) => {
                    let mut spec = spec.clone().with_fail_closed(fail_closed);
                    spec.timeout = timeout;
                    Box::new(McpAction::new(id, source, spec, self.mcp_servers.clone()))
                }
                HandlerAction::Deny(spec) => Box::new(DenyAction::new(id, source, spec.reason.clone())),
                HandlerAction::Ask(spec) => Box::new(FixedAnswer::ask(id, source, &spec.reason)),
                HandlerAction::Allow(_) => Box::new(FixedAnswer::allow(id, source)),
                HandlerAction::Prompt(spec) => {
                    let mut spec = spec.clone().with_fail_closed(fail_closed);
                    spec.timeout = timeout;
                    let model = self.user_file.as_deref().and_then(model_endpoint);
                    Box::new(PromptAction::new(id, source, spec, model))
                }
                HandlerAction::Agent(spec) => {
                    let mut spec = spec.clone().with_fail_closed(fail_closed);
                    spec.timeout = timeout;
                    let scope =
                        self.agent_scope.clone().unwrap_or_else(|| agent_scope(Path::new("."), &ReadRules::default()));
                    let model = self.user_file.as_deref().and_then(model_endpoint);
                    Box::new(AgentAction::new(id, source, spec, model, scope))
                }
            }
        };
        self.action.get_or_init(make).as_ref()
    }

    /// Whether the file it was declared in is trusted (R-CLI-12).
    pub fn trusted(&self) -> bool {
        self.untrusted.is_none()
    }

    /// Whether the hook would run for `ctx` because its matcher and `if` show that the call is
    /// what they describe (not only because they could not show that it is not).
    pub fn would_match_certainly(&self, ctx: &HookContext) -> bool {
        self.skip(ctx).is_none() && !self.matched_uncertainly(ctx)
    }

    /// Why the hook would not run for `ctx`, without allocating (`matches` is on the hot path).
    fn skip(&self, ctx: &HookContext) -> Option<Skip> {
        if ctx.event != self.event {
            return Some(Skip::Event);
        }
        if self.matcher_verdict(ctx) == Verdict::NoMatch {
            return Some(Skip::Matcher);
        }
        match &self.if_rule {
            IfRule::Absent => None,
            IfRule::Unsupported => Some(Skip::IfUnsupported),
            IfRule::Rule(p) => (tool_verdict(p, ctx, false) == Verdict::NoMatch).then_some(Skip::IfRule),
        }
    }

    /// What the matcher says of `ctx` (a hook without a matcher matches). A command the guard
    /// runs has this hook's paths hidden from it by the kernel when the guard mounts them.
    fn matcher_verdict(&self, ctx: &HookContext) -> Verdict {
        let Some(p) = &self.predicate else { return Verdict::Match };
        match self.event.spec().matcher {
            MatchSubject::Tool => tool_verdict(p, ctx, ctx.guarded && self.guard_mounts()),
            _ => Verdict::from_bool(ctx.match_subject().is_some_and(|s| p.test(s, &Value::Null))),
        }
    }

    /// Whether the hook runs for `ctx` only because its matcher or `if` could not show that the
    /// call is not what they describe: such a hook may deny or ask, but its allow lets nothing
    /// through unasked.
    fn matched_uncertainly(&self, ctx: &HookContext) -> bool {
        let rule = match &self.if_rule {
            IfRule::Rule(p) => tool_verdict(p, ctx, false),
            IfRule::Absent | IfRule::Unsupported => Verdict::Match,
        };
        self.matcher_verdict(ctx) == Verdict::Uncertain || rule == Verdict::Uncertain
    }

    /// `None` when the hook would run for `ctx`; otherwise why not (R-CLI-9).
    pub fn explain(&self, ctx: &HookContext) -> Option<String> {
        let Some(skip) = self.skip(ctx) else {
            return self.untrusted.as_deref().filter(|_| self.withheld()).map(str::to_owned);
        };
        Some(match skip {
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

    /// `file:line` of its handler (the file alone for a SKILL.md hook, or when the file changed
    /// since it was loaded); `None` for a hook built from no file.
    pub fn location(&self) -> Option<String> {
        self.located.as_ref().map(|l| l.render())
    }

    /// Whether its decisions are only logged: `"mode": "audit"`, or a build that audits every
    /// hook (`serve --audit`, `AIMON_AUDIT=1`).
    pub fn audited(&self) -> bool {
        self.handler.mode == HandlerMode::Audit || self.recording.audits_all()
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
        self.action().execution_budget()
    }

    fn matches(&self, ctx: &HookContext) -> bool {
        !self.withheld() && self.skip(ctx).is_none()
    }

    /// Skipped because its file is not trusted: a `command`, `http`, `mcp`, `prompt` or `agent`
    /// handler of an untrusted file never matches. Restricting (`deny`) handlers are never withheld.
    fn withheld(&self) -> bool {
        self.untrusted.is_some() && self.handler.kind() != HandlerKind::Deny
    }

    /// Whether its event, matcher and `if` select `ctx`, trusted or not.
    fn would_match(&self, ctx: &HookContext) -> bool {
        self.skip(ctx).is_none()
    }

    /// The managed tier's verdict holds for the input that runs: a lower tier's rewrite is
    /// judged again (docs/decisions.md).
    fn judges_the_final_input(&self) -> bool {
        self.tier == Tier::Managed
    }

    fn execute<'a>(&'a self, ctx: &'a HookContext) -> HookFuture<'a> {
        Box::pin(async move {
            if self.withheld() {
                // Never reached through the executor (it asks `matches` first); a direct caller
                // still gets no code run and no opinion.
                return Ok(HookResult::allow());
            }
            let audit = self.audited();
            let log = self.recording.log();
            // A hook dropped before it answers (its timeout) is logged as such.
            let mut unanswered = log.map(|log| Unanswered { log, hook: self, ctx, started: Instant::now(), audit });
            let started = Instant::now();
            let answered = self.action().execute(ctx).await;
            let elapsed = started.elapsed();
            let mut logged = |result: &HookResult| {
                if let Some(log) = unanswered.take().map(|u| u.defuse()) {
                    log.send(decision_log::pending(ctx, &self.id, self.located.clone(), result, elapsed, audit));
                }
            };
            let mut result = match answered {
                Ok(result) => result,
                Err(e) => {
                    logged(&HookResult::allow().with_failure(e.to_string()));
                    return Err(e);
                }
            };
            if result.explicit_allow && self.matched_uncertainly(ctx) {
                result.explicit_allow = false;
            }
            logged(&result);
            if audit {
                let outcome = decision_log::outcome_word(&result);
                self.recording.count_audited(decision_log::Audited {
                    event: ctx.event,
                    hook: self.id.clone(),
                    outcome,
                });
                return Ok(HookResult::allow());
            }
            if let Some(spec) = &self.handler.rewake {
                result.rewake_specs.push(spec.clone());
            }
            Ok(result)
        })
    }
}

/// Logs a hook that was dropped before it answered (its timeout), unless defused.
struct Unanswered<'a> {
    log: &'a DecisionLog,
    hook: &'a DeclarativeHook,
    ctx: &'a HookContext,
    started: Instant,
    audit: bool,
}

impl<'a> Unanswered<'a> {
    fn defuse(self) -> &'a DecisionLog {
        let log = self.log;
        std::mem::forget(self);
        log
    }
}

impl Drop for Unanswered<'_> {
    fn drop(&mut self) {
        let result = HookResult::allow().with_failure("the hook did not answer in time");
        let mut pending = decision_log::pending(
            self.ctx,
            &self.hook.id,
            self.hook.located.clone(),
            &result,
            self.started.elapsed(),
            self.audit,
        );
        pending.outcome = "timeout";
        self.log.send(pending);
    }
}

/// [`LoadedConfig::into_hooks`] of a copy of `config`, for a caller that keeps it.
pub fn build_hooks(config: &LoadedConfig, env: &BuildEnv) -> Vec<(HookEventType, Arc<DeclarativeHook>)> {
    config.clone().into_hooks(env)
}

impl LoadedConfig {
    /// Builds the managed hooks of the config in dispatch order, one [`HookIds`] per file; each
    /// hook takes its handler over. The hooks of a file `env.trust` does not trust are built
    /// withheld, with one WARN per file that had any (R-CLI-12).
    pub fn into_hooks(self, env: &BuildEnv) -> Vec<(HookEventType, Arc<DeclarativeHook>)> {
        let mut out = Vec::with_capacity(self.handlers().count());
        let read_rules = ReadRules::default();
        let env = &BuildEnv { read_rules: read_rules.clone(), ..env.clone() };
        for file in self.files {
            let mut ids = HookIds::with_capacity(file.entries.iter().map(|e| e.handlers.len()).sum());
            let file_env = env.for_file(file.tier, &file.path, &file.sha256);
            let origin = Origin::new(file.tier, &file.source(), &file_env);
            let mut withheld = false;
            // A pack's rules are named by the pack, in its order.
            let names = packs::rule_ids(&file);
            for (i, entry) in file.entries.into_iter().enumerate() {
                let named = names.as_ref().and_then(|n| n.get(i)).map(String::as_str);
                let of = EntryOf {
                    event: entry.event,
                    matcher: entry.matcher.as_str().into(),
                    cached: &entry.compiled,
                    named,
                };
                for handler in entry.handlers {
                    let hook = DeclarativeHook::build_cached(&of, handler, &origin, &mut ids, &file_env);
                    withheld |= hook.withheld();
                    out.push((entry.event, hook));
                }
            }
            if withheld {
                env.trust.warn_skipped(&file.path);
            }
        }
        // Every `deny` hook: a Read asked of them is a preTool call, which the others never match.
        let deny = out
            .iter()
            .filter(|(_, h)| {
                h.handler.kind() == HandlerKind::Deny && !matches!(h.handler.action, HandlerAction::Allow(_))
            })
            .map(|(_, h)| h.clone())
            .collect();
        let _ = read_rules.set(deny);
        out
    }
}

/// What a tool matcher says of the tool call in `ctx` (an event without a tool call never
/// matches); `hidden`: the kernel hides the matcher's paths from the call's command.
fn tool_verdict(p: &Matcher, ctx: &HookContext, hidden: bool) -> Verdict {
    ctx.tool.as_ref().map_or(Verdict::NoMatch, |t| {
        p.verdict(&Call::new(&t.name, &t.input).in_dir(ctx.cwd.as_deref()).hidden_by_kernel(hidden))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project_with(text: &str) -> (tempfile::TempDir, TierPaths) {
        let project = tempfile::tempdir().expect("project");
        std::fs::create_dir_all(project.path().join(".aimon")).expect("mkdir");
        let paths = TierPaths::new(None, project.path());
        std::fs::write(paths.project_file(), text).expect("write");
        (project, paths)
    }

    const TWO_HANDLERS: &str = r#"{"hooks": {"PreToolUse": [{"matcher": "Bash(command=^git\\s+push)", "hooks": [
        {"type": "deny", "reason": "a"},
        {"type": "command", "command": "echo b", "if": "Bash(git push:*)"}
    ]}]}}"#;

    #[test]
    fn the_loader_compiles_each_matcher_once_and_every_handler_of_the_entry_reuses_it() {
        let (_project, paths) = project_with(TWO_HANDLERS);
        let (config, _) = crate::load_tiers(&paths).expect("loads");
        let entry = &config.files[0].entries[0];
        let compiled = entry.compiled.0.clone().expect("the loader's matcher");
        assert!(compiled.compiled.get().is_some(), "validation compiled it");
        let if_compiled = entry.handlers[1].if_compiled.0.clone().expect("the loader's if rule");
        let hooks = build_hooks(&config, &BuildEnv::new(&paths));
        assert_eq!(hooks.len(), 2);
        for (_, hook) in &hooks {
            assert!(Arc::ptr_eq(hook.predicate.as_ref().expect("a matcher"), &compiled), "{hook:?}");
        }
        let IfRule::Rule(rule) = &hooks[1].1.if_rule else { panic!("an if rule") };
        assert!(Arc::ptr_eq(rule, &if_compiled));
    }

    #[test]
    fn a_one_shot_load_reports_a_broken_matcher_of_an_event_it_does_not_dispatch() {
        // A PreToolUse dispatch for a Read call never tests the Bash rule; its file still says
        // the rule is broken (the seed's WARN), whatever the call.
        let (_project, paths) = project_with(
            r#"{"hooks": {"PreToolUse": [{"matcher": "Bash(command=[unclosed", "hooks": [{"type": "deny", "reason": "r"}]}],
                          "PostToolUse": [{"hooks": [{"type": "command", "command": "true", "if": "Bash(command=[also"}]}]}}"#,
        );
        let (config, diagnostics) = crate::load_tiers_lazily(&paths).expect("loads");
        let messages: Vec<&str> = diagnostics.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(
            messages,
            [
                "hooks: matcher 'Bash(command=[unclosed' could not be parsed",
                "hooks: matcher 'Bash(command=[also' could not be parsed"
            ]
        );
        let compiled = config.files[0].entries[0].compiled.0.clone().expect("the loader's matcher");
        assert!(compiled.compiled.get().is_some(), "parsed once at load, reused by the build");
        let hooks = build_hooks(&config, &BuildEnv::new(&paths));
        assert!(Arc::ptr_eq(hooks[0].1.predicate.as_ref().expect("a matcher"), &compiled));
    }

    #[test]
    fn a_hooks_action_is_made_when_it_first_runs_with_the_handlers_timeout() {
        let (_project, paths) = project_with(
            r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "true", "timeout": 7}]}]}}"#,
        );
        let (config, _) = crate::load_tiers(&paths).expect("loads");
        let hooks = build_hooks(&config, &BuildEnv::new(&paths));
        let hook = &hooks[0].1;
        assert!(hook.action.get().is_none(), "a build makes no action");
        assert_eq!(hook.execution_budget(), Some(Duration::from_secs(7)));
        assert!(hook.action.get().is_some());
    }

    #[test]
    fn a_build_anchored_elsewhere_compiles_its_own_matcher() {
        let (_project, paths) = project_with(TWO_HANDLERS);
        let (config, _) = crate::load_tiers(&paths).expect("loads");
        let compiled = config.files[0].entries[0].compiled.0.clone().expect("the loader's matcher");
        let elsewhere = tempfile::tempdir().expect("another project");
        let hooks = build_hooks(&config, &BuildEnv::new(&TierPaths::new(None, elsewhere.path())));
        assert!(!Arc::ptr_eq(hooks[0].1.predicate.as_ref().expect("a matcher"), &compiled));
    }
}
