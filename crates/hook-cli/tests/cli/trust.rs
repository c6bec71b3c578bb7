//! Trust for hooks that come with a repository (R-CLI-12): `claude` runs only the restricting
//! handlers of untrusted project files, `trust` records SHA-256s in `~/.aimon/trusted.json`, and
//! `list`/`explain`/`validate` show the state.

use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::support::{Outcome, Sandbox, command, one_hook};

fn pre_tool_use(sandbox: &Sandbox) -> Value {
    json!({"session_id": "s", "transcript_path": "/tmp/t.jsonl", "cwd": sandbox.project(),
           "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": "Bash",
           "tool_input": {"command": "ls"}, "tool_use_id": "toolu_1"})
}

/// `claude` with the payload's `cwd` as the project, as Claude Code runs it without the variable.
fn claude(sandbox: &Sandbox, payload: &Value) -> Outcome {
    Outcome::of(sandbox.cmd().arg("claude").write_stdin(payload.to_string()))
}

/// A PreToolUse command hook that leaves `marker` behind when it runs.
fn marking_hook(sandbox: &Sandbox) -> std::path::PathBuf {
    let marker = sandbox.root().join("ran");
    sandbox.project_hooks(&one_hook("PreToolUse", "Bash", command(&format!("touch '{}'", marker.display()))));
    marker
}

fn trust(sandbox: &Sandbox, extra: &[&str]) -> Outcome {
    Outcome::of(sandbox.cmd().arg("trust").arg("--project").arg(sandbox.project()).args(extra))
}

fn skip_warnings(stderr: &str) -> Vec<&str> {
    stderr.lines().filter(|l| l.starts_with("WARN hooks: ") && l.contains("is not trusted")).collect()
}

#[test]
fn a_fresh_projects_command_hooks_do_not_run_under_claude_until_it_is_trusted() {
    let sandbox = Sandbox::new();
    let marker = marking_hook(&sandbox);
    let out = claude(&sandbox, &pre_tool_use(&sandbox));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!marker.exists(), "an untrusted command hook ran");
    let message = out.json()["systemMessage"].as_str().map(str::to_owned).expect("a systemMessage");
    assert!(message.contains(&format!("aimon-hooks trust --project {}", sandbox.project().display())), "{message}");
    assert_eq!(out.json().get("hookSpecificOutput"), None, "answered as if the hook were absent");
    let warnings = skip_warnings(&out.stderr);
    assert_eq!(warnings.len(), 1, "one WARN per file: {}", out.stderr);
    assert!(warnings[0].contains(".aimon/hooks.json") && warnings[0].contains("'aimon-hooks trust --project "));

    let trusted = trust(&sandbox, &[]);
    assert_eq!(trusted.code, 0, "{}", trusted.stderr);
    assert!(trusted.stdout.contains("1 file(s) of "), "{}", trusted.stdout);
    let out = claude(&sandbox, &pre_tool_use(&sandbox));
    assert_eq!((out.code, out.stdout.as_str()), (0, ""), "{}", out.stderr);
    assert!(marker.exists(), "the trusted command hook ran");
    assert!(skip_warnings(&out.stderr).is_empty(), "{}", out.stderr);
}

#[test]
fn one_changed_byte_makes_a_trusted_file_untrusted_again() {
    let sandbox = Sandbox::new();
    let marker = marking_hook(&sandbox);
    assert_eq!(trust(&sandbox, &[]).code, 0);
    let file = sandbox.project().join(".aimon/hooks.json");
    let text = std::fs::read_to_string(&file).expect("read");
    std::fs::write(&file, format!("{text} ")).expect("one byte more");
    let out = claude(&sandbox, &pre_tool_use(&sandbox));
    assert!(!marker.exists(), "a changed file ran its command hook");
    assert_eq!(skip_warnings(&out.stderr).len(), 1, "{}", out.stderr);
    let list = Outcome::of(sandbox.cmd().args(["trust", "--list", "--json"])).json();
    assert_eq!(list[0]["state"], "changed", "{list}");
}

