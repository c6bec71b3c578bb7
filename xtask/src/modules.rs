//! No import cycle among a crate's modules. For every crate under `crates/` (found, not listed:
//! a new crate is checked without an edit here) and for xtask itself, each crate root in `src/`
//! (`lib.rs`, `main.rs`, `bin/*.rs`) gives a module tree from its `mod` declarations (files and
//! inline blocks), and every path a module spells — `use` trees and paths in code, starting at
//! `crate::`, `super::`, `self::`, a child module's name or a name the module imports — is an edge
//! to the deepest module it names; a name a module re-exports (`pub use self::fields::PayloadKey`)
//! leads on to the module it comes from. A module naming one of its own ancestors is not an edge
//! (a child uses what its parent owns; the parent declares and re-exports its children). A
//! strongly connected set of two or more modules is a cycle, and `check-layers` fails on it
//! unless [`ALLOWED`] names it with a reason; an entry that no longer matches a cycle fails too,
//! so the list only shrinks.
//!
//! Comments, string and character literals are skipped; `#[path]` attributes are not followed
//! (no `src/` file uses one).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

/// Cycles that remain, each with why: (crate, its modules sorted, reason). None may be added for
/// hook-cli, hook-server or hook-actions, which have none (issue #42).
const ALLOWED: &[(&str, &[&str], &str)] = &[(
    "hook-config",
    &["declarative", "packs", "packs::enable", "parse", "protect", "spec"],
    "the packs and self-protection are both parsed config and builders of declarative hooks: \
         spec asks packs which pack a file is, parse reads the packs' and protect's keys, protect \
         builds DeclarativeHooks; breaking it means splitting the packs' model from their builder",
)];

/// A module's path from its crate root (`[]` is the root).
type ModPath = Vec<String>;

/// One crate root's modules: their declared children and the paths they spell.
#[derive(Debug, Default)]
struct Crate {
    /// Every module (file or inline), with the names of its declared child modules.
    modules: BTreeMap<ModPath, BTreeSet<String>>,
    /// (module, the path it spells as written).
    paths: Vec<(ModPath, Vec<String>)>,
    /// The names a module's `use` items bring in (re-exports too), with the path they stand for:
    /// `crate::a::Thing` where `a` re-exports `Thing` from `a::b` resolves to `a::b`.
    imports: BTreeMap<(ModPath, String), Vec<String>>,
}

/// The crate roots of `crate_dir`'s `src/`, each with a name for messages (`hook-cli`,
/// `hook-cli (bin foo)`).
fn roots(crate_dir: &Path, name: &str) -> Vec<(String, PathBuf)> {
    let src = crate_dir.join("src");
    let mut roots = Vec::new();
    for (file, label) in [("lib.rs", name.to_owned()), ("main.rs", format!("{name} (main.rs)"))] {
        if src.join(file).is_file() {
            roots.push((label, src.join(file)));
        }
    }
    if let Ok(entries) = std::fs::read_dir(src.join("bin")) {
        let mut bins: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        bins.sort();
        for path in bins {
            let main = if path.is_dir() { path.join("main.rs") } else { path.clone() };
            let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            if main.is_file() && main.extension().is_some_and(|e| e == "rs") {
                roots.push((format!("{name} (bin {stem})"), main));
            }
        }
    }
    // A crate with both keeps the library's name for the library; the binary says main.rs.
    if roots.len() == 1 {
        roots[0].0 = name.to_owned();
    }
    roots
}

/// Reads the module tree rooted at `root_file`.
fn load(root_file: &Path) -> Result<Crate> {
    let mut krate = Crate::default();
    // (file, its module path, whether its children sit beside it: a root or `mod.rs`).
    let mut pending = vec![(root_file.to_path_buf(), ModPath::new(), true)];
    while let Some((file, module, beside)) = pending.pop() {
        let text = std::fs::read_to_string(&file).with_context(|| format!("reading {}", file.display()))?;
        let dir =
            if beside { file.parent().map(Path::to_path_buf).unwrap_or_default() } else { file.with_extension("") };
        for declared in scan(&lex(&text), &module, &mut krate) {
            let (flat, nested) = (dir.join(format!("{declared}.rs")), dir.join(&declared).join("mod.rs"));
            let mut child = module.clone();
            child.push(declared);
            if flat.is_file() {
                pending.push((flat, child, false));
            } else if nested.is_file() {
                pending.push((nested, child, true));
            }
        }
    }
    Ok(krate)
}

