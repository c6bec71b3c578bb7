//! The README lists every crate of the workspace: a crate added under `crates/` makes its row in
//! the README's crate table a requirement. (Its command table is checked against the built
//! binary's `--help` by hook-cli's `tests/cli/readme.rs`.)

use crate::layers::Graph;

/// One sentence per library or binary crate of `graph` (the `crates/` members: not xtask, not an
/// exempt test package) that `readme` has no `| `name` |` row for.
pub(crate) fn check_crates(readme: &str, graph: &Graph) -> Vec<String> {
    graph
        .members
        .iter()
        .filter(|m| *m != "xtask" && !graph.layers.get(*m).is_some_and(|l| l.exempt))
        .filter(|m| !readme.lines().any(|l| l.starts_with(&format!("| `{m}` |"))))
        .map(|m| format!("README.md has no row for the crate {m} in its crate table (| `{m}` | … |); add one"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layers::Layer;

    fn graph(members: &[&str]) -> Graph {
        let mut g = Graph { members: members.iter().map(|m| m.to_string()).collect(), ..Graph::default() };
        let tests = Layer { layer: 9, role: String::new(), forbid: vec![], feature_only: vec![], exempt: true };
        g.layers.insert("aimon-hooks-tests".to_owned(), tests);
        g
    }

    #[test]
    fn a_crate_without_a_row_is_named_and_xtask_and_the_tests_package_need_none() {
        let g = graph(&["hook-core", "hook-wire", "xtask", "aimon-hooks-tests"]);
        let readme = "| crate | use |\n|---|---|\n| `hook-core` | the engine |\n";
        assert_eq!(
            check_crates(readme, &g),
            ["README.md has no row for the crate hook-wire in its crate table (| `hook-wire` | … |); add one"]
        );
        assert!(check_crates(&format!("{readme}| `hook-wire` | the wire |\n"), &g).is_empty());
    }
}
