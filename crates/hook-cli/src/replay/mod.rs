//! `aimon-hooks replay`: recorded sessions through the current policy, without running a tool.
//!
//! The client's reader in hook-wire ([`hook_wire::Client::read_session`]: Claude Code
//! transcripts, Codex rollouts) turns a session file into its hook calls in order, each with the
//! payload the client sends: prompts, tool calls (PreToolUse, and PermissionRequest where hooks
//! listen for it), their results (PostToolUse with the recorded response) and turn ends (Stop).
//! Each goes through the client's [`hook_wire::Client::context`], as a live call of
//! `aimon-hooks <client>` does (a Codex patch is read as `aimon-hooks codex` reads it), and runs
//! through the effective hooks; `command`, `http` and `mcp` handlers run only with
//! `--run-handlers` (the report names those it skipped). A call the policy would decide
//! differently from what happened is reported with its tool, input, hook (id and file:line)
//! and reason; a line that cannot be read is reported and skipped. The report also counts the tool
//! calls the pack `aimon/read-only` would have allowed without a prompt (where the policy lets
//! them proceed), whether the pack is on or not: what turning it on would buy.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context as _, bail};
use hook_config::DeclarativeHook;
use hook_core::{
    AnswerChannel, CancellationToken, DecisionChannel, ExecutionHook, HandlerKind, HookEngine, HookEventType,
    HookRegistry, Verdict,
};
use serde_json::{Map, Value, json};

use crate::cli::{ReplayArgs, ReplayClient, absolute};
use crate::load::{self, Scope};
use crate::trust::Trust;
use hook_wire::{Client, Happened, RecordedCall};

/// One call of a recorded session, and the file it was recorded in.
#[derive(Debug)]
struct Recorded {
    file: PathBuf,
    call: RecordedCall,
}

/// A line that could not be read.
#[derive(Debug)]
struct Unreadable {
    file: PathBuf,
    line: usize,
    error: String,
}

/// A call decided differently.
struct Difference<'a> {
    call: &'a Recorded,
    would: &'static str,
    hooks: Vec<String>,
    reason: String,
}

