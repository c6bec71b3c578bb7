//! Programs by identity, not by name.
//!
//! A rule names a program (`Bash(git push:*)` names `git`); renaming the program's file, copying
//! it, linking it, running it from a memfd or a descriptor or mounting it over another name must
//! not make it another program. When the guard starts, [`Identities::resolve`] finds what each
//! program the rules name is on this machine: every file of that name on the guard's `PATH` and,
//! for git, every file of git's exec-path (`git-push`, `git-send-pack`, `git-http-push` …: found
//! beside each git as `<prefix>/libexec/git-core` or `<prefix>/lib/git-core`, else from
//! `GIT_EXEC_PATH` or `git --exec-path`; its symlinks are known through the files they lead to);
//! the dynamic loader is always among them. A file that is
//! a link to a program of another name (a multi-call binary such as busybox) is that program.
//!
//! An exec's file is then known by [`Identities::identify`]: by device and inode first (hard
//! links, symlinks, bind mounts, the original itself: one `stat`), and only when its size is the
//! size of one of those programs by content (SHA-256, computed once per inode and change time,
//! cached; the programs' own hashes are computed the first time a size matches; ELF files only: a
//! script is data for its interpreter, which is checked as itself). The name it returns is one
//! more name the exec is read under (see the `exec` module).
//!
//! The dynamic loader (`ld-linux*.so*`, `ld.so`, `ld-musl*`, or a file that is one of them) runs
//! its first operand as a program: [`loaded_program`] reads its options by their grammar
//! (`ld.so --help`) and the exec is read as that program too. A loader whose program cannot be
//! resolved to a file (no operand with a `/`: the loader would search its library path) is refused.

use std::collections::{HashMap, HashSet};
use std::io::Read as _;
use std::os::unix::fs::{DirEntryExt as _, MetadataExt as _};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use hook_shell::table::{LOADER, LOADER_ARGV0, LOADER_PATHS, LOADER_WITH_VALUE};
use sha2::{Digest as _, Sha256};

/// A file's identity: its device and inode.
pub(crate) type FileId = (u64, u64);

/// A file's version: its device, inode and change time (seconds, nanoseconds).
type Version = (u64, u64, i64, i64);

/// A file of a program the rules name.
#[derive(Debug)]
struct Reference {
    id: FileId,
    path: PathBuf,
    name: String,
}

/// What the programs the rules name are on this machine.
#[derive(Debug, Default)]
pub(crate) struct Identities {
    by_id: HashMap<FileId, String>,
    by_size: HashMap<u64, Vec<Reference>>,
    /// git's exec-path directories read.
    exec_path: Vec<PathBuf>,
    /// Content hashes by device, inode and change time (`None`: the file could not be read).
    hashes: Mutex<HashMap<Version, Option<[u8; 32]>>>,
}

/// An exec's file as identified: its device and inode, and the program it is, if it is one.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Identity {
    pub(crate) id: Option<FileId>,
    pub(crate) name: Option<String>,
}

impl Identities {
    /// The identities of `programs` (names the rules give) and of the dynamic loader, found on
    /// `path` (a `PATH` value).
    pub(crate) fn resolve(programs: &[String], path: Option<&std::ffi::OsStr>) -> Identities {
        let mut ids = Identities::default();
        for loader in LOADER_PATHS {
            ids.add(Path::new(loader), LOADER);
        }
        let mut dirs: Vec<PathBuf> = path.map(|p| std::env::split_paths(p).collect()).unwrap_or_default();
        // A directory the PATH names twice holds the same files.
        let mut seen = HashSet::new();
        dirs.retain(|dir| seen.insert(dir.clone()));
        for program in programs {
            for dir in &dirs {
                let file = dir.join(program);
                let Ok(link) = std::fs::symlink_metadata(&file) else { continue };
                // A link to a program of another name (busybox) is that program: it reads argv[0].
                // git's exec-path is found beside the file its links lead to (`/bin` may be a link).
                let real = (link.file_type().is_symlink() || program == "git")
                    .then(|| std::fs::canonicalize(&file).ok())
                    .flatten();
                let name = real.as_deref().and_then(Path::file_name).and_then(|n| n.to_str()).unwrap_or(program);
                ids.add(&file, name);
                if program == "git" {
                    ids.add_git_exec_path(&file, real.as_deref().unwrap_or(&file));
                }
            }
        }
        ids
    }

