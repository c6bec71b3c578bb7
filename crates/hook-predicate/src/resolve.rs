//! Paths as the tool would open them (issue 23, class 6): a relative path is taken from the call's
//! directory, `~` is the home directory, `/proc/self/cwd` and `/proc/self/root` are rebased, other
//! magic links are read from the file system or left as a pattern, and existing symlinks are
//! followed. A path rule is tested on the path as written (normalised) and as resolved.
//!
//! A Bash command's file uses are resolved from every directory its `cd` steps reach: each
//! directory is worked out and looked up once, a path below one that does not exist resolves
//! without asking again, and the whole resolution has a work budget ([`MAX_WORK`]) past which the
//! command is a use of any path (uncertain for every path rule).

use std::borrow::Cow;
use std::cell::RefCell;
use std::ffi::OsString;
use std::io::ErrorKind;
use std::path::{Component, Path, PathBuf};
use std::time::{Duration, Instant};

use crate::overlap::{Comp, glob_comps, literal_comps};
use hook_shell::{Access, Arg, FileModel, Reach, Step};

/// How long a path's symlink resolution is reused on one thread. One tool call is tested against
/// every rule within this; a link created later is seen by the next call.
const FRESH: Duration = Duration::from_millis(100);

/// How many symlinks one resolution follows (the kernel's limit is 40).
const MAX_HOPS: usize = 40;

/// What a path argument may be.
#[derive(Debug, Default)]
pub(crate) struct Candidates<'a> {
    /// As written: joined to the directory, `~` expanded, normalised lexically.
    pub(crate) written: Option<Cow<'a, Path>>,
    /// Where its symlinks (and magic links) lead, when that differs.
    pub(crate) resolved: Option<PathBuf>,
    /// What it may be when that cannot be known (`/proc/<pid>/cwd/.env` is `**/.env`).
    pub(crate) fuzzy: Option<Vec<Comp>>,
}

impl Candidates<'_> {
    pub(crate) fn paths(&self) -> impl Iterator<Item = &Path> {
        self.written.as_deref().into_iter().chain(self.resolved.as_deref())
    }
}

/// The candidates of a path argument `raw` given in directory `base`.
pub(crate) fn candidates<'a>(raw: &'a str, base: &Path, home: Option<&Path>) -> Candidates<'a> {
    if is_clean(raw) && !raw.starts_with("/proc/") && !raw.starts_with("/dev/") {
        // The fast path: an absolute path without `.`, `..` or `//`, borrowed as it is.
        let resolved = symlinks(Path::new(raw));
        return Candidates { written: Some(Cow::Borrowed(Path::new(raw))), resolved, fuzzy: None };
    }
    let joined = join(raw, base, home);
    match magic(&joined, base) {
        Magic::None => {}
        Magic::Inert => return Candidates { written: Some(Cow::Owned(normalise(&joined))), ..Candidates::default() },
        Magic::Rebased(rebased) => {
            let resolved = symlinks(&rebased);
            return Candidates { written: Some(Cow::Owned(normalise(&rebased))), resolved, fuzzy: None };
        }
        Magic::Unknown(tail) => {
            let resolved = std::fs::canonicalize(&joined).ok();
            let fuzzy = resolved.is_none().then(|| std::iter::once(Comp::AnyDepth).chain(tail).collect());
            return Candidates { written: Some(Cow::Owned(normalise(&joined))), resolved, fuzzy };
        }
    }
    let written = normalise(&joined);
    let resolved = symlinks(&joined).filter(|r| *r != written);
    Candidates { written: Some(Cow::Owned(written)), resolved, fuzzy: None }
}

/// `raw` with `~` expanded and joined to `base` when relative (not normalised).
fn join(raw: &str, base: &Path, home: Option<&Path>) -> PathBuf {
    let tilde = raw.strip_prefix('~').filter(|rest| rest.is_empty() || rest.starts_with('/'));
    match (tilde, home) {
        (Some(rest), Some(home)) => home.join(rest.trim_start_matches('/')),
        _ => base.join(raw),
    }
}

