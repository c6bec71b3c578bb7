//! The example prints what each hook did to each call of the toy loop.

use std::process::Command;

#[test]
fn the_deny_hook_cancels_rm_rf_and_the_rewrites_reach_the_tool_and_its_result() {
    let out = Command::new(env!("CARGO_BIN_EXE_example-core-loop")).output().expect("run the example");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8(out.stdout).expect("utf-8");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines,
        [
            r#"pre_tool "ls": proceed with "ls -1""#,
            r#"post_tool "ls": "Cargo.toml\nsrc""#,
            r#"pre_tool "rm -rf /": denied: rm -rf is not allowed here"#,
            r#"pre_tool "cat .env": proceed with "cat .env""#,
            r#"post_tool "cat .env": "TOKEN=******""#,
        ]
    );
}