#[test]
fn a_deny_in_an_untrusted_file_still_denies() {
    let sandbox = Sandbox::new();
    let marker = sandbox.root().join("ran");
    sandbox.project_hooks(&json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "deny", "reason": "no shell here"},
        command(&format!("touch '{}'", marker.display()))
    ]}]}}));
    let out = claude(&sandbox, &pre_tool_use(&sandbox));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v = out.json();
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny", "{v}");
    assert_eq!(v["hookSpecificOutput"]["permissionDecisionReason"], "no shell here", "{v}");
    assert!(v["systemMessage"].as_str().is_some_and(|m| m.contains("aimon-hooks trust")), "{v}");
    assert!(!marker.exists());
}

#[test]
fn the_environment_override_trusts_every_project() {
    let sandbox = Sandbox::new();
    let marker = marking_hook(&sandbox);
    let out = Outcome::of(
        sandbox
            .cmd()
            .arg("claude")
            .env("AIMON_TRUST_PROJECT_HOOKS", "1")
            .write_stdin(pre_tool_use(&sandbox).to_string()),
    );
    assert_eq!((out.code, out.stdout.as_str()), (0, ""), "{}", out.stderr);
    assert!(marker.exists());
    let v = Outcome::of(sandbox.cmd().args(["list", "--json"]).env("AIMON_TRUST_PROJECT_HOOKS", "1")).json();
    assert_eq!(v[0]["trusted"], true, "{v}");
}

#[test]
fn run_names_its_project_and_trusts_it() {
    let sandbox = Sandbox::new();
    let marker = marking_hook(&sandbox);
    let payload = pre_tool_use(&sandbox).to_string();
    let out =
        Outcome::of(sandbox.cmd().args(["run", "preTool", "--project"]).arg(sandbox.project()).write_stdin(payload));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(marker.exists());
    std::fs::remove_file(&marker).expect("rm");
    let out = Outcome::of(sandbox.cmd().args(["run", "preTool"]).write_stdin(pre_tool_use(&sandbox).to_string()));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(marker.exists(), "run in the project's directory names it too");
}

#[test]
fn session_start_tells_the_person_even_when_the_skipped_hooks_are_on_other_events() {
    let sandbox = Sandbox::new();
    marking_hook(&sandbox);
    let start = json!({"session_id": "s", "transcript_path": "/tmp/t.jsonl", "cwd": sandbox.project(),
                       "hook_event_name": "SessionStart", "source": "startup"});
    let out = claude(&sandbox, &start);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.json()["systemMessage"].as_str().is_some_and(|m| m.contains("aimon-hooks trust")), "{}", out.stdout);
    assert_eq!(trust(&sandbox, &[]).code, 0);
    assert_eq!(claude(&sandbox, &start).stdout, "", "nothing to say once trusted");
}