/// An absolute path without `.`, `..`, `//` or a trailing `/`: it is its own normal form.
fn is_clean(raw: &str) -> bool {
    raw.starts_with('/')
        && !raw.contains("//")
        && !raw.contains("/./")
        && !raw.contains("/../")
        && !raw.ends_with("/.")
        && !raw.ends_with("/..")
        && (raw.len() == 1 || !raw.ends_with('/'))
}

/// `.` and `..` folded lexically.
pub(crate) fn normalise(path: &Path) -> PathBuf {
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

/// What a path under `/proc` or `/dev/fd` stands for.
enum Magic {
    None,
    /// The tool's own standard streams: not a file a rule protects.
    Inert,
    /// `/proc/self/cwd/…` (the call's directory) and `/proc/self/root/…` (`/`).
    Rebased(PathBuf),
    /// A descriptor or another process's directory: the file system may know, else it is any path
    /// ending in these components.
    Unknown(Vec<Comp>),
}

fn magic(path: &Path, base: &Path) -> Magic {
    // Every component after the root, `..` included: `/proc/self/cwd/../x` is the parent's `x`.
    let parts: Vec<&std::ffi::OsStr> = path
        .components()
        .filter(|c| !matches!(c, Component::RootDir | Component::Prefix(_)))
        .map(|c| c.as_os_str())
        .collect();
    let text = |i: usize| parts.get(i).and_then(|p| p.to_str()).unwrap_or_default();
    let tail = |from: usize| -> Vec<Comp> {
        parts.get(from..).map_or_else(Vec::new, |rest| literal_comps(&rest.iter().collect::<PathBuf>()))
    };
    let std_fd = |i: usize| matches!(text(i), "0" | "1" | "2") && parts.len() == i + 1;
    match (text(0), text(1), text(2)) {
        ("dev", "stdin" | "stdout" | "stderr", _) if parts.len() == 2 => Magic::Inert,
        ("dev", "fd", _) if std_fd(2) => Magic::Inert,
        ("dev", "fd", _) => Magic::Unknown(tail(3)),
        ("proc", "self" | "thread-self", "fd") if std_fd(3) => Magic::Inert,
        ("proc", "self" | "thread-self", "cwd") => {
            Magic::Rebased(parts[3..].iter().fold(base.to_path_buf(), |p, c| p.join(c)))
        }
        ("proc", "self" | "thread-self", "root") => {
            Magic::Rebased(parts[3..].iter().fold(PathBuf::from("/"), |p, c| p.join(c)))
        }
        ("proc", "self" | "thread-self", "fd" | "map_files") => Magic::Unknown(tail(4)),
        ("proc", _, "cwd" | "root") => Magic::Unknown(tail(3)),
        ("proc", _, "fd" | "map_files") => Magic::Unknown(tail(4)),
        _ => Magic::None,
    }
}

thread_local! {
    /// The last path resolved on this thread, when, and where its symlinks lead.
    static LAST: RefCell<Option<(PathBuf, Instant, Option<PathBuf>)>> = const { RefCell::new(None) };
}

/// Where `path`'s symlinks lead, when that is not `path` itself (reused for [`FRESH`]).
fn symlinks(path: &Path) -> Option<PathBuf> {
    let now = Instant::now();
    let hit = LAST.with(|last| match &*last.borrow() {
        Some((p, at, resolved)) if p.as_os_str() == path.as_os_str() && now.duration_since(*at) < FRESH => {
            Some(resolved.clone())
        }
        _ => None,
    });
    if let Some(resolved) = hit {
        return resolved;
    }
    let resolved = follow(path).filter(|r| r != path);
    LAST.with(|last| *last.borrow_mut() = Some((path.to_path_buf(), now, resolved.clone())));
    resolved
}

/// `std::fs::canonicalize` of the longest existing prefix, the rest appended lexically; a dangling
/// symlink is followed to where it points. `None` when the file system will not say (a directory
/// that cannot be read): the path as written is then all there is.
fn follow(path: &Path) -> Option<PathBuf> {
    let mut path = path.to_path_buf();
    for _ in 0..MAX_HOPS {
        let mut prefix = path.clone();
        let mut rest: Vec<OsString> = Vec::new();
        let dangling = loop {
            match std::fs::canonicalize(&prefix) {
                Ok(mut real) => {
                    rest.iter().rev().for_each(|r| real.push(r));
                    return Some(normalise(&real));
                }
                Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => {
                    if let Ok(target) = std::fs::read_link(&prefix) {
                        break prefix.parent().map(|parent| parent.join(target));
                    }
                    let last = prefix.components().next_back()?.as_os_str().to_owned();
                    rest.push(last);
                    prefix = prefix.parent()?.to_path_buf();
                }
                Err(_) => return None,
            }
        };
        let mut next = dangling?;
        rest.iter().rev().for_each(|r| next.push(r));
        path = next;
    }
    None
}

/// A Bash command's file uses resolved against one directory and home.
#[derive(Debug)]
pub(crate) struct ResolvedCommand {
    base: PathBuf,
    home: Option<PathBuf>,
    at: Instant,
    uses: Vec<ResolvedUse>,
}

/// One file use, resolved.
#[derive(Debug)]
pub(crate) struct ResolvedUse {
    pub(crate) access: Access,
    pub(crate) reach: Reach,
    /// The paths it certainly is one of (as written and resolved, from each `cd` step).
    pub(crate) paths: Vec<PathBuf>,
    /// For a tree: each path with everything below it.
    pub(crate) trees: Vec<Vec<Comp>>,
    /// Patterns for what it may be (a glob word, a path after `cd $DIR`).
    pub(crate) fuzzy: Vec<Vec<Comp>>,
    /// Its value is unknown (`cat $X`).
    pub(crate) unknown: bool,
}

thread_local! {
    /// The last resolution on this thread, under its file model's id.
    static LAST_RESOLVED: RefCell<Option<(u64, ResolvedCommand)>> = const { RefCell::new(None) };
}

/// Runs `f` on the model's uses resolved against `base` and `home`, reusing the last resolution.
pub(crate) fn with_resolved<R>(
    model: &FileModel,
    base: &Path,
    home: Option<&Path>,
    f: impl FnOnce(&[ResolvedUse]) -> R,
) -> R {
    let now = Instant::now();
    LAST_RESOLVED.with(|last| {
        let Ok(mut cache) = last.try_borrow_mut() else {
            return f(&resolve_all(model, base, home));
        };
        let fresh = cache.as_ref().is_some_and(|(id, c)| {
            *id == model.id()
                && c.base.as_os_str() == base.as_os_str()
                && c.home.as_deref().map(Path::as_os_str) == home.map(Path::as_os_str)
                && now.duration_since(c.at) < FRESH
        });
        if !fresh {
            let uses = resolve_all(model, base, home);
            let resolved =
                ResolvedCommand { base: base.to_path_buf(), home: home.map(Path::to_path_buf), at: now, uses };
            *cache = Some((model.id(), resolved));
        }
        match cache.as_ref() {
            Some((_, c)) => f(&c.uses),
            None => f(&[]),
        }
    })
}

/// How much resolving one command's file uses may cost, in [`Work`] units (about a byte of path
/// built or a file-system lookup's worth each): `cd` chains times the uses after them grow as the
/// cube of the command's length, and past this the command is uncertain for every path rule.
const MAX_WORK: usize = 8 << 20;

/// What one file-system lookup ([`follow`]) counts for in [`MAX_WORK`].
const LOOKUP_WORK: usize = 1024;

/// The work done so far resolving one command, and its budget: [`MAX_WORK`], or for an exec's
/// whole argv ([`crate::WholeArgv`]) that and a lookup's worth per byte of the argv — more than
/// any argv needs (each use takes two bytes at least) unless `cd` chains multiply its uses.
#[derive(Debug)]
struct Work {
    done: usize,
    budget: usize,
}

impl Work {
    fn new(model: &FileModel) -> Work {
        let budget = model.whole.map_or(MAX_WORK, |len| len.saturating_mul(LOOKUP_WORK).saturating_add(MAX_WORK));
        Work { done: 0, budget }
    }

    /// Counts `units`; false once past the budget.
    fn spend(&mut self, units: usize) -> bool {
        self.done = self.done.saturating_add(units);
        self.done <= self.budget
    }
}

fn resolve_all(model: &FileModel, base: &Path, home: Option<&Path>) -> Vec<ResolvedUse> {
    let mut work = Work::new(model);
    let mut dirs = Dirs::new(base, home);
    let mut out = Vec::with_capacity(model.uses.len());
    for u in &model.uses {
        let resolved = dirs.take(&model.cds[..u.cds.min(model.cds.len())], &mut work).and_then(|taken| {
            let dirs = &dirs.distinct[..taken];
            resolve_use(u, dirs, home, &mut work)
        });
        match resolved {
            Some(r) => out.push(r),
            None => {
                // Past the budget: a use of any path, read and written.
                out.push(ResolvedUse {
                    access: Access { read: true, write: true },
                    reach: Reach::File,
                    paths: Vec::new(),
                    trees: Vec::new(),
                    fuzzy: Vec::new(),
                    unknown: true,
                });
                break;
            }
        }
    }
    out
}

/// One directory a relative path may be taken from, and what the file system says of it.
#[derive(Debug, Clone, PartialEq)]
struct Dir {
    /// The directory, normalised lexically; `None` after a `cd` to somewhere unknown.
    path: Option<PathBuf>,
    /// Where [`follow`] leads from it, when `path` does not exist: a path below it then resolves to
    /// that with the rest appended, without asking the file system again.
    missing: Option<Option<PathBuf>>,
}

/// The directories after each `cd` step of the line, and the distinct ones in the order first seen:
/// a use after `k` steps is taken from each of the first [`Dirs::take`]`(k)` distinct ones.
#[derive(Debug)]
struct Dirs<'a> {
    base: &'a Path,
    home: Option<&'a Path>,
    /// How many steps are taken so far, and the directory after the last.
    steps: usize,
    current: Dir,
    distinct: Vec<Dir>,
    seen: std::collections::HashSet<Option<PathBuf>>,
}

