//! The lexer checked against bash itself: generated command lines are run by `bash` with stub
//! programs that record the argv they receive, and every argv bash ran must be one of the
//! analysis's views of the command (or the analysis must say it could not see it).

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Stdio};

use proptest::prelude::*;

use crate::analyse::analyse;

/// The stub programs, each recording `name arg…`.
const STUBS: [&str; 2] = ["p", "q"];

fn stub_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temporary directory");
    for name in STUBS {
        let path = dir.path().join(name);
        // Each field ends with a NUL; a record ends with a field holding only RS (0x1e).
        let script = format!("#!/bin/sh\nprintf '%s\\0' {name} \"$@\" \"$(printf '\\036')\" >> \"$ORACLE_LOG\"\n");
        std::fs::write(&path, script).expect("stub written");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("stub made executable");
    }
    std::os::unix::fs::symlink(bash(), dir.path().join("bash")).expect("bash linked into the stub directory");
    dir
}

/// The machine's bash (the tests need it: it is the reference).
fn bash() -> std::path::PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join("bash"))
        .find(|candidate| candidate.is_file())
        .expect("bash is installed: the lexer is checked against it")
}

/// What bash ran: each stub call's argv; `None` when bash refused the syntax.
fn bash_runs(dir: &Path, command: &str) -> Option<Vec<Vec<String>>> {
    let (runs, refused) = bash_log(dir, command);
    (!refused).then_some(runs)
}

/// Each stub call's argv, and whether bash refused the syntax (it may have run lines before).
fn bash_log(dir: &Path, command: &str) -> (Vec<Vec<String>>, bool) {
    bash_log_in(dir, command, &[])
}

/// [`bash_log`] with `env` set for bash besides PATH.
fn bash_log_in(dir: &Path, command: &str, env: &[(&str, &str)]) -> (Vec<Vec<String>>, bool) {
    let log = dir.join("log");
    let _ = std::fs::remove_file(&log);
    let mut child = Command::new(bash())
        .args(["--norc", "--noprofile", "-c", command])
        .env_clear()
        .envs(env.iter().copied())
        .env("PATH", dir)
        .env("ORACLE_LOG", &log)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("bash runs");
    drop(child.stdin.take().map(|mut s| s.write_all(b"")));
    let refused = child.wait().expect("bash ends").code() == Some(2);
    let text = std::fs::read(&log).unwrap_or_default();
    let mut runs = Vec::new();
    let mut argv = Vec::new();
    for field in text.split(|&b| b == 0) {
        match field {
            [0x1e] => runs.push(std::mem::take(&mut argv)),
            _ => argv.push(String::from_utf8_lossy(field).into_owned()),
        }
    }
    (runs, refused)
}

/// A word of the generated language: plain text, quotes of every kind, escapes, expansions.
fn word() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-c]{1,3}",
        Just("'a b'".to_owned()),
        Just("\"a b\"".to_owned()),
        Just("\"$'x'\"".to_owned()),
        Just("$'a\\x62'".to_owned()),
        Just("$'\\''".to_owned()),
        Just("a\\ b".to_owned()),
        Just("\\p".to_owned()),
        Just("p''".to_owned()),
        Just("\"\"q".to_owned()),
        Just("'#'".to_owned()),
        Just("a#b".to_owned()),
        Just("\"a\\\"b\"".to_owned()),
        Just("\"a\\$b\"".to_owned()),
        Just("'a\\'".to_owned()),
        Just("a\\\nb".to_owned()),
        Just("$'\\n'".to_owned()),
        Just("x=1".to_owned()),
        Just("\"\"".to_owned()),
        Just("{a}".to_owned()),
        Just("a}".to_owned()),
        Just("]".to_owned()),
        Just("${x:-'}'}".to_owned()),
        Just("${x:-\"}\"}".to_owned()),
        Just("\"${x:-\"a}\"}\"".to_owned()),
        Just("${x:-$'\\''}".to_owned()),
        Just("'${x:-'}".to_owned()),
    ]
}

/// A simple command: optional assignments, a program (a stub, maybe spelled with quotes), words.
fn simple() -> impl Strategy<Value = String> {
    let program = prop_oneof![
        Just("p".to_owned()),
        Just("q".to_owned()),
        Just("'p'".to_owned()),
        Just("\"q\"".to_owned()),
        Just("\\p".to_owned()),
        Just("p''".to_owned()),
        Just("$'\\x71'".to_owned()),
    ];
    (proptest::option::of(Just("A=1 ")), program, proptest::collection::vec(word(), 0..4))
        .prop_map(|(assign, program, words)| format!("{}{program} {}", assign.unwrap_or_default(), words.join(" ")))
}

