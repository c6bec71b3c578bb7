//! PathGlob: a file tool's path argument against a glob (R-PRED-2, R-PRED-3, R-PRED-3b).

use std::borrow::Cow;
use std::path::{Component, Path, PathBuf};
use std::sync::OnceLock;

use globset::GlobBuilder;
use regex::bytes::Regex;
use serde_json::Value;

use crate::anchors::PathAnchors;
use crate::pattern::StartLiterals;
use crate::predicate::{Call, ToolInputPredicate, Verdict};

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
/// lexically (`.` and `..` folded, no file-system access), matches the absolute glob. For the search
/// tools (Grep, Glob) a rule on a whole directory (`dir/**`) also matches a search rooted at the
/// directory or above it, and a Glob `pattern` that is an absolute path reaching into it (R-PRED-3b).
#[derive(Debug)]
pub(crate) struct PathGlob {
    tools: &'static [&'static str],
    target: Target,
    project_root: PathBuf,
}

/// The compiled glob, or what it is compiled from once the home directory is known.
#[derive(Debug)]
enum Target {
    Ready(Compiled),
    /// A `~/…` rule parsed without a home directory: compiled against the home directory of the
    /// process the first time it is matched (R-PRED-3b). `None` inside: there is no home directory,
    /// and the rule matches every call of its tools that names a path (uncertain errs on matching).
    Home {
        rest: String,
        compiled: OnceLock<Option<Compiled>>,
    },
}

#[derive(Debug)]
struct Compiled {
    /// The glob's regex (globset's translation), matched against the path's bytes.
    src: String,
    /// The glob's literal base (`/proj/src/`), worked out on first use: most paths are rejected
    /// by it alone.
    start: OnceLock<StartLiterals>,
    /// The automaton, built the first time a path passes the literal base; `None` when the engine
    /// refuses it (only its compiled-size limit can), and then every such path matches: a rule
    /// that cannot test its glob runs its hook rather than let the call through unseen.
    re: OnceLock<Option<Regex>>,
    /// For a rule on a whole directory (`dir/**`), that directory.
    dir: Option<PathBuf>,
}

impl Compiled {
    /// `rest` (a glob: `*` never crosses `/`, `\` escapes) below the literal directory `base`.
    /// Parsing the glob is the check; its regex is only compiled when a path is tested.
    fn new(base: &Path, rest: &str) -> Result<Self, globset::Error> {
        let base_text = base.to_string_lossy();
        let glob = format!("{}/{rest}", globset::escape(base_text.trim_end_matches('/')));
        let glob = GlobBuilder::new(&glob).literal_separator(true).backslash_escape(true).build()?;
        let dir = rest
            .strip_suffix("**")
            .filter(|d| d.is_empty() || d.ends_with('/'))
            .filter(|d| !d.contains(['*', '?', '[', ']', '{', '}', '\\']))
            .map(|d| normalise(&base.join(d)));
        Ok(Compiled { src: glob.regex().to_owned(), start: OnceLock::new(), re: OnceLock::new(), dir })
    }

    fn matches(&self, path: &Path) -> bool {
        let bytes = path.as_os_str().as_encoded_bytes();
        self.start.get_or_init(|| StartLiterals::of(&self.src)).may_match(bytes)
            && self.re.get_or_init(|| Regex::new(&self.src).ok()).as_ref().is_none_or(|re| re.is_match(bytes))
    }
}

