//! The decision log of `run`, audit mode, and `aimon-hooks log`.

use crate::support::{Outcome, Sandbox, bash};

const AUDITED: &str = r#"{"hooks": {"PreToolUse": [
  {"matcher": "Bash(git push:*)", "hooks": [
    {"type": "deny", "reason": "pushes are reviewed", "mode": "audit"}
  ]},
  {"matcher": "Bash(rm:*)", "hooks": [
    {"type": "deny", "reason": "no rm"}
  ]}
]}}
"#;

fn run(sandbox: &Sandbox, command: &str) -> Outcome {
    Outcome::of(sandbox.cmd().args(["run", "PreToolUse"]).write_stdin(bash(command)))
}

#[test]
fn an_audit_mode_deny_lets_the_call_through_and_the_log_says_would_deny_with_file_and_line() {
    let sandbox = Sandbox::new();
    sandbox.write("project/.aimon/hooks.json", AUDITED);
    let out = run(&sandbox, "git push origin main");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.json()["outcome"], "proceed");
    let out = run(&sandbox, "rm -rf build");
    assert_eq!((out.code, out.json()["outcome"].as_str()), (2, Some("denied")), "enforced hooks still bind");

    let log = sandbox.home().join(".aimon/decisions.jsonl");
    let text = std::fs::read_to_string(&log).expect("the default log");
    let lines: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).expect("json")).collect();
    assert_eq!(lines.len(), 2, "{text}");
    let hooks_json = sandbox.project().join(".aimon/hooks.json");
    assert_eq!(lines[0]["mode"], "audit");
    assert_eq!(lines[0]["outcome"], "deny");
    assert_eq!(lines[0]["client"], "aimon");
    assert_eq!(lines[0]["session"], "s-1");
    assert_eq!(lines[0]["tool"], "Bash");
    assert_eq!(lines[0]["at"], format!("{}:3", hooks_json.display()));
    assert_eq!(
        (lines[1]["mode"].as_str(), lines[1]["at"].clone()),
        (Some("enforced"), format!("{}:6", hooks_json.display()).into())
    );

    let shown = Outcome::of(sandbox.cmd().arg("log"));
    assert_eq!(shown.code, 0, "{}", shown.stderr);
    assert!(shown.stdout.contains("preTool Bash: would deny by deny@project#0#"), "{}", shown.stdout);
    assert!(shown.stdout.contains(&format!("({}:3)", hooks_json.display())), "{}", shown.stdout);
    let json = Outcome::of(sandbox.cmd().args(["log", "--json", "--session", "s-1"]));
    assert_eq!(json.stdout.lines().count(), 2);
    let none = Outcome::of(sandbox.cmd().args(["log", "--session", "other"]));
    assert_eq!(none.stdout, "");
}