/// A token: an identifier or keyword, or one punctuation character (`::` is one token).
pub(crate) fn lex(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let (mut tokens, mut i) = (Vec::new(), 0);
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let (mut depth, mut j) = (0, i);
            while j < chars.len() {
                if chars[j] == '/' && chars.get(j + 1) == Some(&'*') {
                    depth += 1;
                    j += 2;
                } else if chars[j] == '*' && chars.get(j + 1) == Some(&'/') {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            i = j;
        } else if c == '"' || ((c == 'r' || c == 'b') && raw_string_start(&chars[i..]).is_some()) {
            i = skip_string(&chars, i);
        } else if c == '\'' {
            // A character literal ('x', '\n', '\u{1F600}') or a lifetime ('a).
            if next == Some('\\') {
                let mut j = i + 2;
                while j < chars.len() && chars[j] != '\'' {
                    j += 1;
                }
                i = j + 1;
            } else if chars.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                i += 1;
            }
        } else if ident(c) {
            let start = i;
            while i < chars.len() && ident(chars[i]) {
                i += 1;
            }
            tokens.push(chars[start..i].iter().collect());
        } else if c == ':' && next == Some(':') {
            tokens.push("::".to_owned());
            i += 2;
        } else {
            if !c.is_whitespace() {
                tokens.push(c.to_string());
            }
            i += 1;
        }
    }
    tokens
}

/// The number of `#`s of a raw string starting here (`r"`, `r#"`, `br##"`), if one does.
fn raw_string_start(chars: &[char]) -> Option<usize> {
    let rest = match chars {
        ['b', 'r', rest @ ..] | ['r', rest @ ..] => rest,
        _ => return None,
    };
    let hashes = rest.iter().take_while(|c| **c == '#').count();
    (rest.get(hashes) == Some(&'"')).then_some(hashes)
}

/// The index after the string literal (plain, byte or raw) starting at `i`.
fn skip_string(chars: &[char], i: usize) -> usize {
    if let Some(hashes) = raw_string_start(&chars[i..]) {
        let open = i + chars[i..].iter().position(|c| *c == '"').unwrap_or(0) + 1;
        let mut j = open;
        while j < chars.len() {
            if chars[j] == '"' && chars[j + 1..].iter().take(hashes).filter(|c| **c == '#').count() == hashes {
                return j + 1 + hashes;
            }
            j += 1;
        }
        return j;
    }
    let mut j = i + 1;
    while j < chars.len() && chars[j] != '"' {
        j += if chars[j] == '\\' { 2 } else { 1 };
    }
    j + 1
}