    /// Records `file` (when it is an executable file) as the program `name`.
    fn add(&mut self, file: &Path, name: &str) {
        use std::os::unix::fs::PermissionsExt as _;
        let Ok(meta) = std::fs::metadata(file) else { return };
        if !meta.is_file() || meta.permissions().mode() & 0o111 == 0 {
            return;
        }
        let id = (meta.dev(), meta.ino());
        if self.by_id.contains_key(&id) {
            return;
        }
        self.by_id.insert(id, name.to_owned());
        self.by_size.entry(meta.len()).or_default().push(Reference {
            id,
            path: file.to_owned(),
            name: name.to_owned(),
        });
    }

    /// The files of git's exec-path beside `git` (whose symlinks followed are `real`): each is
    /// the program its name says (`git-http-push`), or git itself (its hard links).
    fn add_git_exec_path(&mut self, git: &Path, real: &Path) {
        let prefix = real.parent().and_then(Path::parent);
        let mut dirs: Vec<PathBuf> = prefix
            .map(|p| vec![p.join("libexec/git-core"), p.join("lib/git-core")])
            .unwrap_or_default()
            .into_iter()
            .filter(|d| d.is_dir())
            .collect();
        dirs.extend(std::env::var_os("GIT_EXEC_PATH").map(PathBuf::from).filter(|d| d.is_dir()));
        if dirs.is_empty() {
            // Not where git is usually built to look: ask it.
            let asked = std::process::Command::new(git).arg("--exec-path").stderr(std::process::Stdio::null()).output();
            if let Some(out) = asked.ok().filter(|o| o.status.success()) {
                let dir = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim_end_matches('\n'));
                dirs.extend(Some(dir).filter(|d| d.is_dir()));
            }
        }
        for dir in dirs {
            // Another git on the PATH may be this one (`/bin/git` and `/usr/bin/git`).
            if self.exec_path.contains(&dir) {
                continue;
            }
            self.exec_path.push(dir.clone());
            self.add(&dir.join("git"), "git");
            let (Ok(entries), Ok(dir_meta)) = (std::fs::read_dir(&dir), std::fs::metadata(&dir)) else { continue };
            for entry in entries.flatten() {
                let name = entry.file_name();
                let Some(name) = name.to_str().filter(|n| n.starts_with("git-")) else { continue };
                // A hard link of a file already known needs no stat of its own, and a symlink is
                // known through the file of the exec-path it leads to (`git-push -> git`).
                let known = self.by_id.contains_key(&(dir_meta.dev(), entry.ino()));
                if known || entry.file_type().is_ok_and(|t| t.is_symlink()) {
                    continue;
                }
                self.add(&entry.path(), name);
            }
        }
    }

    /// What `file` (a path the guard can open: `/proc/<pid>/exe`, `/proc/<pid>/fd/<n>` …) is.
    pub(crate) fn identify(&self, file: &Path) -> Identity {
        match std::fs::metadata(file) {
            Ok(meta) => self.identify_stated(file, &meta),
            Err(_) => Identity::default(),
        }
    }

    /// [`Identities::identify`] of a file whose metadata (its symlinks followed) is `meta`.
    pub(crate) fn identify_stated(&self, file: &Path, meta: &std::fs::Metadata) -> Identity {
        let id = (meta.dev(), meta.ino());
        if let Some(name) = self.by_id.get(&id) {
            return Identity { id: Some(id), name: Some(name.clone()) };
        }
        let Some(references) = self.by_size.get(&meta.len()).filter(|_| meta.is_file()) else {
            return Identity { id: Some(id), name: None };
        };
        let Some(hash) = self.hash(file, meta) else { return Identity { id: Some(id), name: None } };
        let name = references.iter().find_map(|r| {
            let meta = std::fs::metadata(&r.path).ok().filter(|m| (m.dev(), m.ino()) == r.id)?;
            (self.hash(&r.path, &meta) == Some(hash)).then(|| r.name.clone())
        });
        Identity { id: Some(id), name }
    }

    /// The SHA-256 of `file` (whose metadata is `meta`), cached by inode and change time.
    fn hash(&self, file: &Path, meta: &std::fs::Metadata) -> Option<[u8; 32]> {
        let key = (meta.dev(), meta.ino(), meta.ctime(), meta.ctime_nsec());
        if let Some(hash) = self.hashes.lock().ok().and_then(|h| h.get(&key).copied()) {
            return hash;
        }
        let hash = digest(file);
        if let Ok(mut hashes) = self.hashes.lock() {
            hashes.insert(key, hash);
        }
        hash
    }
}

