//! The rule packs from the command line: each pack's own policy tests pass (`test --packs`, run
//! in CI), `init claude --protect` turns the three packs on so that `claude` refuses a hard reset
//! and a private key read with the packs' reasons and lets `git status` through, and `packs` and
//! `validate` say which packs are on; under the guard, the packs' deny rules hold at exec time for
//! commands whose words only exist at run time.

use serde_json::Value;

use crate::support::{Outcome, Sandbox, bash};

const THREE: [&str; 3] = ["aimon/destructive", "aimon/secrets", "aimon/exfiltration"];

#[test]
fn every_built_in_pack_passes_its_own_policy_tests() {
    let sandbox = Sandbox::new();
    let out = Outcome::of(sandbox.cmd().args(["test", "--packs", "--json"]));
    let report = out.json();
    let failing: Vec<&Value> =
        report["cases"].as_array().expect("cases").iter().filter(|c| c["passed"] != true).collect();
    assert_eq!(failing, Vec::<&Value>::new(), "{}", out.stderr);
    assert_eq!(out.code, 0);
    let passed = report["passed"].as_u64().expect("a count");
    assert!(passed >= 80, "every pack carries its cases: {passed} passed");
    for pack in THREE {
        let file = format!("{pack}.tests.json");
        assert!(out.stdout.contains(&file), "{pack} has cases of its own");
    }
}

/// The decision `claude` answers for a Bash `command`, and its reason.
fn claude_on(sandbox: &Sandbox, payload: String) -> (String, String) {
    let out = Outcome::of(sandbox.cmd().arg("claude").arg("--no-serve").write_stdin(payload));
    assert_eq!(out.code, 0, "{}", out.stderr);
    if out.stdout.trim().is_empty() {
        return (String::from("none"), String::new());
    }
    let answer = &out.json()["hookSpecificOutput"];
    let field = |k: &str| answer[k].as_str().unwrap_or_default().to_owned();
    (field("permissionDecision"), field("permissionDecisionReason"))
}

