//! PathGlob: a file tool's path argument against a glob (R-PRED-2, R-PRED-3, R-PRED-3b), the
//! files a Bash command reads or writes against a Read or Edit rule (issue 23, class 7), and the
//! paths the arguments of a tool the rules do not model name (issue 36).

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use globset::GlobBuilder;
use regex::bytes::Regex;
use serde_json::Value;

use crate::anchors::PathAnchors;
use crate::field::{COMMAND_KEY, DIR_KEY, GLOB_PATTERN_KEY, GREP_GLOB_KEY, PATH_KEYS, Text, foreign_shell, text};
use crate::overlap::{Comp, NameTest, glob_comps, literal_comps, overlap};
use crate::pattern::StartLiterals;
use crate::predicate::{Call, ToolInputPredicate, Verdict, of_each};
use crate::resolve::{Candidates, ResolvedUse, candidates, normalise, with_everything_below, with_resolved};
use hook_shell::{self as shell, Reach};

/// The input key of every path one call touches (hook-wire gives Codex's `apply_patch` this):
/// each is tested; all of them matching is a match, some is uncertain (a deny holds, an allow
/// does not), and a value that is not a non-empty array of strings (`null`: the patch could not
/// be read) is uncertain. It takes the place of [`PATH_KEYS`] when present.
const PATHS_KEY: &str = "file_paths";

/// The input key of the paths and globs one reading call selects below the call's directory
/// (hook-wire gives Gemini CLI's and Qwen Code's `read_many_files` its `paths` and `include`): a
/// path the rule covers is a match, a directory above it or a glob that may select it is
/// uncertain; all of them matching is a match, some is uncertain, and a value that is not a
/// non-empty array of strings is uncertain. It takes the place of [`PATH_KEYS`] when present.
const GLOBS_KEY: &str = "file_globs";

/// The tools whose arguments the path rules model: the file tools and Bash. A Read or Edit rule
/// with a glob also covers every other tool (an MCP tool, a client's tool hook-wire does not
/// map) by the paths its arguments name, uncertainly ([`unknown_verdict`]).
const MODELLED: [&str; 8] = ["Read", "Edit", "MultiEdit", "Write", "NotebookEdit", "Grep", "Glob", "Bash"];

/// How many argument values of one call of an unmodelled tool are tested at most; a call naming
/// more is uncertain.
const MAX_ARGUMENTS: usize = 256;

/// The tools a permission rule `Name(…)` with a path body covers: `Edit(…)` the editing tools,
/// `Read(…)` the reading tools (as in Claude Code), any other file tool only itself. A Read or Edit
/// rule with a glob also covers Bash, as a reading or a writing tool, and every tool outside
/// [`MODELLED`] by the paths its arguments name ([`PathGlob`]); `Read()` with an empty body stays
/// the reading tools, not every Bash call.
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
/// (R-PRED-3b). A Read rule also covers the files a Bash command reads, an Edit rule those it writes,
/// and both are uncertain on a tool they do not model whose arguments name a covered path.
#[derive(Debug)]
pub(crate) struct PathGlob {
    tools: &'static [&'static str],
    /// Whether the rule covers Bash commands that read (a Read rule) or write (an Edit rule); such
    /// a rule also covers the tools outside [`MODELLED`].
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
        let unknown = self.bash.is_some() && !MODELLED.contains(&call.tool_name);
        if !bash && !unknown && !self.tools.contains(&call.tool_name) {
            return Verdict::NoMatch;
        }
        let base: Cow<'_, Path> = match call.cwd {
            Some(cwd) if cwd.is_absolute() => Cow::Borrowed(cwd),
            Some(cwd) => Cow::Owned(normalise(&self.project_root.join(cwd))),
            None => Cow::Borrowed(&self.project_root),
        };
        let home = self.home.get_or_init(|| self.anchor_home.clone().or_else(std::env::home_dir)).as_deref();
        match (bash, unknown, self.compiled()) {
            (true, _, compiled) => self.bash_verdict(compiled, call, &base, home),
            (_, true, compiled) => unknown_verdict(compiled, call.input, &base, home),
            // No home directory for a `~/` rule: every call that names a path matches.
            (false, false, None) => Verdict::from_bool(
                PATH_KEYS.iter().chain([&PATHS_KEY, &GLOBS_KEY]).any(|k| call.input.get(*k).is_some()),
            ),
            (false, false, Some(compiled)) => tool_verdict(compiled, call.tool_name, call.input, &base, home),
        }
    }
}