/// `replay [PATH…]`.
pub(crate) async fn command(args: &ReplayArgs) -> anyhow::Result<u8> {
    let started = Instant::now();
    let project = args.tiers.project_dir()?;
    let home = args.tiers.home_dir();
    let replayed = args.client.unwrap_or(ReplayClient::Claude);
    let client = match replayed {
        ReplayClient::Claude => Client::Claude,
        ReplayClient::Codex => Client::Codex,
    };
    let since = args.since.as_deref().map(since).transpose()?;
    let files = session_files(args, replayed, &project, home.as_deref())?;
    let loaded = load::load(&args.tiers, &[], false, Scope::All, Trust::Explicit)?;
    // Without --run-handlers only the hooks that run no code of their own (`deny`) are registered.
    let registry = Arc::new(HookRegistry::new());
    let runs_code = |h: &DeclarativeHook| h.handler().kind() != HandlerKind::Deny;
    for (event, hook) in &loaded.hooks {
        if args.run_handlers || !runs_code(hook) {
            registry.register(*event, hook.clone() as Arc<dyn ExecutionHook>);
        }
    }
    let engine = HookEngine::new(registry);
    let locations: HashMap<&str, String> =
        loaded.hooks.iter().filter_map(|(_, h)| Some((h.id(), h.location()?))).collect();
    // The permission system's event (its answer is a permission behaviour) replays each recorded
    // tool call too, when a hook listens for it.
    let permission_event =
        HookEventType::ALL.iter().copied().find(|e| e.spec().answer == AnswerChannel::PermissionBehavior);
    let listens_for_permission = loaded.hooks.iter().any(|(e, _)| Some(*e) == permission_event);

    let mut bad = Vec::new();
    let mut calls = Vec::new();
    for file in &files {
        let text = match std::fs::read(file) {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(e) => {
                bad.push(Unreadable { file: file.clone(), line: 0, error: format!("cannot read the file: {e}") });
                continue;
            }
        };
        let session = client.read_session(&file.display().to_string(), &text).unwrap_or_default();
        bad.extend(session.unreadable.into_iter().map(|(line, error)| Unreadable { file: file.clone(), line, error }));
        let kept = session.calls.into_iter().filter(|c| since.as_ref().is_none_or(|s| after(c, s)));
        calls.extend(kept.map(|call| Recorded { file: file.clone(), call }));
    }
    if let (true, Some(permission_event)) = (listens_for_permission, permission_event) {
        let permission: Vec<Recorded> = calls
            .iter()
            .filter(|c| {
                c.call.event.spec().answer == AnswerChannel::PermissionDecision && c.call.event.spec().updates_input
            })
            .map(|c| Recorded {
                file: c.file.clone(),
                call: RecordedCall { event: permission_event, ..c.call.clone() },
            })
            .collect();
        calls.extend(permission);
    }

    let read_only = ReadOnlyPack::new(&project, home.as_deref());
    // Tool calls, and those the read-only pack would have allowed.
    let mut prompts = (0usize, 0usize);
    let mut differences = Vec::new();
    let mut skipped: BTreeMap<String, usize> = BTreeMap::new();
    // event → (calls, decided differently)
    let mut summary: BTreeMap<&'static str, (usize, usize)> = BTreeMap::new();
    let cancel = CancellationToken::new();
    for recorded in &calls {
        let call = &recorded.call;
        let ctx = match client.context(call.event, call.payload.clone(), &project) {
            Ok(ctx) => ctx,
            Err(e) => {
                bad.push(Unreadable { file: recorded.file.clone(), line: call.line, error: e.to_string() });
                continue;
            }
        };
        if !args.run_handlers {
            for (_, hook) in loaded.hooks.iter().filter(|(e, h)| *e == call.event && runs_code(h)) {
                if hook.would_match(&ctx) {
                    *skipped.entry(hook.id().to_owned()).or_default() += 1;
                }
            }
        }
        let verdict = engine.run_event(&ctx, &cancel).await;
        if call.event.spec().answer == AnswerChannel::PermissionDecision && call.event.spec().updates_input {
            prompts.0 += 1;
            prompts.1 += usize::from(verdict.outcome == Verdict::Proceed && read_only.allows(&ctx));
        }
        let entry = summary.entry(call.event.name()).or_default();
        entry.0 += 1;
        let merged_word = hook_config::outcome_word(&verdict.report.merged);
        let would = match (&call.happened, verdict.outcome, call.event) {
            (Happened::Ran | Happened::Unknown, Verdict::Denied, _) => "deny",
            (Happened::Ran | Happened::Unknown, Verdict::Blocked, e)
                if e.spec().decision == DecisionChannel::Continuation =>
            {
                "keep working"
            }
            (Happened::Ran | Happened::Unknown, Verdict::Blocked, _) => "block",
            (Happened::Ran | Happened::Unknown, Verdict::Ask, _) => "ask",
            (Happened::Denied(_), Verdict::Proceed, _) => "allow",
            // Advisory events decide nothing; a hook's block there reaches the model as feedback.
            (Happened::Ran, Verdict::Proceed, e)
                if e.spec().decision == DecisionChannel::Advisory && merged_word == "block" =>
            {
                "block (feedback)"
            }
            _ => continue,
        };
        entry.1 += 1;
        let hooks: Vec<String> = verdict
            .report
            .runs
            .iter()
            .filter(|r| !matches!(hook_config::outcome_word(&r.result), "none" | "rewrite"))
            .map(|r| match locations.get(r.hook_id.as_str()) {
                Some(at) => format!("{} ({at})", r.hook_id),
                None => r.hook_id.clone(),
            })
            .collect();
        let reason = verdict
            .reason
            .clone()
            .or_else(|| verdict.report.merged.feedback.clone())
            .or_else(|| match &call.happened {
                Happened::Denied(text) => Some(format!("was refused: {text}")),
                _ => None,
            })
            .unwrap_or_default();
        differences.push(Difference { call: recorded, would, hooks, reason });
    }
    let elapsed = started.elapsed();
    if args.json {
        let mut out = report_json(&files, &calls, &differences, &summary, &skipped, &bad, elapsed);
        out["read_only"] = json!({"tool_calls": prompts.0, "would_allow": prompts.1});
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        print_text(&files, &calls, &differences, &summary, &skipped, &bad, elapsed);
        println!(
            "{}: would have allowed {} of {} tool call(s) without a prompt",
            ReadOnlyPack::NAME,
            prompts.1,
            prompts.0
        );
    }
    Ok(0)
}