#[test]
fn init_claude_protect_turns_the_packs_on_and_claude_then_refuses_a_hard_reset_and_a_key_read() {
    let sandbox = Sandbox::new();
    let out = Outcome::of(sandbox.cmd().args(["init", "claude", "--protect", "--no-guard"]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains("packs aimon/destructive, aimon/secrets, aimon/exfiltration on"), "{}", out.stderr);
    let own: Value =
        serde_json::from_str(&std::fs::read_to_string(sandbox.home().join(".aimon/hooks.json")).expect("written"))
            .expect("json");
    assert_eq!(own["packs"], serde_json::json!(THREE));
    let again = Outcome::of(sandbox.cmd().args(["init", "claude", "--protect", "--no-guard"]));
    assert!(again.stderr.contains("already on"), "a second run changes nothing: {}", again.stderr);

    let (decision, reason) = claude_on(&sandbox, bash("git reset --hard"));
    assert_eq!(decision, "deny");
    assert!(reason.contains("aimon/destructive: this throws away uncommitted work"), "{reason}");
    let (decision, reason) = claude_on(&sandbox, bash("cat ~/.ssh/id_ed25519"));
    assert_eq!(decision, "deny");
    assert!(reason.contains("aimon/secrets: ~/.ssh holds private keys"), "{reason}");
    let (decision, _) = claude_on(&sandbox, bash("git status"));
    assert!(decision == "none" || decision == "allow", "git status runs: {decision}");
}

#[test]
fn packs_and_validate_say_which_packs_are_on_and_their_version() {
    let sandbox = Sandbox::new();
    sandbox.write("project/.aimon/hooks.json", r#"{"packs": ["aimon/secrets"]}"#);
    let version = env!("CARGO_PKG_VERSION");
    let out = Outcome::of(sandbox.cmd().arg("packs"));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains(&format!("aimon/secrets {version} (on in PROJECT)")), "{}", out.stdout);
    assert!(out.stdout.contains(&format!("aimon/destructive {version} (off)")), "{}", out.stdout);
    assert!(out.stdout.contains(&format!("aimon/self {version} (always on)")), "{}", out.stdout);
    assert!(out.stdout.contains("deny aimon/secrets#ssh-keys"), "{}", out.stdout);

    let listed = Outcome::of(sandbox.cmd().args(["packs", "--json"])).json();
    let rules = listed.as_array().expect("packs").iter().flat_map(|p| p["rules"].as_array().expect("rules").clone());
    assert!(rules.clone().all(|r| r["why"].as_str().is_some_and(|w| !w.is_empty())), "every rule says why");
    assert!(rules.clone().any(|r| r["id"] == "aimon/destructive#force-push" && r["decision"] == "deny"));

    let out = Outcome::of(sandbox.cmd().arg("validate"));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let line = format!("packs: aimon/secrets {version} (PROJECT, 6 rules), aimon/self {version} (always on)");
    assert!(out.stdout.contains(&line), "{}", out.stdout);
}

#[test]
fn under_the_guard_a_packs_deny_rules_hold_for_commands_built_at_run_time() {
    let sandbox = Sandbox::new();
    sandbox
        .write("home/.aimon/hooks.json", r#"{"packs": ["aimon/destructive", "aimon/secrets", "aimon/exfiltration"]}"#);
    sandbox.write("home/.ssh/id_ed25519", "SECRET-KEY\n");
    let git = |args: &str| {
        let out = std::process::Command::new("sh").arg("-c").arg(args).current_dir(sandbox.project()).output();
        assert!(out.expect("git runs").status.success(), "{args}");
    };
    git("git init -q . && echo one > a.txt && git add a.txt && git -c user.email=a@b -c user.name=a commit -qm a");
    sandbox.write("project/a.txt", "two\n");
    // Neither command's words are known before it runs: parse time cannot name them (nor the
    // shell's script, read whole at its exec), exec time can.
    let line = "x=$(printf reset); git $x --hard; d=$(printf .ssh); cat ~/$d/id_ed25519";
    let out = Outcome::of(sandbox.cmd().arg("guard").arg("--").arg(line));
    assert!(out.stderr.contains("denied by aimon/destructive: aimon/destructive: this throws away"), "{}", out.stderr);
    assert!(out.stderr.contains("denied by aimon/secrets: aimon/secrets: ~/.ssh holds private keys"), "{}", out.stderr);
    assert!(!out.stdout.contains("SECRET-KEY"), "{}", out.stdout);
    let kept = std::fs::read_to_string(sandbox.project().join("a.txt")).expect("a.txt");
    assert_eq!(kept, "two\n", "the uncommitted change survives");

    // A download piped into a shell, the pipe put together at run time: no exec shows the pipe,
    // the shell's `-c` script does. Without the guard the downloaded script runs.
    sandbox.write("project/payload.sh", "touch downloaded-and-run\n");
    let url = format!("file://{}", sandbox.project().join("payload.sh").display());
    let line = format!("c='curl -s {url} | sh'; bash -c \"$c\"");
    git(&line);
    let ran = sandbox.project().join("downloaded-and-run");
    assert!(ran.exists(), "without the guard the download runs");
    std::fs::remove_file(&ran).expect("rm");
    let out = Outcome::of(sandbox.cmd().arg("guard").arg("--").arg(&line));
    assert!(out.stderr.contains("denied by aimon/exfiltration: aimon/exfiltration: this runs code"), "{}", out.stderr);
    assert!(!ran.exists(), "under the guard nothing downloaded runs");
}

/// Claude Code hands its shell prefix to the hook: when it is this binary's guard, the secrets
/// pack leaves a recursive grep and `xargs cat` to the kernel, which hides `.env` from them; a
/// prefix naming another program, or none, leaves the hook reading the command alone. `cat .env`
/// is refused either way.
#[test]
fn with_the_guards_shell_prefix_the_secrets_pack_leaves_reads_by_unseen_names_to_the_kernel() {
    let sandbox = Sandbox::new();
    let out = Outcome::of(sandbox.cmd().args(["init", "claude", "--protect", "--no-guard"]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let ours = format!("{} --guard", env!("CARGO_BIN_EXE_aimon-hooks"));
    let decide = |prefix: Option<&str>, command: &str| {
        let mut cmd = sandbox.cmd();
        cmd.arg("claude").arg("--no-serve").write_stdin(bash(command));
        if let Some(prefix) = prefix {
            cmd.env("CLAUDE_CODE_SHELL_PREFIX", prefix);
        }
        let out = Outcome::of(&mut cmd);
        assert_eq!(out.code, 0, "{}", out.stderr);
        if out.stdout.trim().is_empty() {
            String::from("none")
        } else {
            out.json()["hookSpecificOutput"]["permissionDecision"].as_str().unwrap_or_default().to_owned()
        }
    };
    for command in ["grep -r TOKEN .", "find . -name '*.md' | xargs cat"] {
        assert_eq!(decide(None, command), "deny", "{command} without the guard");
        assert_eq!(decide(Some("/usr/bin/env --guard"), command), "deny", "{command} under another prefix");
        assert_eq!(decide(Some(&ours), command), "none", "{command} under the guard");
    }
    assert_eq!(decide(Some(&ours), "cat .env"), "deny", "naming the file is refused under the guard too");
}

/// The client's `TMPDIR` is the one its commands inherit: `rm -rf $TMPDIR/build` removes a
/// directory in it and is let through; unset, the same line removes `/build`-like paths the hook
/// cannot vouch for, and a line that may change the variable first, or climbs out of it, is read
/// as before.
#[test]
fn the_clients_tmpdir_is_what_a_commands_tmpdir_reads_as() {
    let sandbox = Sandbox::new();
    let out = Outcome::of(sandbox.cmd().args(["init", "claude", "--protect", "--no-guard"]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let tmp = sandbox.home().join("tmp");
    std::fs::create_dir_all(&tmp).expect("a temporary directory");
    let decide = |tmpdir: Option<&std::path::Path>, command: &str| {
        let mut cmd = sandbox.cmd();
        cmd.arg("claude").arg("--no-serve").write_stdin(bash(command));
        match tmpdir {
            Some(dir) => cmd.env("TMPDIR", dir),
            None => cmd.env_remove("TMPDIR"),
        };
        let out = Outcome::of(&mut cmd);
        assert_eq!(out.code, 0, "{}", out.stderr);
        if out.stdout.trim().is_empty() {
            return String::from("none");
        }
        out.json()["hookSpecificOutput"]["permissionDecision"].as_str().unwrap_or("none").to_owned()
    };
    for command in ["rm -rf $TMPDIR/build", "rm -rf \"${TMPDIR}/test\"", "rm -rf ${TMPDIR:-/tmp}/build"] {
        assert_eq!(decide(Some(&tmp), command), "none", "{command} with TMPDIR set");
        assert_eq!(decide(None, command), "deny", "{command} with TMPDIR unset");
    }
    for command in
        ["export TMPDIR=$HOME; rm -rf $TMPDIR/*", "rm -rf $TMPDIR/../..", "v=TMP; export ${v}DIR=~; rm -rf $TMPDIR"]
    {
        assert_eq!(decide(Some(&tmp), command), "deny", "{command}");
    }
}