#[test]
fn aimon_audit_puts_every_hook_in_audit_mode_and_the_log_can_be_moved_or_turned_off() {
    let sandbox = Sandbox::new();
    sandbox.write("project/.aimon/hooks.json", AUDITED);
    let moved = sandbox.root().join("elsewhere/decisions.jsonl");
    let out = Outcome::of(
        sandbox
            .cmd()
            .env("AIMON_AUDIT", "1")
            .env("AIMON_DECISION_LOG", &moved)
            .args(["run", "PreToolUse"])
            .write_stdin(bash("rm -rf build")),
    );
    assert_eq!((out.code, out.json()["outcome"].as_str()), (0, Some("proceed")), "{}", out.stderr);
    let text = std::fs::read_to_string(&moved).expect("the moved log");
    assert!(text.contains(r#""mode":"audit""#) && text.contains(r#""outcome":"deny""#), "{text}");
    assert!(!sandbox.home().join(".aimon/decisions.jsonl").exists());

    let off = Outcome::of(
        sandbox.cmd().env("AIMON_DECISION_LOG", "off").args(["run", "PreToolUse"]).write_stdin(bash("rm -rf x")),
    );
    assert_eq!(off.code, 2);
    assert!(!sandbox.home().join(".aimon/decisions.jsonl").exists(), "off writes nothing");
}

#[test]
fn explain_says_where_each_hook_was_declared() {
    let sandbox = Sandbox::new();
    sandbox.write("project/.aimon/hooks.json", AUDITED);
    let out = Outcome::of(sandbox.cmd().args(["explain", "PreToolUse"]).write_stdin(bash("ls")));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let hooks_json = sandbox.project().join(".aimon/hooks.json");
    assert!(out.stdout.contains(&format!(" at {}:3 [PROJECT", hooks_json.display())), "{}", out.stdout);
    assert!(out.stdout.contains(&format!(" at {}:6 [PROJECT", hooks_json.display())), "{}", out.stdout);
}

#[test]
fn serve_in_audit_mode_answers_as_if_no_hook_spoke_logs_the_claude_call_and_counts_it_by_mode() {
    use std::io::{Read as _, Write as _};
    let sandbox = Sandbox::new();
    sandbox.write("project/.aimon/hooks.json", AUDITED);
    let daemon =
        crate::daemon::Daemon::start_with_env(&sandbox, &[("AIMON_TRUST_PROJECT_HOOKS", "1"), ("AIMON_AUDIT", "1")]);
    let mut payload: serde_json::Value = serde_json::from_str(&bash("rm -rf build")).expect("payload");
    payload["cwd"] = sandbox.project().display().to_string().into();
    // `claude` forwards to the daemon over its socket: to an auditing daemon only when it audits
    // too (an enforcing `claude` answers itself; `planted_listener.rs`).
    let out = Outcome::of(sandbox.cmd().arg("claude").env("AIMON_AUDIT", "1").write_stdin(payload.to_string()));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!out.stdout.contains("deny"), "an audited deny is not answered: {}", out.stdout);

    let mut stream = std::os::unix::net::UnixStream::connect(&daemon.socket).expect("socket");
    stream.write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").expect("ask");
    let mut metrics = String::new();
    stream.read_to_string(&mut metrics).expect("read");
    assert!(
        metrics.contains(r#"hook_server_decisions_total{event="preTool",outcome="denied",mode="audit"} 1"#),
        "{metrics}"
    );
    assert!(
        metrics.contains(r#"hook_server_decisions_total{event="preTool",outcome="proceed",mode="enforced"} 1"#),
        "{metrics}"
    );
    let log = sandbox.home().join(".aimon/decisions.jsonl");
    let mut text = String::new();
    for _ in 0..100 {
        text = std::fs::read_to_string(&log).unwrap_or_default();
        if !text.is_empty() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let line: serde_json::Value = serde_json::from_str(text.lines().next().expect("a line")).expect("json");
    assert_eq!(
        (line["client"].as_str(), line["mode"].as_str(), line["outcome"].as_str()),
        (Some("claude"), Some("audit"), Some("deny"))
    );
}

#[test]
fn log_follow_prints_the_lines_written_after_it_started() {
    let sandbox = Sandbox::new();
    sandbox.write("project/.aimon/hooks.json", AUDITED);
    let bin = env!("CARGO_BIN_EXE_aimon-hooks");
    let mut follow = std::process::Command::new(bin)
        .args(["log", "--follow"])
        .env("HOME", sandbox.home())
        .env_remove("AIMON_DECISION_LOG")
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("log --follow starts");
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert_eq!(run(&sandbox, "rm -rf a").code, 2);
    assert_eq!(run(&sandbox, "git push").code, 0);
    std::thread::sleep(std::time::Duration::from_millis(800));
    follow.kill().expect("kill");
    let out = follow.wait_with_output().expect("output");
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(lines[0].contains(": deny by deny@project#0#") && lines[1].contains(": would deny by"), "{text}");
}
