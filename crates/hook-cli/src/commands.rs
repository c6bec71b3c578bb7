//! One function per command.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context as _, bail};
use hook_config::{BuildEnv, HookHotReloadBootstrap, Severity, Tier, check_config};
use hook_core::{CancellationToken, ExecutionHook, FnHook, HookContext, HookEventType, HookResult};
use serde_json::{Value, json};

use crate::cli::{ExplainArgs, ImportArgs, ListArgs, RunArgs, ServeArgs, ValidateArgs, WatchArgs, absolute};
use crate::import::Conversion;
use crate::load::{self, Scope};
use crate::payload;
use crate::trust::{self, Trust};
use hook_host::{RunOutput, exit_code};
use hook_wire::Client;

/// Resolves an event name from the command line, or says which names exist.
fn event(name: &str) -> anyhow::Result<HookEventType> {
    HookEventType::resolve(name).map_err(|e| {
        let names: Vec<&str> = HookEventType::ALL.iter().map(|e| e.name()).collect();
        anyhow::anyhow!("{}; expected one of {} (or their Claude Code names)", e.warning(), names.join(", "))
    })
}

/// `run <EVENT>` (R-CLI-1): hook-host's `run` pipeline ([`hook_host::answer_run`], as
/// `POST /v1/run/{event}`), with [`RunOnce`] as its host.
pub(crate) async fn run(args: RunArgs) -> anyhow::Result<u8> {
    let event = event(&args.input.event)?;
    let print = |verdict: &hook_core::EventVerdict| -> anyhow::Result<u8> {
        println!("{}", serde_json::to_string(&RunOutput::new(verdict))?);
        Ok(exit_code(verdict.outcome))
    };
    let (bytes, source) = match payload::bytes(args.input.payload.as_deref()) {
        Ok(read) => read,
        // A payload that cannot be read is denied where the event can veto (never an exit 1).
        Err(e) => match hook_host::unreadable_verdict(event, &format!("{e:#}")) {
            Some(verdict) => return print(&verdict),
            None => return Err(e),
        },
    };
    let project = args.input.tiers.project_dir()?;
    let cwd = crate::env::Env::get().cwd()?.to_path_buf();
    let hints = hook_host::CallHints { explicit: Some(&project), client_project_dir: None, base: &cwd, guarded: false };
    let policy = hook_host::run_policy(args.stop_on_blocked, args.fail_closed, args.parallel);
    // The decision log's line is written when `host` is dropped, after the verdict is printed.
    let recording = crate::env::Env::get().one_shot(args.input.tiers.home_dir().as_deref());
    let host = RunOnce { args: &args, recording };
    let verdict = hook_host::answer_run(&host, event, &bytes, &source, hints, policy).await?;
    print(&verdict)
}

/// `run`'s host: the tiers (and `--skill`s) of `--project` and `--home`, loaded for the call.
struct RunOnce<'a> {
    args: &'a RunArgs,
    /// The decision log (`aimon` is the client of its lines) and the audit switch.
    recording: hook_config::Recording,
}

impl hook_host::RunHost for RunOnce<'_> {
    type Project = load::Loaded;

    fn home(&self) -> Option<&Path> {
        None
    }

    fn open(&self, dir: &Path, event: HookEventType) -> Result<load::Loaded, String> {
        let tiers = crate::cli::TierArgs { project: Some(dir.to_owned()), home: self.args.input.tiers.home.clone() };
        let (skills, fail_closed) = (&self.args.input.skills, self.args.fail_closed);
        load::load_recording(&tiers, skills, fail_closed, Scope::Event(event), Trust::Explicit, self.recording.clone())
            .map_err(|e| format!("{e:#}"))
    }

    async fn dispatch(
        &self,
        project: &load::Loaded,
        ctx: &HookContext,
        policy: hook_core::HookExecutionPolicy,
    ) -> hook_core::EventVerdict {
        let engine = crate::env::Env::get().engine(project.registry.clone()).with_policy(policy);
        crate::rewake::enqueueing(engine).run_event(ctx, &CancellationToken::new()).await
    }
}

