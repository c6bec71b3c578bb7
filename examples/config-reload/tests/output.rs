//! The example follows edits of a tier file: each one prints an `onConfigReload` line and the
//! loop's outcomes under the new hooks; a broken file keeps the previous hooks.

use std::io::{BufRead, BufReader, Lines};
use std::process::{ChildStdout, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

const RM_DENY: &str = r#"{"hooks":{"PreToolUse":[{"matcher":"Bash(command=^rm\\s+-rf)","hooks":[{"type":"deny","reason":"no rm -rf"}]}]}}"#;
const LS_DENY: &str =
    r#"{"hooks":{"PreToolUse":[{"matcher":"Bash(ls)","hooks":[{"type":"deny","reason":"no ls today"}]}]}}"#;

/// The next `n` lines of the example, within a bound.
fn take(lines: &mpsc::Receiver<String>, n: usize) -> Vec<String> {
    (0..n).map(|_| lines.recv_timeout(Duration::from_secs(20)).expect("a line of the example within 20 s")).collect()
}

fn reader(stdout: ChildStdout) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let lines: Lines<BufReader<ChildStdout>> = BufReader::new(stdout).lines();
        for line in lines.map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

#[test]
fn an_edited_tier_file_prints_on_config_reload_and_changes_the_loops_outcomes() {
    let home = tempfile::tempdir().expect("home");
    let project = tempfile::tempdir().expect("project");
    std::fs::create_dir_all(project.path().join(".aimon")).expect("mkdir");
    let project_file = project.path().join(".aimon/hooks.json");
    let local_file = project.path().join(".aimon/hooks.local.json");
    std::fs::write(&project_file, RM_DENY).expect("write");

    let mut child = Command::new(env!("CARGO_BIN_EXE_example-config-reload"))
        .arg(project.path())
        .arg(home.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start the example");
    let lines = reader(child.stdout.take().expect("stdout"));
    assert_eq!(take(&lines, 3), [r#"pre_tool "ls": proceed"#, r#"pre_tool "rm -rf /": denied: no rm -rf"#, "ready"]);

    std::fs::write(&local_file, LS_DENY).expect("write the LOCAL tier");
    assert_eq!(
        take(&lines, 3),
        [
            format!("onConfigReload #1: {} reloaded", local_file.display()),
            r#"pre_tool "ls": denied: no ls today"#.to_owned(),
            r#"pre_tool "rm -rf /": denied: no rm -rf"#.to_owned(),
        ]
    );

    std::fs::write(&project_file, "{ \"hooks\": ").expect("break the PROJECT tier");
    let got = take(&lines, 3);
    let rejected = format!(
        "onConfigReload #2: {} rejected, previous hooks kept: {}:1:",
        project_file.display(),
        project_file.display()
    );
    assert!(got[0].starts_with(&rejected), "{got:?}");
    assert_eq!(got[1..], [r#"pre_tool "ls": denied: no ls today"#, r#"pre_tool "rm -rf /": denied: no rm -rf"#]);

    drop(child.stdin.take());
    let status = child.wait().expect("the example exits when stdin closes");
    assert!(status.success());
}
