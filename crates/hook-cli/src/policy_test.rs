//! `aimon-hooks test`: policy tests kept beside the policy (`.aimon/tests/*.json`, `*.yaml`).
//!
//! A file holds `{"cases": [...]}`; a case names a payload (Claude Code's dialect, which is also
//! ours) and what must come out of the effective tiers with their real handlers: `outcome`,
//! `decision`, a `reason` substring, `updatedInput` as a deep subset, and `hook`, a substring of
//! the deciding hook's id, source or file:line. Every failing case prints what differed; any
//! failure exits 1; `--junit FILE` writes the run for CI (junit-report, docs/decisions.md).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};
use hook_config::DeclarativeHook;
use hook_core::{CancellationToken, EventVerdict, HookEngine, HookEventType, Verdict};
use hook_wire::claude::Key;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::cli::{TestArgs, absolute};
use crate::load::{self, Scope};
use crate::trust::Trust;
use hook_wire::claude::PayloadKey;

/// The session id a case's payload gets when it names none.
const TEST_SESSION: &str = "aimon-test";

/// One file of cases.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TestFile {
    cases: Vec<Case>,
}

/// One case: a payload in, what must come out.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    name: String,
    /// The event, when the payload's `hook_event_name` does not say it.
    #[serde(default)]
    event: Option<String>,
    /// The payload's dialect (`claude`, the default).
    #[serde(default)]
    client: Option<String>,
    payload: Map<String, Value>,
    #[serde(default)]
    expect: Expect,
}

/// What must come out; an absent field is not checked. The names of `decision`, `reason` and
/// `updatedInput` are Claude Code's answer keys on purpose ([`Key`]).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Expect {
    outcome: Option<String>,
    decision: Option<String>,
    reason: Option<String>,
    updated_input: Option<Value>,
    hook: Option<String>,
}

/// What became of one case.
#[derive(Debug)]
pub(crate) struct CaseResult {
    file: PathBuf,
    name: String,
    elapsed: Duration,
    /// Empty when it passed.
    mismatches: Vec<Mismatch>,
    /// The case could not run (unknown event, unreadable payload, refused client).
    error: Option<String>,
}

/// One expectation that did not hold.
#[derive(Debug)]
struct Mismatch {
    field: &'static str,
    expected: String,
    actual: String,
}

impl CaseResult {
    fn passed(&self) -> bool {
        self.mismatches.is_empty() && self.error.is_none()
    }

    fn to_json(&self) -> Value {
        let mismatches: Vec<Value> = self
            .mismatches
            .iter()
            .map(|m| json!({"field": m.field, "expected": m.expected, "actual": m.actual}))
            .collect();
        json!({
            "file": self.file.display().to_string(),
            "name": self.name,
            "passed": self.passed(),
            "elapsed_ms": self.elapsed.as_secs_f64() * 1000.0,
            "mismatches": mismatches,
            "error": self.error,
        })
    }
}

/// `test [FILE…]`.
pub(crate) async fn command(args: &TestArgs) -> anyhow::Result<u8> {
    if args.packs {
        return packs(args).await;
    }
    let project = args.tiers.project_dir()?;
    let cwd = crate::env::Env::get().cwd()?.to_path_buf();
    let files: Vec<PathBuf> = if args.files.is_empty() {
        test_files(&project)?
    } else {
        args.files.iter().map(|f| absolute(&cwd, f)).collect()
    };
    if files.is_empty() {
        bail!("no policy tests found: {} holds no *.json or *.yaml file", project.join(".aimon/tests").display());
    }
    // A repository's tests run its hooks: the trust gate applies as behind an agent, unless the
    // person says `--trust`.
    let trust = if args.trust { Trust::Explicit } else { Trust::Store };
    let loaded = load::load(&args.tiers, &[], false, Scope::All, trust)?;
    for file in &loaded.untrusted {
        eprintln!(
            "note: {} is not trusted, so its command, http, mcp, prompt and agent hooks were not run; {} to trust it, or pass --trust",
            file.display(),
            loaded.gate.command()
        );
    }
    let engine = HookEngine::new(loaded.registry.clone());
    let mut results = Vec::new();
    for file in &files {
        let cases = read_file(file)?;
        for case in cases {
            results.push(run_case(file, case, &engine, &loaded.hooks, &project).await);
        }
    }
    report(args, &results, &cwd)
}

