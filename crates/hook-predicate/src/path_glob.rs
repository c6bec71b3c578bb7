//! PathGlob: a file tool's path argument against a glob (R-PRED-2, R-PRED-3, R-PRED-3b), and the
//! files a Bash command reads or writes against a Read or Edit rule (issue 23, class 7).

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use globset::GlobBuilder;
use regex::bytes::Regex;
use serde_json::Value;

use crate::anchors::PathAnchors;
use crate::overlap::{Comp, NameTest, glob_comps, literal_comps, overlap};
use crate::pattern::StartLiterals;
use crate::predicate::{Call, ToolInputPredicate, Verdict};
use crate::resolve::{Candidates, ResolvedUse, candidates, normalise, with_everything_below, with_resolved};
use crate::shell::{self, files::Reach};

/// The input keys that carry a tool's path, in the order they are looked up.
const PATH_KEYS: [&str; 3] = ["file_path", "notebook_path", "path"];

/// The input key of every path one call touches (hook-wire gives Codex's `apply_patch` this):
/// each is tested; all of them matching is a match, some is uncertain (a deny holds, an allow
/// does not), and a value that is not a non-empty array of strings (`null`: the patch could not
/// be read) is uncertain. It takes the place of [`PATH_KEYS`] when present.
const PATHS_KEY: &str = "file_paths";

/// The tools a permission rule `Name(…)` with a path body covers: `Edit(…)` the editing tools,
/// `Read(…)` the reading tools (as in Claude Code), any other file tool only itself. A Read or Edit
/// rule with a glob also covers Bash, as a reading or a writing tool ([`PathGlob`]); `Read()` with
/// an empty body stays the reading tools, not every Bash call.
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

/// Matches one of `tools` whose path argument — joined to the call's directory, `~` expanded,
/// normalised, and also with its symlinks followed — matches the absolute glob. For the search tools
/// (Grep, Glob) the selection counts: a Grep `glob` or a Glob `pattern` that may select a path the
/// rule covers, and, for a rule on a whole directory (`dir/**`), a search rooted at or above it
/// (R-PRED-3b). A Read rule also covers the files a Bash command reads, an Edit rule those it writes.
#[derive(Debug)]
pub(crate) struct PathGlob {
    tools: &'static [&'static str],
    /// Whether the rule covers Bash commands that read (a Read rule) or write (an Edit rule).
    bash: Option<BashAccess>,
    target: Target,
    project_root: PathBuf,
    /// The anchors' home directory, else the process's (looked up on first use).
    home: OnceLock<Option<PathBuf>>,
    anchor_home: Option<PathBuf>,
    /// Held while the rule covers Bash commands: analyses then record their file uses.
    _file_rule: Option<shell::FileRuleToken>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BashAccess {
    Reads,
    Writes,
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
    /// The glob's components, for the overlap with a tool's own pattern.
    comps: Vec<Comp>,
    /// What names the rule's path in a command that is not modelled.
    name: NameTest,
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
        let comps: Vec<Comp> = literal_comps(base).into_iter().chain(glob_comps(rest)).collect();
        let name = NameTest::of(&comps);
        Ok(Compiled { src: glob.regex().to_owned(), start: OnceLock::new(), re: OnceLock::new(), dir, comps, name })
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
        let bash = if tools.contains(&"Read") {
            Some(BashAccess::Reads)
        } else if tools.contains(&"Edit") {
            Some(BashAccess::Writes)
        } else {
            None
        };
        let (home, anchor_home) = (OnceLock::new(), anchors.home.clone());
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
            let _file_rule = bash.map(|_| shell::FileRuleToken::new());
            return Ok(PathGlob { tools, bash, target, project_root, home, anchor_home, _file_rule });
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
        let _file_rule = bash.map(|_| shell::FileRuleToken::new());
        Ok(PathGlob { tools, bash, target, project_root, home, anchor_home, _file_rule })
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
        let bash = call.tool_name == "Bash" && self.bash.is_some();
        if !bash && !self.tools.contains(&call.tool_name) {
            return Verdict::NoMatch;
        }
        let base: Cow<'_, Path> = match call.cwd {
            Some(cwd) if cwd.is_absolute() => Cow::Borrowed(cwd),
            Some(cwd) => Cow::Owned(normalise(&self.project_root.join(cwd))),
            None => Cow::Borrowed(&self.project_root),
        };
        let home = self.home.get_or_init(|| self.anchor_home.clone().or_else(std::env::home_dir)).as_deref();
        match (bash, self.compiled()) {
            (true, compiled) => self.bash_verdict(compiled, call.input, &base, home),
            // No home directory for a `~/` rule: every call that names a path matches.
            (false, None) => {
                Verdict::from_bool(PATH_KEYS.iter().chain([&PATHS_KEY]).any(|k| call.input.get(*k).is_some()))
            }
            (false, Some(compiled)) => tool_verdict(compiled, call.tool_name, call.input, &base, home),
        }
    }
}

