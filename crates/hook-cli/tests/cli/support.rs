//! The sandbox every test runs in: a temp dir with `home/`, `project/` and `managed/` (the managed
//! tier, empty unless a test writes it), and a command builder that points `HOME` and
//! `AIMON_MANAGED_DIR` there and clears the variables that would leak the developer's setup (so
//! the machine's own `/etc/aimon/managed` never reaches a test).

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;
use tempfile::TempDir;

pub(crate) struct Sandbox {
    dir: TempDir,
}

impl Sandbox {
    pub(crate) fn new() -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::create_dir_all(dir.path().join("home")).expect("home");
        std::fs::create_dir_all(dir.path().join("project")).expect("project");
        std::fs::create_dir_all(dir.path().join("managed")).expect("managed");
        Sandbox { dir }
    }

    pub(crate) fn root(&self) -> &Path {
        self.dir.path()
    }

    pub(crate) fn project(&self) -> PathBuf {
        self.dir.path().join("project")
    }

    pub(crate) fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    /// The managed tier's directory (`AIMON_MANAGED_DIR`).
    pub(crate) fn managed(&self) -> PathBuf {
        self.dir.path().join("managed")
    }

    /// Writes `text` to `rel` under the sandbox root (creating directories) and returns the path.
    pub(crate) fn write(&self, rel: &str, text: &str) -> PathBuf {
        let path = self.dir.path().join(rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(&path, text).expect("write");
        path
    }

    /// `project/.aimon/hooks.json`.
    pub(crate) fn project_hooks(&self, json: &Value) -> PathBuf {
        self.write("project/.aimon/hooks.json", &serde_json::to_string_pretty(json).expect("json"))
    }

    /// Trusts `project/` as it is now (`aimon-hooks trust`), so `claude` runs its hooks (R-CLI-12).
    pub(crate) fn trust_project(&self) {
        let out = Outcome::of(self.cmd().arg("trust").arg("--project").arg(self.project()));
        assert_eq!(out.code, 0, "trust failed: {}", out.stderr);
    }

    /// The binary, run in `project/` with `HOME=home/`.
    pub(crate) fn cmd(&self) -> Command {
        let mut cmd = assert_cmd::cargo::cargo_bin_cmd!("aimon-hooks");
        cmd.current_dir(self.project())
            .env("HOME", self.home())
            .env("AIMON_MANAGED_DIR", self.managed())
            .env_remove("CLAUDE_PROJECT_DIR")
            .env_remove("CLAUDE_CODE_SHELL_PREFIX")
            .env_remove("AIMON_TRUST_PROJECT_HOOKS")
            .env_remove("AIMON_REWAKE_STORE")
            .env_remove("RUST_LOG");
        cmd
    }
}

/// The finished process: exit code, stdout, stderr.
pub(crate) struct Outcome {
    pub(crate) code: i32,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

impl Outcome {
    pub(crate) fn of(cmd: &mut Command) -> Self {
        let out = cmd.output().expect("the binary runs");
        Outcome {
            code: out.status.code().expect("exited, not killed"),
            stdout: String::from_utf8(out.stdout).expect("utf-8 stdout"),
            stderr: String::from_utf8(out.stderr).expect("utf-8 stderr"),
        }
    }

    /// Stdout as one JSON value.
    pub(crate) fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {:?}\nstderr: {}", self.stdout, self.stderr))
    }
}

/// A PreToolUse payload for `Bash` running `command`.
pub(crate) fn bash(command: &str) -> String {
    serde_json::json!({
        "session_id": "s-1", "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp", "permission_mode": "default",
        "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": command, "description": "test"}, "tool_use_id": "toolu_1"
    })
    .to_string()
}

/// `{"hooks": {event: [{"matcher": matcher, "hooks": [handler]}]}}`.
pub(crate) fn one_hook(event: &str, matcher: &str, handler: Value) -> Value {
    serde_json::json!({"hooks": {event: [{"matcher": matcher, "hooks": [handler]}]}})
}

/// A command handler with a 10 s timeout.
pub(crate) fn command(cmd: &str) -> Value {
    serde_json::json!({"type": "command", "command": cmd, "timeout": 10})
}