/// `test --packs`: each built-in pack's own cases, run against that pack alone, turned on in the
/// person's own file of an empty home and project (`$HOME` and `$PROJECT` in a case name them).
async fn packs(args: &TestArgs) -> anyhow::Result<u8> {
    let cwd = crate::env::Env::get().cwd()?.to_path_buf();
    let mut results = Vec::new();
    for pack in hook_config::packs() {
        let name = format!("aimon-pack-tests-{}-{}", std::process::id(), pack.name().replace('/', "-"));
        let dir = Scratch(std::env::temp_dir().join(name));
        let (home, project) = (dir.path().join("home"), dir.path().join("project"));
        for d in [home.join(".aimon"), project.join(".git"), dir.path().join("managed")] {
            std::fs::create_dir_all(&d).with_context(|| format!("cannot create {}", d.display()))?;
        }
        let turned_on = serde_json::json!({ "packs": [pack.name()] }).to_string();
        std::fs::write(home.join(".aimon").join("hooks.json"), turned_on)
            .context("cannot write the home's hooks.json")?;
        let paths =
            hook_config::TierPaths::new(Some(home.clone()), &project).with_managed_dir(dir.path().join("managed"));
        let (config, _) = hook_config::load_tiers(&paths).map_err(load::config_error)?;
        let hooks = config.into_hooks(&hook_config::BuildEnv::without_mcp(&paths));
        let registry = std::sync::Arc::new(hook_core::HookRegistry::new());
        let managed = hooks.iter().map(|(e, h)| (*e, h.clone() as std::sync::Arc<dyn hook_core::ExecutionHook>));
        registry.replace_managed(hook_config::CONFIG_GROUP, managed.collect());
        let engine = HookEngine::new(registry);
        let text = pack
            .tests()
            .replace("$HOME", &home.display().to_string())
            .replace("$PROJECT", &project.display().to_string());
        let file = PathBuf::from(format!("{}.tests.json", pack.name()));
        let cases: TestFile = serde_json::from_str(&text).map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
        for case in cases.cases {
            results.push(run_case(&file, case, &engine, &hooks, &project).await);
        }
    }
    report(args, &results, &cwd)
}

/// A scratch directory, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Prints `results` as asked and returns the exit code: 1 when any case failed.
fn report(args: &TestArgs, results: &[CaseResult], cwd: &Path) -> anyhow::Result<u8> {
    let failed = results.iter().filter(|r| !r.passed()).count();
    if args.json {
        let out = json!({"passed": results.len() - failed, "failed": failed,
            "cases": results.iter().map(CaseResult::to_json).collect::<Vec<_>>()});
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        print_results(results, cwd);
    }
    if let Some(junit) = &args.junit {
        write_junit(results, &absolute(cwd, junit))?;
    }
    Ok(if failed > 0 { 1 } else { 0 })
}

/// `<project>/.aimon/tests/*.json|*.yaml|*.yml`, sorted.
fn test_files(project: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let dir = project.join(".aimon").join("tests");
    let entries = match std::fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", dir.display())),
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("json" | "yaml" | "yml")))
        .collect();
    files.sort();
    Ok(files)
}