/// `validate [FILE...]` (R-CLI-3): files given, or the tier files that exist (the managed tier's
/// too, with what its switches and permissions mean for the rest); `mcp` handlers are checked
/// against the servers of `--home`'s and `--project`'s `mcp.json`.
pub(crate) fn validate(args: &ValidateArgs) -> anyhow::Result<u8> {
    let cwd = crate::env::Env::get().cwd()?.to_path_buf();
    let paths = hook_config::TierPaths::new(args.tiers.home_dir(), args.tiers.project_dir()?);
    let files: Vec<(Tier, PathBuf)> = if args.files.is_empty() {
        paths.files().into_iter().filter(|(_, p)| p.exists()).collect()
    } else {
        // A managed file named on the command line is read as the managed tier reads it.
        let tier = |f: &Path| if f.starts_with(&paths.managed) { Tier::Managed } else { Tier::Project };
        args.files.iter().map(|f| absolute(&cwd, f)).map(|f| (tier(&f), f)).collect()
    };
    let gate = trust::gate(&paths, Trust::Store);
    // The servers of the home's and the project's mcp.json (their own WARNs are logged here).
    let declared = BuildEnv::new(&paths).mcp_servers.names();
    let (mut errors, mut warnings, mut handlers) = (0usize, 0usize, 0usize);
    let mut printed = Vec::new();
    for (tier, path) in &files {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) => {
                println!("{}: error: cannot read the file: {e}", path.display());
                eprintln!("error: cannot read {}: {e}", path.display());
                errors += 1;
                continue;
            }
        };
        let (file, diagnostics) = check_config(&text, path, *tier, Some(declared.as_slice()));
        printed.extend(diagnostics.iter().cloned());
        for d in &diagnostics {
            println!("{d}");
            match d.severity {
                Severity::Warning => {
                    d.log();
                    warnings += 1;
                }
                Severity::Error => {
                    eprintln!("error: {}:{}:{}: {}", d.file.display(), d.line, d.column, d.message);
                    errors += 1;
                }
            }
        }
        handlers += file.iter().flat_map(|f| &f.entries).map(|e| e.handlers.len()).sum::<usize>();
        if let Some(file) = &file {
            println!("{}", trust::validate_line(&gate, file));
        }
    }
    if args.files.is_empty()
        && let Ok((config, all)) = hook_config::load_tiers(&paths)
    {
        println!("{}", crate::packs_cmd::validate_line(&config));
        // What only the tiers together say: the managed policy's switches and its permissions.
        for d in all.iter().filter(|d| !printed.contains(d)) {
            println!("{d}");
            d.log();
            warnings += 1;
        }
    }
    let unavailable = crate::guard::unavailable();
    if let Some(why) = &unavailable {
        // Said up front: `guard` (and Claude Code's shell prefix through it) would refuse to run.
        eprintln!("WARN {why}");
    }
    eprintln!("{}", crate::init::claude_settings_layers(paths.home.as_deref(), &paths.project, unavailable.as_deref()));
    println!("{} file(s) checked: {handlers} handler(s), {warnings} warning(s), {errors} error(s)", files.len());
    Ok(if errors > 0 { 1 } else { 0 })
}

/// `list` (R-CLI-4).
pub(crate) fn list(args: &ListArgs) -> anyhow::Result<u8> {
    let loaded = load::load(&args.tiers, &args.skills, false, Scope::All, Trust::Store)?;
    if args.json {
        let rows: Vec<Value> = loaded.hooks.iter().map(|(_, h)| Value::Object(hook_server::hook_row(h))).collect();
        println!("{}", serde_json::to_string_pretty(&rows)?);
        return Ok(0);
    }
    let header = ["TIER", "EVENT", "MATCHER", "HANDLER", "ID", "TRUSTED"].map(str::to_owned);
    let rows: Vec<[String; 6]> = loaded
        .hooks
        .iter()
        .map(|(_, h)| {
            [
                h.tier().name().to_owned(),
                h.event().name().to_owned(),
                h.matcher().to_owned(),
                h.describe(),
                h.id().to_owned(),
                if h.trusted() { "yes" } else { "no" }.to_owned(),
            ]
        })
        .collect();
    if rows.is_empty() {
        let files: Vec<String> = load::tier_files(&loaded.paths).iter().map(|p| p.display().to_string()).collect();
        println!("no hooks configured (looked at {})", files.join(", "));
        return Ok(0);
    }
    crate::table::print_table(&header, &rows);
    Ok(0)
}