/// Records the modules and paths of one file's `tokens` (module `module`) in `krate`; returns the
/// names of the file modules it declares (`mod name;`).
fn scan(tokens: &[String], module: &ModPath, krate: &mut Crate) -> Vec<String> {
    krate.modules.entry(module.clone()).or_default();
    let mut files = Vec::new();
    // Inline modules open here: (its path, the brace depth inside it).
    let mut inline: Vec<(ModPath, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    let here = |inline: &[(ModPath, usize)]| inline.last().map_or_else(|| module.clone(), |(p, _)| p.clone());
    while i < tokens.len() {
        let t = tokens[i].as_str();
        let prev = i.checked_sub(1).map(|p| tokens[p].as_str());
        match t {
            "{" => depth += 1,
            "}" => {
                if inline.last().is_some_and(|(_, d)| *d == depth) {
                    inline.pop();
                }
                depth = depth.saturating_sub(1);
            }
            "mod" if tokens.get(i + 1).is_some_and(|n| is_ident(n)) => {
                let name = tokens[i + 1].clone();
                let current = here(&inline);
                krate.modules.entry(current.clone()).or_default().insert(name.clone());
                let mut child = current;
                child.push(name.clone());
                krate.modules.entry(child.clone()).or_default();
                match tokens.get(i + 2).map(String::as_str) {
                    Some("{") => {
                        depth += 1;
                        inline.push((child, depth));
                        i += 3;
                        continue;
                    }
                    _ if inline.is_empty() => files.push(name),
                    _ => {}
                }
                i += 2;
                continue;
            }
            "use" if prev != Some("::") => {
                let end = tokens[i..].iter().position(|t| t == ";").map_or(tokens.len(), |p| i + p);
                let current = here(&inline);
                for (path, name) in use_tree(&tokens[i + 1..end]) {
                    if let Some(name) = name {
                        krate.imports.insert((current.clone(), name), path.clone());
                    }
                    krate.paths.push((current.clone(), path));
                }
                i = end;
                continue;
            }
            "in" if prev == Some("(") && i >= 2 && tokens[i - 2] == "pub" => {
                // `pub(in crate::a)` names where an item is visible, not what it uses.
                while i < tokens.len() && tokens[i] != ")" {
                    i += 1;
                }
                continue;
            }
            _ if is_ident(t)
                && tokens.get(i + 1).is_some_and(|n| n == "::")
                && !matches!(prev, Some("::" | "$" | "." | "'")) =>
            {
                let mut path = vec![t.to_owned()];
                let mut j = i + 1;
                while tokens.get(j).is_some_and(|n| n == "::") && tokens.get(j + 1).is_some_and(|n| is_ident(n)) {
                    path.push(tokens[j + 1].clone());
                    j += 2;
                }
                krate.paths.push((here(&inline), path));
                i = j;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    files
}

fn is_ident(token: &str) -> bool {
    token.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_')
}

/// The paths a `use` tree (the tokens between `use` and `;`) names, each with the name it brings
/// in (`None` for a glob or `as _`); `a::{self, b as c}` gives `a` (as `a`) and `a::b` (as `c`),
/// a glob its prefix.
fn use_tree(tokens: &[String]) -> Vec<(Vec<String>, Option<String>)> {
    type Out = Vec<(Vec<String>, Option<String>)>;
    fn walk(tokens: &[String], i: &mut usize, prefix: &[String], out: &mut Out) {
        let mut path = prefix.to_vec();
        let (mut alias, mut glob) = (None, false);
        while *i < tokens.len() {
            let t = tokens[*i].as_str();
            *i += 1;
            match t {
                "::" => {}
                "{" => {
                    loop {
                        walk(tokens, i, &path, out);
                        match tokens.get(*i).map(String::as_str) {
                            Some(",") => *i += 1,
                            Some("}") => {
                                *i += 1;
                                break;
                            }
                            _ => break,
                        }
                        if tokens.get(*i).is_some_and(|t| t == "}") {
                            *i += 1;
                            break;
                        }
                    }
                    return;
                }
                "," | "}" => {
                    *i -= 1;
                    break;
                }
                "as" => {
                    alias = tokens.get(*i).cloned();
                    *i += 1;
                }
                "*" => glob = true,
                "self" if !path.is_empty() => {}
                _ => path.push(t.to_owned()),
            }
        }
        if !path.is_empty() {
            let name = if glob { None } else { alias.or_else(|| path.last().cloned()) };
            out.push((path, name.filter(|n| n != "_" && n != "self" && n != "crate" && n != "super")));
        }
    }
    let (mut out, mut i) = (Vec::new(), 0);
    // A leading `::` names an external crate.
    if tokens.first().is_none_or(|t| t == "::") {
        return out;
    }
    walk(tokens, &mut i, &[], &mut out);
    out
}

/// The deepest module of `krate` that `path`, spelled in `from`, names; `None` for what is not
/// one of its modules (an external crate, a local value).
fn resolve(krate: &Crate, from: &ModPath, path: &[String]) -> Option<ModPath> {
    resolve_within(krate, from, path, 0)
}

/// [`resolve`], following a name a module imports (a re-export) to where it comes from, at most
/// eight imports deep.
fn resolve_within(krate: &Crate, from: &ModPath, path: &[String], depth: usize) -> Option<ModPath> {
    let (first, rest) = path.split_first()?;
    let imported = |module: &ModPath, name: &str, rest: &[String]| {
        let target = krate.imports.get(&(module.clone(), name.to_owned()))?;
        let mut full = target.clone();
        full.extend_from_slice(rest);
        (depth < 8).then(|| resolve_within(krate, module, &full, depth + 1)).flatten()
    };
    let mut at = match first.as_str() {
        "crate" => ModPath::new(),
        "self" => from.clone(),
        "super" => from[..from.len().checked_sub(1)?].to_vec(),
        name if krate.modules.get(from).is_some_and(|c| c.contains(name)) => {
            let mut child = from.clone();
            child.push(name.to_owned());
            child
        }
        name => return imported(from, name, rest),
    };
    for (k, segment) in rest.iter().enumerate() {
        if segment == "super" {
            at.pop()?;
        } else if segment == "self" {
        } else if krate.modules.get(&at).is_some_and(|c| c.contains(segment)) {
            at.push(segment.clone());
        } else {
            return imported(&at, segment, &rest[k + 1..]).or(Some(at));
        }
    }
    Some(at)
}

/// Edges between modules: `from` names `to`, neither the same module nor an ancestor of `from`.
fn edges(krate: &Crate) -> BTreeMap<ModPath, BTreeSet<ModPath>> {
    let mut edges: BTreeMap<ModPath, BTreeSet<ModPath>> = BTreeMap::new();
    for (from, path) in &krate.paths {
        if let Some(to) = resolve(krate, from, path)
            && !from.starts_with(&to)
        {
            edges.entry(from.clone()).or_default().insert(to);
        }
    }
    edges
}

/// The strongly connected sets of two or more modules (Tarjan), each sorted.
fn cycles(edges: &BTreeMap<ModPath, BTreeSet<ModPath>>) -> Vec<Vec<ModPath>> {
    struct Tarjan<'a> {
        edges: &'a BTreeMap<ModPath, BTreeSet<ModPath>>,
        index: BTreeMap<&'a ModPath, (usize, usize)>,
        stack: Vec<&'a ModPath>,
        on_stack: BTreeSet<&'a ModPath>,
        out: Vec<Vec<ModPath>>,
    }
    impl<'a> Tarjan<'a> {
        fn visit(&mut self, v: &'a ModPath) {
            let n = self.index.len();
            self.index.insert(v, (n, n));
            self.stack.push(v);
            self.on_stack.insert(v);
            for w in self.edges.get(v).into_iter().flatten() {
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let low = self.index[w].1.min(self.index[v].1);
                    self.index.get_mut(v).expect("visited").1 = low;
                } else if self.on_stack.contains(w) {
                    let low = self.index[w].0.min(self.index[v].1);
                    self.index.get_mut(v).expect("visited").1 = low;
                }
            }
            if self.index[v].0 == self.index[v].1 {
                let mut set = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack.remove(w);
                    set.push(w.clone());
                    if w == v {
                        break;
                    }
                }
                if set.len() > 1 {
                    set.sort();
                    self.out.push(set);
                }
            }
        }
    }
    let mut t = Tarjan { edges, index: BTreeMap::new(), stack: Vec::new(), on_stack: BTreeSet::new(), out: Vec::new() };
    for v in edges.keys() {
        if !t.index.contains_key(v) {
            t.visit(v);
        }
    }
    t.out.sort();
    t.out
}

/// A module's name in messages: `commands`, `shell::groups`, `crate` for the root.
fn display(module: &ModPath) -> String {
    if module.is_empty() { "crate".to_owned() } else { module.join("::") }
}

/// One loop through `set`, as `a → b → … → a`, for the message.
fn one_loop(set: &[ModPath], edges: &BTreeMap<ModPath, BTreeSet<ModPath>>) -> String {
    let inside: BTreeSet<&ModPath> = set.iter().collect();
    // Breadth-first from the first module back to it, inside the set.
    let start = &set[0];
    let mut came_from: BTreeMap<&ModPath, &ModPath> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(v) = queue.pop_front() {
        for w in edges.get(v).into_iter().flatten().filter(|w| inside.contains(w)) {
            if w == start {
                let mut names = vec![display(start)];
                let mut at = v;
                while at != start {
                    names.push(display(at));
                    at = came_from[at];
                }
                names[1..].reverse();
                names.push(display(start));
                return names.join(" → ");
            }
            if !came_from.contains_key(w) {
                came_from.insert(w, v);
                queue.push_back(w);
            }
        }
    }
    set.iter().map(display).collect::<Vec<_>>().join(", ")
}

/// The crate directories to check: every `crates/*` with a `Cargo.toml`, and xtask.
fn crate_dirs(root: &Path) -> Result<Vec<(String, PathBuf)>> {
    let mut dirs = vec![("xtask".to_owned(), root.join("xtask"))];
    for entry in std::fs::read_dir(root.join("crates")).context("reading crates/")? {
        let path = entry?.path();
        if path.join("Cargo.toml").is_file() {
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            dirs.push((name, path));
        }
    }
    dirs.sort();
    Ok(dirs)
}

/// The cycles of one crate root, as (its modules' names sorted, one loop through them).
fn crate_cycles(root_file: &Path) -> Result<Vec<(Vec<String>, String)>> {
    let krate = load(root_file)?;
    let edges = edges(&krate);
    Ok(cycles(&edges).into_iter().map(|set| (set.iter().map(display).collect(), one_loop(&set, &edges))).collect())
}

/// Checks `allowed` against the cycles of every crate under `root`.
fn check_with(root: &Path, allowed: &[(&str, &[&str], &str)]) -> Result<Vec<String>> {
    let mut problems = Vec::new();
    let mut used = vec![false; allowed.len()];
    for (name, dir) in crate_dirs(root)? {
        for (label, file) in roots(&dir, &name) {
            for (set, path) in crate_cycles(&file)? {
                match allowed.iter().position(|(c, mods, _)| *c == label && *mods == set.as_slice()) {
                    Some(k) => used[k] = true,
                    None => problems.push(format!(
                        "{label}: its modules import each other in a cycle: {path}{}; break it (move what both sides need into a module of its own)",
                        if set.len() > path.matches(" → ").count() {
                            format!(" (the cycle holds {})", set.join(", "))
                        } else {
                            String::new()
                        }
                    )),
                }
            }
        }
    }
    for ((label, mods, _), used) in allowed.iter().zip(used) {
        if !used {
            problems.push(format!(
                "xtask/src/modules.rs allows a cycle of {label} among {} that no longer exists; remove the entry",
                mods.join(", ")
            ));
        }
    }
    Ok(problems)
}

pub(crate) fn check_module_cycles(root: &Path) -> Result<Vec<String>> {
    check_with(root, ALLOWED)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A crate in a temporary directory: `files` as (path under `src/`, text).
    fn planted(test: &str, files: &[(&str, &str)]) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("xtask-modules-{}-{test}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for (path, text) in files {
            let file = dir.join("crates/planted/src").join(path);
            std::fs::create_dir_all(file.parent().expect("a parent")).expect("a temp dir");
            std::fs::write(file, text).expect("writable");
        }
        std::fs::write(dir.join("crates/planted/Cargo.toml"), "").expect("writable");
        std::fs::create_dir_all(dir.join("xtask/src")).expect("a temp dir");
        std::fs::write(dir.join("xtask/src/main.rs"), "fn main() {}\n").expect("writable");
        dir
    }

    #[test]
    fn a_planted_cycle_fails_and_its_loop_is_named() {
        let root = planted(
            "cycle",
            &[
                ("lib.rs", "mod a;\nmod b;\nmod c;\npub use crate::a::A;\n"),
                ("a.rs", "use crate::b::B;\npub struct A;\n"),
                ("b.rs", "pub struct B;\nfn f() { super::c::g(); }\n"),
                ("c/mod.rs", "mod inner;\npub(crate) fn g() { inner::h(); }\n"),
                (
                    "c/inner.rs",
                    "// use crate::b; is a comment\nconst S: &str = \"crate::a::A\";\nfn h() -> crate::a::A { crate::a::A }\n",
                ),
            ],
        );
        let problems = check_with(&root, &[]).expect("readable");
        assert_eq!(
            problems,
            [
                "planted: its modules import each other in a cycle: a → b → c → c::inner → a; break it (move what both sides need into a module of its own)"
            ]
        );
        let allowed: &[(&str, &[&str], &str)] = &[("planted", &["a", "b", "c", "c::inner"], "a test")];
        assert_eq!(check_with(&root, allowed).expect("readable"), Vec::<String>::new());
        std::fs::remove_dir_all(root).expect("removable");
    }

    #[test]
    fn parents_children_tests_and_literals_make_no_cycle_and_a_stale_entry_fails() {
        let root = planted(
            "none",
            &[
                ("main.rs", "mod a;\nmod b;\nuse a::A;\nfn shared() {}\nfn main() { b::run(); }\n"),
                ("a/mod.rs", "mod x;\npub use self::x::A;\npub(crate) struct Config;\n"),
                (
                    "a/x.rs",
                    "use super::Config;\npub struct A;\nfn f() { crate::shared(); let c = 'c'; let s = r#\"crate::b\"#; }\n",
                ),
                (
                    "b.rs",
                    "use crate::a::{self, A};\npub fn run() {}\n#[cfg(test)]\nmod tests {\n    use super::*;\n}\n",
                ),
            ],
        );
        assert_eq!(check_with(&root, &[]).expect("readable"), Vec::<String>::new());
        let allowed: &[(&str, &[&str], &str)] = &[("planted", &["a", "b"], "gone")];
        assert_eq!(
            check_with(&root, allowed).expect("readable"),
            ["xtask/src/modules.rs allows a cycle of planted among a, b that no longer exists; remove the entry"]
        );
        std::fs::remove_dir_all(root).expect("removable");
    }

    #[test]
    fn a_name_used_through_a_parents_re_export_is_an_edge_to_where_it_comes_from() {
        let root = planted(
            "reexport",
            &[
                ("lib.rs", "mod a;\nmod b;\n"),
                ("a/mod.rs", "mod inner;\npub use self::inner::Thing;\npub fn f() { crate::b::g(); }\n"),
                ("a/inner.rs", "pub struct Thing;\n"),
                ("b.rs", "use crate::a::Thing;\npub fn g() {}\n"),
            ],
        );
        assert_eq!(check_with(&root, &[]).expect("readable"), Vec::<String>::new());
        std::fs::write(root.join("crates/planted/src/a/inner.rs"), "pub struct Thing;\nfn h() { crate::b::g(); }\n")
            .expect("writable");
        assert_eq!(check_with(&root, &[]).expect("readable").len(), 1, "a → b → a::inner → b");
        std::fs::remove_dir_all(root).expect("removable");
    }

    #[test]
    fn use_trees_expand_to_every_path() {
        let tokens = lex("crate::{a::{self, B as C}, d::*, e}");
        let paths: Vec<(String, Option<String>)> =
            use_tree(&tokens).into_iter().map(|(p, name)| (p.join("::"), name)).collect();
        let name = |n: &str| Some(n.to_owned());
        assert_eq!(
            paths,
            [
                ("crate::a".to_owned(), name("a")),
                ("crate::a::B".to_owned(), name("C")),
                ("crate::d".to_owned(), None),
                ("crate::e".to_owned(), name("e")),
            ]
        );
    }

    #[test]
    fn the_workspace_has_no_cycle_but_the_allowed_ones() {
        assert_eq!(check_module_cycles(&crate::workspace_root()).expect("readable"), Vec::<String>::new());
    }
}
