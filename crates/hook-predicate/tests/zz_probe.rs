use hook_predicate::{Call, PathAnchors, parse};
use serde_json::json;
#[test]
fn probe() {
    let anchors = PathAnchors::new("/proj").with_home("/home/u");
    let text = std::fs::read_to_string("/tmp/probe.txt").unwrap();
    for line in text.split("\n---\n") {
        let line = line.trim_end_matches('\n');
        for rule in ["Bash(rm -rf:*)", "Bash(git push --force:*)", "Bash(git reset --hard:*)", "Read(./.env)"] {
            let p = parse(rule, &anchors).unwrap();
            let v = p.verdict(&Call::new("Bash", &json!({"command": line})));
            println!("{rule:28} {v:?} <= {line:?}");
        }
        println!("read-only: {:?}", hook_shell::read_only(line));
    }
}
