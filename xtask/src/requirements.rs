//! Every requirement id cited in `crates/` or `xtask/` has a line in `docs/behaviour.md`.
//!
//! Ids are cited in two spellings: `R-CFG-RW-3`, `REL-5`, `PERF-4` in text, and in snake case
//! inside identifiers (`…_per_r_cfg_rw_3`). Snake-case ids are read with the prefixes the hyphen
//! spellings use (anywhere in the scanned files or the page), so `r_cfg_rw_3` is `R-CFG-RW-3`
//! and not a guess. A documented id is a list item opening `- **<id>**`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use anyhow::{Context, Result};
use regex::Regex;

const PAGE: &str = "docs/behaviour.md";

/// `R-<WORDS>-<n>[letter]`, `REL-<n>`, `PERF-<n>`, `PERF-SRV-<n>`.
fn hyphen_ids() -> Regex {
    Regex::new(r"\b(?:R(?:-[A-Z]+)+-[0-9]+[a-z]?|REL-[0-9]+|PERF(?:-SRV)?-[0-9]+)\b").expect("valid regex")
}

/// The ids documented on the page: one list item each.
fn documented(page: &str) -> BTreeSet<String> {
    let item = Regex::new(r"(?m)^- \*\*([A-Za-z0-9-]+)\*\*").expect("valid regex");
    item.captures_iter(page).map(|c| c[1].to_owned()).collect()
}

/// The prefixes (`R-CFG-RW`, `REL`, …) of every hyphen-spelled id in `texts`, as lower-case
/// token lists (`["r", "cfg", "rw"]`).
fn prefixes<'a>(texts: impl Iterator<Item = &'a str>) -> BTreeSet<Vec<String>> {
    let ids = hyphen_ids();
    let mut out = BTreeSet::new();
    for text in texts {
        for m in ids.find_iter(text) {
            let mut tokens: Vec<String> = m.as_str().split('-').map(str::to_lowercase).collect();
            tokens.pop();
            out.insert(tokens);
        }
    }
    out
}

/// The ids spelled in snake case inside the identifiers of `text`.
fn snake_ids(text: &str, prefixes: &BTreeSet<Vec<String>>) -> Vec<String> {
    let word = Regex::new(r"\b[a-z0-9]+(?:_[a-z0-9]+)+\b").expect("valid regex");
    let number = Regex::new(r"^[0-9]+[a-z]?$").expect("valid regex");
    let mut out = Vec::new();
    for m in word.find_iter(text) {
        let tokens: Vec<&str> = m.as_str().split('_').collect();
        for start in 0..tokens.len() {
            // The longest known prefix that starts here and is followed by a number.
            let found = prefixes
                .iter()
                .filter(|p| {
                    let end = start + p.len();
                    end < tokens.len()
                        && tokens[start..end].iter().zip(p.iter()).all(|(t, q)| t == q)
                        && number.is_match(tokens[end])
                })
                .max_by_key(|p| p.len());
            if let Some(p) = found {
                let upper: Vec<String> = p.iter().map(|t| t.to_uppercase()).collect();
                out.push(format!("{}-{}", upper.join("-"), tokens[start + p.len()]));
            }
        }
    }
    out
}

/// One sentence per id cited in `files` (path, text) that `page` does not document, naming the
/// first file that cites it.
pub(crate) fn undocumented(page: &str, files: &[(String, String)]) -> Vec<String> {
    let documented = documented(page);
    let known = prefixes(files.iter().map(|(_, t)| t.as_str()).chain([page]));
    let ids = hyphen_ids();
    let mut cited: BTreeMap<String, &str> = BTreeMap::new();
    for (path, text) in files {
        let found = ids.find_iter(text).map(|m| m.as_str().to_owned()).chain(snake_ids(text, &known));
        for id in found {
            cited.entry(id).or_insert(path);
        }
    }
    cited
        .into_iter()
        .filter(|(id, _)| !documented.contains(id))
        .map(|(id, path)| {
            format!("{path} cites {id}, which has no line in {PAGE}; add one saying what holds and which test pins it")
        })
        .collect()
}

/// Checks every text file under `crates/` and `xtask/` (build output and hidden directories
/// aside) against `docs/behaviour.md`.
pub(crate) fn check_cited_ids(root: &Path) -> Result<Vec<String>> {
    let page = std::fs::read_to_string(root.join(PAGE)).with_context(|| format!("reading {PAGE}"))?;
    let mut files = Vec::new();
    for dir in ["crates", "xtask"] {
        let walk = walkdir::WalkDir::new(root.join(dir)).sort_by_file_name().into_iter().filter_entry(|e| {
            let name = e.file_name().to_string_lossy();
            !(name == "target" || name.starts_with('.'))
        });
        for entry in walk {
            let entry = entry?;
            if !entry.file_type().is_file() {
                continue;
            }
            // Binary files are not citations.
            let Ok(text) = std::fs::read_to_string(entry.path()) else { continue };
            let rel = entry.path().strip_prefix(root).unwrap_or(entry.path());
            files.push((rel.display().to_string(), text));
        }
    }
    Ok(undocumented(&page, &files))
}

#[cfg(test)]
mod tests {
    use super::undocumented;

    const PAGE: &str = "# Behaviour\n\n- **R-CFG-RW-3** — durations.\n- **REL-5** — restarts.\n";

    fn files(texts: &[&str]) -> Vec<(String, String)> {
        texts.iter().enumerate().map(|(i, t)| (format!("crates/c/src/f{i}.rs"), (*t).to_owned())).collect()
    }

    #[test]
    fn documented_ids_in_either_spelling_pass() {
        let problems = undocumented(
            PAGE,
            &files(&["/// Parses a delay (R-CFG-RW-3, REL-5).", "fn zero_is_rejected_per_r_cfg_rw_3() {}"]),
        );
        assert!(problems.is_empty(), "{problems:#?}");
    }

    #[test]
    fn an_undocumented_id_is_named_with_the_first_file_citing_it() {
        // Spelled in pieces so this file itself cites nothing undocumented.
        let id = format!("R-{}-9b", "NOPE");
        let problems =
            undocumented(PAGE, &files(&["// fine (REL-5)", &format!("// ({id})"), &format!("// again ({id})")]));
        assert_eq!(
            problems,
            [format!(
                "crates/c/src/f1.rs cites {id}, which has no line in docs/behaviour.md; add one saying what holds and which test pins it"
            )]
        );
    }

    #[test]
    fn a_snake_case_id_in_a_test_name_counts_as_a_citation() {
        let name = format!("fn help_exits_zero_r_{}_8() {{}}", "nope");
        let hyphen = format!("// (R-{}-1)", "NOPE");
        let problems = undocumented(PAGE, &files(&[&hyphen, &name]));
        assert_eq!(problems.len(), 2, "{problems:#?}");
        assert!(problems[1].contains(&format!("R-{}-8", "NOPE")), "{problems:#?}");
    }

    #[test]
    fn the_longest_known_prefix_reads_a_snake_case_id() {
        // `r_cfg_rw_4` is R-CFG-RW-4 (an undocumented id), not R-CFG-… with a stray `rw`.
        let problems = undocumented(PAGE, &files(&["// R-CFG-4c", "fn cron_is_strict_per_r_cfg_rw_4() {}"]));
        let ids: Vec<&str> = problems.iter().map(|p| p.split(' ').nth(2).unwrap_or_default()).collect();
        assert_eq!(ids, ["R-CFG-4c,", "R-CFG-RW-4,"]);
    }
}
