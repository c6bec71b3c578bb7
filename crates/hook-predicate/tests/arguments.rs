//! Issue 36, "nothing the agent does can switch the policy off", in the matchers: a field of the
//! wrong type, a tool the rules do not model, and the keys hook-wire maps client arguments onto
//! (`file_globs`, a Bash call's `cwd`, its `shell`). Uncertain is a match for a deny and no match
//! for an allow.

use std::path::Path;

use hook_predicate::{Call, PathAnchors, Verdict, parse};
use serde_json::{Value, json};

use Verdict::{Match, NoMatch, Uncertain};

const PUSH: &str = "Bash(git push:*)";
const PUSH_RE: &str = r"Bash(command=^git\s+push)";
const READ_ENV: &str = "Read(./.env)";
const EDIT_ENV: &str = "Edit(./.env)";

/// `(rule, tool, input, verdict)`, each run in `/proj`.
type Case = (&'static str, &'static str, Value, Verdict);

fn check(cases: Vec<Case>) {
    let anchors = PathAnchors::new("/proj").with_home("/home/u");
    let failed: Vec<String> = cases
        .into_iter()
        .filter_map(|(rule, tool, input, want)| {
            let predicate = parse(rule, &anchors).unwrap_or_else(|e| panic!("{rule}: {e}"));
            let got = predicate.verdict(&Call::new(tool, &input).in_dir(Some(Path::new("/proj"))));
            (got != want).then(|| format!("{rule} on {tool} {input}: expected {want:?}, got {got:?}"))
        })
        .collect();
    assert!(failed.is_empty(), "{} cases failed:\n{}", failed.len(), failed.join("\n"));
}

/// The four wrong types of a field that holds a string.
fn wrong_types() -> [Value; 4] {
    [json!(123), json!(["git push"]), json!({"text": "git push"}), Value::Null]
}

#[test]
fn a_field_of_the_wrong_type_is_uncertain_for_every_rule_that_reads_it() {
    let mut cases: Vec<Case> = Vec::new();
    for wrong in wrong_types() {
        cases.extend([
            (PUSH, "Bash", json!({"command": wrong.clone()}), Uncertain),
            (PUSH_RE, "Bash", json!({"command": wrong.clone()}), Uncertain),
            ("Bash & input.command~^git", "Bash", json!({"command": wrong.clone()}), Uncertain),
            (READ_ENV, "Bash", json!({"command": wrong.clone()}), Uncertain),
            (READ_ENV, "Bash", json!({"command": "cat .env", "cwd": wrong.clone()}), Uncertain),
            (READ_ENV, "Read", json!({"file_path": wrong.clone()}), Uncertain),
            (EDIT_ENV, "Edit", json!({"file_path": wrong.clone()}), Uncertain),
            (READ_ENV, "Read", json!({"path": wrong.clone()}), Uncertain),
            (READ_ENV, "Read", json!({"file_path": "README.md", "path": wrong.clone()}), Uncertain),
            (READ_ENV, "Grep", json!({"pattern": "x", "glob": wrong.clone()}), Uncertain),
            (READ_ENV, "Glob", json!({"pattern": wrong.clone()}), Uncertain),
            ("Read(path=secret)", "Read", json!({"path": wrong.clone()}), Uncertain),
        ]);
    }
    // The keys that hold a list of paths: anything but a list of strings.
    for wrong in [json!(123), json!(".env"), json!({"0": ".env"}), Value::Null, json!([".env", 7]), json!([[".env"]])] {
        for key in ["file_paths", "file_globs"] {
            cases.push((READ_ENV, "Read", json!({key: wrong.clone()}), Uncertain));
        }
    }
    // A tool the rules do not model: a path argument that is not a string (or a list or object of
    // them) under a Read or Edit rule.
    for wrong in [json!(123), Value::Null, json!(true), json!([7]), json!({"x": null})] {
        for key in ["path", "paths", "file_path", "directory"] {
            cases.push((READ_ENV, "mcp__fs__read", json!({key: wrong.clone()}), Uncertain));
        }
    }
    cases.push((READ_ENV, "mcp__fs__read", json!({"count": 7, "name": null}), NoMatch));
    cases.extend([
        // A whole input that is not an object.
        (PUSH, "Bash", json!("git push"), Uncertain),
        (PUSH, "Bash", Value::Null, Uncertain),
        (READ_ENV, "Bash", json!(7), Uncertain),
        (READ_ENV, "Read", Value::Null, Uncertain),
        // An event's subject (its input `null`) is not a tool the path rules read.
        (READ_ENV, "startup", Value::Null, NoMatch),
        (READ_ENV, "Read", json!([".env"]), Uncertain),
        // The right types still decide as before.
        (PUSH, "Bash", json!({"command": "ls"}), NoMatch),
        (PUSH, "Bash", json!({"command": "git push"}), Match),
        (READ_ENV, "Read", json!({"file_path": "README.md"}), NoMatch),
        (READ_ENV, "Read", json!({"file_path": ".env"}), Match),
        // A field that is not a string by nature is tested as its JSON text, as documented.
        ("Bash(timeout=^600$)", "Bash", json!({"command": "ls", "timeout": 300}), NoMatch),
        ("Bash(timeout=^600$)", "Bash", json!({"command": "ls", "timeout": 600}), Match),
        // A field that is missing names nothing.
        (PUSH, "Bash", json!({}), NoMatch),
        (READ_ENV, "Read", json!({}), NoMatch),
    ]);
    check(cases);
}