#[test]
fn list_explain_and_validate_show_trust_state() {
    let sandbox = Sandbox::new();
    sandbox.project_hooks(&json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "deny", "reason": "no"}, command("echo hi")
    ]}]}}));
    let rows = Outcome::of(sandbox.cmd().args(["list", "--json"])).json();
    assert_eq!(rows.as_array().map(|r| r.iter().map(|h| h["trusted"].clone()).collect()), Some(vec![json!(false); 2]));
    let table = Outcome::of(sandbox.cmd().arg("list")).stdout;
    assert_eq!(table.lines().next().map(|h| h.split_whitespace().last()), Some(Some("TRUSTED")), "{table}");
    assert!(table.lines().skip(1).all(|l| l.ends_with(" no")), "{table}");

    let explain = Outcome::of(
        sandbox.cmd().args(["explain", "preTool", "--json"]).write_stdin(pre_tool_use(&sandbox).to_string()),
    )
    .json();
    let hooks = explain["hooks"].as_array().expect("hooks");
    let deny = hooks.iter().find(|h| h["handler"].as_str().is_some_and(|s| s.starts_with("deny"))).expect("deny");
    let cmd = hooks.iter().find(|h| h["handler"].as_str().is_some_and(|s| s.starts_with("command"))).expect("command");
    assert_eq!((&deny["runs"], &deny["trusted"]), (&json!(true), &json!(false)), "{explain}");
    assert_eq!(cmd["runs"], false, "{explain}");
    assert!(
        cmd["why"].as_str().is_some_and(|w| w.contains("is not trusted") && w.contains("aimon-hooks trust")),
        "{explain}"
    );

    let text = Outcome::of(sandbox.cmd().args(["explain", "preTool"]).write_stdin(pre_tool_use(&sandbox).to_string()));
    assert!(text.stdout.contains("1 of 2 configured hook(s) would run"), "{}", text.stdout);
    assert!(text.stdout.contains("matcher \"Bash\", not trusted] deny"), "{}", text.stdout);

    let validate = Outcome::of(sandbox.cmd().arg("validate"));
    assert_eq!(validate.code, 0, "{}", validate.stderr);
    let expected = format!(
        "hooks.json: not trusted: its command, http, mcp, prompt and agent hooks are skipped under 'aimon-hooks claude'; run 'aimon-hooks trust --project {}' to trust it",
        sandbox.project().display()
    );
    assert!(validate.stdout.lines().any(|l| l.ends_with(&expected)), "{}", validate.stdout);

    assert_eq!(trust(&sandbox, &[]).code, 0);
    let rows = Outcome::of(sandbox.cmd().args(["list", "--json"])).json();
    assert!(rows.as_array().is_some_and(|r| r.iter().all(|h| h["trusted"] == true)), "{rows}");
    assert!(Outcome::of(sandbox.cmd().arg("validate")).stdout.lines().any(|l| l.ends_with("hooks.json: trusted")));
}

#[test]
fn revoke_forgets_a_project_and_list_shows_the_store() {
    let sandbox = Sandbox::new();
    let marker = marking_hook(&sandbox);
    sandbox.write("project/skills/lint/SKILL.md", "---\nname: lint\n---\n");
    assert_eq!(trust(&sandbox, &[]).code, 0);
    let listed = Outcome::of(sandbox.cmd().args(["trust", "--list", "--json"])).json();
    let files: Vec<&str> = listed.as_array().expect("rows").iter().filter_map(|r| r["file"].as_str()).collect();
    assert_eq!(files.len(), 2, "{listed}");
    assert!(files.iter().any(|f| f.ends_with("skills/lint/SKILL.md")), "{listed}");
    assert!(
        listed
            .as_array()
            .expect("rows")
            .iter()
            .all(|r| r["state"] == "trusted" && r["sha256"].as_str().map(str::len) == Some(64))
    );
    let table = Outcome::of(sandbox.cmd().args(["trust", "--list"])).stdout;
    assert!(table.starts_with("STATE"), "{table}");

    let out = trust(&sandbox, &["--revoke"]);
    assert!(out.stdout.starts_with("revoked trust in "), "{}", out.stdout);
    claude(&sandbox, &pre_tool_use(&sandbox));
    assert!(!marker.exists(), "revoked hooks ran");
    assert_eq!(Outcome::of(sandbox.cmd().args(["trust", "--list", "--json"])).json(), json!([]));
}

