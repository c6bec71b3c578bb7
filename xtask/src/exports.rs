//! Every library crate's public names, snapshotted: `xtask/snapshots/<crate>.exports` lists what
//! its `lib.rs` makes public (the names of its `pub use` block and any `pub` item), one a line,
//! sorted. `check-layers` fails when a crate's surface differs from its snapshot, so a new export
//! (or a lost one) is a visible diff in review; `--write-docs` rewrites the snapshots.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result};

use crate::public_api::public_names;

/// The directory of the snapshots, under the workspace root.
const DIR: &str = "xtask/snapshots";

/// The snapshot text of one `lib.rs`: an inline `pub mod m { … }` lists its names as `m::name`.
pub(crate) fn snapshot(lib_rs: &str) -> String {
    let (mut rest, mut names) = (lib_rs.to_owned(), Vec::new());
    while let Some((module, start, end)) = inline_pub_mod(&rest) {
        names.extend(public_names(&rest[start..end]).into_iter().map(|n| format!("{module}::{n}")));
        names.push(module);
        // The whole `pub mod m { … }` goes, so the next search starts past it.
        let line_start = rest[..start].trim_end_matches('\n').rfind('\n').map_or(0, |i| i + 1);
        rest.replace_range(line_start..=end, "");
    }
    names.extend(public_names(&rest));
    names.sort();
    names.dedup();
    names.iter().map(|n| format!("{n}\n")).collect()
}

/// The first inline `pub mod NAME {` of `text` (outside comment lines): its name and the byte range
/// of its body between the braces.
fn inline_pub_mod(text: &str) -> Option<(String, usize, usize)> {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim();
        if let Some(name) = trimmed.strip_prefix("pub mod ").and_then(|r| r.strip_suffix('{')) {
            let start = offset + line.len();
            let mut depth = 1usize;
            for (i, c) in text[start..].char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 1 => return Some((name.trim().to_owned(), start, start + i)),
                    '}' => depth -= 1,
                    _ => {}
                }
            }
            return None;
        }
        offset += line.len();
    }
    None
}

/// Every crate under `crates/` with a `lib.rs`, with its snapshot text.
fn surfaces(root: &Path) -> Result<BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(root.join("crates")).context("reading crates/")? {
        let dir = entry?.path();
        let lib = dir.join("src/lib.rs");
        let Some(name) = dir.file_name().and_then(|n| n.to_str()) else { continue };
        if lib.is_file() {
            let text = std::fs::read_to_string(&lib).with_context(|| format!("reading {}", lib.display()))?;
            out.insert(name.to_owned(), snapshot(&text));
        }
    }
    Ok(out)
}

/// One sentence per crate whose surface differs from its snapshot (or has none, or a snapshot
/// whose crate is gone); with `write`, rewrites the snapshots instead.
pub(crate) fn check(root: &Path, write: bool) -> Result<Vec<String>> {
    let surfaces = surfaces(root)?;
    let dir = root.join(DIR);
    let mut problems = Vec::new();
    let mut stored: BTreeMap<String, String> = BTreeMap::new();
    if dir.is_dir() {
        for entry in std::fs::read_dir(&dir)? {
            let path = entry?.path();
            if let (Some(stem), Some("exports")) =
                (path.file_stem().and_then(|s| s.to_str()), path.extension().and_then(|e| e.to_str()))
            {
                stored.insert(stem.to_owned(), std::fs::read_to_string(&path)?);
            }
        }
    }
    for (name, text) in &surfaces {
        if stored.get(name) == Some(text) {
            continue;
        }
        if write {
            std::fs::create_dir_all(&dir)?;
            std::fs::write(dir.join(format!("{name}.exports")), text)?;
            println!("check-layers: rewrote {DIR}/{name}.exports");
        } else {
            problems.push(describe(name, stored.get(name).map(String::as_str), text));
        }
    }
    for name in stored.keys().filter(|n| !surfaces.contains_key(*n)) {
        if write {
            std::fs::remove_file(dir.join(format!("{name}.exports")))?;
            println!("check-layers: removed {DIR}/{name}.exports (no such crate)");
        } else {
            problems.push(format!(
                "{DIR}/{name}.exports: no crate crates/{name} has a lib.rs any more; run `cargo xtask check-layers --write-docs`"
            ));
        }
    }
    Ok(problems)
}

/// The sentence for a crate whose surface is not its snapshot: what was added and removed.
fn describe(name: &str, stored: Option<&str>, now: &str) -> String {
    let Some(stored) = stored else {
        return format!(
            "{name} has no {DIR}/{name}.exports snapshot of its public names; run `cargo xtask check-layers --write-docs`"
        );
    };
    let before: Vec<&str> = stored.lines().collect();
    let after: Vec<&str> = now.lines().collect();
    let added: Vec<&str> = after.iter().filter(|n| !before.contains(n)).copied().collect();
    let removed: Vec<&str> = before.iter().filter(|n| !after.contains(n)).copied().collect();
    format!(
        "{name}'s public names differ from {DIR}/{name}.exports (added: {}; removed: {}); if that is meant, run `cargo xtask check-layers --write-docs` and let the diff show it",
        if added.is_empty() { "none".to_owned() } else { added.join(", ") },
        if removed.is_empty() { "none".to_owned() } else { removed.join(", ") },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_snapshot_lists_the_pub_use_leaves_and_pub_items_sorted() {
        let lib = "//! docs\nmod a;\npub use crate::{a::{Zeta, Alpha as Renamed}, b::beta};\npub(crate) use c::Hidden;\npub mod store_support;\npub use tokio_util::sync::CancellationToken;\n";
        assert_eq!(snapshot(lib), "CancellationToken\nRenamed\nZeta\nbeta\nstore_support\n");
        let inline =
            "pub use a::A;\n/// helpers\npub mod store_support {\n    pub use crate::store::{encode, decode};\n}\n";
        assert_eq!(snapshot(inline), "A\nstore_support\nstore_support::decode\nstore_support::encode\n");
    }

    #[test]
    fn a_changed_surface_says_what_was_added_and_removed() {
        let sentence = describe("hook-x", Some("A\nB\n"), "B\nC\n");
        assert!(sentence.contains("(added: C; removed: A)"), "{sentence}");
        assert!(describe("hook-x", None, "A\n").contains("has no xtask/snapshots/hook-x.exports"));
    }
}