#[test]
fn a_tool_the_rules_do_not_model_is_uncertain_under_a_read_or_edit_rule_on_a_path_it_names() {
    check(vec![
        // MCP tools: the key says it is a path, or the value looks like one.
        (READ_ENV, "mcp__fs__read_text_file", json!({"path": "/proj/.env"}), Uncertain),
        (EDIT_ENV, "mcp__fs__read_text_file", json!({"path": "/proj/.env"}), Uncertain),
        (READ_ENV, "mcp__fs__write_file", json!({"path": ".env", "content": "A=1"}), Uncertain),
        (READ_ENV, "mcp__fs__read_multiple_files", json!({"paths": ["a.txt", ".env"]}), Uncertain),
        (READ_ENV, "mcp__x__y", json!({"filePath": "sub/../.env"}), Uncertain),
        (READ_ENV, "mcp__x__y", json!({"options": {"target_file": ".env"}}), Uncertain),
        (READ_ENV, "mcp__x__y", json!({"note": "/proj/.env"}), Uncertain),
        (READ_ENV, "mcp__x__y", json!({"uri": "file:///proj/.env"}), Uncertain),
        (READ_ENV, "mcp__x__y", json!({"args": ["--in", "./.env"]}), Uncertain),
        (READ_ENV, "mcp__x__search", json!({"include": "**/.env*"}), Uncertain),
        ("Read(secrets/**)", "mcp__x__search", json!({"directory": "/proj/secrets"}), Uncertain),
        ("Read(secrets/**)", "mcp__x__search", json!({"directory": "secrets/"}), Uncertain),
        // Another client's tool hook-wire does not map.
        (READ_ENV, "list_directory", json!({"dir_path": "/proj/.env"}), Uncertain),
        (EDIT_ENV, "str_replace_editor", json!({"path": "/proj/.env", "command": "create"}), Uncertain),
        // Nothing it names is covered.
        (READ_ENV, "mcp__fs__read_text_file", json!({"path": "/proj/README.md"}), NoMatch),
        (READ_ENV, "mcp__x__y", json!({"note": "read the .env file", "count": 3}), NoMatch),
        (READ_ENV, "WebFetch", json!({"url": "https://example.com/.env"}), NoMatch),
        (READ_ENV, "list_directory", json!({"dir_path": "/proj"}), NoMatch),
        // A directory above a protected one: the tool may only list it.
        ("Read(secrets/**)", "list_directory", json!({"dir_path": "/proj"}), NoMatch),
        ("Edit(.aimon/**)", "mcp__x__y", json!({"cwd": "/proj", "root": "/"}), NoMatch),
        // Rules other than Read and Edit with a glob keep to their own tools.
        ("Write(./.env)", "mcp__fs__write_file", json!({"path": ".env"}), NoMatch),
        ("Read()", "mcp__fs__read_text_file", json!({"path": ".env"}), NoMatch),
        // The modelled tools are read as before: an Edit rule does not cover a Read.
        (EDIT_ENV, "Read", json!({"file_path": ".env"}), NoMatch),
    ]);
}

#[test]
fn the_keys_client_arguments_are_mapped_onto_decide_as_their_arguments_mean() {
    check(vec![
        // `file_globs` (read_many_files' paths and include): a path, a directory read whole, a glob.
        (READ_ENV, "Read", json!({"file_globs": [".env"]}), Match),
        (READ_ENV, "Read", json!({"file_globs": ["README.md", ".env"]}), Uncertain),
        (READ_ENV, "Read", json!({"file_globs": ["."]}), Uncertain),
        (READ_ENV, "Read", json!({"file_globs": ["/proj"]}), Uncertain),
        (READ_ENV, "Read", json!({"file_globs": ["*.env"]}), Uncertain),
        (READ_ENV, "Read", json!({"file_globs": ["src", "**/.e*"]}), Uncertain),
        (READ_ENV, "Read", json!({"file_globs": ["src/**/*.rs", "README.md"]}), NoMatch),
        (READ_ENV, "Read", json!({"file_globs": []}), Uncertain),
        ("Read(src/**)", "Read", json!({"file_globs": ["src/a.rs", "src/b.rs"]}), Match),
        ("Read(src/**)", "Read", json!({"file_globs": ["src/*.rs"]}), Uncertain),
        // A Bash call's own directory (`cwd`): tested there and in the call's directory.
        (READ_ENV, "Bash", json!({"command": "cat .env", "cwd": "/proj"}), Match),
        (READ_ENV, "Bash", json!({"command": "cat ../.env", "cwd": "sub"}), Uncertain),
        (READ_ENV, "Bash", json!({"command": "cat ../.env", "cwd": "/proj/sub"}), Uncertain),
        (READ_ENV, "Bash", json!({"command": "cat README.md", "cwd": "sub"}), NoMatch),
        (EDIT_ENV, "Bash", json!({"command": "echo A=1 > .env", "cwd": "."}), Match),
        // Text a POSIX shell may not read (`shell`): every Bash rule is uncertain at most.
        (PUSH, "Bash", json!({"command": "git push", "shell": "powershell"}), Uncertain),
        (PUSH, "Bash", json!({"command": "Get-ChildItem", "shell": "powershell"}), Uncertain),
        (PUSH, "Bash", json!({"command": "y", "shell": "input"}), Uncertain),
        (PUSH_RE, "Bash", json!({"command": "ls", "shell": "input"}), Uncertain),
        (PUSH, "Bash", json!({"command": "ls", "shell": "bash"}), NoMatch),
        (READ_ENV, "Bash", json!({"command": "cat .env", "shell": "powershell"}), Uncertain),
        (READ_ENV, "Bash", json!({"command": "Get-Content README.md", "shell": "powershell"}), NoMatch),
        ("Bash", "Bash", json!({"command": "ls", "shell": "powershell"}), Match),
    ]);
}
