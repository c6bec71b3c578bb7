//! OpenAI Codex CLI (`@openai/codex`, pinned), `codex exec --json` against the scripted
//! Responses API.
//!
//! Settings: `$CODEX_HOME/config.toml` (`CODEX_HOME=<home>/.codex`) names the scripted model as a
//! custom provider (`wire_api = "responses"`) and turns approvals and the sandbox off in config (no
//! `--dangerously-…` flag); the hooks are the project's `.codex/hooks.json` (Claude Code's
//! shape). The recording hook's rows trust the project and its hooks here; the rows behind
//! aimon-hooks rely on `aimon-hooks init codex --project`, which writes both.
//!
//! Trust, without `--dangerously-bypass-hook-trust`: Codex loads a project's `.codex/` layer only
//! when `[projects."<dir>"] trust_level = "trusted"`, and runs a non-managed hook only when
//! `[hooks.state."<hooks.json path>:<event_snake>:<group>:<handler>"] trusted_hash` equals the
//! hook's current hash: `sha256:` + hex SHA-256 of the compact JSON, keys sorted, of
//! `{"event_name": "<event_snake>", "matcher": <matcher, absent when none>, "hooks": [{"type":
//! "command", "command": …, "timeout": <seconds, default 600; SessionEnd's clamped to 3>,
//! "async": false}]}` (codex-rs
//! `hooks/src/engine/discovery.rs`, `config/src/fingerprint.rs`). `codex app-server`'s
//! `hooks/list` reports the same `key` and `currentHash`; a row checks that they agree.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::npm::NpmPackage;
use crate::runner::{Client, Events, HOOK_TIMEOUT_SECS, Invocation, Sandbox, write};

const CODEX: NpmPackage =
    NpmPackage { slug: "codex", package: "@openai/codex", version: "0.171.0", bin: "codex", size: "~424 MB" };