impl PathGlob {
    /// Compiles a rule body with Claude Code's path convention: `//x` is absolute, `~/x` is under the
    /// home directory, `/x` under the tier root, `./x` and any pattern with a `/` under the project
    /// root, a bare name is `**/name` under the project root; a trailing `/` means everything below.
    pub(crate) fn new(
        tools: &'static [&'static str],
        body: &str,
        anchors: &PathAnchors,
    ) -> Result<Self, globset::Error> {
        let project_root = anchors.project_root.clone();
        let (base, rest): (&Path, Cow<'_, str>) = if let Some(rest) = body.strip_prefix("//") {
            (Path::new("/"), rest.into())
        } else if let Some(rest) = body.strip_prefix("~/") {
            let rest = with_dir_suffix(rest);
            let target = match anchors.home.as_deref() {
                Some(home) => Target::Ready(Compiled::new(home, &rest)?),
                None => {
                    // Checked against `/` now, so that a bad glob is still an error at load time.
                    Compiled::new(Path::new("/"), &rest)?;
                    Target::Home { rest, compiled: OnceLock::new() }
                }
            };
            return Ok(PathGlob { tools, target, project_root });
        } else if let Some(rest) = body.strip_prefix('/') {
            (&anchors.tier_root, rest.into())
        } else if let Some(rest) = body.strip_prefix("./") {
            (&anchors.project_root, rest.into())
        } else if body.trim_end_matches('/').contains('/') {
            (&anchors.project_root, body.into())
        } else {
            (&anchors.project_root, format!("**/{body}").into())
        };
        let target = Target::Ready(Compiled::new(base, &with_dir_suffix(&rest))?);
        Ok(PathGlob { tools, target, project_root })
    }

    fn compiled(&self) -> Option<&Compiled> {
        match &self.target {
            Target::Ready(compiled) => Some(compiled),
            Target::Home { rest, compiled } => {
                compiled.get_or_init(|| std::env::home_dir().and_then(|home| Compiled::new(&home, rest).ok())).as_ref()
            }
        }
    }
}

/// A trailing `/` means everything below.
fn with_dir_suffix(rest: &str) -> String {
    if rest.ends_with('/') { format!("{rest}**") } else { rest.to_owned() }
}

/// The search tools: their path is where a search starts, not the one file it reads.
const SEARCH_TOOLS: [&str; 2] = ["Grep", "Glob"];

impl ToolInputPredicate for PathGlob {
    fn verdict(&self, call: &Call<'_>) -> Verdict {
        Verdict::from_bool(self.hit(call.tool_name, call.input))
    }
}

impl PathGlob {
    fn hit(&self, tool_name: &str, input: &Value) -> bool {
        if !self.tools.contains(&tool_name) {
            return false;
        }
        let raw = PATH_KEYS.iter().find_map(|k| input.get(*k).and_then(Value::as_str));
        let Some(compiled) = self.compiled() else { return raw.is_some() };
        let path = raw.map(|raw| resolve(raw, &self.project_root));
        if path.as_deref().is_some_and(|p| compiled.matches(p)) {
            return true;
        }
        let (Some(dir), true) = (&compiled.dir, SEARCH_TOOLS.contains(&tool_name)) else { return false };
        // A search rooted at the directory or above it reaches into it.
        if path.as_deref().is_some_and(|p| dir.starts_with(p)) {
            return true;
        }
        // A Glob pattern that is an absolute path (or is relative to an explicit `path`) reaching into it.
        let pattern = input.get("pattern").and_then(Value::as_str).filter(|_| tool_name == "Glob");
        let full = match (pattern, &path) {
            (Some(p), _) if p.starts_with('/') => PathBuf::from(p),
            (Some(p), Some(root)) => root.join(p),
            _ => return false,
        };
        pattern_reaches(&full, dir)
    }
}

/// Whether an absolute glob pattern can match something inside `dir`: its literal start is inside
/// `dir`, or above it with `**` or enough components to reach below it.
fn pattern_reaches(pattern: &Path, dir: &Path) -> bool {
    let is_glob = |c: &Component<'_>| c.as_os_str().to_string_lossy().contains(['*', '?', '[', '{']);
    let components: Vec<Component<'_>> = pattern.components().collect();
    let literal = components.iter().take_while(|c| !is_glob(c)).count();
    let prefix = normalise(&components[..literal].iter().collect::<PathBuf>());
    if prefix.starts_with(dir) {
        return true;
    }
    let deep = components[literal..].iter().any(|c| c.as_os_str() == "**")
        || prefix.components().count() + components.len() - literal > dir.components().count();
    dir.starts_with(&prefix) && deep
}

/// The tool's path as an absolute, lexically normalised path. Borrows when it already is one.
fn resolve<'a>(raw: &'a str, project_root: &Path) -> Cow<'a, Path> {
    let path = Path::new(raw);
    if path.is_absolute() && !raw.contains("//") && !raw.contains("/.") {
        return Cow::Borrowed(path);
    }
    let joined = if path.is_absolute() { Cow::Borrowed(path) } else { Cow::Owned(project_root.join(path)) };
    Cow::Owned(normalise(&joined))
}

/// `.` and `..` folded lexically (symlinks not followed).
fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}