impl<'a> Dirs<'a> {
    fn new(base: &'a Path, home: Option<&'a Path>) -> Self {
        let first = Dir { path: Some(base.to_path_buf()), missing: missing(base) };
        let seen = std::iter::once(first.path.clone()).collect();
        Dirs { base, home, steps: 0, current: first.clone(), distinct: vec![first], seen }
    }

    /// Takes the steps of `cds` not taken yet (the uses come in line order, so each use's steps
    /// extend the previous one's): how many distinct directories the use may be taken from, or
    /// `None` past the budget.
    fn take(&mut self, cds: &[Step], work: &mut Work) -> Option<usize> {
        for step in cds.get(self.steps..).unwrap_or_default() {
            let next = match (step, &self.current.path) {
                (Step::Known(d), _) if d.starts_with('/') || d.starts_with('~') => {
                    Some(normalise(&join(d, self.base, self.home)))
                }
                (Step::Known(d), Some(prev)) => Some(append(prev, d)),
                (Step::Known(_), None) | (Step::Unknown, _) => None,
            };
            if !work.spend(next.as_ref().map_or(1, |p| p.as_os_str().len())) {
                return None;
            }
            // Below a directory that does not exist, nothing does: no need to ask again.
            let below_missing = match (step, &self.current.missing) {
                (Step::Known(d), Some(resolved)) if only_names(d) => Some(resolved.as_ref().map(|r| append(r, d))),
                _ => None,
            };
            self.current = Dir { path: next, missing: below_missing };
            self.steps += 1;
            if self.seen.insert(self.current.path.clone()) {
                let mut dir = self.current.clone();
                if dir.missing.is_none()
                    && let Some(path) = &dir.path
                {
                    // The walk up a missing directory asks once per component.
                    if !work.spend(LOOKUP_WORK * path.components().count()) {
                        return None;
                    }
                    dir.missing = missing(path);
                    self.current.missing = dir.missing.clone();
                }
                self.distinct.push(dir);
            }
        }
        Some(self.distinct.len())
    }
}