/// A file tool's call: its path, and for a search tool what it selects.
fn tool_verdict(compiled: &Compiled, tool: &str, input: &Value, base: &Path, home: Option<&Path>) -> Verdict {
    if let Some(paths) = input.get(PATHS_KEY) {
        return paths_verdict(compiled, paths, base, home);
    }
    let raw = PATH_KEYS.iter().find_map(|k| input.get(*k).and_then(Value::as_str));
    let found = raw.map(|raw| candidates(raw, base, home));
    let mut verdict = Verdict::NoMatch;
    if let Some(found) = &found {
        verdict = path_verdict(compiled, found);
        if verdict == Verdict::Match {
            return verdict;
        }
    }
    if !SEARCH_TOOLS.contains(&tool) {
        return verdict;
    }
    // A search without a `path` searches the call's directory.
    let roots: Vec<&Path> = match &found {
        Some(found) => found.paths().collect(),
        None => vec![base],
    };
    let selector = match tool {
        "Grep" => input.get("glob").and_then(Value::as_str).filter(|g| !g.starts_with('!')),
        _ => input.get("pattern").and_then(Value::as_str),
    };
    let hit = match selector {
        // The glob selects what it can name below the root (one without `/` at any depth).
        Some(glob) => roots.iter().any(|root| overlap(&selection(root, &tilde(glob, home)), &compiled.comps)),
        // A search rooted at a protected directory or above it reaches into it.
        None => compiled.dir.as_ref().is_some_and(|dir| roots.iter().any(|root| dir.starts_with(root))),
    };
    if hit { Verdict::Match } else { verdict }
}

/// One path argument (as written and resolved) against the rule.
fn path_verdict(compiled: &Compiled, found: &Candidates<'_>) -> Verdict {
    if found.paths().any(|p| compiled.matches(p)) {
        Verdict::Match
    } else if found.fuzzy.as_ref().is_some_and(|f| overlap(f, &compiled.comps)) {
        Verdict::Uncertain
    } else {
        Verdict::NoMatch
    }
}

/// Every path of one call ([`PATHS_KEY`]) against the rule.
fn paths_verdict(compiled: &Compiled, paths: &Value, base: &Path, home: Option<&Path>) -> Verdict {
    let Some(paths) = paths.as_array().filter(|p| !p.is_empty()) else { return Verdict::Uncertain };
    let mut matched = 0;
    let mut verdict = Verdict::NoMatch;
    for path in paths {
        let Some(raw) = path.as_str() else { return Verdict::Uncertain };
        match path_verdict(compiled, &candidates(raw, base, home)) {
            Verdict::Match => matched += 1,
            Verdict::Uncertain => verdict = Verdict::Uncertain,
            Verdict::NoMatch => {}
        }
    }
    if matched == paths.len() {
        Verdict::Match
    } else if matched > 0 {
        Verdict::Uncertain
    } else {
        verdict
    }
}

/// A glob with a leading `~` or `~/` taken from the home directory (as the tool expands it).
fn tilde<'g>(glob: &'g str, home: Option<&Path>) -> Cow<'g, str> {
    match (glob.strip_prefix('~'), home) {
        (Some(rest), Some(home)) if rest.is_empty() || rest.starts_with('/') => {
            Cow::Owned(format!("{}{rest}", home.to_string_lossy().trim_end_matches('/')))
        }
        _ => Cow::Borrowed(glob),
    }
}

/// The paths a search tool's glob selects below `root`, as a pattern.
fn selection(root: &Path, glob: &str) -> Vec<Comp> {
    let anchored = glob.trim_end_matches('/').contains('/');
    let full = if glob.starts_with('/') {
        PathBuf::from(glob)
    } else if anchored || glob.starts_with("**") {
        root.join(glob)
    } else {
        root.join("**").join(glob)
    };
    glob_comps(&normalise(&full).to_string_lossy())
}

impl PathGlob {
    /// A Bash command against a Read rule (the files it reads) or an Edit rule (those it writes).
    fn bash_verdict(&self, compiled: Option<&Compiled>, input: &Value, base: &Path, home: Option<&Path>) -> Verdict {
        let Some(command) = input.get("command").and_then(Value::as_str) else { return Verdict::NoMatch };
        let wanted = self.bash;
        shell::with_analysis(command, shell::Need::Files, |a| {
            let files = &a.files;
            let Some(compiled) = compiled else {
                let any = !files.uses.is_empty() || files.mentions().next().is_some();
                return if any { Verdict::Uncertain } else { Verdict::NoMatch };
            };
            let uses = with_resolved(files, base, home, |uses| {
                uses.iter()
                    .filter(|u| match wanted {
                        Some(BashAccess::Reads) => u.access.read,
                        _ => u.access.write,
                    })
                    .fold(Verdict::NoMatch, |acc, u| acc.or(use_verdict(compiled, u)))
            });
            if uses == Verdict::Match {
                return uses;
            }
            // An unmodelled program, interpreter code, or a command the analyser could not read,
            // naming the protected path: it may open it.
            let named = files.overflow
                || files.mentions().any(|m| compiled.name.named_in(m))
                || a.code.iter().any(|code| compiled.name.named_in(code))
                || (a.uncertain && compiled.name.named_in(command));
            if named { Verdict::Uncertain } else { uses }
        })
    }
}

/// One file use of a Bash command against the rule.
fn use_verdict(compiled: &Compiled, u: &ResolvedUse) -> Verdict {
    if u.paths.iter().any(|p| compiled.matches(p)) {
        return Verdict::Match;
    }
    let reaches = match u.reach {
        Reach::File => false,
        // A recursive walk opens everything below its root, hidden files included.
        Reach::Tree => u.trees.iter().any(|t| overlap(t, &compiled.comps)),
        // A search as the Grep tool's: a root at or above a protected directory.
        Reach::Search => compiled.dir.as_ref().is_some_and(|dir| u.paths.iter().any(|p| dir.starts_with(p))),
    };
    if reaches {
        return Verdict::Match;
    }
    let fuzzy = match u.reach {
        Reach::Search => compiled.dir.as_ref().is_some_and(|dir| {
            let dir = with_everything_below(literal_comps(dir));
            u.fuzzy.iter().any(|f| overlap(f, &dir))
        }),
        _ => u.fuzzy.iter().any(|f| overlap(f, &compiled.comps)),
    };
    if u.unknown || fuzzy { Verdict::Uncertain } else { Verdict::NoMatch }
}
