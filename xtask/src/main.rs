//! `cargo xtask`: workspace checks that keep the architecture honest.
//!
//! - `cargo xtask check-layers` — the layer rules of R-LAYER-1…5 (workspace edges, forbidden
//!   heavy crates in resolved graphs, crates allowed only behind a cargo feature, hook-predicate's public surface, event-name literals, Claude Code output-key literals) and
//!   the crate table of `docs/architecture.md`, which is rendered from the same layer table,
//!   and that every requirement id cited in `crates/` or `xtask/` has a line in
//!   `docs/behaviour.md`, and that no file but the CLI's allocator switch and the exec guard's
//!   spawn and relay modules allows unsafe code (and that `docs/architecture.md` names those
//!   modules), and that no crate's modules import each other in a cycle (`modules`). Drift
//!   checks: the README's `hook-wire` row names every client and its documentation list every
//!   page of `docs/`; the about text of `aimon-hooks --help` names every command (`cli_about`); no
//!   library reads the process environment outside the places `environment` lists, with why.
//!   The event tables of `docs/config.md` and `docs/cli.md` are rendered from hook-core's events
//!   table the same way, the README must have a row for every crate, and every library crate's
//!   public names must equal its snapshot `xtask/snapshots/<crate>.exports`; the rule tables of
//!   `docs/packs.md` are rendered from the packs built into the binary.
//! - `cargo xtask check-layers --write-docs` — re-renders those tables and snapshots in place.
//!
//! Every check is also a `#[test]` (see `tests` in each module), so `cargo test` enforces it.

mod cli_about;
mod docs;
mod environment;
mod event_tables;
mod exports;
mod layers;
mod literals;
mod modules;
mod packs_doc;
mod public_api;
mod readme;
mod regions;
mod requirements;
mod unsafe_code;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("check-layers") => check_layers(args.iter().any(|a| a == "--write-docs")),
        _ => {
            eprintln!("usage: cargo xtask check-layers [--write-docs]");
            return ExitCode::from(1);
        }
    };
    match result {
        Ok(problems) if problems.is_empty() => {
            println!("check-layers: ok");
            ExitCode::SUCCESS
        }
        Ok(problems) => {
            for p in &problems {
                eprintln!("error: {p}");
            }
            eprintln!("check-layers: {} problem(s)", problems.len());
            ExitCode::from(1)
        }
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::from(1)
        }
    }
}

/// The workspace root (xtask lives one level below it).
fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask sits inside the workspace").to_path_buf()
}

/// Runs every check; returns one sentence per problem.
fn check_layers(write_docs: bool) -> Result<Vec<String>> {
    let root = workspace_root();
    let metadata = cargo_metadata::MetadataCommand::new()
        .manifest_path(root.join("Cargo.toml"))
        .exec()
        .context("running cargo metadata")?;
    let plain = cargo_metadata::MetadataCommand::new()
        .manifest_path(root.join("Cargo.toml"))
        .features(cargo_metadata::CargoOpt::NoDefaultFeatures)
        .exec()
        .context("running cargo metadata --no-default-features")?;
    let graph = layers::Graph::from_metadata(&metadata, &plain)?;
    let mut problems = graph.check();

    let lib = std::fs::read_to_string(root.join("crates/hook-predicate/src/lib.rs"))?;
    problems.extend(public_api::check_predicate_surface(&lib));

    problems.extend(literals::check_event_literals(&root)?);
    problems.extend(environment::check_environment_reads(&root)?);
    problems.extend(requirements::check_cited_ids(&root)?);
    problems.extend(unsafe_code::check_unsafe_code(&root)?);
    problems.extend(modules::check_module_cycles(&root)?);

    problems.extend(generated_docs(&root, &graph, write_docs)?);
    problems.extend(exports::check(&root, write_docs)?);

    let arch = root.join("docs/architecture.md");
    let text = std::fs::read_to_string(&arch).with_context(|| format!("reading {}", arch.display()))?;
    let rendered = docs::render_into(&text, &graph)?;
    if rendered != text {
        if write_docs {
            std::fs::write(&arch, rendered)?;
            println!("check-layers: rewrote the crate table in docs/architecture.md");
        } else {
            problems.push(
                "docs/architecture.md: the crate table is out of date with [workspace.metadata.layers]; run `cargo xtask check-layers --write-docs`"
                    .to_owned(),
            );
        }
    }
    Ok(problems)
}

/// The tables rendered from the events table and the README's crate rows.
fn generated_docs(root: &Path, graph: &layers::Graph, write_docs: bool) -> Result<Vec<String>> {
    let mut problems = regions::check_file(
        root,
        "docs/config.md",
        &[(event_tables::CONFIG_EVENTS, event_tables::config_table())],
        write_docs,
    )?;
    problems.extend(regions::check_file(
        root,
        "docs/cli.md",
        &[(event_tables::CLAUDE_EVENTS, event_tables::claude_table())],
        write_docs,
    )?);
    problems.extend(regions::check_file(
        root,
        "docs/packs.md",
        &[(packs_doc::PACKS, packs_doc::render())],
        write_docs,
    )?);
    let readme = std::fs::read_to_string(root.join("README.md")).context("reading README.md")?;
    problems.extend(readme::check_crates(&readme, graph));
    problems.extend(readme::check_clients(&readme));
    problems.extend(readme::check_doc_list(&readme, root));
    problems.extend(cli_about::check(root)?);
    Ok(problems)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_workspace_passes_check_layers() {
        let problems = super::check_layers(false).unwrap();
        assert!(problems.is_empty(), "{problems:#?}");
    }
}
