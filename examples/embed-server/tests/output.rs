//! The example's three calls: the app's own route, the hook routes refused without the app's
//! key, and answered with it (the project's deny hook denies `rm -rf`).

use std::process::Command;

#[test]
fn the_app_route_answers_and_the_hook_routes_answer_only_behind_the_apps_key() {
    let out = Command::new(env!("CARGO_BIN_EXE_example-embed-server")).output().expect("run the example");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8(out.stdout).expect("utf-8");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines,
        [
            "GET /status: 200 OK my app is up",
            "POST /hooks/v1/run/PreToolUse without a key: 401 Unauthorized",
            r#"POST /hooks/v1/run/PreToolUse with the key: 200 OK outcome="denied" reason="rm -rf is not allowed""#,
        ]
    );
}