/// `rel` (relative) below the normalised `dir`, normalised: copied as it is when it is already
/// normal (the common case, and the cheap one for a long chain of `cd` steps).
fn append(dir: &Path, rel: &str) -> PathBuf {
    let normal = !rel.is_empty()
        && !rel.starts_with('/')
        && !rel.ends_with('/')
        && !rel.contains("//")
        && rel.split('/').all(|c| c != "." && c != "..");
    if !normal {
        return normalise(&dir.join(rel));
    }
    let mut out = PathBuf::with_capacity(dir.as_os_str().len() + 1 + rel.len());
    out.push(dir);
    out.push(rel);
    out
}

/// Whether a relative path is made of names only (no `..`, no `~`, not absolute): below a missing
/// directory it is missing too, wherever symlinks lead.
fn only_names(p: &str) -> bool {
    !p.starts_with(['/', '~'])
        && Path::new(p).components().all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
}

/// `Some(where it leads)` when `dir` does not exist (nor, then, anything below it); `None` when it
/// exists or the file system will not say.
fn missing(dir: &Path) -> Option<Option<PathBuf>> {
    if dir.starts_with("/proc") || dir.starts_with("/dev") {
        return None;
    }
    match std::fs::canonicalize(dir) {
        Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => Some(follow(dir)),
        _ => None,
    }
}

