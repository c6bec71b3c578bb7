//! One call that touches several paths (`file_paths`, which hook-wire gives Codex's
//! `apply_patch`): a path rule matches when every path does, is uncertain when some do (so a deny
//! holds and an allow does not), and is uncertain when the paths could not be read (`null`).

use std::path::Path;

use hook_predicate::{Call, PathAnchors, Verdict, parse};
use serde_json::{Value, json};

use Verdict::{Match, NoMatch, Uncertain};

#[test]
fn a_call_of_several_paths_matches_by_all_of_them_and_is_uncertain_by_some() {
    let anchors = PathAnchors::new("/proj").with_home("/home/u");
    #[rustfmt::skip]
    let cases: [(&str, &str, Value, Verdict); 13] = [
        ("Edit(./.env)", "Edit", json!({"file_paths": [".env"]}), Match),
        ("Edit(./.env)", "Edit", json!({"file_paths": ["sub/../.env"]}), Match),
        ("Edit(./.env)", "Edit", json!({"file_paths": ["src/lib.rs", ".env"]}), Uncertain),
        ("Edit(./.env)", "Edit", json!({"file_paths": ["src/lib.rs", "README.md"]}), NoMatch),
        ("Edit(src/**)", "Edit", json!({"file_paths": ["src/a.rs", "src/b/c.rs"]}), Match),
        ("Edit(src/**)", "Write", json!({"file_paths": ["src/new.rs", "docs/x.md"]}), Uncertain),
        ("Write(./.env)", "Write", json!({"file_paths": [".env"]}), Match),
        ("Write(./.env)", "Edit", json!({"file_paths": [".env"]}), NoMatch),
        // They take the place of `file_path`, which names only one of them.
        ("Edit(./.env)", "Edit", json!({"file_path": "README.md", "file_paths": ["README.md", ".env"]}), Uncertain),
        // Paths that could not be read.
        ("Edit(./.env)", "Edit", json!({"file_paths": null}), Uncertain),
        ("Edit(./.env)", "Edit", json!({"file_paths": []}), Uncertain),
        ("Edit(./.env)", "Edit", json!({"file_paths": [".env", 7]}), Uncertain),
        ("Edit(~/.ssh/**)", "Edit", json!({"file_paths": ["~/.ssh/config", "/home/u/.ssh/id_rsa"]}), Match),
    ];
    for (rule, tool, input, want) in cases {
        let predicate = parse(rule, &anchors).unwrap_or_else(|e| panic!("{rule}: {e}"));
        let got = predicate.verdict(&Call::new(tool, &input).in_dir(Some(Path::new("/proj"))));
        assert_eq!(got, want, "{rule} on {tool} {input}");
    }
}