pub(crate) static CLIENT: Client = Client {
    name: "codex",
    events: Events {
        session_start: "SessionStart",
        prompt: "UserPromptSubmit",
        pre_tool: "PreToolUse",
        post_tool: "PostToolUse",
        stop: "Stop",
        session_end: "SessionEnd",
    },
    install,
    configure,
    invocation,
    deny: |reason| json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": reason}}),
    post_context: |text| json!({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": text}}),
    crash_blocks: false,
    exit2_reason_reaches_model: true,
};

fn install() -> PathBuf {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| CODEX.install(|_| ())).clone()
}

fn codex_home(sandbox: &Sandbox) -> PathBuf {
    sandbox.home().join(".codex")
}

/// Codex's snake_case label of an event in trust keys and hashes.
fn snake(event: &str) -> String {
    let mut out = String::new();
    for (i, c) in event.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

/// The matcher each event's group gets (tool events match every tool).
fn matcher(event: &str) -> Option<&'static str> {
    matches!(event, "PreToolUse" | "PostToolUse").then_some("*")
}

/// The hash Codex trusts a one-handler `command` group by (see the module docs). Codex clamps a
/// SessionEnd hook's timeout to 3 s before hashing it.
pub(crate) fn trust_hash(event: &str, matcher: Option<&str>, command: &str, timeout: u64) -> String {
    let timeout = if event == "SessionEnd" { timeout.min(3) } else { timeout };
    let mut identity = json!({
        "event_name": snake(event),
        "hooks": [{"async": false, "command": command, "timeout": timeout, "type": "command"}],
    });
    if let Some(matcher) = matcher {
        identity["matcher"] = json!(matcher);
    }
    // serde_json's map is sorted (no `preserve_order`), so this text is the canonical form.
    let digest = Sha256::digest(identity.to_string().as_bytes());
    format!("sha256:{}", digest.iter().map(|b| format!("{b:02x}")).collect::<String>())
}

/// The key Codex keeps a hook's trust under.
pub(crate) fn trust_key(hooks_json: &Path, event: &str) -> String {
    format!("{}:{}:0:0", hooks_json.display(), snake(event))
}

fn toml_string(text: &str) -> String {
    // A JSON string is a TOML basic string for the texts used here (paths, hashes).
    Value::String(text.to_owned()).to_string()
}

fn configure(sandbox: &Sandbox, hooks: &[(&'static str, String)], trusted: bool) {
    let home = codex_home(sandbox);
    let project = sandbox.project();
    let hooks_json = project.join(".codex/hooks.json");
    let mut events = serde_json::Map::new();
    for (event, command) in hooks {
        let mut group = json!({"hooks": [{"type": "command", "command": command, "timeout": HOOK_TIMEOUT_SECS}]});
        if let Some(matcher) = matcher(event) {
            group["matcher"] = json!(matcher);
        }
        events.insert((*event).to_owned(), json!([group]));
    }
    if !hooks.is_empty() {
        write(&hooks_json, &serde_json::to_string_pretty(&json!({"hooks": events})).expect("json"));
    }
    let mut config = format!(
        r#"model = "scripted"
model_provider = "scripted"
check_for_update_on_startup = false
approval_policy = "never"
sandbox_mode = "danger-full-access"

[model_providers.scripted]
name = "scripted"
base_url = "{}/v1"
env_key = "SCRIPTED_API_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false
"#,
        sandbox.model_url(),
    );
    // The recording hook's project is trusted here; behind aimon-hooks (no recording hook),
    // `aimon-hooks init codex --project` trusts it, as it does for a person.
    if !hooks.is_empty() {
        config.push_str(&format!(
            "\n[projects.{}]\ntrust_level = \"trusted\"\n",
            toml_string(&project.display().to_string())
        ));
    }
    if trusted {
        for (event, command) in hooks {
            let hash = trust_hash(event, matcher(event), command, HOOK_TIMEOUT_SECS);
            config.push_str(&format!(
                "\n[hooks.state.{}]\ntrusted_hash = {}\n",
                toml_string(&trust_key(&hooks_json, event)),
                toml_string(&hash)
            ));
        }
    }
    write(&home.join("config.toml"), &config);
}

fn invocation(sandbox: &Sandbox) -> Invocation {
    Invocation {
        args: ["exec", "--skip-git-repo-check", "--json", "do the task"].map(str::to_owned).to_vec(),
        env: vec![
            ("CODEX_HOME".into(), codex_home(sandbox).display().to_string()),
            ("SCRIPTED_API_KEY".into(), "scripted".into()),
        ],
    }
}

crate::rows::client_rows!(CLIENT);

/// `codex app-server`'s `hooks/list` for the sandbox's project: one entry per configured hook.
fn listed_hooks(sandbox: &Sandbox, bin: &Path) -> Vec<Value> {
    use std::io::{BufRead as _, BufReader, Write as _};
    let mut child = std::process::Command::new("unshare")
        .args(["-rn"])
        .arg(bin)
        .arg("app-server")
        .current_dir(sandbox.project())
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", sandbox.home())
        .env("CODEX_HOME", codex_home(sandbox))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("codex app-server starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let requests = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"clientInfo": {"name": "aimon-hooks-tests", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "hooks/list", "params": {"cwds": [sandbox.project()]}}),
    ];
    for request in requests {
        writeln!(stdin, "{request}").expect("write to app-server");
    }
    let mut answer = Value::Null;
    for line in BufReader::new(child.stdout.take().expect("stdout")).lines() {
        let Ok(line) = line else { break };
        let message: Value = serde_json::from_str(&line).unwrap_or_default();
        if message["id"] == 2 {
            answer = message;
            break;
        }
    }
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    answer["result"]["data"][0]["hooks"].as_array().cloned().unwrap_or_else(|| panic!("no hooks/list answer: {answer}"))
}

/// The trust written by `configure` is the trust Codex computes: every hook of the project is
/// listed under our key with our hash, as `trusted`.
#[test]
fn the_trust_written_for_each_hook_is_the_one_codex_computes() {
    let bin = install();
    let dir = tempfile::tempdir().expect("temp dir");
    let sandbox = Sandbox { root: dir.path().canonicalize().expect("canonical") };
    let hooks: Vec<(&'static str, String)> =
        CLIENT.events.all().into_iter().map(|event| (event, format!("sh /hooks/record.sh {event}"))).collect();
    configure(&sandbox, &hooks, true);
    let listed = listed_hooks(&sandbox, &bin);
    let hooks_json = sandbox.project().join(".codex/hooks.json");
    assert_eq!(listed.len(), hooks.len(), "codex lists {listed:#?}");
    for (event, command) in &hooks {
        let key = trust_key(&hooks_json, event);
        let entry =
            listed.iter().find(|h| h["key"] == key.as_str()).unwrap_or_else(|| panic!("no {key} in {listed:#?}"));
        assert_eq!(entry["currentHash"], trust_hash(event, matcher(event), command, HOOK_TIMEOUT_SECS), "{entry:#}");
        assert_eq!(entry["trustStatus"], "trusted", "{entry:#}");
    }
}

/// Codex as a model its catalog gives the `apply_patch` tool (a freeform tool): the scripted
/// model's own name has no catalog entry, and Codex offers no patch tool to it.
static PATCHING: Client = Client {
    name: "codex",
    events: CLIENT.events,
    install,
    configure,
    invocation: |sandbox| {
        let mut invocation = invocation(sandbox);
        invocation.args.splice(1..1, ["-m".to_owned(), PATCHING_MODEL.to_owned()]);
        invocation
    },
    deny: CLIENT.deny,
    post_context: CLIENT.post_context,
    crash_blocks: false,
    exit2_reason_reaches_model: true,
};

/// A model of Codex's catalog whose `apply_patch_tool_type` is `freeform`.
const PATCHING_MODEL: &str = "gpt-5.5";

/// Codex's file edits: the model's `apply_patch` call, seen by `aimon-hooks codex` as the `Edit`
/// (or `Write`) of the paths the patch names.
#[cfg(test)]
mod apply_patch {
    use serde_json::{Value, json};

    use crate::model::Turn;

    const REASON: &str = "aimon-policy: .env is edited by hand";

    fn deny_env() -> Value {
        json!({"hooks": {"PreToolUse": [{"matcher": "Edit(.env)", "hooks": [{"type": "deny", "reason": REASON}]}]}})
    }

    fn patch(body: &str) -> Turn {
        Turn::Tool { name: "apply_patch".into(), input: format!("*** Begin Patch\n{body}\n*** End Patch\n") }
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn a_patch_of_a_file_an_edit_rule_denies_leaves_it_unchanged_and_the_reason_reaches_the_model() {
        let scenario = crate::runner::Scenario::new(&super::PATCHING).aimon(deny_env());
        let env = scenario.root().join("project/.env");
        crate::runner::write(&env, "KEY=original\n");
        let notes = scenario.root().join("project/notes.txt");
        crate::runner::write(&notes, "a note\n");
        // Codex checks a patch against the files before any hook sees it: both files exist. The
        // note is moved as well, so the patch names three paths and only one is denied.
        let body = "*** Update File: notes.txt\n*** Move to: old-notes.txt\n@@\n-a note\n+a moved note\n\
                    *** Update File: .env\n@@\n-KEY=original\n+KEY=patched";
        let turns = vec![patch(body), Turn::text("scripted-model: done")];
        let run = scenario.model(turns).run().await;
        run.check(run.code == Some(0), "codex exited with a failure");
        let text = std::fs::read_to_string(&env).unwrap_or_default();
        run.check(text == "KEY=original\n", format_args!("the denied patch changed .env: {text:?}"));
        run.check(run.model_saw(REASON), "the deny reason never reached the model");
        run.check(notes.exists(), "the denied patch moved the note");
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn a_patch_no_rule_denies_is_applied() {
        let scenario = crate::runner::Scenario::new(&super::PATCHING).aimon(deny_env());
        let notes = scenario.root().join("project/notes.txt");
        let run = scenario
            .model(vec![patch("*** Add File: notes.txt\n+written by the patch"), Turn::text("done")])
            .run()
            .await;
        run.check(run.code == Some(0), "codex exited with a failure");
        let text = std::fs::read_to_string(&notes).unwrap_or_default();
        run.check(text.contains("written by the patch"), format_args!("the allowed patch was not applied: {text:?}"));
    }
}
