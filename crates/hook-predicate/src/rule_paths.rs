//! The paths a matcher's Read and Edit rules name, as absolute globs: what the exec-time guard
//! hides or makes read-only in the command's own mount namespace. Only a matcher that is one rule
//! or a `|`-list of rules gives paths: a rule narrowed by `&` denies less than its whole path.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use globset::{Glob, GlobBuilder, GlobMatcher};

use crate::{Error, PathAnchors};

/// What a rule denies on its paths.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleAccess {
    /// `Read(…)`: reading.
    Read,
    /// `Edit(…)`, `Write(…)`, `MultiEdit(…)`, `NotebookEdit(…)`: writing.
    Edit,
}

/// One Read or Edit rule's glob, absolute (the path convention of [`parse`](crate::parse) applied).
#[derive(Debug, Clone)]
pub struct RulePath {
    /// What the rule denies.
    pub access: RuleAccess,
    /// The absolute glob (gitignore-style: `**/` any depth, `*` within one name).
    pub glob: String,
    parsed: Glob,
    /// Compiled on the first [`RulePath::matches`]: a literal path or a whole directory, which the
    /// guard takes as it is, never needs it (compiling them all was a quarter of its start-up).
    matcher: OnceLock<GlobMatcher>,
}

impl RulePath {
    /// The literal directory or file the glob starts with: every path it matches is at or below it.
    pub fn base(&self) -> PathBuf {
        let mut base = PathBuf::from("/");
        for part in self.glob.split('/').filter(|p| !p.is_empty()) {
            if part.contains(['*', '?', '[', ']', '{', '}', '\\']) {
                break;
            }
            base.push(part);
        }
        base
    }

    /// Whether the glob is a literal path (no wildcard): [`RulePath::base`] is all it names.
    pub fn is_literal(&self) -> bool {
        !self.glob.contains(['*', '?', '[', ']', '{', '}', '\\'])
    }

    /// For a glob on a whole directory (`dir/**` with a literal `dir`), that directory.
    pub fn whole_dir(&self) -> Option<PathBuf> {
        let dir = self.glob.strip_suffix("/**")?;
        let dir = if dir.is_empty() { "/" } else { dir };
        (!dir.contains(['*', '?', '[', ']', '{', '}', '\\'])).then(|| PathBuf::from(dir))
    }

    /// Whether `path` (absolute) matches the glob.
    pub fn matches(&self, path: &Path) -> bool {
        self.matcher.get_or_init(|| self.parsed.compile_matcher()).is_match(path)
    }
}

/// The absolute globs of the Read and Edit rules of `pattern` (a hook's matcher), anchored by
/// `anchors` as [`parse`](crate::parse) anchors them; empty when `pattern` is not one rule or a
/// `|`-list of rules, or names none. A pattern that does not parse is its error.
pub fn rule_paths(pattern: &str, anchors: &PathAnchors) -> Result<Vec<RulePath>, Error> {
    crate::parse(pattern, anchors)?;
    let Some(items) = alternatives(pattern) else {
        return Ok(Vec::new());
    };
    let mut paths = Vec::new();
    for item in items {
        let Some((access, body)) = path_rule(item) else { continue };
        let body = body.trim();
        if body.is_empty() || body.contains('=') && body.split('=').next().is_some_and(is_field_path) {
            continue;
        }
        let Some(glob) = absolute_glob(body, anchors) else {
            continue;
        };
        let parsed = GlobBuilder::new(&glob)
            .literal_separator(true)
            .backslash_escape(true)
            .build()
            .map_err(|source| Error::Glob { pattern: pattern.to_owned(), column: column(pattern, body), source })?;
        paths.push(RulePath { access, glob, parsed, matcher: OnceLock::new() });
    }
    Ok(paths)
}

/// Whether `pattern` (one that parses) is one rule or a `|`-list with a Read or Edit rule among
/// its items: [`rule_paths`] without parsing the pattern again or anchoring its globs.
pub fn lists_rule_paths(pattern: &str) -> bool {
    alternatives(pattern).is_some_and(|items| items.into_iter().any(|item| path_rule(item).is_some()))
}

/// A `Read(…)` or `Edit(…)`-like item: what it denies, and its body.
fn path_rule(item: &str) -> Option<(RuleAccess, &str)> {
    let (name, body) = item.strip_suffix(')').and_then(|i| i.split_once('('))?;
    let access = match name.trim() {
        "Read" => RuleAccess::Read,
        "Edit" | "Write" | "MultiEdit" | "NotebookEdit" => RuleAccess::Edit,
        _ => return None,
    };
    Some((access, body))
}

/// The items of a `|`-list at the top level (outside parentheses), trimmed; `None` when the
/// pattern composes with `&` or a parenthesised group at the top level.
fn alternatives(pattern: &str) -> Option<Vec<&str>> {
    let (mut depth, mut start, mut items, mut escaped) = (0usize, 0, Vec::new(), false);
    for (at, c) in pattern.char_indices() {
        if std::mem::take(&mut escaped) {
            continue;
        }
        match c {
            '\\' => escaped = true,
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            '&' if depth == 0 => return None,
            '|' if depth == 0 => {
                items.push(pattern[start..at].trim());
                start = at + 1;
            }
            _ => {}
        }
    }
    items.push(pattern[start..].trim());
    Some(items)
}

