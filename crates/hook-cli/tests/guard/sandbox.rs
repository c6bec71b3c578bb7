//! A project with deny rules, a home, and a directory of stub programs.

use std::os::unix::fs::PermissionsExt as _;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use tempfile::TempDir;

/// The rules every test guards with.
pub(crate) const HOOKS: &str = r#"{"hooks": {"PreToolUse": [
  {"matcher": "Bash(touch:*)", "hooks": [{"type": "deny", "reason": "no touching"}]},
  {"matcher": "Bash(git push:*)", "hooks": [{"type": "deny", "reason": "pushes are reviewed"}]}
]}}"#;

/// A stub: records `<name> <args…>` as one line in `$STUB_LOG` and exits 0.
const STUB: &str = "#!/bin/sh\nprintf '%s' \"$(basename \"$0\")\" >> \"$STUB_LOG\"\nfor a in \"$@\"; do printf ' %s' \"$a\" >> \"$STUB_LOG\"; done\necho >> \"$STUB_LOG\"\n";

pub(crate) struct Sandbox {
    dir: TempDir,
}

impl Sandbox {
    /// A sandbox with `HOOKS` in the project and stubs named `stubs` first on `PATH`.
    pub(crate) fn new(stubs: &[&str]) -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        for sub in ["home", "project/.aimon", "stubs", "work"] {
            std::fs::create_dir_all(dir.path().join(sub)).expect("mkdir");
        }
        std::fs::write(dir.path().join("project/.aimon/hooks.json"), HOOKS).expect("hooks");
        let sandbox = Sandbox { dir };
        for stub in stubs {
            sandbox.script(&format!("stubs/{stub}"), STUB);
        }
        sandbox
    }

    pub(crate) fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// Writes an executable file.
    pub(crate) fn script(&self, rel: &str, text: &str) -> PathBuf {
        let path = self.path(rel);
        std::fs::write(&path, text).expect("write");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        path
    }

    /// What the stubs recorded, one line per call.
    pub(crate) fn log(&self) -> String {
        std::fs::read_to_string(self.path("stubs.log")).unwrap_or_default()
    }

    /// `bash -c line` in `work/`, under the guard or not, with `stdin`.
    pub(crate) fn run(&self, line: &str, guarded: bool, stdin: &[u8]) -> Output {
        self.run_wrapped(&[], line, guarded, stdin)
    }

    /// [`Sandbox::run`] with the guard (or bash) started by `wrapper` (a program and its options).
    pub(crate) fn run_wrapped(&self, wrapper: &[&str], line: &str, guarded: bool, stdin: &[u8]) -> Output {
        let mut cmd = if let [program, options @ ..] = wrapper {
            let mut cmd = Command::new(program);
            cmd.args(options);
            if guarded {
                cmd.arg(env!("CARGO_BIN_EXE_aimon-hooks"));
                cmd.arg("guard").arg("--project").arg(self.path("project")).arg("--home").arg(self.path("home"));
                cmd.args(["--", "bash", "-c", line]);
            } else {
                cmd.args(["bash", "-c", line]);
            }
            cmd
        } else if guarded {
            let mut cmd = Command::new(env!("CARGO_BIN_EXE_aimon-hooks"));
            cmd.arg("guard").arg("--project").arg(self.path("project")).arg("--home").arg(self.path("home"));
            cmd.args(["--", "bash", "-c", line]);
            cmd
        } else {
            let mut cmd = Command::new("bash");
            cmd.args(["-c", line]);
            cmd
        };
        let path = format!("{}:{}", self.path("stubs").display(), std::env::var("PATH").unwrap_or_default());
        cmd.current_dir(self.path("work"))
            .env("PATH", path)
            .env("HOME", self.path("home"))
            .env("STUB_LOG", self.path("stubs.log"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env_remove("GIT_CONFIG_GLOBAL")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("spawn");
        {
            use std::io::Write as _;
            let mut input = child.stdin.take().expect("stdin");
            let _ = input.write_all(stdin);
        }
        child.wait_with_output().expect("wait")
    }
}
