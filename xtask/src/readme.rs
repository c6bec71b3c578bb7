//! The README lists every crate of the workspace: a crate added under `crates/` makes its row in
//! the README's crate table a requirement. Its `hook-wire` row names every client of
//! `hook_wire::Client::ALL` by its product name ([`CLIENTS`]), and its documentation list links
//! every page of `docs/` and only pages that exist. (Its command table is checked against the
//! built binary's `--help` by hook-cli's `tests/cli/readme.rs`.)

use std::path::Path;

use hook_wire::Client;

use crate::layers::Graph;

/// Each client's name (`Client::name`) and the product name the docs use for it.
const CLIENTS: &[(&str, &str)] = &[
    ("claude", "Claude Code"),
    ("gemini", "Gemini CLI"),
    ("qwen", "Qwen Code"),
    ("codex", "Codex"),
    ("copilot", "Copilot CLI"),
];

/// The README's `hook-wire` row names every client; [`CLIENTS`] knows every client.
pub(crate) fn check_clients(readme: &str) -> Vec<String> {
    check_clients_of(readme, &Client::ALL.iter().map(|c| c.name()).collect::<Vec<_>>())
}

fn check_clients_of(readme: &str, clients: &[&str]) -> Vec<String> {
    let mut problems = Vec::new();
    let row = readme.lines().find(|l| l.starts_with("| `hook-wire` |")).unwrap_or_default();
    for name in clients {
        match CLIENTS.iter().find(|(n, _)| n == name) {
            None => problems.push(format!(
                "the client {name} (hook_wire::Client::ALL) has no product name in CLIENTS (xtask/src/readme.rs); add it"
            )),
            Some((_, product)) if !row.contains(product) => problems.push(format!(
                "README.md: the hook-wire row of the crate table does not name the client {product} ({name})"
            )),
            Some(_) => {}
        }
    }
    for (name, _) in CLIENTS {
        if !clients.contains(name) {
            problems.push(format!("CLIENTS (xtask/src/readme.rs) names {name}, which hook_wire::Client::ALL lacks"));
        }
    }
    problems
}

/// The README's documentation list (the bullets under `## Documentation`) links every page of
/// `docs/` (`docs/X.md`) and only pages that exist.
pub(crate) fn check_doc_list(readme: &str, root: &Path) -> Vec<String> {
    let mut pages: Vec<String> = std::fs::read_dir(root.join("docs"))
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".md"))
        .collect();
    pages.sort();
    check_doc_list_of(readme, &pages)
}

fn check_doc_list_of(readme: &str, pages: &[String]) -> Vec<String> {
    let Some(start) = readme.find("\n## Documentation\n") else {
        return vec!["README.md has no `## Documentation` section".to_owned()];
    };
    let section = &readme[start + 1..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |e| e + 3)];
    let mut problems = Vec::new();
    for line in section.lines().filter(|l| l.starts_with("- ")) {
        match line.split_once("](docs/").and_then(|(_, rest)| rest.split_once(')')) {
            Some((page, _)) if !pages.iter().any(|p| p == page) => {
                problems.push(format!("README.md links docs/{page}, which does not exist"));
            }
            Some(_) => {}
            None => problems.push(format!("README.md: a documentation entry without a link to docs/: {line}")),
        }
    }
    for page in pages {
        if !section.contains(&format!("](docs/{page})")) {
            problems.push(format!("README.md: the documentation list does not link docs/{page}"));
        }
    }
    problems
}

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
    fn every_client_is_named_in_the_wire_row_and_known_to_the_table() {
        let row =
            "| `hook-wire` | one module per client: Claude Code, Gemini CLI, Qwen Code, Codex, Copilot CLI | x |\n";
        assert_eq!(check_clients(row), Vec::<String>::new());
        let three = "| `hook-wire` | one module per client: Claude Code, Gemini CLI, Qwen Code | x |\n";
        assert_eq!(
            check_clients(three),
            [
                "README.md: the hook-wire row of the crate table does not name the client Codex (codex)",
                "README.md: the hook-wire row of the crate table does not name the client Copilot CLI (copilot)",
            ]
        );
        let more = check_clients_of(row, &["claude", "gemini", "qwen", "codex", "copilot", "cursor"]);
        assert_eq!(
            more,
            ["the client cursor (hook_wire::Client::ALL) has no product name in CLIENTS (xtask/src/readme.rs); add it"]
        );
    }

    #[test]
    fn the_documentation_list_links_every_page_and_only_pages_that_exist() {
        let pages = ["a.md".to_owned(), "b.md".to_owned()];
        let good =
            "# R\n## Documentation\n\n- [docs/a.md](docs/a.md) — a.\n- [docs/b.md](docs/b.md) — b.\n\n## Next\n- x\n";
        assert_eq!(check_doc_list_of(good, &pages), Vec::<String>::new());
        let coming =
            good.replace("- [docs/b.md](docs/b.md) — b.", "- docs/b.md (coming) — b.\n- [docs/c.md](docs/c.md) — c.");
        assert_eq!(
            check_doc_list_of(&coming, &pages),
            [
                "README.md: a documentation entry without a link to docs/: - docs/b.md (coming) — b.",
                "README.md links docs/c.md, which does not exist",
                "README.md: the documentation list does not link docs/b.md",
            ]
        );
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
