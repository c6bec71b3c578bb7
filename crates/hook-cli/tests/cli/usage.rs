//! Usage errors exit 1 with a sentence, never clap's 2; `--help`/`--version` exit 0 (R-CLI-1, R-CLI-8).

use crate::support::{Outcome, Sandbox, bash};

#[test]
fn help_exits_zero_on_every_command_r_cli_8() {
    let sandbox = Sandbox::new();
    for args in [
        &["--help"][..],
        &["run", "--help"],
        &["claude", "--help"],
        &["validate", "--help"],
        &["list", "--help"],
        &["explain", "--help"],
        &["import-claude", "--help"],
        &["schema", "--help"],
        &["watch", "--help"],
        &["serve", "--help"],
        &["help", "run"],
    ] {
        let out = Outcome::of(sandbox.cmd().args(args));
        assert_eq!(out.code, 0, "{args:?}: {}", out.stderr);
        assert!(out.stdout.contains("Usage: aimon-hooks"), "{args:?}: {}", out.stdout);
    }
}

#[test]
fn version_exits_zero_and_names_the_binary() {
    let out = Outcome::of(Sandbox::new().cmd().arg("--version"));
    assert_eq!(out.code, 0);
    assert!(out.stdout.starts_with("aimon-hooks "), "{}", out.stdout);
}

#[test]
fn clap_usage_errors_exit_one_not_two() {
    let sandbox = Sandbox::new();
    for args in [
        &[][..],
        &["bogus"],
        &["run"],
        &["run", "preTool", "--no-such-flag"],
        &["list", "--json=maybe"],
        &["run", "preTool", "--project"],
    ] {
        let out = Outcome::of(sandbox.cmd().args(args).write_stdin(""));
        assert_eq!(out.code, 1, "{args:?}: {}", out.stderr);
        assert!(!out.stderr.trim().is_empty(), "{args:?} says why");
    }
}

#[test]
fn an_unknown_event_is_a_usage_error_that_lists_the_events() {
    let out = Outcome::of(Sandbox::new().cmd().args(["run", "preToolz"]).write_stdin(bash("ls")));
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("unknown event 'preToolz'"), "{}", out.stderr);
    assert!(out.stderr.contains("onConfigReload"), "lists the table's names: {}", out.stderr);
    assert!(out.stdout.is_empty());
}

#[test]
fn an_unsupported_upstream_event_is_named_as_such() {
    let out = Outcome::of(Sandbox::new().cmd().args(["run", "stop_hook_active"]).write_stdin("{}"));
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("'stop_hook_active' event is not supported by AIMON in this phase"), "{}", out.stderr);
}

#[test]
fn bad_payloads_are_usage_errors_with_a_sentence_and_a_deny_where_the_event_can_veto() {
    let sandbox = Sandbox::new();
    let missing = sandbox.root().join("nope.json");
    for (stdin, args, needle) in [
        ("{not json", vec!["run", "postTool"], "not valid JSON"),
        ("[1,2]", vec!["run", "postTool"], "must be a JSON object"),
        ("{\"hook_event_name\":\"PostToolUse\"}", vec!["run", "postTool"], "\"tool_name\""),
        ("", vec!["run", "postTool", "--payload", missing.to_str().expect("utf-8")], "cannot read the payload file"),
    ] {
        let out = Outcome::of(sandbox.cmd().args(&args).write_stdin(stdin));
        assert_eq!(out.code, 1, "{stdin}: {}", out.stderr);
        assert!(out.stderr.contains(needle), "{stdin}: {}", out.stderr);
        assert!(out.stdout.is_empty(), "no verdict on a usage error");
        // No input switches a veto off (DESIGN-0.3 §2): on preTool the same payload is denied.
        let args: Vec<&str> = args.iter().map(|a| if *a == "postTool" { "preTool" } else { a }).collect();
        let out = Outcome::of(sandbox.cmd().args(&args).write_stdin(stdin));
        assert_eq!(out.code, 2, "{stdin}: {}", out.stderr);
        let verdict = out.json();
        assert_eq!(verdict["outcome"], "denied", "{stdin}");
        assert!(verdict["reason"].as_str().is_some_and(|r| r.contains(needle)), "{stdin}: {verdict}");
    }
}