fn resolve_use(u: &hook_shell::FileUse, dirs: &[Dir], home: Option<&Path>, work: &mut Work) -> Option<ResolvedUse> {
    let mut out = ResolvedUse {
        access: u.access,
        reach: u.reach,
        paths: Vec::new(),
        trees: Vec::new(),
        fuzzy: Vec::new(),
        unknown: false,
    };
    // The directories the path may be taken from: without the `cd` steps, and after each of them.
    let anchored = |p: &str| p.starts_with('/') || p == "~" || p.starts_with("~/");
    match &u.arg {
        Arg::Unknown => out.unknown = true,
        Arg::Known(p) => {
            let dirs = if anchored(p) { &dirs[..1] } else { dirs };
            for dir in dirs {
                let spent = dir.path.as_ref().map_or(0, |d| d.as_os_str().len()) + p.len();
                match (&dir.path, &dir.missing) {
                    (Some(path), Some(resolved)) if !p.starts_with(['/', '~']) => {
                        // Below a missing directory: where it leads, with the path appended.
                        let written = append(path, p);
                        let resolved = resolved.as_ref().map(|r| append(r, p)).filter(|r| *r != written);
                        if !work.spend(2 * spent) {
                            return None;
                        }
                        out.paths.push(written);
                        out.paths.extend(resolved);
                    }
                    (Some(path), _) => {
                        if !work.spend(2 * spent + LOOKUP_WORK) {
                            return None;
                        }
                        let c = candidates(p, path, home);
                        out.paths.extend(c.paths().map(Path::to_path_buf));
                        out.fuzzy.extend(c.fuzzy);
                    }
                    (None, _) => {
                        if !work.spend(spent) {
                            return None;
                        }
                        out.fuzzy.push(std::iter::once(Comp::AnyDepth).chain(glob_comps(p)).collect());
                    }
                }
            }
        }
        Arg::Glob(g) => {
            let dirs = if anchored(g) { &dirs[..1] } else { dirs };
            for dir in dirs {
                if !work.spend(dir.path.as_ref().map_or(0, |d| d.as_os_str().len()) + g.len()) {
                    return None;
                }
                match &dir.path {
                    Some(dir) => {
                        let full = normalise(&join(g, dir, home));
                        out.fuzzy.push(glob_comps(&full.to_string_lossy()));
                    }
                    None => out.fuzzy.push(std::iter::once(Comp::AnyDepth).chain(glob_comps(g)).collect()),
                }
            }
        }
    }
    if u.reach != Reach::File {
        out.trees = out.paths.iter().map(|p| with_everything_below(literal_comps(p))).collect();
        out.fuzzy.iter_mut().for_each(|f| f.push(Comp::AnyDepth));
    }
    Some(out)
}