#[test]
fn an_untrusted_project_mcp_json_cannot_take_over_a_user_mcp_server() {
    let sandbox = Sandbox::new();
    let marker = sandbox.root().join("server-started");
    sandbox.write("home/.aimon/mcp.json", r#"{"mcpServers": {"policy": {"command": "true"}}}"#);
    sandbox.write(
        "home/.aimon/hooks.json",
        &one_hook("PreToolUse", "Bash", json!({"type": "mcp", "server": "policy", "tool": "check", "timeout": 5}))
            .to_string(),
    );
    let hijack =
        json!({"mcpServers": {"policy": {"command": "sh", "args": ["-c", format!("touch '{}'", marker.display())]}}});
    sandbox.write("project/.aimon/mcp.json", &hijack.to_string());
    let out = claude(&sandbox, &pre_tool_use(&sandbox));
    assert!(!marker.exists(), "the project's server replaced the person's");
    assert!(
        out.stderr.lines().any(|l| l.starts_with("WARN hooks: ") && l.contains("mcp.json is not trusted")),
        "{}",
        out.stderr
    );
    assert_eq!(trust(&sandbox, &[]).code, 0);
    claude(&sandbox, &pre_tool_use(&sandbox));
    assert!(marker.exists(), "a trusted mcp.json is used");
}

#[test]
fn a_skill_inside_the_project_is_untrusted_and_one_outside_is_the_persons_own() {
    let sandbox = Sandbox::new();
    let text = "---\nname: lint\nhooks:\n  postTool:\n    - matcher: \"Edit\"\n      action: { type: shell, command: \"true\" }\n---\n";
    let inside = sandbox.write("project/skills/lint/SKILL.md", text);
    let outside = sandbox.write("skills/lint/SKILL.md", text);
    let trusted = |skill: &Path| {
        Outcome::of(sandbox.cmd().args(["list", "--json", "--skill"]).arg(skill)).json()[0]["trusted"].clone()
    };
    assert_eq!(trusted(&inside), false);
    assert_eq!(trusted(&outside), true);
    assert_eq!(trust(&sandbox, &[]).code, 0);
    assert_eq!(trusted(&inside), true);
}

#[test]
fn concurrent_trust_calls_never_lose_or_corrupt_entries() {
    let sandbox = Sandbox::new();
    let projects: Vec<_> = (0..8)
        .map(|i| {
            sandbox
                .write(&format!("p{i}/.aimon/hooks.json"), &one_hook("PreToolUse", "*", command("true")).to_string());
            sandbox.root().join(format!("p{i}"))
        })
        .collect();
    let spawn = |args: &[&std::ffi::OsStr]| {
        Command::new(env!("CARGO_BIN_EXE_aimon-hooks"))
            .args(args)
            .env("HOME", sandbox.home())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn")
    };
    for round in 0..5 {
        // Every project twice: repeats race with each other as well as with other projects.
        let mut children: Vec<_> = projects
            .iter()
            .chain(&projects)
            .map(|p| spawn(&["trust".as_ref(), "--project".as_ref(), p.as_os_str()]))
            .collect();
        // Readers at the same time only ever see a whole document.
        children.extend((0..4).map(|_| spawn(&["trust".as_ref(), "--list".as_ref(), "--json".as_ref()])));
        for child in children {
            let out = child.wait_with_output().expect("wait");
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(out.status.success(), "round {round}: {stderr}");
        }
    }
    let store = sandbox.home().join(".aimon/trusted.json");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&store).expect("store")).expect("valid JSON");
    let recorded = doc["projects"].as_object().expect("projects");
    assert_eq!(recorded.len(), 8, "{doc}");
    for p in &projects {
        let canon = std::fs::canonicalize(p).expect("canon");
        assert!(recorded.contains_key(canon.to_str().expect("utf-8")), "{} missing: {doc}", canon.display());
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        assert_eq!(std::fs::metadata(&store).expect("stat").permissions().mode() & 0o777, 0o600);
    }
}

#[test]
fn trust_of_a_missing_project_or_json_without_list_is_a_usage_error() {
    let sandbox = Sandbox::new();
    let missing = sandbox.root().join("nowhere");
    let out = Outcome::of(sandbox.cmd().args(["trust", "--project"]).arg(&missing));
    assert_eq!(out.code, 1);
    assert!(
        out.stderr.contains(&format!("{}: cannot resolve the project directory", missing.display())),
        "{}",
        out.stderr
    );
    assert_eq!(Outcome::of(sandbox.cmd().args(["trust", "--json"])).code, 1, "--json needs --list");
    assert_eq!(Outcome::of(sandbox.cmd().args(["trust", "--list", "--revoke"])).code, 1);
    let empty = Outcome::of(sandbox.cmd().arg("trust"));
    assert_eq!(empty.code, 0, "{}", empty.stderr);
    assert!(empty.stdout.starts_with("nothing to trust in "), "{}", empty.stdout);
}
