//! The organisation's managed tier (`AIMON_MANAGED_DIR`, `/etc/aimon/managed` by default): its
//! hooks run first and no other file takes them away; `allowManagedHooksOnly` and
//! `disableAllHooks` are honoured there only; `validate`, `list`, `explain` and the decision log
//! name it; self-protection covers it.

use std::io::{Read as _, Write as _};
use std::os::unix::fs::PermissionsExt as _;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::daemon::Daemon;
use crate::support::{Outcome, Sandbox, bash, command, one_hook};

/// The organisation's rule: no `rm`.
const REASON: &str = "the organisation does not allow rm";

fn managed_deny() -> Value {
    one_hook("PreToolUse", "Bash(rm:*)", json!({"type": "deny", "reason": REASON}))
}

/// A command handler answering `decision` (allow, ask) for the call.
fn answering(decision: &str) -> Value {
    command(&format!(
        r#"echo '{{"hookSpecificOutput":{{"hookEventName":"PreToolUse","permissionDecision":"{decision}"}}}}'"#
    ))
}

/// The managed deny's id, as `list --json` shows it.
fn managed_id(sandbox: &Sandbox) -> String {
    let out = Outcome::of(sandbox.cmd().args(["list", "--json"]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    out.json()[0]["id"].as_str().expect("an id").to_owned()
}

/// `run PreToolUse` for a Bash `command`, with `skill` activated when given.
fn run(sandbox: &Sandbox, command: &str, skill: Option<&std::path::Path>) -> Outcome {
    let mut cmd = sandbox.cmd();
    cmd.args(["run", "PreToolUse"]);
    if let Some(skill) = skill {
        cmd.arg("--skill").arg(skill);
    }
    Outcome::of(cmd.write_stdin(bash(command)))
}

/// A SKILL.md whose preTool hook runs `command` for every Bash call.
fn skill(command: &str) -> String {
    let command = command.replace('\\', "\\\\").replace('"', "\\\"");
    format!(
        "---\nname: s\ndescription: d\nhooks:\n  preTool:\n    - matcher: \"Bash\"\n      \
         action: {{ type: shell, command: \"{command}\", timeoutMs: 5000 }}\n---\n"
    )
}

#[test]
fn no_user_project_local_or_skill_file_removes_disables_shadows_or_reorders_a_managed_deny() {
    let probe = Sandbox::new();
    probe.write("managed/hooks.json", &managed_deny().to_string());
    let id = managed_id(&probe);
    let allow = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}"#;
    let rewrite = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"command":"ls"}}}"#;
    // (what the row tries, the file, its text; a `skill` row is activated with --skill)
    let rows: Vec<(&str, &str, Value)> = vec![
        (
            "an allow for the same matcher",
            "home/.aimon/hooks.json",
            one_hook("PreToolUse", "Bash(rm:*)", answering("allow")),
        ),
        (
            "an ask for the same matcher",
            "project/.aimon/hooks.json",
            one_hook("PreToolUse", "Bash(rm:*)", answering("ask")),
        ),
        (
            "an allow from every call",
            "project/.aimon/hooks.local.json",
            one_hook("PreToolUse", "*", answering("allow")),
        ),
        ("disableAllHooks", "home/.aimon/hooks.json", json!({"disableAllHooks": true})),
        ("disableAllHooks", "project/.aimon/hooks.json", json!({"disableAllHooks": true})),
        ("allowManagedHooksOnly off", "project/.aimon/hooks.local.json", json!({"allowManagedHooksOnly": false})),
        ("selfProtection off", "home/.aimon/hooks.json", json!({"selfProtection": false})),
        ("a disable key naming it", "home/.aimon/hooks.json", json!({"disable": [id.as_str()]})),
        (
            "a hook with its id",
            "project/.aimon/hooks.json",
            one_hook(
                "PreToolUse",
                "Bash(rm:*)",
                json!({"type": "command", "id": id, "command": format!("echo '{allow}'")}),
            ),
        ),
        (
            "a rewrite of the call",
            "home/.aimon/hooks.json",
            one_hook("PreToolUse", "Bash", command(&format!("echo '{rewrite}'"))),
        ),
        ("a disable key naming it", "project/.aimon/hooks.local.json", json!({"disable": [id.as_str()]})),
        (
            "a hook with its id",
            "project/.aimon/hooks.local.json",
            one_hook("PreToolUse", "Bash(rm:*)", json!({"type": "deny", "id": id, "reason": "x", "mode": "audit"})),
        ),
        (
            "its matcher in audit mode",
            "home/.aimon/hooks.json",
            one_hook("PreToolUse", "Bash(rm:*)", json!({"type": "deny", "reason": REASON, "mode": "audit"})),
        ),
        ("a skill's allow", "skill", Value::Null),
    ];
    for (attempt, file, text) in rows {
        let sandbox = Sandbox::new();
        sandbox.write("managed/hooks.json", &managed_deny().to_string());
        let skill = (file == "skill").then(|| sandbox.write("skills/s/SKILL.md", &skill(&format!("echo '{allow}'"))));
        if skill.is_none() {
            sandbox.write(file, &text.to_string());
        }
        let out = run(&sandbox, "rm -rf build", skill.as_deref());
        let v = out.json();
        assert_eq!((out.code, v["outcome"].as_str()), (2, Some("denied")), "{attempt} in {file}: {}", out.stderr);
        assert_eq!(v["reason"], REASON, "{attempt} in {file}");
        assert_eq!(v["hooks"][0]["id"], id.as_str(), "{attempt} in {file}: the managed hook runs first");
    }
}

