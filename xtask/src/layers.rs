//! R-LAYER-1/2/5: workspace edges point down, no crate pulls a forbidden heavy crate, and a crate
//! that may pull one only through a cargo feature does not pull it without features.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use anyhow::{Context, Result, bail};
use cargo_metadata::{DependencyKind, Metadata, PackageId};

/// One row of `[workspace.metadata.layers]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Layer {
    pub(crate) layer: u32,
    pub(crate) role: String,
    pub(crate) forbid: Vec<String>,
    /// External crates the crate may pull only through a cargo feature: absent from its graph
    /// when the workspace resolves with `--no-default-features` (an embedder's default build).
    pub(crate) feature_only: Vec<String>,
    /// Exempt from the edge rule (the workspace-level `tests/` package).
    pub(crate) exempt: bool,
}

/// A declared edge between two workspace crates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Edge {
    pub(crate) from: String,
    pub(crate) to: String,
    pub(crate) kind: &'static str,
}

/// The workspace as the checks see it.
#[derive(Debug, Default)]
pub(crate) struct Graph {
    pub(crate) layers: BTreeMap<String, Layer>,
    pub(crate) members: Vec<String>,
    pub(crate) edges: Vec<Edge>,
    /// For each member: every crate in its normal/build dependency closure, with the path that pulls it.
    pub(crate) closure: Closures,
    /// The same closures with no feature of any member turned on (`--no-default-features`).
    pub(crate) plain_closure: Closures,
}

/// Per member: every crate of its normal/build dependency closure, with the first path to it.
pub(crate) type Closures = BTreeMap<String, BTreeMap<String, Vec<String>>>;

fn strings(row: &serde_json::Value, key: &str) -> Vec<String> {
    row.get(key)
        .and_then(|v| v.as_array())
        .map(|a| a.iter().filter_map(|s| s.as_str().map(str::to_owned)).collect())
        .unwrap_or_default()
}

impl Graph {
    /// The graph of `metadata` (default features), with `plain` the same workspace resolved with
    /// `--no-default-features`.
    pub(crate) fn from_metadata(metadata: &Metadata, plain: &Metadata) -> Result<Graph> {
        let table = metadata
            .workspace_metadata
            .get("layers")
            .and_then(|v| v.as_object())
            .context("the root Cargo.toml has no [workspace.metadata.layers] table")?;
        let mut layers = BTreeMap::new();
        for (name, row) in table {
            let layer = row.get("layer").and_then(|v| v.as_u64()).with_context(|| format!("{name}: no `layer`"))?;
            let (forbid, feature_only) = (strings(row, "forbid"), strings(row, "feature_only"));
            let role = row.get("role").and_then(|v| v.as_str()).unwrap_or_default().to_owned();
            let exempt = row.get("exempt").and_then(|v| v.as_bool()).unwrap_or(false);
            layers.insert(name.clone(), Layer { layer: u32::try_from(layer)?, role, forbid, feature_only, exempt });
        }
        let members: Vec<String> = metadata.workspace_packages().iter().map(|p| p.name.to_string()).collect();
        let mut edges = Vec::new();
        for pkg in metadata.workspace_packages() {
            for dep in pkg.dependencies.iter().filter(|d| d.path.is_some()) {
                let kind = match dep.kind {
                    DependencyKind::Development => "dev",
                    DependencyKind::Build => "build",
                    _ => "normal",
                };
                edges.push(Edge { from: pkg.name.to_string(), to: dep.name.clone(), kind });
            }
        }
        let (closure, plain_closure) = (closures(metadata)?, closures(plain)?);
        Ok(Graph { layers, members, edges, closure, plain_closure })
    }

    /// One sentence per offending edge or crate.
    pub(crate) fn check(&self) -> Vec<String> {
        let mut problems = Vec::new();
        for member in &self.members {
            if !self.layers.contains_key(member) {
                problems.push(format!(
                    "{member} has no row in [workspace.metadata.layers] of the root Cargo.toml; give it a layer"
                ));
            }
        }
        for edge in &self.edges {
            let (Some(from), Some(to)) = (self.layers.get(&edge.from), self.layers.get(&edge.to)) else { continue };
            if from.exempt || to.layer < from.layer {
                continue;
            }
            let direction = if to.layer == from.layer { "sideways" } else { "upward" };
            problems.push(format!(
                "{} (layer {}) has a {} dependency on {} (layer {}), which points {direction}: a crate may depend only on crates of a lower layer",
                edge.from, from.layer, edge.kind, edge.to, to.layer
            ));
        }
        for (member, paths) in &self.closure {
            let Some(layer) = self.layers.get(member) else { continue };
            for forbidden in &layer.forbid {
                if let Some(path) = paths.get(forbidden) {
                    problems.push(format!(
                        "{member} must not depend on {forbidden}, but its resolved graph pulls it in via {}",
                        path.join(" -> ")
                    ));
                }
            }
        }
        for (member, paths) in &self.plain_closure {
            let Some(layer) = self.layers.get(member) else { continue };
            for optional in &layer.feature_only {
                if let Some(path) = paths.get(optional) {
                    problems.push(format!(
                        "{member} may pull {optional} only through a cargo feature, but without features its resolved graph pulls it in via {}",
                        path.join(" -> ")
                    ));
                }
            }
        }
        problems
    }
}