/// `explain <EVENT>` (R-CLI-9): every configured hook, and whether it would run for the payload.
pub(crate) fn explain(args: &ExplainArgs) -> anyhow::Result<u8> {
    let event = event(&args.input.event)?;
    let payload = payload::read(args.input.payload.as_deref())?;
    let loaded = load::load(&args.input.tiers, &args.input.skills, false, Scope::All, Trust::Store)?;
    let ctx = Client::Claude.context(event, payload, &loaded.paths.project)?;
    let rows: Vec<(serde_json::Map<String, Value>, Option<String>)> =
        loaded.hooks.iter().map(|(_, h)| (hook_server::hook_row(h), h.explain(&ctx))).collect();
    if args.json {
        let hooks: Vec<Value> = rows
            .into_iter()
            .map(|(mut row, why)| {
                row.insert("runs".into(), why.is_none().into());
                row.insert("why".into(), why.map_or(Value::Null, Value::String));
                Value::Object(row)
            })
            .collect();
        let skipped: Vec<String> = loaded.diagnostics.iter().map(ToString::to_string).collect();
        let out = json!({"event": event.name(), "subject": subject(&ctx), "hooks": hooks, "diagnostics": skipped});
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(0);
    }
    let running = rows.iter().filter(|(_, why)| why.is_none()).count();
    let subject = subject(&ctx).map_or(String::new(), |s| format!(" ({s})"));
    println!("{event}{subject}: {running} of {} configured hook(s) would run", rows.len());
    for (row, why) in &rows {
        let verdict = match why {
            None => "runs".to_owned(),
            Some(why) => format!("skipped: {why}"),
        };
        println!(
            "  {}{} [{} {} matcher {}{}] {}\n    {verdict}",
            row["id"].as_str().unwrap_or_default(),
            row["at"].as_str().map_or(String::new(), |at| format!(" at {at}")),
            row["tier"].as_str().unwrap_or_default(),
            row["event"].as_str().unwrap_or_default(),
            row["matcher"],
            if row["trusted"] == false { ", not trusted" } else { "" },
            row["handler"].as_str().unwrap_or_default(),
        );
    }
    if !loaded.diagnostics.is_empty() {
        println!("not loaded or changed at load time:");
        for d in &loaded.diagnostics {
            println!("  {d}");
        }
    }
    Ok(0)
}

/// What the event's matcher is tested against, in words.
fn subject(ctx: &HookContext) -> Option<String> {
    match ctx.event.spec().matcher {
        hook_core::MatchSubject::Tool => ctx.tool_name().map(|t| format!("tool '{t}'")),
        hook_core::MatchSubject::Field(key) | hook_core::MatchSubject::FileName(key) => {
            ctx.match_subject().map(|s| format!("{key} '{s}'"))
        }
        hook_core::MatchSubject::Nothing => None,
    }
}

/// `import-claude [SETTINGS...]` (R-CLI-5, R-CC-3).
pub(crate) fn import_claude(args: &ImportArgs) -> anyhow::Result<u8> {
    let cwd = crate::env::Env::get().cwd()?.to_path_buf();
    let project = absolute(&cwd, args.project.as_deref().unwrap_or(Path::new(".")));
    let aimon = hook_core::AimonDir::under(&project);
    let jobs: Vec<(Vec<PathBuf>, PathBuf)> = match (&args.output, args.settings.is_empty()) {
        (Some(out), true) => vec![(default_settings(&project)?, out.clone())],
        (Some(out), false) => vec![(args.settings.clone(), out.clone())],
        (None, false) => vec![(args.settings.clone(), aimon.hooks())],
        (None, true) => {
            let claude = project.join(".claude");
            let pairs = [("settings.json", aimon.hooks()), ("settings.local.json", aimon.local_hooks())];
            let jobs: Vec<_> = pairs
                .iter()
                .filter(|(from, _)| claude.join(from).exists())
                .map(|(from, to)| (vec![claude.join(from)], to.clone()))
                .collect();
            if jobs.is_empty() {
                bail!(
                    "no Claude Code settings found: neither {} nor {} exists",
                    claude.join(pairs[0].0).display(),
                    claude.join(pairs[1].0).display()
                );
            }
            jobs
        }
    };
    for (sources, out) in jobs {
        let mut conversion = Conversion::default();
        for source in &sources {
            let text = std::fs::read_to_string(source)
                .with_context(|| format!("cannot read the settings file {}", source.display()))?;
            let value: Value = serde_json::from_str(&text)
                .with_context(|| format!("the settings file {} is not valid JSON", source.display()))?;
            conversion.add(&source.display().to_string(), &value);
        }
        for line in conversion.report_lines() {
            eprintln!("{line}");
        }
        if out == Path::new("-") {
            print!("{}", conversion.to_json());
            continue;
        }
        let out = absolute(&cwd, &out);
        if out.exists() && !args.force {
            bail!("{} already exists; pass --force to overwrite it", out.display());
        }
        if let Some(dir) = out.parent() {
            std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        }
        std::fs::write(&out, conversion.to_json()).with_context(|| format!("cannot write {}", out.display()))?;
        eprintln!(
            "wrote {} ({} handler(s), {} report line(s))",
            out.display(),
            conversion.kept,
            conversion.report.len()
        );
    }
    Ok(0)
}