/// The cases of one file, JSON or YAML by its extension.
fn read_file(path: &Path) -> anyhow::Result<Vec<Case>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let file: TestFile = match path.extension().and_then(|e| e.to_str()) {
        Some("yaml" | "yml") => {
            serde_saphyr::from_str(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?
        }
        _ => serde_json::from_str(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?,
    };
    Ok(file.cases)
}

async fn run_case(
    file: &Path,
    case: Case,
    engine: &HookEngine,
    hooks: &[(HookEventType, std::sync::Arc<DeclarativeHook>)],
    project: &Path,
) -> CaseResult {
    let started = Instant::now();
    let mut result = CaseResult {
        file: file.to_owned(),
        name: case.name.clone(),
        elapsed: Duration::ZERO,
        mismatches: Vec::new(),
        error: None,
    };
    match evaluate(case.event.as_deref(), case.client.as_deref(), case.payload, engine, project).await {
        Ok(verdict) => result.mismatches = compare(&case.expect, &verdict, hooks),
        Err(e) => result.error = Some(format!("{e:#}")),
    }
    result.elapsed = started.elapsed();
    result
}

/// Runs one payload through the engine.
async fn evaluate(
    event: Option<&str>,
    client: Option<&str>,
    mut payload: Map<String, Value>,
    engine: &HookEngine,
    project: &Path,
) -> anyhow::Result<EventVerdict> {
    match client {
        None | Some("claude") => {}
        Some(other) => bail!(
            "client '{other}' is not supported yet: write the payload in Claude Code's dialect (\"client\": \"claude\")"
        ),
    }
    let named = event.or_else(|| payload.get(PayloadKey::HOOK_EVENT_NAME).and_then(Value::as_str)).map(str::to_owned);
    let Some(named) = named else {
        bail!("the case names no event: give \"event\" or the payload's \"hook_event_name\"");
    };
    let event = HookEventType::resolve(&named).map_err(|e| anyhow::anyhow!("{}", e.warning()))?;
    payload.entry(PayloadKey::SESSION_ID).or_insert_with(|| TEST_SESSION.into());
    payload.entry("cwd").or_insert_with(|| project.display().to_string().into());
    let ctx = hook_wire::Client::Claude.context(event, payload, project)?;
    Ok(engine.run_event(&ctx, &CancellationToken::new()).await)
}

/// What differs between `expect` and `verdict`.
fn compare(
    expect: &Expect,
    verdict: &EventVerdict,
    hooks: &[(HookEventType, std::sync::Arc<DeclarativeHook>)],
) -> Vec<Mismatch> {
    let mut out = Vec::new();
    let merged = &verdict.report.merged;
    if let Some(outcome) = &expect.outcome
        && outcome != verdict.outcome.as_str()
    {
        out.push(Mismatch { field: "outcome", expected: outcome.clone(), actual: verdict.outcome.as_str().to_owned() });
    }
    if let Some(decision) = &expect.decision
        && decision != merged.decision.as_str()
    {
        out.push(Mismatch {
            field: Key::DECISION,
            expected: decision.clone(),
            actual: merged.decision.as_str().into(),
        });
    }
    let reason = verdict.reason.as_deref().or(verdict.feedback.as_deref()).unwrap_or_default();
    if let Some(want) = &expect.reason
        && !reason.contains(want.as_str())
    {
        out.push(Mismatch {
            field: Key::REASON,
            expected: format!("a reason containing {want:?}"),
            actual: format!("{reason:?}"),
        });
    }
    if let Some(want) = &expect.updated_input {
        let got = merged.updated_input.clone().unwrap_or(Value::Null);
        if !subset(want, &got) {
            out.push(Mismatch {
                field: Key::UPDATED_INPUT,
                expected: format!("a superset of {want}"),
                actual: got.to_string(),
            });
        }
    }
    if let Some(want) = &expect.hook {
        let deciding = deciding_hooks(verdict, hooks);
        if !deciding.iter().any(|names| names.iter().any(|n| n.contains(want.as_str()))) {
            let actual = if deciding.is_empty() {
                "no hook decided".to_owned()
            } else {
                deciding.iter().map(|names| names.join(" ")).collect::<Vec<_>>().join("; ")
            };
            out.push(Mismatch { field: "hook", expected: format!("a deciding hook matching {want:?}"), actual });
        }
    }
    out
}

/// The hooks that decided the verdict (id, source, file:line of each): those that denied or
/// blocked a denied/blocked call, asked on an ask, else any that allowed, rewrote, failed or
/// gave feedback.
fn deciding_hooks(
    verdict: &EventVerdict,
    hooks: &[(HookEventType, std::sync::Arc<DeclarativeHook>)],
) -> Vec<Vec<String>> {
    let wanted: &[&str] = match verdict.outcome {
        Verdict::Denied | Verdict::Blocked => &["deny", "block"],
        Verdict::Ask => &["ask", "defer"],
        Verdict::Proceed => &["allow", "rewrite", "error"],
    };
    verdict
        .report
        .runs
        .iter()
        .filter(|run| {
            wanted.contains(&hook_config::outcome_word(&run.result))
                || run.error.is_some()
                || (verdict.outcome == Verdict::Proceed && run.result.feedback.is_some())
        })
        .map(|run| {
            let at = hooks
                .iter()
                .find(|(_, h)| hook_core::ExecutionHook::id(&**h) == run.hook_id)
                .and_then(|(_, h)| h.location());
            [Some(run.hook_id.clone()), Some(run.source.clone()), at].into_iter().flatten().collect()
        })
        .collect()
}

/// Whether `want` is a deep subset of `got`: every key of an object with a value that is a
/// subset, arrays element by element, anything else equal.
fn subset(want: &Value, got: &Value) -> bool {
    match (want, got) {
        (Value::Object(w), Value::Object(g)) => w.iter().all(|(k, v)| g.get(k).is_some_and(|gv| subset(v, gv))),
        (Value::Array(w), Value::Array(g)) => w.len() == g.len() && w.iter().zip(g).all(|(a, b)| subset(a, b)),
        _ => want == got,
    }
}

fn print_results(results: &[CaseResult], cwd: &Path) {
    for r in results {
        let file = r.file.strip_prefix(cwd).unwrap_or(&r.file).display();
        if r.passed() {
            println!("PASS  {file}: {} ({:.0} ms)", r.name, r.elapsed.as_secs_f64() * 1000.0);
            continue;
        }
        println!("FAIL  {file}: {}", r.name);
        if let Some(error) = &r.error {
            println!("      error: {error}");
        }
        for m in &r.mismatches {
            println!("      {}:", m.field);
            println!("        - expected: {}", m.expected);
            println!("        + actual:   {}", m.actual);
        }
    }
    let failed = results.iter().filter(|r| !r.passed()).count();
    println!("{} case(s): {} passed, {failed} failed", results.len(), results.len() - failed);
}

/// The run as JUnit XML: one suite per file, one test case per case; a mismatch is a failure,
/// a case that could not run an error.
fn write_junit(results: &[CaseResult], path: &Path) -> anyhow::Result<()> {
    let mut report = junit_report::Report::new();
    let mut files: Vec<&Path> = results.iter().map(|r| r.file.as_path()).collect();
    files.dedup();
    for file in files {
        let mut suite = junit_report::TestSuite::new(&file.display().to_string());
        for r in results.iter().filter(|r| r.file == file) {
            let time = junit_report::Duration::try_from(r.elapsed).unwrap_or_default();
            let mut case = match (&r.error, r.mismatches.is_empty()) {
                (Some(error), _) => junit_report::TestCase::error(&r.name, time, "case", error),
                (None, false) => {
                    let text: Vec<String> = r
                        .mismatches
                        .iter()
                        .map(|m| format!("{}: expected {}, actual {}", m.field, m.expected, m.actual))
                        .collect();
                    junit_report::TestCase::failure(&r.name, time, "mismatch", &text.join("; "))
                }
                (None, true) => junit_report::TestCase::success(&r.name, time),
            };
            case.set_classname(&file.display().to_string());
            suite.add_testcase(case);
        }
        report.add_testsuite(suite);
    }
    let mut bytes = Vec::new();
    report.write_xml(&mut bytes).map_err(|e| anyhow::anyhow!("cannot write the JUnit report: {e}"))?;
    std::fs::write(path, bytes).with_context(|| format!("cannot write {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deep_subset_holds_when_every_key_it_names_matches() {
        let got = json!({"command": "ls", "options": {"a": 1, "b": [1, 2]}});
        let cases = [
            (json!({"command": "ls"}), true),
            (json!({"options": {"b": [1, 2]}}), true),
            (json!({"options": {"b": [1]}}), false),
            (json!({"command": "rm"}), false),
            (json!({"missing": null}), false),
        ];
        for (want, holds) in cases {
            assert_eq!(subset(&want, &got), holds, "{want}");
        }
    }
}