/// The closure of every workspace member in `metadata`'s resolve graph.
fn closures(metadata: &Metadata) -> Result<Closures> {
    let Some(resolve) = &metadata.resolve else { bail!("cargo metadata returned no resolve graph") };
    let names: BTreeMap<&PackageId, String> = metadata.packages.iter().map(|p| (&p.id, p.name.to_string())).collect();
    let nodes: BTreeMap<&PackageId, &cargo_metadata::Node> = resolve.nodes.iter().map(|n| (&n.id, n)).collect();
    let mut closure = BTreeMap::new();
    for pkg in metadata.workspace_packages() {
        // Breadth-first over normal and build edges; remember the first path to each crate.
        let mut paths: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let mut seen: BTreeSet<&PackageId> = BTreeSet::new();
        let mut queue = VecDeque::from([(&pkg.id, vec![pkg.name.to_string()])]);
        while let Some((id, path)) = queue.pop_front() {
            let Some(node) = nodes.get(id) else { continue };
            for dep in &node.deps {
                let runtime = dep.dep_kinds.iter().any(|k| k.kind != DependencyKind::Development);
                if !runtime || !seen.insert(&dep.pkg) {
                    continue;
                }
                let name = names[&dep.pkg].clone();
                let mut next = path.clone();
                next.push(name.clone());
                paths.entry(name).or_insert_with(|| next.clone());
                queue.push_back((&dep.pkg, next));
            }
        }
        closure.insert(pkg.name.to_string(), paths);
    }
    Ok(closure)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layer(n: u32, forbid: &[&str]) -> Layer {
        Layer {
            layer: n,
            role: String::new(),
            forbid: forbid.iter().map(|s| s.to_string()).collect(),
            feature_only: Vec::new(),
            exempt: false,
        }
    }

    fn fixture(edges: &[(&str, &str, &'static str)], pulls: &[(&str, &[&str])]) -> Graph {
        let layers: BTreeMap<String, Layer> = [
            ("hook-core", layer(0, &["reqwest", "notify"])),
            ("hook-predicate", layer(1, &["reqwest"])),
            ("hook-actions", layer(1, &[])),
            ("hook-config", layer(2, &[])),
            ("aimon-hooks-tests", Layer { exempt: true, ..layer(9, &[]) }),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
        let members = layers.keys().cloned().collect();
        let edges = edges.iter().map(|(f, t, k)| Edge { from: f.to_string(), to: t.to_string(), kind: k }).collect();
        let closure = pulls
            .iter()
            .map(|(member, path)| {
                let target = path.last().unwrap().to_string();
                (member.to_string(), BTreeMap::from([(target, path.iter().map(|s| s.to_string()).collect())]))
            })
            .collect();
        Graph { layers, members, edges, closure, plain_closure: Closures::new() }
    }

    #[test]
    fn a_downward_graph_passes() {
        let g = fixture(&[("hook-config", "hook-core", "normal"), ("hook-actions", "hook-core", "dev")], &[]);
        assert_eq!(g.check(), Vec::<String>::new());
    }

    #[test]
    fn an_upward_dev_edge_fails_with_a_sentence_naming_it() {
        // R-LAYER-1: dev-dependencies obey the rule too.
        let g = fixture(&[("hook-core", "hook-config", "dev")], &[]);
        assert_eq!(
            g.check(),
            [
                "hook-core (layer 0) has a dev dependency on hook-config (layer 2), which points upward: a crate may depend only on crates of a lower layer"
            ]
        );
    }

    #[test]
    fn a_sideways_edge_fails_but_the_tests_package_is_exempt() {
        let g =
            fixture(&[("hook-predicate", "hook-actions", "normal"), ("aimon-hooks-tests", "hook-config", "dev")], &[]);
        let problems = g.check();
        assert_eq!(problems.len(), 1);
        assert!(problems[0].contains("which points sideways"), "{problems:?}");
    }

    #[test]
    fn a_forbidden_crate_in_hook_core_graph_fails_with_its_path() {
        // R-LAYER-2
        let g = fixture(&[], &[("hook-core", &["hook-core", "some-helper", "reqwest"])]);
        assert_eq!(
            g.check(),
            [
                "hook-core must not depend on reqwest, but its resolved graph pulls it in via hook-core -> some-helper -> reqwest"
            ]
        );
    }

    #[test]
    fn a_crate_pulled_without_the_feature_that_should_bring_it_fails_with_its_path() {
        // R-LAYER-5: a Postgres client only behind a cargo feature.
        let mut g = fixture(&[], &[]);
        g.layers.get_mut("hook-config").expect("row").feature_only = vec!["tokio-postgres".to_owned()];
        assert_eq!(g.check(), Vec::<String>::new(), "not pulled without features: fine");
        let path = ["hook-config", "pg-store", "tokio-postgres"].map(str::to_owned).to_vec();
        g.plain_closure.insert("hook-config".to_owned(), BTreeMap::from([("tokio-postgres".to_owned(), path)]));
        assert_eq!(
            g.check(),
            [
                "hook-config may pull tokio-postgres only through a cargo feature, but without features its resolved graph pulls it in via hook-config -> pg-store -> tokio-postgres"
            ]
        );
    }

    #[test]
    fn a_member_without_a_layer_fails() {
        let mut g = fixture(&[], &[]);
        g.members.push("hook-extra".to_owned());
        assert_eq!(g.check().len(), 1);
    }
}