pub(crate) fn with_everything_below(mut comps: Vec<Comp>) -> Vec<Comp> {
    comps.push(Comp::AnyDepth);
    comps
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(raw: &str, base: &str) -> Option<PathBuf> {
        candidates(raw, Path::new(base), Some(Path::new("/home/u"))).written.map(Cow::into_owned)
    }

    #[test]
    fn a_path_is_joined_to_the_directory_and_normalised_with_home_and_proc_self_expanded() {
        let cases: &[(&str, &str, &str)] = &[
            ("../.env", "/p/sub", "/p/.env"),
            ("/p/./a/../.env", "/x", "/p/.env"),
            ("~/.ssh/id_rsa", "/p", "/home/u/.ssh/id_rsa"),
            ("~", "/p", "/home/u"),
            ("~user/x", "/p", "/p/~user/x"),
            ("/proc/self/cwd/.env", "/p/sub", "/p/sub/.env"),
            ("/proc/thread-self/cwd/../.env", "/p/sub", "/p/.env"),
            ("/proc/self/root/etc/passwd", "/p", "/etc/passwd"),
            ("/p/.env", "/x", "/p/.env"),
        ];
        for (raw, base, expected) in cases {
            assert_eq!(written(raw, base).as_deref(), Some(Path::new(expected)), "{raw} in {base}");
        }
    }

    #[test]
    fn descriptors_and_other_processes_directories_are_patterns_unless_the_system_resolves_them() {
        let c = candidates("/dev/fd/7", Path::new("/p"), None);
        assert!(c.fuzzy.is_some() || c.resolved.is_some(), "{c:?}");
        let c = candidates("/proc/999999999/cwd/.env", Path::new("/p"), None);
        assert_eq!(c.fuzzy.map(|f| f.len()), Some(2), "any depth, then .env");
        let c = candidates("/dev/stdout", Path::new("/p"), None);
        assert!(c.fuzzy.is_none() && c.resolved.is_none());
    }

    /// The directories a use after `k` of `steps` is taken from, as each was found before the
    /// steps were shared: the base, then each new directory after each step.
    fn directories_one_by_one(steps: &[&str], base: &Path, home: &Path) -> Vec<PathBuf> {
        let mut dirs = vec![base.to_path_buf()];
        let mut dir = base.to_path_buf();
        for d in steps {
            dir = if d.starts_with('/') { normalise(&join(d, base, Some(home))) } else { normalise(&dir.join(d)) };
            if !dirs.contains(&dir) {
                dirs.push(dir.clone());
            }
        }
        dirs
    }

    #[test]
    fn shared_cd_steps_resolve_each_path_as_its_directories_would_one_by_one() {
        use hook_shell::FileUse;
        let scratch = tempfile::tempdir().expect("a scratch directory");
        let base = scratch.path().canonicalize().expect("canonical");
        std::fs::create_dir_all(base.join("real/sub")).expect("mkdir");
        std::fs::write(base.join("real/.env"), "").expect("write");
        std::os::unix::fs::symlink(base.join("real"), base.join("link")).expect("symlink");
        std::os::unix::fs::symlink(base.join("nowhere/deeper"), base.join("dangling")).expect("symlink");
        let home = base.join("home");
        let steps = [
            "real",
            "sub",
            "..",
            "../link",
            "missing",
            "more",
            "../dangling",
            "inside",
            "/abs/missing",
            "x",
            "../real",
        ];
        let args = ["f", ".env", "a/b", "../.env", "./x", "../../y", "x/../../z", "sub/", "/etc/passwd"];
        let mut model = FileModel::default();
        model.cds = steps.iter().map(|s| Step::Known((*s).to_owned())).collect();
        for k in 0..=steps.len() {
            for arg in args {
                let (access, reach) = (Access { read: true, write: false }, Reach::File);
                model.uses.push(FileUse { access, reach, arg: Arg::Known(arg.to_owned()), cds: k });
            }
        }
        let resolved = resolve_all(&model, &base, Some(&home));
        assert_eq!(resolved.len(), model.uses.len(), "within the budget");
        for (u, r) in model.uses.iter().zip(&resolved) {
            let Arg::Known(arg) = &u.arg else { unreachable!("only known arguments") };
            let dirs = directories_one_by_one(&steps[..u.cds], &base, &home);
            let dirs = if arg.starts_with('/') { &dirs[..1] } else { &dirs[..] };
            let mut paths = Vec::new();
            for dir in dirs {
                paths.extend(candidates(arg, dir, Some(&home)).paths().map(Path::to_path_buf));
            }
            assert_eq!(r.paths, paths, "{arg} after {:?}", &steps[..u.cds]);
        }
    }
}