/// A file tool's call: its path, and for a search tool what it selects. Every path key present is
/// what the tool may open (all of them matching is a match, some is uncertain); one that is not a
/// string is uncertain.
fn tool_verdict(compiled: &Compiled, tool: &str, input: &Value, base: &Path, home: Option<&Path>) -> Verdict {
    if let Some(paths) = input.get(PATHS_KEY) {
        return paths_verdict(compiled, paths, base, home);
    }
    if let Some(globs) = input.get(GLOBS_KEY) {
        return globs_verdict(compiled, globs, base, home);
    }
    let mut found: Option<Candidates<'_>> = None;
    let mut named: Option<Verdict> = None;
    for key in PATH_KEYS {
        match text(input, key) {
            Text::Missing => {}
            Text::Wrong => return Verdict::Uncertain,
            Text::Str(raw) => {
                let these = candidates(raw, base, home);
                let verdict = path_verdict(compiled, &these);
                named = Some(named.map_or(verdict, |acc| of_each([acc, verdict])));
                found.get_or_insert(these);
            }
        }
    }
    let verdict = named.unwrap_or(Verdict::NoMatch);
    if verdict == Verdict::Match || !SEARCH_TOOLS.contains(&tool) {
        return verdict;
    }
    // A search without a `path` searches the call's directory.
    let roots: Vec<&Path> = match &found {
        Some(found) => found.paths().collect(),
        None => vec![base],
    };
    let key = if tool == "Grep" { GREP_GLOB_KEY } else { GLOB_PATTERN_KEY };
    let selector = match text(input, key) {
        Text::Missing => None,
        Text::Wrong => return Verdict::Uncertain,
        // A Grep glob that only excludes selects nothing of its own.
        Text::Str(glob) if tool == "Grep" && glob.starts_with('!') => None,
        Text::Str(glob) => Some(glob),
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
    let Some(paths) = paths.as_array() else { return Verdict::Uncertain };
    of_each(paths.iter().map(|path| match path.as_str() {
        Some(raw) => path_verdict(compiled, &candidates(raw, base, home)),
        None => Verdict::Uncertain,
    }))
}

/// Every path and glob one reading call selects ([`GLOBS_KEY`]) against the rule.
fn globs_verdict(compiled: &Compiled, globs: &Value, base: &Path, home: Option<&Path>) -> Verdict {
    let Some(globs) = globs.as_array() else { return Verdict::Uncertain };
    of_each(globs.iter().map(|glob| match glob.as_str() {
        Some(raw) => selected_verdict(compiled, raw, base, home),
        None => Verdict::Uncertain,
    }))
}

/// Whether a glob is one (rather than a literal path).
fn is_glob(raw: &str) -> bool {
    raw.contains(['*', '?', '[', '{'])
}

/// One path or glob a reading call selects: the path the rule covers is a match; a directory the
/// call reads whole, or a glob (and everything below what it names) that may select a covered
/// path, is uncertain.
fn selected_verdict(compiled: &Compiled, raw: &str, base: &Path, home: Option<&Path>) -> Verdict {
    if is_glob(raw) {
        let glob = tilde(raw, home);
        let below = format!("{}/**", glob.trim_end_matches('/'));
        let may = [glob.as_ref(), below.as_str()].iter().any(|g| overlap(&selection(base, g), &compiled.comps));
        return if may { Verdict::Uncertain } else { Verdict::NoMatch };
    }
    let found = candidates(raw, base, home);
    let verdict = path_verdict(compiled, &found);
    if verdict == Verdict::NoMatch
        && found.paths().any(|p| overlap(&with_everything_below(literal_comps(p)), &compiled.comps))
    {
        return Verdict::Uncertain;
    }
    verdict
}

/// A call of a tool the rules do not model ([`MODELLED`]): a Read or Edit rule is uncertain on it
/// when one of its arguments may name a path the rule covers, since the tool may read or edit it.
/// An argument names a path when its key says so ([`path_key`]; strings, and the strings of an
/// array or object under it) or its value looks like one ([`looks_like_path`]); nested objects and
/// arrays are searched too. A number, a boolean or `null` under a path key cannot be shown
/// harmless: uncertain.
fn unknown_verdict(compiled: Option<&Compiled>, input: &Value, base: &Path, home: Option<&Path>) -> Verdict {
    let mut pending: Vec<(bool, &Value)> = vec![(false, input)];
    let mut tested = 0;
    while let Some((under_path_key, value)) = pending.pop() {
        let raw = match value {
            Value::Object(map) => {
                pending.extend(map.iter().map(|(key, value)| (under_path_key || path_key(key), value)));
                continue;
            }
            Value::Array(items) => {
                pending.extend(items.iter().map(|value| (under_path_key, value)));
                continue;
            }
            Value::String(s) if under_path_key => s.strip_prefix(FILE_URL).unwrap_or(s),
            Value::String(s) => match looks_like_path(s) {
                Some(raw) => raw,
                None => continue,
            },
            _ if under_path_key => return Verdict::Uncertain,
            _ => continue,
        };
        tested += 1;
        if tested > MAX_ARGUMENTS || argument_verdict(compiled, raw, base, home) != Verdict::NoMatch {
            return Verdict::Uncertain;
        }
    }
    Verdict::NoMatch
}

/// A `file:` URL's prefix before its absolute path.
const FILE_URL: &str = "file://";

/// The words an argument's key ends with (case, `_` and `-` aside) when it names a path, a
/// directory or a glob of paths (`path`, `file_path`, `filePath`, `paths`, `dir`, `directory`,
/// `target`, `include`, …), and the keys that name one whole.
const PATH_KEY_ENDS: [&str; 22] = [
    "path",
    "paths",
    "file",
    "files",
    "filename",
    "filenames",
    "dir",
    "dirs",
    "directory",
    "directories",
    "folder",
    "folders",
    "target",
    "targets",
    "cwd",
    "root",
    "roots",
    "glob",
    "globs",
    "include",
    "includes",
    "location",
];
const PATH_KEY_WHOLE: [&str; 4] = ["src", "source", "dest", "destination"];

/// Whether an argument's key says it names a path.
fn path_key(key: &str) -> bool {
    let key: String = key.chars().filter(|c| !matches!(c, '_' | '-')).flat_map(char::to_lowercase).collect();
    PATH_KEY_ENDS.iter().any(|end| key.ends_with(end)) || PATH_KEY_WHOLE.contains(&key.as_str())
}

/// A string value that looks like a path whatever its key: absolute, under the home directory,
/// relative with `./` or `../`, or a `file:` URL; one line.
fn looks_like_path(value: &str) -> Option<&str> {
    let raw = value.strip_prefix(FILE_URL).unwrap_or(value);
    let path = raw.starts_with('/')
        || raw == "~"
        || ["~/", "./", "../"].iter().any(|p| raw.starts_with(p))
        || matches!(raw, "." | "..");
    (path && !raw.contains('\n')).then_some(raw)
}

/// One argument of an unmodelled tool that may name a path: the path the rule covers, a glob that
/// may select it, or the directory of a `dir/**` rule itself. A directory above it does not count:
/// the tool may only list it, and every call naming the project would otherwise be uncertain under
/// a rule on one of its directories. Without a compiled rule (a `~/` rule and no home directory)
/// every one may.
fn argument_verdict(compiled: Option<&Compiled>, raw: &str, base: &Path, home: Option<&Path>) -> Verdict {
    let Some(compiled) = compiled else { return Verdict::Uncertain };
    if raw.is_empty() {
        return Verdict::NoMatch;
    }
    if is_glob(raw) {
        return selected_verdict(compiled, raw, base, home);
    }
    let found = candidates(raw, base, home);
    let verdict = path_verdict(compiled, &found);
    let the_dir = compiled.dir.as_ref().is_some_and(|dir| found.paths().any(|p| p == dir));
    if the_dir { Verdict::Uncertain } else { verdict }
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
    /// A Bash call against a Read rule (the files it reads) or an Edit rule (those it writes). A
    /// call that names its own directory ([`DIR_KEY`]) is tested there and in the call's `cwd`
    /// (all of them matching is a match, some is uncertain); a command or directory that is not a
    /// string is uncertain, and so is a match in text a POSIX shell may not be reading.
    fn bash_verdict(&self, compiled: Option<&Compiled>, call: &Call<'_>, base: &Path, home: Option<&Path>) -> Verdict {
        let input = call.input;
        // What a Read rule's paths are to the command: the kernel hides them under the guard.
        let hidden = call.hidden_by_kernel && self.bash == Some(BashAccess::Reads);
        let command = match text(input, COMMAND_KEY) {
            Text::Missing => return Verdict::NoMatch,
            Text::Wrong => return Verdict::Uncertain,
            Text::Str(command) => command,
        };
        let own = match text(input, DIR_KEY) {
            Text::Missing => None,
            Text::Wrong => return Verdict::Uncertain,
            Text::Str(dir) => Some(normalise(&base.join(tilde(dir, home).as_ref()))),
        };
        let verdict = match &own {
            None => self.command_verdict(compiled, command, base, home, hidden),
            Some(own) => {
                of_each([base, own.as_path()].map(|dir| self.command_verdict(compiled, command, dir, home, hidden)))
            }
        };
        if verdict == Verdict::Match && foreign_shell(input) { Verdict::Uncertain } else { verdict }
    }

    /// A command run in `base` against the rule; `hidden`: the kernel hides the rule's paths.
    fn command_verdict(
        &self,
        compiled: Option<&Compiled>,
        command: &str,
        base: &Path,
        home: Option<&Path>,
        hidden: bool,
    ) -> Verdict {
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
                    .fold(Verdict::NoMatch, |acc, u| acc.or(use_verdict(compiled, u, hidden)))
            });
            if uses == Verdict::Match {
                return uses;
            }
            // A command the analyser could not read may open any file (its text may spell the
            // name apart: `.e''nv`, or read by sh where bash reads other quotes); an unmodelled
            // program or interpreter code naming the protected path may open it.
            let named = files.overflow
                || a.uncertain
                || match wanted {
                    Some(BashAccess::Reads) => files.mentions().any(|m| compiled.name.named_in(m)),
                    _ => files.mentions_written().any(|m| compiled.name.named_in(m)),
                }
                || a.code.iter().any(|code| compiled.name.named_in(code));
            if named { Verdict::Uncertain } else { uses }
        })
    }
}

/// One file use of a Bash command against the rule. `hidden`: the kernel hides the rule's paths
/// from the command, so only a use that names one (the path, or a root at or below the rule's
/// directory) is the rule's; a walk from above, a glob or a name known at run time opens the
/// kernel's empty, unreadable stand-in.
fn use_verdict(compiled: &Compiled, u: &ResolvedUse, hidden: bool) -> Verdict {
    if u.paths.iter().any(|p| compiled.matches(p)) {
        return Verdict::Match;
    }
    if hidden {
        let inside = compiled.dir.as_ref().is_some_and(|dir| u.paths.iter().any(|p| p.starts_with(dir)));
        return Verdict::from_bool(inside);
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
