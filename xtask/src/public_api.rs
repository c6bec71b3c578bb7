//! R-LAYER-3: hook-predicate exposes the trait (with the call it reads and the verdict it answers),
//! the parser entry point (with its anchors), its error type, and for the exec-time guard the paths of
//! a matcher's Read and Edit rules (and whether it has any), the scope in which a client call's
//! `$TMPDIR` reads as the client's own value, and the scope in which an exec's whole argv is read, and whether a
//! Bash command is shown read-only (for the read-only pack's reports), nothing more. The crate keeps its modules private and re-exports through one
//! `pub use` block in `lib.rs`, so its public surface is what `lib.rs` declares `pub`.

/// The names hook-predicate may make public.
const ALLOWED: &[&str] = &[
    "ToolInputPredicate",
    "Call",
    "Verdict",
    "parse",
    "parse_built_in",
    "PathAnchors",
    "Error",
    "rule_paths",
    "lists_rule_paths",
    "RulePath",
    "RuleAccess",
    "WholeArgv",
    "ClientTmpdir",
    "read_only",
    "NotReadOnly",
];

const ITEM_KEYWORDS: &[&str] =
    &["fn", "struct", "enum", "trait", "type", "const", "static", "mod", "union", "async", "unsafe"];

/// Public names `lib.rs` declares or re-exports.
pub(crate) fn public_names(lib_rs: &str) -> Vec<String> {
    let code: String = lib_rs.lines().filter(|l| !l.trim_start().starts_with("//")).map(|l| format!("{l}\n")).collect();
    let tokens = tokenize(&code);
    let mut names = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        if tokens[i] != "pub" || tokens.get(i + 1).map(String::as_str) == Some("(") {
            i += 1;
            continue;
        }
        match tokens.get(i + 1).map(String::as_str) {
            Some("use") => {
                let end = tokens[i..].iter().position(|t| t == ";").map_or(tokens.len(), |p| i + p);
                names.extend(use_leaves(&tokens[i + 2..end]));
                i = end;
            }
            Some(kw) if ITEM_KEYWORDS.contains(&kw) => {
                let name = tokens[i + 1..].iter().find(|t| !ITEM_KEYWORDS.contains(&t.as_str()));
                if let Some(name) = name {
                    names.push(name.clone());
                }
                i += 2;
            }
            _ => i += 1,
        }
    }
    names
}

fn use_leaves(tokens: &[String]) -> Vec<String> {
    let mut leaves = Vec::new();
    for (j, t) in tokens.iter().enumerate() {
        let next = tokens.get(j + 1).map(String::as_str);
        if t == "*" {
            leaves.push("*".to_owned());
        } else if is_ident(t) && t != "as" && t != "self" && t != "crate" && next != Some("::") && next != Some("as") {
            leaves.push(t.clone());
        }
    }
    leaves
}

fn is_ident(t: &str) -> bool {
    t.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_')
}

fn tokenize(code: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    let mut chars = code.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_alphanumeric() || c == '_' {
            let mut ident = String::from(c);
            while let Some(&n) = chars.peek().filter(|n| n.is_alphanumeric() || **n == '_') {
                ident.push(n);
                chars.next();
            }
            tokens.push(ident);
        } else if c == ':' && chars.peek() == Some(&':') {
            chars.next();
            tokens.push("::".to_owned());
        } else if !c.is_whitespace() {
            tokens.push(c.to_string());
        }
    }
    tokens
}

/// One sentence per public name beyond the allowed surface.
pub(crate) fn check_predicate_surface(lib_rs: &str) -> Vec<String> {
    public_names(lib_rs)
        .into_iter()
        .filter(|n| !ALLOWED.contains(&n.as_str()))
        .map(|n| {
            format!(
                "hook-predicate makes `{n}` public, but its public surface is only {} (R-LAYER-3); keep it pub(crate)",
                ALLOWED.join(", ")
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_allowed_surface_passes() {
        let lib = "//! docs with pub use Foo;\nmod parser;\npub use crate::{error::Error, parser::{parse, PathAnchors}, predicate::ToolInputPredicate};\npub(crate) use x::Y;\n";
        assert_eq!(check_predicate_surface(lib), Vec::<String>::new());
    }

    #[test]
    fn a_leaked_implementation_fails_by_name() {
        let cases = [
            ("pub use crate::bash::BashSubcommand;", "BashSubcommand"),
            ("pub use crate::glob::{PathGlob as Glob};", "Glob"),
            ("pub struct NameOnly;", "NameOnly"),
            ("pub mod composite;", "composite"),
            ("pub use crate::impls::*;", "*"),
        ];
        for (lib, leaked) in cases {
            let problems = check_predicate_surface(lib);
            assert_eq!(problems.len(), 1, "{lib}");
            assert!(problems[0].contains(&format!("`{leaked}`")), "{problems:?}");
        }
    }
}