/// `.claude/settings.json` then `.claude/settings.local.json`, those that exist.
fn default_settings(project: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let files: Vec<PathBuf> = ["settings.json", "settings.local.json"]
        .iter()
        .map(|f| project.join(".claude").join(f))
        .filter(|p| p.exists())
        .collect();
    if files.is_empty() {
        bail!("no Claude Code settings found in {}", project.join(".claude").display());
    }
    Ok(files)
}

/// `schema` (R-CLI-6).
pub(crate) fn schema() -> anyhow::Result<u8> {
    println!("{}", serde_json::to_string_pretty(&hook_config::hooks_json_schema())?);
    Ok(0)
}

/// `watch` (R-CLI-7): prints each `onConfigReload` as one JSON line until a signal stops it.
pub(crate) async fn watch(args: &WatchArgs) -> anyhow::Result<u8> {
    let paths = hook_config::TierPaths::new(args.tiers.home_dir(), args.tiers.project_dir()?);
    let registry = Arc::new(hook_core::HookRegistry::new());
    let printer: Arc<dyn ExecutionHook> = FnHook::new("aimon-hooks-watch", |ctx: HookContext| async move {
        let mut line = serde_json::Map::new();
        line.insert("event".into(), ctx.event.name().into());
        line.extend(ctx.fields);
        println!("{}", Value::Object(line));
        Ok(HookResult::allow())
    });
    registry.register(HookEventType::ON_CONFIG_RELOAD, printer);
    let files: Vec<String> = load::tier_files(&paths).iter().map(|p| p.display().to_string()).collect();
    let _handle =
        HookHotReloadBootstrap::builder().paths(paths).registry(registry).start().map_err(load::config_error)?;
    tracing::info!("watching {}", files.join(", "));
    std::future::pending().await
}

/// `serve` (R-SRV-1): runs the daemon until SIGTERM, SIGINT or SIGHUP; exits 128 + the signal.
pub(crate) async fn serve(args: ServeArgs) -> anyhow::Result<u8> {
    // jemalloc's background thread hands the memory of a burst of connections back to the system
    // (docs/decisions.md); only the daemon lives long enough to need it.
    if crate::alloc::is_jemalloc()
        && let Err(e) = tikv_jemalloc_ctl::background_thread::write(true)
    {
        tracing::warn!("hooks: cannot start the allocator's background thread ({e}); freed memory may stay with serve");
    }
    let cwd = crate::env::Env::get().cwd()?.to_path_buf();
    let tiers = crate::cli::TierArgs { project: None, home: args.home.clone() };
    let home = tiers.home_dir().context("no home directory: pass --home or set HOME")?;
    let socket = args.socket.map_or_else(|| hook_server::default_socket(&home), |s| absolute(&cwd, &s));
    let mut signals = hook_server::ShutdownSignals::new().context("cannot listen for signals")?;
    let env = crate::env::Env::get();
    let recording = env.daemon(&home, args.audit);
    let log = recording.log().cloned();
    let mut service = hook_server::ServiceOptions::new(Some(home), cwd);
    service.recording = recording;
    service.trust_project_hooks = env.trust_project_hooks;
    service.continuation_cap = env.continuation_cap;
    let options = hook_server::ServeOptions {
        service,
        socket,
        listen: args.listen,
        store: args.store.or_else(|| env.store.clone()),
        grace: std::time::Duration::from_secs(5),
    };
    let caught = std::cell::Cell::new(0);
    hook_server::serve(options, async { caught.set(signals.recv().await) }).await?;
    // What the stopped service still holds of the log is written before the process exits.
    if let Some(log) = log {
        log.flush(crate::env::LOG_FLUSH);
    }
    Ok(u8::try_from(128 + caught.get()).unwrap_or(1))
}