/// The SHA-256 of an ELF file; `None` for any other file. A script's copy is not its program:
/// what runs is its interpreter (checked as itself), and a script may act on the name it was
/// started under (`$0`), as stub programs sharing one text do.
fn digest(file: &Path) -> Option<[u8; 32]> {
    let mut f = std::fs::File::open(file).ok()?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    let mut magic = [0u8; 4];
    f.read_exact(&mut magic).ok().filter(|()| magic == *b"\x7fELF")?;
    hasher.update(magic);
    loop {
        match f.read(&mut buf) {
            Ok(0) => return Some(hasher.finalize().into()),
            Ok(n) => hasher.update(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return None,
        }
    }
}

/// The program a loader's `argv` runs: its path (the operand) and its own argv (`--argv0` or the
/// operand first); `Ok(None)` when it runs none (`--help`, `--version`, no operand); `Err` when the
/// operand has no `/` (the loader searches its library path for it).
pub(crate) fn loaded_program(argv: &[String]) -> Result<Option<(String, Vec<String>)>, String> {
    let (at, argv0) = loader_operand(argv);
    let argv0 = argv0.cloned();
    let Some(program) = argv.get(at) else { return Ok(None) };
    if !program.contains('/') {
        return Err(format!("the dynamic loader would search its library path for `{program}`"));
    }
    let args = std::iter::once(argv0.unwrap_or_else(|| program.clone())).chain(argv[at + 1..].iter().cloned());
    Ok(Some((program.clone(), args.collect())))
}

/// Where a loader's `argv` has its operand (the program; `argv.len()` when there is none, past a
/// `--` if one ends the options), and the value of its `--argv0`.
pub(crate) fn loader_operand(argv: &[String]) -> (usize, Option<&String>) {
    let mut at = 1;
    let mut argv0 = None;
    while let Some(w) = argv.get(at) {
        if w == "--" {
            return (at + 1, argv0);
        }
        if !w.starts_with("--") {
            break;
        }
        if LOADER_WITH_VALUE.contains(&w.as_str()) {
            if w == LOADER_ARGV0 {
                argv0 = argv.get(at + 1);
            }
            at += 2;
        } else {
            at += 1;
        }
    }
    (at.min(argv.len()), argv0)
}

/// `path` (absolute) as the guard opens it for the process `pid`: through the process's root, so
/// in its mount namespace (a bind mount of its own is seen), and its `/proc/self/…` and
/// `/dev/fd/…` are its own.
pub(crate) fn of_process(path: &Path, pid: i32) -> PathBuf {
    let text = path.to_string_lossy();
    for (own, theirs) in [
        ("/proc/self/", format!("/proc/{pid}/")),
        ("/proc/thread-self/", format!("/proc/{pid}/")),
        ("/dev/fd/", format!("/proc/{pid}/fd/")),
    ] {
        if let Some(rest) = text.strip_prefix(own) {
            return PathBuf::from(format!("{theirs}{rest}"));
        }
    }
    PathBuf::from(format!("/proc/{pid}/root{text}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn the_loader_runs_its_first_operand_read_by_its_grammar() {
        type Want = Result<Option<(&'static str, &'static str)>, ()>;
        let cases: &[(&str, Want)] = &[
            ("ld.so /usr/bin/git push", Ok(Some(("/usr/bin/git", "/usr/bin/git push")))),
            ("ld.so --argv0 git-push /x/git dest HEAD", Ok(Some(("/x/git", "git-push dest HEAD")))),
            ("ld.so --library-path /a --preload l.so --inhibit-cache /x/g a", Ok(Some(("/x/g", "/x/g a")))),
            ("ld.so --audit a.so --list /bin/ls", Ok(Some(("/bin/ls", "/bin/ls")))),
            ("ld.so -- /dev/fd/3 push", Ok(Some(("/dev/fd/3", "/dev/fd/3 push")))),
            ("ld.so --help", Ok(None)),
            ("ld.so", Ok(None)),
            ("ld.so git push", Err(())),
            ("ld.so --library-path /usr/bin git push", Err(())),
        ];
        for (line, want) in cases {
            let got = loaded_program(&words(line)).map(|p| p.map(|(f, a)| (f, a.join(" ")))).map_err(|_| ());
            let want = want.map(|p| p.map(|(f, a)| (f.to_owned(), a.to_owned())));
            assert_eq!(got, want, "{line}");
        }
    }

    #[test]
    fn a_copy_a_hard_link_and_a_symlink_of_a_program_are_that_program_and_a_same_size_stranger_is_not() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().expect("dir");
        let bin = dir.path().join("bin");
        std::fs::create_dir(&bin).expect("bin");
        let write = |path: &Path, text: &[u8]| {
            std::fs::write(path, text).expect("write");
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        };
        let program = bin.join("tool");
        write(&program, b"\x7fELF the tool\n");
        write(&bin.join("stub"), b"#!/bin/sh\necho $0\n");
        let ids = Identities::resolve(&["tool".to_owned(), "stub".to_owned()], Some(bin.as_os_str()));
        let copy = dir.path().join("copy");
        std::fs::copy(&program, &copy).expect("copy");
        let link = dir.path().join("link");
        std::fs::hard_link(&program, &link).expect("link");
        let symlink = dir.path().join("symlink");
        std::os::unix::fs::symlink(&program, &symlink).expect("symlink");
        let stranger = dir.path().join("stranger");
        write(&stranger, b"\x7fELF the toot\n");
        let script_copy = dir.path().join("echo");
        std::fs::copy(bin.join("stub"), &script_copy).expect("copy");
        for (file, name) in [
            (&program, Some("tool")),
            (&copy, Some("tool")),
            (&link, Some("tool")),
            (&symlink, Some("tool")),
            (&stranger, None),
            (&bin.join("stub"), Some("stub")),
            (&script_copy, None),
        ] {
            assert_eq!(ids.identify(file).name.as_deref(), name, "{}", file.display());
        }
        // Hashed: the program, the copy, the stranger and the script copy (found to be no ELF, so
        // its program's text is not read); the links are known by their inode.
        assert_eq!(ids.hashes.lock().expect("hashes").len(), 4, "{:?}", ids.hashes);
    }

    #[test]
    fn a_process_own_paths_are_read_in_its_proc_directory() {
        for (path, want) in [
            ("/proc/self/fd/3", "/proc/7/fd/3"),
            ("/dev/fd/3", "/proc/7/fd/3"),
            ("/proc/thread-self/exe", "/proc/7/exe"),
            ("/usr/bin/git", "/proc/7/root/usr/bin/git"),
        ] {
            assert_eq!(of_process(Path::new(path), 7), PathBuf::from(want));
        }
    }
}