/// Commands joined by operators and grouped the ways bash groups them.
fn command_line() -> impl Strategy<Value = String> {
    let leaf = simple();
    leaf.prop_recursive(3, 12, 3, |inner| {
        prop_oneof![
            (
                inner.clone(),
                prop_oneof![Just(" ; "), Just(" && "), Just(" || "), Just(" | "), Just("\n"), Just(" & ")],
                inner.clone()
            )
                .prop_map(|(a, op, b)| format!("{a}{op}{b}")),
            inner.clone().prop_map(|a| format!("( {a} )")),
            inner.clone().prop_map(|a| format!("{{ {a}; }}")),
            inner.clone().prop_map(|a| format!("echo $( {a} )")),
            inner.clone().prop_map(|a| format!("if {a}; then {a}; fi")),
            inner.clone().prop_map(|a| format!("f() {{ {a}; }}; f")),
            inner.clone().prop_map(|a| format!("function g {{ {a}; }}; g")),
            inner.clone().prop_map(|a| format!("case x in x) {a};; esac")),
            inner.clone().prop_map(|a| format!("[[ a =~ (b|c) ]] || {a}")),
            inner.clone().prop_map(|a| format!("for ((i=0;i<1;i++)); do {a}; done")),
            inner.prop_map(|a| format!("bash -c '{}'", a.replace('\'', "'\\''"))),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    /// Every argv bash gives a stub is a view of the analysis, unless the analysis said it could
    /// not see everything.
    #[test]
    fn every_command_bash_runs_is_a_view_of_the_analysis(command in command_line()) {
        let dir = stub_dir();
        let Some(runs) = bash_runs(dir.path(), &command) else { return Ok(()) };
        let analysis = analyse(&command);
        if analysis.uncertain {
            return Ok(());
        }
        for argv in runs {
            let seen = analysis.views.iter().any(|v| {
                v.words.len() == argv.len() && v.words.iter().zip(&argv).all(|(w, a)| !w.known || w.text == *a)
            });
            prop_assert!(seen, "bash ran {:?} for {:?}; views: {:?}", argv, command,
                analysis.views.iter().map(|v| &v.text).collect::<Vec<_>>());
        }
    }

    /// A line the analysis says runs nothing (no view, not uncertain: bash refuses it before
    /// running any of it) runs no stub.
    #[test]
    fn a_line_analysed_as_running_nothing_runs_nothing(
        command in command_line(),
        tail in prop_oneof![Just(" 'x"), Just(" \"x"), Just("'"), Just(" p \"$(p)"), Just("\np 'x")],
    ) {
        let command = format!("{command}{tail}");
        let analysis = analyse(&command);
        if analysis.uncertain || !analysis.views.is_empty() {
            return Ok(());
        }
        let dir = stub_dir();
        let (runs, _) = bash_log(dir.path(), &command);
        prop_assert!(runs.is_empty(), "bash ran {:?} for {:?}, analysed as running nothing", runs, command);
    }
}

/// With the client's `TMPDIR` known, bash run with that `TMPDIR` gives the stubs exactly the
/// words the analysis read: each argv is a view whose every word is known, in every spelling of
/// the expansion the analysis reads, and a line that may change the variable first is read as
/// not knowing it.
#[test]
fn the_clients_tmpdir_reads_as_bash_expands_it() {
    let value = "/tmp/oracle-u";
    let _scope = crate::ClientTmpdir::enter(Some(value));
    let known = [
        "p $TMPDIR/build",
        "p \"$TMPDIR\"/x \"${TMPDIR}\"y",
        "p ${TMPDIR:-/elsewhere}/a ${TMPDIR-/e}",
        "q x$TMPDIR 'lit'$TMPDIR\"/q\"",
        "p $TMPDIR; q ${TMPDIR}/z | p",
    ];
    let dir = stub_dir();
    for command in known {
        let analysis = analyse(command);
        let (runs, refused) = bash_log_in(dir.path(), command, &[("TMPDIR", value)]);
        assert!(!refused && !runs.is_empty(), "bash ran {command}");
        for argv in runs {
            let seen = analysis.views.iter().any(|v| {
                v.words.len() == argv.len() && v.words.iter().zip(&argv).all(|(w, a)| w.known && w.text == *a)
            });
            assert!(
                seen,
                "bash ran {argv:?} for {command}; views: {:?}",
                analysis.views.iter().map(|v| &v.text).collect::<Vec<_>>()
            );
        }
    }
    for command in
        ["TMPDIR=/ p $TMPDIR", "export TMPDIR=/; p $TMPDIR", "v=TMP; export ${v}DIR=/; p $TMPDIR", "p $TMPDIR/../x"]
    {
        let analysis = analyse(command);
        let p = analysis.views.iter().find(|v| v.innermost && v.words.first().is_some_and(|w| w.text == "p"));
        assert!(p.is_some_and(|v| v.has_unknown()), "{command}: read as knowing TMPDIR");
    }
}
