//! Issue 23, class 6: paths in tool input are what the tool would open (DESIGN-0.3 §1): joined to
//! the payload's `cwd`, `~` as the home directory, symlinks inside the project resolved,
//! `/proc/self/…` resolved or uncertain, and Grep's `glob` and Glob's `pattern` as the paths they
//! select. The project is a real directory, so that symlinks exist.

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use hook_predicate::{Call, PathAnchors, parse};
use serde_json::{Value, json};

/// A project with `.env`, `f.txt`, `sub/`, the symlinks `link -> .env`, `sub/link2 -> ../.env` and
/// `dirlink -> .`, and a home with `.ssh/id_rsa`; removed when dropped.
#[derive(Debug)]
struct Fixture {
    root: PathBuf,
}

impl Fixture {
    fn new() -> Fixture {
        let root = std::env::temp_dir().join(format!("aimon-paths-{}", std::process::id()));
        let project = root.join("proj");
        fs::create_dir_all(project.join("sub")).expect("project");
        fs::create_dir_all(root.join("home/.ssh")).expect("home");
        fs::write(project.join(".env"), "KEY=secret\n").expect(".env");
        fs::write(project.join("f.txt"), "a line\n").expect("f.txt");
        fs::write(root.join("home/.ssh/id_rsa"), "key\n").expect("id_rsa");
        for (target, link) in [(".env", "link"), ("../.env", "sub/link2"), (".", "dirlink")] {
            let _ = fs::remove_file(project.join(link));
            symlink(target, project.join(link)).expect("symlink");
        }
        Fixture { root }
    }

    fn project(&self) -> PathBuf {
        self.root.join("proj")
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.root);
    }
}

const READ_ENV: &str = "Read(./.env)";
const EDIT_ENV: &str = "Edit(./.env)";
const READ_SSH: &str = "Read(~/.ssh/**)";

/// `(pattern, tool, input, cwd below the project, expected)`; `@P` in a string is the project.
type Case = (&'static str, &'static str, Value, Option<&'static str>, bool);

fn file(path: &str) -> Value {
    json!({ "file_path": path })
}

#[rustfmt::skip]
fn cases() -> Vec<Case> {
    vec![
        (READ_ENV, "Read", file("../.env"), Some("sub"), true),
        (READ_ENV, "Read", file(".env"), Some("sub"), false),
        (READ_ENV, "Read", file("sub/../.env"), None, true),
        (READ_ENV, "Read", file("./.env"), None, true),
        (READ_ENV, "Read", file(".//.env"), None, true),
        (READ_ENV, "Read", file("link"), None, true),
        (READ_ENV, "Read", file("sub/link2"), None, true),
        (READ_ENV, "Read", file("link2"), Some("sub"), true),
        (READ_ENV, "Read", file("dirlink/.env"), None, true),
        (READ_ENV, "Read", file("@P/dirlink/dirlink/.env"), None, true),
        (READ_ENV, "Read", file("/proc/self/cwd/.env"), None, true),
        (READ_ENV, "Read", file("/proc/self/root@P/.env"), None, true),
        (READ_ENV, "Read", file("/proc/self/fd/3"), None, true),
        (READ_ENV, "Read", file("/proc/thread-self/cwd/.env"), None, true),
        (READ_ENV, "Read", file(".env.example"), None, false),
        (READ_ENV, "Read", file("sub/.env"), None, false),
        (READ_ENV, "Read", file("f.txt"), None, false),
        (READ_ENV, "Grep", json!({ "pattern": "KEY", "glob": ".env" }), None, true),
        (READ_ENV, "Grep", json!({ "pattern": "KEY", "glob": "**/.env" }), None, true),
        (READ_ENV, "Grep", json!({ "pattern": "KEY", "glob": "*.env", "path": "@P" }), None, true),
        (READ_ENV, "Grep", json!({ "pattern": "KEY", "glob": ".e*" }), None, true),
        (READ_ENV, "Grep", json!({ "pattern": "KEY", "path": "../.env" }), Some("sub"), true),
        (READ_ENV, "Grep", json!({ "pattern": "KEY", "glob": "*.rs" }), None, false),
        (READ_ENV, "Glob", json!({ "pattern": ".env" }), None, true),
        (READ_ENV, "Glob", json!({ "pattern": "**/.env" }), None, true),
        (READ_ENV, "Glob", json!({ "pattern": "../.env" }), Some("sub"), true),
        (READ_ENV, "Glob", json!({ "pattern": "*.rs" }), None, false),
        (READ_SSH, "Read", file("~/.ssh/id_rsa"), None, true),
        (READ_SSH, "Read", file("~/.ssh/../.ssh/id_rsa"), None, true),
        (READ_SSH, "Read", file("~/notes.txt"), None, false),
        (READ_SSH, "Grep", json!({ "pattern": "BEGIN", "path": "~/.ssh" }), None, true),
        (READ_SSH, "Glob", json!({ "pattern": "~/.ssh/*" }), None, true),
        (EDIT_ENV, "Write", file("../.env"), Some("sub"), true),
        (EDIT_ENV, "Edit", file("link"), None, true),
        (EDIT_ENV, "MultiEdit", file("dirlink/.env"), None, true),
        (EDIT_ENV, "Edit", file("/proc/self/cwd/.env"), None, true),
        (EDIT_ENV, "Write", file("sub/.env"), None, false),
        (EDIT_ENV, "Write", file(".env"), Some("sub"), false),
    ]
}

/// `@P` in any string of `value` becomes `project`.
fn with_project(value: &Value, project: &Path) -> Value {
    match value {
        Value::String(s) => Value::String(s.replace("@P", &project.to_string_lossy())),
        Value::Object(map) => Value::Object(map.iter().map(|(k, v)| (k.clone(), with_project(v, project))).collect()),
        other => other.clone(),
    }
}

#[test]
fn paths_in_tool_input_are_the_files_the_tool_would_open() {
    let fixture = Fixture::new();
    let project = fixture.project();
    let anchors = PathAnchors::new(&project).with_home(fixture.root.join("home"));
    let cases = cases();
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|(pattern, tool, input, cwd, expected)| {
            let predicate = parse(pattern, &anchors).expect("the rules parse");
            let input = with_project(input, &project);
            let dir = cwd.map(|sub| project.join(sub));
            let verdict = predicate.verdict(&Call::new(tool, &input).in_dir(Some(dir.as_deref().unwrap_or(&project))));
            (verdict.matches() != *expected).then(|| {
                format!(
                    "{pattern} | {tool} {input} | cwd {} | expected {expected} | got {verdict:?}",
                    cwd.unwrap_or(".")
                )
            })
        })
        .collect();
    assert!(failures.is_empty(), "{} of {} path cases failed:\n{}", failures.len(), cases.len(), failures.join("\n"));
}
