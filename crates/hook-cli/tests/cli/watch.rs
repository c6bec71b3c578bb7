//! `aimon-hooks watch` (R-CLI-7): each onConfigReload is one JSON line on stdout.

use std::io::{BufRead, BufReader};
use std::process::{Child, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::{Sandbox, one_hook};

/// Kills the watcher (by its own pid) however the test ends.
struct Watcher(Child);

impl Drop for Watcher {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn each_edit_prints_an_on_config_reload_line_and_a_broken_file_reports_failure() {
    let sandbox = Sandbox::new();
    let file = sandbox.project_hooks(&json!({"hooks": {}}));
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_aimon-hooks"));
    cmd.arg("watch").current_dir(sandbox.project()).env("HOME", sandbox.home()).env_remove("CLAUDE_PROJECT_DIR");
    let mut watcher = Watcher(cmd.stdout(Stdio::piped()).stderr(Stdio::null()).spawn().expect("spawn watch"));
    let stdout = watcher.0.stdout.take().expect("stdout");
    let (tx, rx) = mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    // The watcher may still be starting: keep editing until a reload line arrives (generous bound).
    let next_line = |content: &str| -> Value {
        let deadline = Instant::now() + Duration::from_secs(30);
        let mut n = 0u32;
        loop {
            n += 1;
            std::fs::write(&file, format!("{content}{}", " ".repeat(n as usize))).expect("edit");
            if let Ok(line) = rx.recv_timeout(Duration::from_millis(1500)) {
                return serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
            }
            assert!(Instant::now() < deadline, "no onConfigReload line within 30 s");
        }
    };
    let ok = next_line(&one_hook("PreToolUse", "*", json!({"type": "deny", "reason": "x"})).to_string());
    assert_eq!(
        (&ok["event"], &ok["successful"], &ok["failure_reason"]),
        (&json!("onConfigReload"), &json!(true), &json!(""))
    );
    assert!(ok["reload_counter"].as_u64().is_some_and(|c| c >= 1), "{ok}");
    while rx.recv_timeout(Duration::from_millis(500)).is_ok() {}
    let failed = next_line("{\"hooks\": ");
    assert_eq!(failed["successful"], false, "{failed}");
    assert!(failed["failure_reason"].as_str().is_some_and(|r| !r.is_empty()), "{failed}");
    assert!(failed["reload_counter"].as_u64() > ok["reload_counter"].as_u64(), "{failed}");
}
