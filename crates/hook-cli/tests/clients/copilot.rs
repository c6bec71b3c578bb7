//! GitHub Copilot CLI (`@github/copilot`, pinned), `copilot -p … --allow-all-tools` offline
//! (`COPILOT_OFFLINE=true`, no GitHub login) against the scripted Chat Completions API as a
//! bring-your-own-key provider (`COPILOT_PROVIDER_*`).
//!
//! Install: the npm package is a loader for a single-file binary that unpacks its JS package
//! (235 MB) on first start into `$COPILOT_PKG_CACHE_HOME/pkg` (default `~/.cache/copilot/pkg`);
//! the suite points that variable at `<install dir>/pkg-cache` and starts the binary once under
//! the install lock, so the unpack happens once, under `target/`.
//!
//! Settings: the project's `.github/hooks/harness.json`, in the native camelCase dialect
//! (`{"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": …, "timeoutSec": …}]}}`,
//! payload without an event name: the hook gets it as its argument). The same file also holds
//! the PascalCase ("VS Code compatible") events, recorded for the fixtures only: their payloads
//! are snake_case with Claude Code's tool names.
//!
//! Trust: repository hooks load only in a trusted folder. A script trusts one by listing it in
//! `trustedFolders` of `$COPILOT_HOME/config.json` (what the interactive "trust this folder"
//! prompt writes); `--trust-folder` (one session) and `COPILOT_ALLOW_ALL=true` also do.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde_json::json;

use crate::npm::NpmPackage;
use crate::runner::{Client, Events, HOOK_TIMEOUT_SECS, Invocation, Sandbox, write};

const COPILOT: NpmPackage = NpmPackage {
    slug: "copilot",
    package: "@github/copilot",
    version: "1.0.102",
    bin: "copilot",
    size: "~189 MB, plus 235 MB unpacked on its first start",
};

pub(crate) static CLIENT: Client = Client {
    name: "copilot",
    events: Events {
        session_start: "sessionStart",
        prompt: "userPromptSubmitted",
        pre_tool: "preToolUse",
        post_tool: "postToolUse",
        stop: "agentStop",
        session_end: "sessionEnd",
    },
    install,
    configure,
    invocation,
    deny: |reason| json!({"permissionDecision": "deny", "permissionDecisionReason": reason}),
    post_context: |text| json!({"additionalContext": text}),
    crash_blocks: true,
    exit2_reason_reaches_model: false,
};

/// The PascalCase events recorded alongside the camelCase ones, for the fixtures.
const PASCAL_EVENTS: [&str; 6] =
    ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd"];

fn pkg_cache() -> PathBuf {
    COPILOT.dir().join("pkg-cache")
}

fn install() -> PathBuf {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| COPILOT.install(unpack)).clone()
}

/// The binary's first start unpacks its package into `pkg_cache()`; `--version` is enough.
fn unpack(bin: &Path) {
    let home = tempfile::tempdir().expect("temp dir");
    let out = std::process::Command::new("unshare")
        .args(["-rn"])
        .arg(bin)
        .arg("--version")
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home.path())
        .env("COPILOT_HOME", home.path().join(".copilot"))
        .env("COPILOT_PKG_CACHE_HOME", pkg_cache())
        .env("COPILOT_AUTO_UPDATE", "false")
        .output()
        .unwrap_or_else(|e| panic!("cannot run {} --version: {e}", bin.display()));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains(COPILOT.version),
        "the first start of {} (unpacking into {}) failed: {text}{}",
        bin.display(),
        pkg_cache().display(),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn copilot_home(sandbox: &Sandbox) -> PathBuf {
    sandbox.home().join(".copilot")
}

