//! Properties over generated inputs (R-PRED-4, R-PRED-6). The fuzz target `parse_matcher` explores
//! further; these run in every `cargo test`.

use hook_predicate::{PathAnchors, parse};
use proptest::prelude::*;
use serde_json::{Value, json};

fn separator() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![";", "&&", "||", "|", "&", "\n", " ; ", " && ", "\n\n"])
}

fn wrapper() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "",
        "sudo ",
        "env A=1 ",
        "FOO=bar ",
        "nohup ",
        "time ",
        "command ",
        "xargs ",
        "timeout 5 ",
    ])
}

fn git_global_options() -> impl Strategy<Value = Vec<&'static str>> {
    prop::collection::vec(
        prop::sample::select(vec![
            "-C repo",
            "-C .",
            "-c k=v",
            "-c push.default=current",
            "--no-pager",
            "-P",
            "--paginate",
            "--git-dir=.git",
            "--git-dir .git",
            "--work-tree=.",
            "--work-tree push",
            "--bare",
            "--namespace=ns",
            "--no-optional-locks",
            "--literal-pathspecs",
        ]),
        0..5,
    )
}

proptest! {
    /// Known global options between `git` and its subcommand never hide it, and never make another
    /// subcommand look like it (R-PRED-4c).
    #[test]
    fn git_global_options_neither_hide_a_push_nor_fake_one(
        options in git_global_options(),
        // Builtins only: a subcommand git does not ship (`pushy`) may be an alias, which is uncertain.
        sub in prop::sample::select(vec!["status", "log", "pull", "fetch"]),
    ) {
        let predicate = parse("Bash(git push:*)", &PathAnchors::new("/p")).expect("parses");
        let options = options.join(" ");
        let push = format!("git {options} push origin main");
        prop_assert!(predicate.test("Bash", &json!({ "command": push })), "{push:?}");
        let other = format!("git {options} {sub} --all");
        prop_assert!(!predicate.test("Bash", &json!({ "command": other })), "{other:?}");
    }

    /// Whatever plain command comes first, chaining `git push` after it cannot hide it.
    #[test]
    fn a_chained_git_push_always_matches_the_prefix_rule(
        first in "[a-z0-9 =./-]{0,30}",
        sep in separator(),
        wrap in wrapper(),
        args in "[a-z0-9 -]{0,20}",
    ) {
        let predicate = parse("Bash(git push:*)", &PathAnchors::new("/p")).expect("parses");
        let command = format!("{first}{sep}{wrap}git push {args}");
        prop_assert!(predicate.test("Bash", &json!({ "command": command })), "{command:?}");
    }

    /// The same for a regex rule on `command`, with the subcommand in a substitution.
    #[test]
    fn an_embedded_rm_rf_always_matches_the_regex_rule(first in "[a-z0-9 ./-]{0,30}", sep in separator()) {
        let predicate = parse(r"Bash(command=^rm\s+-rf)", &PathAnchors::new("/p")).expect("parses");
        for command in [format!("{first}{sep}rm -rf /"), format!("{first} $(rm -rf /)"), format!("({first}{sep}rm -rf x)")] {
            prop_assert!(predicate.test("Bash", &json!({ "command": command })), "{command:?}");
        }
    }

    /// Any pattern parses or yields an error whose fallback is the pattern as an exact name (R-PRED-5);
    /// testing never panics and gives the same answer whether or not the analysis was memoised.
    #[test]
    fn any_pattern_and_any_command_are_handled_consistently(pattern in ".{0,40}", command in ".{0,80}") {
        let anchors = PathAnchors::new("/p").with_home("/h");
        let predicate = match parse(&pattern, &anchors) {
            Ok(predicate) => predicate,
            Err(error) => {
                prop_assert_eq!(error.pattern(), pattern.as_str());
                let fallback = error.fallback();
                prop_assert!(fallback.test(&pattern, &Value::Null));
                fallback
            }
        };
        let calls = [("Bash", json!({ "command": command })), ("Edit", json!({ "file_path": command })), (command.as_str(), Value::Null)];
        for (tool, input) in &calls {
            let first = predicate.test(tool, input);
            let _ = predicate.test("Bash", &json!({ "command": "something else" }));
            prop_assert_eq!(predicate.test(tool, input), first);
        }
    }
}