#[test]
fn a_lower_tiers_rewrite_is_judged_by_the_managed_tier_on_the_input_that_would_run() {
    let to = |command: &str| {
        format!(r#"{{"hookSpecificOutput":{{"hookEventName":"PreToolUse","updatedInput":{{"command":"{command}"}}}}}}"#)
    };
    // (the file that rewrites `ls`, what it rewrites it to, whether the managed deny refuses it)
    let rows = [
        ("home/.aimon/hooks.json", "rm -rf build", true),
        ("project/.aimon/hooks.json", "rm -rf build", true),
        ("project/.aimon/hooks.local.json", "rm -rf build", true),
        ("skill", "rm -rf build", true),
        ("home/.aimon/hooks.json", "ls -la", false),
    ];
    for (file, rewrite, refused) in rows {
        let sandbox = Sandbox::new();
        sandbox.write("managed/hooks.json", &managed_deny().to_string());
        let echo = format!("echo '{}'", to(rewrite));
        let skill = (file == "skill").then(|| sandbox.write("skills/s/SKILL.md", &skill(&echo)));
        if skill.is_none() {
            sandbox.write(file, &one_hook("PreToolUse", "Bash", command(&echo)).to_string());
        }
        let out = run(&sandbox, "ls", skill.as_deref());
        let v = out.json();
        if refused {
            assert_eq!((out.code, v["outcome"].as_str()), (2, Some("denied")), "{file} to {rewrite}: {v}");
            assert_eq!(v["reason"], REASON, "{file} to {rewrite}");
            let last = v["hooks"].as_array().and_then(|h| h.last()).expect("hooks");
            let judged = last["id"].as_str().is_some_and(|id| id.starts_with("deny@managed#0#"));
            assert!(judged, "{file}: the managed hook judges the rewrite, after it: {v}");
        } else {
            assert_eq!(v["outcome"], "proceed", "{file} to {rewrite}: {v}");
            assert_eq!(v["updatedInput"], json!({"command": rewrite}), "{file}: a rewrite the policy allows stands");
        }
        if skill.is_none() {
            sandbox.trust_project();
            let out = Outcome::of(
                sandbox.cmd().env("CLAUDE_PROJECT_DIR", sandbox.project()).arg("claude").write_stdin(bash("ls")),
            );
            let denied = out.stdout.contains(&format!(r#""permissionDecisionReason":"{REASON}""#));
            assert_eq!(denied, refused, "claude, {file} to {rewrite}: {} {}", out.stdout, out.stderr);
        }
    }
}

#[test]
fn a_lower_tiers_attempt_at_the_managed_switches_is_refused_with_a_warning() {
    let sandbox = Sandbox::new();
    sandbox.write("managed/hooks.json", &managed_deny().to_string());
    sandbox.write("home/.aimon/hooks.json", &json!({"selfProtection": false, "disableAllHooks": true}).to_string());
    sandbox.write("project/.aimon/hooks.json", &json!({"allowManagedHooksOnly": true}).to_string());
    let out = run(&sandbox, "ls", None);
    assert_eq!(out.code, 0, "{}", out.stderr);
    for warning in [
        "hooks: 'disableAllHooks' is honoured only in the organisation's managed policy; ignored in USER",
        "hooks: 'allowManagedHooksOnly' is honoured only in the organisation's managed policy; ignored in PROJECT",
        "hooks: 'selfProtection' cannot be turned off while the organisation's managed policy",
    ] {
        assert!(out.stderr.contains(warning), "{warning}\n{}", out.stderr);
    }
}

/// Each tier (and a skill) touches its own marker file on every Bash call.
fn marking(sandbox: &Sandbox, managed_switch: Value) -> std::path::PathBuf {
    let touch = |name: &str| command(&format!("touch {}", sandbox.root().join(name).display()));
    let mut managed = one_hook("PreToolUse", "Bash", touch("ran-managed"));
    managed.as_object_mut().expect("object").extend(managed_switch.as_object().cloned().unwrap_or_default());
    sandbox.write("managed/hooks.json", &managed.to_string());
    for (file, marker) in [
        ("home/.aimon/hooks.json", "ran-user"),
        ("project/.aimon/hooks.json", "ran-project"),
        ("project/.aimon/hooks.local.json", "ran-local"),
    ] {
        sandbox.write(file, &one_hook("PreToolUse", "Bash", touch(marker)).to_string());
    }
    sandbox.write("skills/s/SKILL.md", &skill(&format!("touch {}", sandbox.root().join("ran-skill").display())))
}

fn markers(sandbox: &Sandbox) -> Vec<&'static str> {
    ["ran-managed", "ran-user", "ran-project", "ran-local", "ran-skill"]
        .into_iter()
        .filter(|m| sandbox.root().join(m).exists())
        .collect()
}

#[test]
fn allow_managed_hooks_only_runs_the_managed_hooks_alone_and_disable_all_hooks_runs_none() {
    let cases: [(Value, &[&str]); 4] = [
        (json!({}), &["ran-managed", "ran-user", "ran-project", "ran-local", "ran-skill"]),
        (
            json!({"allowManagedHooksOnly": false}),
            &["ran-managed", "ran-user", "ran-project", "ran-local", "ran-skill"],
        ),
        (json!({"allowManagedHooksOnly": true}), &["ran-managed"]),
        (json!({"disableAllHooks": true}), &[]),
    ];
    for (switch, ran) in cases {
        let sandbox = Sandbox::new();
        let skill = marking(&sandbox, switch.clone());
        let out = run(&sandbox, "ls", Some(&skill));
        assert_eq!(out.code, 0, "{switch}: {}", out.stderr);
        assert_eq!(markers(&sandbox), ran, "{switch}");
        if !ran.contains(&"ran-user") {
            assert!(out.stderr.contains("hooks: the hooks of this USER file do not run"), "{switch}: {}", out.stderr);
            assert!(out.stderr.contains("skills' hooks do not run"), "{switch}: {}", out.stderr);
        }
        // Self-protection is not a tier's hook: it stays on.
        let edit = json!({"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Write",
            "tool_input": {"file_path": sandbox.project().join(".aimon/hooks.json"), "content": "{}"}});
        let out = Outcome::of(sandbox.cmd().args(["run", "PreToolUse"]).write_stdin(edit.to_string()));
        assert_eq!(out.code, 2, "{switch}: {}", out.stdout);
    }
}

#[test]
fn self_protection_covers_the_managed_directory_even_when_the_person_turns_it_off() {
    let sandbox = Sandbox::new();
    sandbox.write("managed/hooks.json", &managed_deny().to_string());
    sandbox.write("home/.aimon/hooks.json", &json!({"selfProtection": false}).to_string());
    for target in [sandbox.managed().join("hooks.json"), sandbox.managed().join("hooks.d/00-mine.json")] {
        let edit = json!({"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Write",
            "tool_input": {"file_path": target, "content": "{}"}});
        let out = Outcome::of(sandbox.cmd().args(["run", "PreToolUse"]).write_stdin(edit.to_string()));
        assert_eq!((out.code, out.json()["outcome"].as_str()), (2, Some("denied")), "{}", target.display());
        let out = run(&sandbox, &format!("rm -rf {}", sandbox.managed().display()), None);
        assert_eq!(out.code, 2, "{}", out.stdout);
    }
}

#[test]
fn list_validate_explain_and_the_decision_log_name_the_managed_tier() {
    let sandbox = Sandbox::new();
    let policy = sandbox.write("managed/hooks.json", &managed_deny().to_string());
    let drop_in =
        sandbox.write("managed/hooks.d/10-audit.json", &one_hook("PostToolUse", "*", command("true")).to_string());
    sandbox.project_hooks(&one_hook("PreToolUse", "Bash", command("true")));

    let list = Outcome::of(sandbox.cmd().arg("list"));
    let tiers: Vec<&str> = list.stdout.lines().skip(1).filter_map(|l| l.split_whitespace().next()).collect();
    assert_eq!(tiers, ["MANAGED", "MANAGED", "PROJECT"], "{}", list.stdout);
    let rows = Outcome::of(sandbox.cmd().args(["list", "--json"])).json();
    assert_eq!(rows[0]["tier"], "MANAGED");
    assert!(rows[1]["id"].as_str().expect("id").starts_with("command@managed#10-audit.json#"), "{}", rows[1]);
    assert_eq!(rows[1]["trusted"], true, "managed files are always trusted");

    let explain = Outcome::of(sandbox.cmd().args(["explain", "PreToolUse"]).write_stdin(bash("rm x")));
    assert!(explain.stdout.contains("[MANAGED preTool matcher \"Bash(rm:*)\"]"), "{}", explain.stdout);

    // Files anyone could write are applied, with a WARN a demanding admin cannot miss.
    std::fs::set_permissions(&policy, std::fs::Permissions::from_mode(0o666)).expect("chmod");
    let validate = Outcome::of(sandbox.cmd().arg("validate"));
    assert_eq!(validate.code, 0, "{}", validate.stdout);
    assert!(validate.stdout.contains(&format!("{}: trusted", policy.display())), "{}", validate.stdout);
    assert!(validate.stdout.contains(&format!("{}: trusted", drop_in.display())), "{}", validate.stdout);
    let warning =
        format!("{}:1:1: warning: hooks: the managed policy {} is not protected", policy.display(), policy.display());
    assert!(validate.stdout.contains(&warning), "{}", validate.stdout);
    assert!(validate.stdout.contains("3 file(s) checked"), "{}", validate.stdout);
    let switch = sandbox.write("managed/hooks.d/00-only.json", r#"{"allowManagedHooksOnly": true}"#);
    let named = Outcome::of(sandbox.cmd().arg("validate").arg(&switch));
    assert!(named.stdout.contains("0 warning(s), 0 error(s)"), "read as MANAGED: {}", named.stdout);
    let out = run(&sandbox, "rm -rf build", None);
    assert_eq!(out.code, 2, "still applied");
    assert!(out.stderr.contains("is not protected by the system"), "{}", out.stderr);

    let log = std::fs::read_to_string(sandbox.home().join(".aimon/decisions.jsonl")).expect("the log");
    let denied: Value = log
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|l| l["outcome"] == "deny")
        .expect("a deny");
    assert!(denied["hook"].as_str().expect("hook").starts_with("deny@managed#0#"), "{denied}");
    assert_eq!(denied["at"], format!("{}:1", policy.display()));
}

/// `POST /v1/claude` to `daemon` with `body`; the answer's JSON.
fn claude_over_tcp(daemon: &Daemon, body: &str) -> Value {
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", daemon.port)).expect("connect");
    let head = format!(
        "POST /v1/claude HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n",
        daemon.token,
        body.len()
    );
    stream.write_all(head.as_bytes()).and_then(|()| stream.write_all(body.as_bytes())).expect("send");
    let mut reply = String::new();
    stream.read_to_string(&mut reply).expect("read");
    let (_, json) = reply.split_once("\r\n\r\n").expect("a body");
    serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {reply}"))
}

#[test]
fn serve_hot_reloads_an_edited_managed_file() {
    let sandbox = Sandbox::new();
    sandbox.write("managed/hooks.json", &managed_deny().to_string());
    sandbox.project_hooks(&one_hook("PreToolUse", "Bash(ls:*)", json!({"type": "deny", "reason": "project"})));
    let daemon = Daemon::start_with_env(&sandbox, &[]);
    let mut payload: Value = serde_json::from_str(&bash("rm -rf build")).expect("json");
    payload["cwd"] = json!(sandbox.project());
    let reason =
        || claude_over_tcp(&daemon, &payload.to_string())["hookSpecificOutput"]["permissionDecisionReason"].clone();
    assert_eq!(reason(), REASON);
    let stricter = one_hook("PreToolUse", "Bash", json!({"type": "deny", "reason": "no Bash at all"}));
    sandbox.write("managed/hooks.json", &stricter.to_string());
    let deadline = Instant::now() + Duration::from_secs(10);
    while reason() != "no Bash at all" {
        assert!(Instant::now() < deadline, "the managed edit was not served within 10 s");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn the_schema_names_the_switches_and_says_where_they_count() {
    let sandbox = Sandbox::new();
    let schema = Outcome::of(sandbox.cmd().arg("schema")).json();
    for (key, counts) in [
        ("allowManagedHooksOnly", "honoured only in a managed file"),
        ("disableAllHooks", "honoured only in a managed file"),
        ("selfProtection", "honoured only in your own"),
    ] {
        let description = schema["properties"][key]["description"].as_str().unwrap_or_default();
        assert!(description.contains(counts), "{key}: {}", schema["properties"]);
        assert!(schema["properties"][key]["type"].to_string().contains("boolean"), "{key}: {}", schema["properties"]);
    }
}
