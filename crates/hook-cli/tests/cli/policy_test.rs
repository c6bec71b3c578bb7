//! `aimon-hooks test`: the demo's own policy tests pass, a failing case shows what differed and
//! exits 1, and every JUnit report validates against the schema the Jenkins xUnit plugin reads.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::{Outcome, Sandbox};

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `xmllint --schema` of the Jenkins xUnit plugin's junit-10.xsd on `report`: `Err` with
/// xmllint's words when it does not validate. xmllint comes with Debian's libxml2-utils
/// (`.ci/run` installs it); a missing xmllint fails the test.
fn validate_junit(report: &Path) -> Result<(), String> {
    let xsd = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/junit/junit-10.xsd");
    let out = Command::new("xmllint")
        .arg("--noout")
        .arg("--schema")
        .arg(&xsd)
        .arg(report)
        .output()
        .expect("xmllint runs (apt-get install libxml2-utils)");
    if out.status.success() { Ok(()) } else { Err(String::from_utf8_lossy(&out.stderr).into_owned()) }
}

#[test]
fn the_demo_ships_policy_tests_that_pass_with_its_real_handlers() {
    let sandbox = Sandbox::new();
    let junit = sandbox.root().join("demo.xml");
    let out = Outcome::of(
        sandbox
            .cmd()
            .current_dir(workspace())
            .args(["test", "--trust", "--project", "examples/demo", "--junit"])
            .arg(&junit),
    );
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("8 case(s): 8 passed, 0 failed"), "{}", out.stdout);
    assert!(
        out.stdout.contains("PASS  examples/demo/.aimon/tests/fail-closed.yaml: a deploy hook that times out blocks")
    );
    validate_junit(&junit).expect("the demo's report validates");
    let xml = std::fs::read_to_string(&junit).expect("report");
    assert_eq!(xml.matches("<testcase").count(), 8, "{xml}");
    assert!(!xml.contains("<failure"), "{xml}");
}

const FAILING: &str = r#"{"cases": [
  {"name": "rm is denied",
   "payload": {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "rm -rf build"}},
   "expect": {"outcome": "denied", "reason": "no rm"}},
  {"name": "ls is denied too (wrong)",
   "payload": {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"}},
   "expect": {"outcome": "denied", "decision": "deny", "reason": "no ls", "hook": "deny@project"}},
  {"name": "a gemini payload is refused for now",
   "client": "gemini",
   "payload": {"hook_event_name": "BeforeTool", "tool_name": "run_shell_command", "tool_input": {"command": "ls"}},
   "expect": {"outcome": "proceed"}}
]}"#;

#[test]
fn a_failing_case_prints_what_differed_exits_1_and_its_junit_report_validates() {
    let sandbox = Sandbox::new();
    sandbox.project_hooks(&serde_json::json!({"hooks": {"PreToolUse": [
        {"matcher": "Bash(rm:*)", "hooks": [{"type": "deny", "reason": "no rm here"}]}
    ]}}));
    sandbox.write("project/.aimon/tests/cases.json", FAILING);
    let junit = sandbox.root().join("report.xml");
    let out = Outcome::of(sandbox.cmd().args(["test", "--junit"]).arg(&junit));
    assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
    let expected = [
        "PASS  .aimon/tests/cases.json: rm is denied",
        "FAIL  .aimon/tests/cases.json: ls is denied too (wrong)",
        "      outcome:\n        - expected: denied\n        + actual:   proceed",
        "      decision:\n        - expected: deny\n        + actual:   allow",
        "      reason:\n        - expected: a reason containing \"no ls\"\n        + actual:   \"\"",
        "      hook:\n        - expected: a deciding hook matching \"deny@project\"\n        + actual:   no hook decided",
        "FAIL  .aimon/tests/cases.json: a gemini payload is refused for now\n      error: client 'gemini' is not supported yet",
        "3 case(s): 1 passed, 2 failed",
    ];
    for text in expected {
        assert!(out.stdout.contains(text), "missing {text:?} in:\n{}", out.stdout);
    }
    validate_junit(&junit).expect("a failing report validates");
    let xml = std::fs::read_to_string(&junit).expect("report");
    assert_eq!((xml.matches("<failure").count(), xml.matches("<error").count()), (1, 1), "{xml}");

    let json = Outcome::of(sandbox.cmd().args(["test", "--json"])).json();
    assert_eq!((json["passed"].as_u64(), json["failed"].as_u64()), (Some(1), Some(2)));
    assert_eq!(json["cases"][1]["mismatches"][0]["field"], "outcome");
}

#[test]
fn the_schema_check_can_fail() {
    let sandbox = Sandbox::new();
    // A test case without its required name.
    let bad = sandbox.write("bad.xml", "<testsuites><testsuite name=\"s\" tests=\"1\" failures=\"0\" errors=\"0\"><testcase time=\"1\"/></testsuite></testsuites>");
    assert!(validate_junit(&bad).is_err());
}

#[test]
fn a_project_without_tests_or_with_a_broken_file_is_an_error_not_a_pass() {
    let sandbox = Sandbox::new();
    let out = Outcome::of(sandbox.cmd().arg("test"));
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("no policy tests found"), "{}", out.stderr);
    sandbox.write("project/.aimon/tests/broken.yaml", "cases:\n  - name: x\n    payload: [1\n");
    let out = Outcome::of(sandbox.cmd().arg("test"));
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("broken.yaml"), "{}", out.stderr);
}

#[test]
fn an_untrusted_projects_command_hooks_are_not_run_by_its_tests_unless_trusted() {
    let sandbox = Sandbox::new();
    let marker = sandbox.root().join("ran");
    sandbox.project_hooks(&serde_json::json!({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [
            {"type": "command", "command": format!("touch {} && exit 2", marker.display()), "timeout": 10}]}
    ]}}));
    sandbox.write(
        "project/.aimon/tests/cases.json",
        r#"{"cases": [{"name": "ls is blocked",
            "payload": {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"}},
            "expect": {"outcome": "blocked"}}]}"#,
    );
    let out = Outcome::of(sandbox.cmd().arg("test"));
    assert_eq!(out.code, 1, "the hook did not run, so the case fails: {}\n{}", out.stdout, out.stderr);
    assert!(!marker.exists(), "an untrusted repository's hook ran");
    assert!(out.stderr.contains("is not trusted") && out.stderr.contains("--trust"), "{}", out.stderr);

    for trusted in [&["test", "--trust"][..], &["test"][..]] {
        if trusted.len() == 1 {
            sandbox.trust_project();
        }
        let out = Outcome::of(sandbox.cmd().args(trusted));
        assert_eq!(out.code, 0, "{trusted:?}: {}\n{}", out.stdout, out.stderr);
        assert!(marker.exists(), "{trusted:?}");
        std::fs::remove_file(&marker).expect("rm marker");
    }
}