/// The pack `aimon/read-only`'s matchers, compiled for the project.
struct ReadOnlyPack(Vec<Box<dyn hook_predicate::ToolInputPredicate>>);

impl ReadOnlyPack {
    const NAME: &str = "aimon/read-only";

    fn new(project: &Path, home: Option<&Path>) -> Self {
        let mut anchors = hook_predicate::PathAnchors::new(project);
        if let Some(home) = home {
            anchors = anchors.with_home(home);
        }
        let rules = hook_config::pack(Self::NAME).map(hook_config::Pack::rules).unwrap_or_default();
        ReadOnlyPack(rules.iter().filter_map(|r| hook_predicate::parse(&r.matcher, &anchors).ok()).collect())
    }

    /// Whether one of its rules matches the call for certain (an uncertain match allows nothing).
    fn allows(&self, ctx: &hook_core::HookContext) -> bool {
        ctx.tool.as_ref().is_some_and(|t| {
            let call = hook_predicate::Call::new(&t.name, &t.input).in_dir(ctx.cwd.as_deref());
            self.0.iter().any(|p| p.verdict(&call) == hook_predicate::Verdict::Match)
        })
    }
}

/// The session files: the PATHs given (a directory stands for its `*.jsonl`, recursively), else
/// the client's sessions of the project.
fn session_files(
    args: &ReplayArgs,
    client: ReplayClient,
    project: &Path,
    home: Option<&Path>,
) -> anyhow::Result<Vec<PathBuf>> {
    let cwd = crate::env::Env::get().cwd()?.to_path_buf();
    let roots: Vec<PathBuf> = if args.paths.is_empty() {
        let home = home.context("no home directory: pass --home or set HOME, or name the session files")?;
        vec![match client {
            ReplayClient::Claude => hook_wire::claude::transcript_dir(home, project),
            ReplayClient::Codex => home.join(".codex").join("sessions"),
        }]
    } else {
        args.paths.iter().map(|p| absolute(&cwd, p)).collect()
    };
    let mut files = Vec::new();
    for root in &roots {
        if root.is_dir() {
            jsonl_under(root, &mut files)?;
        } else if root.exists() {
            files.push(root.clone());
        } else {
            bail!("{} does not exist", root.display());
        }
    }
    if args.paths.is_empty() && client == ReplayClient::Codex {
        // Every Codex session of the machine lives there: keep those of this project.
        files.retain(|f| codex_session_in(f, project));
    }
    if files.is_empty() {
        bail!(
            "no recorded sessions found under {}",
            roots.iter().map(|r| r.display().to_string()).collect::<Vec<_>>().join(", ")
        );
    }
    files.sort();
    Ok(files)
}

fn jsonl_under(dir: &Path, out: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    for entry in std::fs::read_dir(dir).with_context(|| format!("cannot read {}", dir.display()))? {
        let path = entry?.path();
        if path.is_dir() {
            jsonl_under(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "jsonl") {
            out.push(path);
        }
    }
    Ok(())
}

/// Whether the Codex rollout `file` was recorded in `project` (its `session_meta` cwd).
fn codex_session_in(file: &Path, project: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(file) else { return true };
    hook_wire::codex::rollout_cwd(&text).is_none_or(|cwd| cwd.starts_with(project))
}

/// `--since`: an RFC 3339 time, or a duration before now (`2h`, `3days`).
fn since(text: &str) -> anyhow::Result<chrono::DateTime<chrono::Utc>> {
    if let Ok(time) = chrono::DateTime::parse_from_rfc3339(text) {
        return Ok(time.with_timezone(&chrono::Utc));
    }
    let ago = humantime::parse_duration(text)
        .map_err(|_| anyhow::anyhow!("--since {text:?} is neither an RFC 3339 time nor a duration such as 2h"))?;
    let ago = chrono::Duration::from_std(ago).context("--since is too far back")?;
    Ok(chrono::Utc::now() - ago)
}

/// Whether `call` happened at or after `since` (a call without a time is kept).
fn after(call: &RecordedCall, since: &chrono::DateTime<chrono::Utc>) -> bool {
    call.time
        .as_deref()
        .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
        .is_none_or(|t| t.with_timezone(&chrono::Utc) >= *since)
}

fn happened_word(h: &Happened) -> &'static str {
    match h {
        Happened::Ran => "ran",
        Happened::Denied(_) => "refused",
        Happened::Unknown => "no result recorded",
    }
}