/// 1-based character column of `body` (a slice of `pattern`) in `pattern`.
fn column(pattern: &str, body: &str) -> usize {
    let at = (body.as_ptr() as usize).saturating_sub(pattern.as_ptr() as usize);
    pattern.get(..at).map_or(at, |s| s.chars().count()) + 1
}

/// A `Tool(field=regex)` body starts with a field path.
fn is_field_path(text: &str) -> bool {
    !text.is_empty()
        && text.split('.').all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'))
}

/// Claude Code's path convention: `//x` is absolute, `~/x` under the home directory (the anchors',
/// else the process's), `/x` under the tier root, `./x` and any glob with a `/` under the project
/// root, a bare name is `**/name` under the project root; a trailing `/` means everything below.
fn absolute_glob(body: &str, anchors: &PathAnchors) -> Option<String> {
    let abs = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let (base, rest): (PathBuf, String) = if let Some(rest) = body.strip_prefix("//") {
        (PathBuf::from("/"), rest.to_owned())
    } else if let Some(rest) = body.strip_prefix("~/") {
        (abs(&anchors.home.clone().or_else(std::env::home_dir)?), rest.to_owned())
    } else if let Some(rest) = body.strip_prefix('/') {
        (abs(&anchors.tier_root), rest.to_owned())
    } else if let Some(rest) = body.strip_prefix("./") {
        (abs(&anchors.project_root), rest.to_owned())
    } else if body.trim_end_matches('/').contains('/') {
        (abs(&anchors.project_root), body.to_owned())
    } else {
        (abs(&anchors.project_root), format!("**/{body}"))
    };
    let rest = if rest.ends_with('/') { format!("{rest}**") } else { rest };
    let base = globset::escape(base.to_string_lossy().trim_end_matches('/'));
    Some(format!("{base}/{rest}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_read_and_edit_rules_of_a_matcher_are_absolute_globs_under_their_anchors() {
        let anchors = PathAnchors::new("/p").with_home("/h").with_tier_root("/t");
        // (matcher, [(access, glob)])
        let cases: &[(&str, &[(RuleAccess, &str)])] = &[
            ("Read(./.env)", &[(RuleAccess::Read, "/p/.env")]),
            ("Read(.env)", &[(RuleAccess::Read, "/p/**/.env")]),
            ("Read(~/.ssh/**)", &[(RuleAccess::Read, "/h/.ssh/**")]),
            ("Edit(//etc/hosts)", &[(RuleAccess::Edit, "/etc/hosts")]),
            ("Edit(/docs/)", &[(RuleAccess::Edit, "/t/docs/**")]),
            ("Write(src/*.rs)", &[(RuleAccess::Edit, "/p/src/*.rs")]),
            ("Read(./a) | Edit(./a)", &[(RuleAccess::Read, "/p/a"), (RuleAccess::Edit, "/p/a")]),
            ("Read(./a) & input.file_path~x", &[]),
            ("Bash(cat:*)", &[]),
            ("Grep(./a)", &[]),
            ("Read", &[]),
            ("Edit(file_path=x)", &[]),
            (r"Edit(//a/\(b\)) | Edit(//c)", &[(RuleAccess::Edit, r"/a/\(b\)"), (RuleAccess::Edit, "/c")]),
        ];
        for (matcher, want) in cases {
            let got: Vec<(RuleAccess, String)> =
                rule_paths(matcher, &anchors).expect("parses").into_iter().map(|p| (p.access, p.glob)).collect();
            let want: Vec<(RuleAccess, String)> = want.iter().map(|(a, g)| (*a, (*g).to_owned())).collect();
            assert_eq!(got, want, "{matcher}");
        }
    }

    #[test]
    fn a_rule_path_knows_its_literal_base_its_whole_directory_and_what_it_matches() {
        let anchors = PathAnchors::new("/p").with_home("/h");
        let path = |m: &str| rule_paths(m, &anchors).expect("parses").remove(0);
        let ssh = path("Read(~/.ssh/**)");
        assert_eq!((ssh.base(), ssh.whole_dir(), ssh.is_literal()), ("/h/.ssh".into(), Some("/h/.ssh".into()), false));
        let env = path("Read(./.env)");
        assert_eq!((env.base(), env.whole_dir(), env.is_literal()), ("/p/.env".into(), None, true));
        let pem = path("Read(./keys/*.pem)");
        assert_eq!(pem.base(), PathBuf::from("/p/keys"));
        assert!(pem.matches(Path::new("/p/keys/a.pem")) && !pem.matches(Path::new("/p/keys/x/a.pem")));
        assert!(path("Read(.env)").matches(Path::new("/p/a/b/.env")));
    }
}
