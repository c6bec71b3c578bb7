use hook_predicate::{Call, PathAnchors, parse};
use serde_json::json;
#[test]
fn probe() {
    let anchors = PathAnchors::new("/proj").with_home("/home/u");
    let text = std::fs::read_to_string("/tmp/probe.txt").unwrap();
    let rules: Vec<String> = match std::fs::read_to_string("/tmp/rules.txt") {
        Ok(r) => r.lines().map(str::to_owned).collect(),
        Err(_) => ["Bash(rm -rf:*)", "Bash(git push --force:*)", "Bash(git reset --hard:*)", "Read(./.env)"]
            .map(str::to_owned)
            .to_vec(),
    };
    for line in text.split("\n---\n") {
        let line = line.trim_end_matches('\n');
        for rule in &rules {
            let Ok(p) = parse(rule, &anchors) else {
                println!("PARSE FAIL {rule}");
                continue;
            };
            let v = p.verdict(&Call::new("Bash", &json!({"command": line})));
            println!("{rule:.80} {v:?} <= {line:?}");
        }
        println!("read-only: {:?}", hook_shell::read_only(line));
    }
}