/// The input of a call, shortened for a line of text.
fn input_text(call: &RecordedCall, limit: usize) -> String {
    let input =
        call.input().map(|v| if let Value::String(s) = v { s.clone() } else { v.to_string() }).unwrap_or_default();
    if input.chars().count() <= limit { input } else { format!("{}…", input.chars().take(limit).collect::<String>()) }
}

fn print_text(
    files: &[PathBuf],
    calls: &[Recorded],
    differences: &[Difference<'_>],
    summary: &BTreeMap<&'static str, (usize, usize)>,
    skipped: &BTreeMap<String, usize>,
    bad: &[Unreadable],
    elapsed: std::time::Duration,
) {
    for d in differences {
        let tool = d.call.call.tool_name().unwrap_or("-");
        println!(
            "{}:{}: {} {tool} {}: {}, would {}",
            d.call.file.display(),
            d.call.call.line,
            d.call.call.event,
            input_text(&d.call.call, 120),
            happened_word(&d.call.call.happened),
            d.would
        );
        if !d.hooks.is_empty() {
            println!("    hook: {}", d.hooks.join(", "));
        }
        if !d.reason.is_empty() {
            println!("    reason: {}", d.reason.replace('\n', " "));
        }
    }
    println!();
    let header = ["EVENT", "CALLS", "SAME", "DIFFERENT"].map(str::to_owned);
    let rows: Vec<[String; 4]> = summary
        .iter()
        .map(|(event, (n, diff))| [(*event).to_owned(), n.to_string(), (n - diff).to_string(), diff.to_string()])
        .collect();
    crate::table::print_table(&header, &rows);
    println!(
        "{} call(s) from {} session file(s) in {:.0} ms: {} decided differently",
        calls.len(),
        files.len(),
        elapsed.as_secs_f64() * 1000.0,
        differences.len()
    );
    if !skipped.is_empty() {
        println!("skipped (command, http, mcp, prompt and agent handlers run only with --run-handlers):");
        for (hook, n) in skipped {
            println!("  {hook}: {n} call(s)");
        }
    }
    for b in bad {
        eprintln!("warning: {}:{}: skipped: {}", b.file.display(), b.line, b.error);
    }
}

fn report_json(
    files: &[PathBuf],
    calls: &[Recorded],
    differences: &[Difference<'_>],
    summary: &BTreeMap<&'static str, (usize, usize)>,
    skipped: &BTreeMap<String, usize>,
    bad: &[Unreadable],
    elapsed: std::time::Duration,
) -> Value {
    let differences: Vec<Value> = differences
        .iter()
        .map(|d| {
            json!({
                "file": d.call.file.display().to_string(),
                "line": d.call.call.line,
                "time": d.call.call.time,
                "session": d.call.call.session(),
                "event": d.call.call.event.name(),
                "tool": d.call.call.tool_name(),
                "input": d.call.call.input(),
                "happened": happened_word(&d.call.call.happened),
                "would": d.would,
                "hooks": d.hooks,
                "reason": d.reason,
            })
        })
        .collect();
    let summary: Map<String, Value> =
        summary.iter().map(|(e, (n, diff))| ((*e).to_owned(), json!({"calls": n, "different": diff}))).collect();
    let out = json!({
        "files": files.iter().map(|f| f.display().to_string()).collect::<Vec<_>>(),
        "calls": calls.len(),
        "elapsed_ms": elapsed.as_secs_f64() * 1000.0,
        "differences": differences,
        "summary": summary,
        "skipped_handlers": skipped,
        "unreadable": bad.iter().map(|b| json!({"file": b.file.display().to_string(), "line": b.line, "error": b.error})).collect::<Vec<_>>(),
    });
    out
}