fn configure(sandbox: &Sandbox, hooks: &[(&'static str, String)], trusted: bool) {
    let handler = |command: &str| json!([{"type": "command", "bash": command, "timeoutSec": HOOK_TIMEOUT_SECS}]);
    let mut events = serde_json::Map::new();
    for (event, command) in hooks {
        events.insert((*event).to_owned(), handler(command));
    }
    if let Some((_, command)) = hooks.first() {
        let script = command.rsplit_once(' ').map_or(command.as_str(), |(script, _)| script);
        for event in PASCAL_EVENTS {
            events.insert(event.to_owned(), handler(&format!("{script} {event}")));
        }
        let file = json!({"version": 1, "hooks": events});
        write(
            &sandbox.project().join(".github/hooks/harness.json"),
            &serde_json::to_string_pretty(&file).expect("json"),
        );
    }
    let trusted_folders = if trusted { json!([sandbox.project()]) } else { json!([]) };
    let config = json!({"trustedFolders": trusted_folders});
    write(&copilot_home(sandbox).join("config.json"), &serde_json::to_string_pretty(&config).expect("json"));
}

fn invocation(sandbox: &Sandbox) -> Invocation {
    let env = [
        ("COPILOT_HOME", copilot_home(sandbox).display().to_string()),
        ("COPILOT_PKG_CACHE_HOME", pkg_cache().display().to_string()),
        ("COPILOT_OFFLINE", "true".into()),
        ("COPILOT_AUTO_UPDATE", "false".into()),
        ("COPILOT_PROVIDER_BASE_URL", format!("{}/v1", sandbox.model_url())),
        ("COPILOT_PROVIDER_TYPE", "openai".into()),
        ("COPILOT_PROVIDER_WIRE_API", "completions".into()),
        ("COPILOT_PROVIDER_API_KEY", "scripted".into()),
        ("COPILOT_MODEL", "gpt-4.1".into()),
    ];
    Invocation {
        args: ["-p", "do the task", "--allow-all-tools", "--disable-client-telemetry", "--no-auto-update"]
            .map(str::to_owned)
            .to_vec(),
        env: env.into_iter().map(|(k, v)| (k.to_owned(), v)).collect(),
    }
}

crate::rows::client_rows!(CLIENT);

/// Copilot with `aimon-hooks copilot --event <name>` on each of its camelCase events (the
/// dialect whose payload names no event) in `.github/hooks/aimon-camel.json`, in place of the
/// recording hook; the project's `.aimon/hooks.json` is the row's.
static CAMEL: Client = Client {
    name: "copilot",
    events: Events {
        session_start: "sessionStart",
        prompt: "userPromptSubmitted",
        pre_tool: "preToolUse",
        post_tool: "postToolUse",
        stop: "agentStop",
        session_end: "sessionEnd",
    },
    install,
    configure: configure_camel,
    invocation,
    deny: |reason| json!({"permissionDecision": "deny", "permissionDecisionReason": reason}),
    post_context: |text| json!({"additionalContext": text}),
    crash_blocks: true,
    exit2_reason_reaches_model: false,
};

fn configure_camel(sandbox: &Sandbox, hooks: &[(&'static str, String)], trusted: bool) {
    let binary = env!("CARGO_BIN_EXE_aimon-hooks");
    let mut events = serde_json::Map::new();
    for (event, _) in hooks {
        let bash = format!("{binary} copilot --event {event}");
        events.insert((*event).to_owned(), json!([{"type": "command", "bash": bash, "timeoutSec": HOOK_TIMEOUT_SECS}]));
    }
    let file = json!({"version": 1, "hooks": events});
    write(
        &sandbox.project().join(".github/hooks/aimon-camel.json"),
        &serde_json::to_string_pretty(&file).expect("json"),
    );
    let trusted_folders = if trusted { json!([sandbox.project()]) } else { json!([]) };
    write(
        &copilot_home(sandbox).join("config.json"),
        &serde_json::to_string_pretty(&json!({"trustedFolders": trusted_folders})).expect("json"),
    );
}

#[cfg(test)]
mod camel {
    use serde_json::{Value, json};

    use crate::runner::{Scenario, write};

    const REASON: &str = "aimon-policy (camelCase): pushes go through review";

    /// A scenario behind `aimon-hooks copilot --event …` with `policy` as the project's hooks.
    fn scenario(policy: &Value) -> Scenario {
        let scenario = Scenario::new(&super::CAMEL);
        let file = scenario.root().join("project/.aimon/hooks.json");
        write(&file, &serde_json::to_string_pretty(policy).expect("json"));
        scenario
    }

    fn deny_push() -> Value {
        json!({"hooks": {"PreToolUse": [{"matcher": "Bash(git push:*)", "hooks": [{"type": "deny", "reason": REASON}]}]}})
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn a_camel_case_git_push_deny_stops_the_shell_call_and_its_reason_reaches_the_model() {
        let scenario = scenario(&deny_push());
        let marker = scenario.root().join("tool-ran");
        let turns = vec![
            crate::model::Turn::RawShell(format!("git push origin main; touch {}", marker.display())),
            crate::model::Turn::text("scripted-model: done"),
        ];
        let run = scenario.model(turns).run().await;
        run.check(run.code == Some(0), "copilot exited with a failure");
        run.check(!run.tool_ran(), "the denied git push ran");
        run.check(run.model_saw(REASON), "the deny reason never reached the model");
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn a_camel_case_unmatched_call_runs_and_post_tool_context_reaches_the_model() {
        let context = "aimon-policy (camelCase): the output was checked";
        let answer = json!({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": context}});
        let mut policy = deny_push();
        policy["hooks"]["PostToolUse"] = json!([{"matcher": "Bash", "hooks": [{"type": "command", "command": format!("echo '{answer}'"), "timeout": 30}]}]);
        let scenario = scenario(&policy);
        let trust = std::process::Command::new(env!("CARGO_BIN_EXE_aimon-hooks"))
            .args(["trust", "--project", "."])
            .current_dir(scenario.root().join("project"))
            .env("HOME", scenario.root().join("home"))
            .output()
            .expect("aimon-hooks trust runs");
        assert!(trust.status.success(), "{}", String::from_utf8_lossy(&trust.stderr));
        let run = scenario.run().await;
        run.check(run.code == Some(0), "copilot exited with a failure");
        run.check(run.tool_ran(), "a call no rule matches did not run");
        run.check(run.model_saw(crate::runner::TOOL_OUTPUT), "the model never saw the call's output");
        run.check(run.model_saw(context), "the post-tool context never reached the model");
    }
}

/// Copilot also runs the hooks of Claude Code's project settings: what `aimon-hooks init claude
/// --project` alone gives it.
#[cfg(test)]
mod claude_settings {
    const REASON: &str = "aimon-policy (via .claude/settings.json): pushes go through review";

    #[tokio::test(flavor = "multi_thread")]
    async fn init_claude_alone_makes_copilot_deny_a_git_push_through_claude_codes_settings() {
        let scenario = crate::runner::Scenario::new(&super::CLIENT).without_hooks();
        let (project, home) = (scenario.root().join("project"), scenario.root().join("home"));
        let policy = serde_json::json!({"hooks": {"PreToolUse": [{"matcher": "Bash(git push:*)", "hooks": [{"type": "deny", "reason": REASON}]}]}});
        crate::runner::write(&project.join(".aimon/hooks.json"), &policy.to_string());
        for args in [&["init", "claude", "--project"][..], &["trust", "--project", "."]] {
            let out = std::process::Command::new(env!("CARGO_BIN_EXE_aimon-hooks"))
                .args(args)
                .current_dir(&project)
                .env("HOME", &home)
                .output()
                .expect("aimon-hooks runs");
            assert!(out.status.success(), "aimon-hooks {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        }
        assert!(!project.join(".github/hooks").exists(), "init claude wrote Copilot's own hooks");
        let marker = scenario.root().join("tool-ran");
        let turns = vec![
            crate::model::Turn::RawShell(format!("git push origin main; touch {}", marker.display())),
            crate::model::Turn::text("scripted-model: done"),
        ];
        let run = scenario.model(turns).run().await;
        run.check(run.code == Some(0), "copilot exited with a failure");
        run.check(!run.tool_ran(), "the git push denied through .claude/settings.json ran");
        run.check(run.model_saw(REASON), "the deny reason never reached the model");
    }
}
