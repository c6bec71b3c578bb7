//! PathGlob: a file tool's path argument against a glob (R-PRED-2, R-PRED-3).

use std::borrow::Cow;
use std::path::{Component, Path, PathBuf};

use globset::{Glob, GlobBuilder};
use regex::bytes::Regex;
use serde_json::Value;

use crate::anchors::PathAnchors;
use crate::pattern::StartLiterals;
use crate::predicate::ToolInputPredicate;

/// The input keys that carry a tool's path, in the order they are looked up.
const PATH_KEYS: [&str; 3] = ["file_path", "notebook_path", "path"];

/// The tools a permission rule `Name(…)` with a path body covers: `Edit(…)` the editing tools,
/// `Read(…)` the reading tools (as in Claude Code), any other file tool only itself.
pub(crate) fn path_tools(name: &str) -> Option<&'static [&'static str]> {
    Some(match name {
        "Edit" => &["Edit", "MultiEdit", "Write", "NotebookEdit"],
        "Read" => &["Read", "Grep", "Glob"],
        "MultiEdit" => &["MultiEdit"],
        "Write" => &["Write"],
        "NotebookEdit" => &["NotebookEdit"],
        "Grep" => &["Grep"],
        "Glob" => &["Glob"],
        _ => return None,
    })
}

/// Matches one of `tools` whose path argument, resolved against the project root and normalised
/// lexically (`.` and `..` folded, no file-system access), matches the absolute glob.
#[derive(Debug)]
pub(crate) struct PathGlob {
    tools: &'static [&'static str],
    /// The glob's regex (globset's translation), compiled as an ordinary bytes regex.
    re: Regex,
    /// The glob's literal base (`/proj/src/`): most paths are rejected by it alone.
    start: StartLiterals,
    project_root: PathBuf,
}

impl PathGlob {
    /// Compiles a glob built from [`absolute_glob`] (see [`build_glob`]).
    pub(crate) fn new(tools: &'static [&'static str], glob: &Glob, project_root: &Path) -> Result<Self, regex::Error> {
        Ok(PathGlob {
            tools,
            re: Regex::new(glob.regex())?,
            start: StartLiterals::of(glob.regex()),
            project_root: project_root.to_path_buf(),
        })
    }
}

/// Parses an absolute glob: `*` never crosses `/`, `\` escapes.
pub(crate) fn build_glob(glob: &str) -> Result<Glob, globset::Error> {
    GlobBuilder::new(glob).literal_separator(true).backslash_escape(true).build()
}

impl ToolInputPredicate for PathGlob {
    fn test(&self, tool_name: &str, input: &Value) -> bool {
        if !self.tools.contains(&tool_name) {
            return false;
        }
        let Some(raw) = PATH_KEYS.iter().find_map(|k| input.get(*k).and_then(Value::as_str)) else { return false };
        let path = resolve(raw, &self.project_root);
        let bytes = path.as_os_str().as_encoded_bytes();
        self.start.may_match(bytes) && self.re.is_match(bytes)
    }
}

/// The rule body as one absolute glob: `//x` → `/x`, `~/x` → home, `/x` → tier root, `./x` and any
/// pattern with a `/` → project root, a bare name → `**/name` under the project root; a trailing `/`
/// means everything below.
pub(crate) fn absolute_glob(body: &str, anchors: &PathAnchors) -> Result<String, &'static str> {
    let (base, rest): (&Path, Cow<'_, str>) = if let Some(rest) = body.strip_prefix("//") {
        (Path::new("/"), rest.into())
    } else if let Some(rest) = body.strip_prefix("~/") {
        (anchors.home.as_deref().ok_or("a '~/' path needs a home directory, and none was given")?, rest.into())
    } else if let Some(rest) = body.strip_prefix('/') {
        (&anchors.tier_root, rest.into())
    } else if let Some(rest) = body.strip_prefix("./") {
        (&anchors.project_root, rest.into())
    } else if body.trim_end_matches('/').contains('/') {
        (&anchors.project_root, body.into())
    } else {
        (&anchors.project_root, format!("**/{body}").into())
    };
    let base = globset::escape(base.to_string_lossy().trim_end_matches('/'));
    let dir_suffix = if rest.ends_with('/') { "**" } else { "" };
    Ok(format!("{base}/{rest}{dir_suffix}"))
}

/// The tool's path as an absolute, lexically normalised path. Borrows when it already is one.
fn resolve<'a>(raw: &'a str, project_root: &Path) -> Cow<'a, Path> {
    let path = Path::new(raw);
    if path.is_absolute() && !raw.contains("//") && !raw.contains("/.") {
        return Cow::Borrowed(path);
    }
    let joined = if path.is_absolute() { Cow::Borrowed(path) } else { Cow::Owned(project_root.join(path)) };
    let mut out = PathBuf::new();
    for component in joined.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    Cow::Owned(out)
}
