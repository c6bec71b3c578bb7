//! The option tables of the modelled programs: each option's spellings (its canonical one first),
//! whether it takes a value, and what it implies (`git branch -D` is `--delete --force`).
//! Sources: each program's `--help` and manual page (GNU coreutils 9, findutils, tar, sed; git
//! 2.47; curl 8; wget 1.21; procps kill; npm 10, pnpm 9, yarn 1; docker 27; kubectl 1.31).

/// How an option takes a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Takes {
    Nothing,
    /// The rest of the cluster or the next word (`-n5`, `-n 5`, `--lines=5`, `--lines 5`).
    Value,
    /// Only attached (`-i.bak`, `--force-with-lease=main`).
    Optional,
}

/// How two values of an option compare.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Norm {
    Plain,
    /// Letter case does not matter (`-X post`).
    Caseless,
    /// A signal: `9`, `KILL`, `SIGKILL`, `kill`.
    Signal,
}

/// How a program reads its arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    /// getopt_long with GNU's permutation: options anywhere before `--`.
    Getopt,
    /// chmod: `-x`, `-rwx` are modes (operands), not options.
    Chmod,
    /// find: every `-word` is one primary.
    Find,
    /// dd: `key=value` operands are options.
    Dd,
    /// kill: `-9`, `-KILL`, `-SIGKILL` name the signal; TERM when none does.
    Kill,
    /// tar: the first word may be a cluster without its dash (`tar xzf a.tgz`).
    Tar,
}

#[derive(Debug)]
pub(crate) struct Opt {
    pub(crate) names: &'static [&'static str],
    pub(crate) canon: &'static str,
    pub(crate) takes: Takes,
    pub(crate) implies: &'static [&'static str],
    pub(crate) norm: Norm,
}

#[derive(Debug)]
pub(crate) struct Sub {
    /// Its names (the canonical first); a name of two words is a management command (`container rm`).
    pub(crate) names: &'static [&'static str],
    pub(crate) canon: &'static str,
    pub(crate) options: &'static [Opt],
    /// Operands after the first are git refspecs (`+main` forces, `:main` deletes).
    pub(crate) refspecs: bool,
}

#[derive(Debug)]
pub(crate) struct Program {
    pub(crate) names: &'static [&'static str],
    pub(crate) shape: Shape,
    pub(crate) options: &'static [Opt],
    pub(crate) subs: &'static [Sub],
}

const fn opt(names: &'static [&'static str], takes: Takes, implies: &'static [&'static str], norm: Norm) -> Opt {
    Opt { names, canon: names[0], takes, implies, norm }
}
/// An option that stands alone.
const fn f(names: &'static [&'static str]) -> Opt {
    opt(names, Takes::Nothing, &[], Norm::Plain)
}
/// An option that takes a value.
const fn v(names: &'static [&'static str]) -> Opt {
    opt(names, Takes::Value, &[], Norm::Plain)
}
/// An option whose value, if any, is attached.
const fn o(names: &'static [&'static str]) -> Opt {
    opt(names, Takes::Optional, &[], Norm::Plain)
}
/// An option that stands alone and implies others.
const fn imp(names: &'static [&'static str], implies: &'static [&'static str]) -> Opt {
    opt(names, Takes::Nothing, implies, Norm::Plain)
}
/// A spelling of other options (`git branch -D` is `--delete --force`).
const fn same(names: &'static [&'static str], canon: &'static str, implies: &'static [&'static str]) -> Opt {
    Opt { names, canon, takes: Takes::Nothing, implies, norm: Norm::Plain }
}
const fn sub(names: &'static [&'static str], options: &'static [Opt]) -> Sub {
    Sub { names, canon: names[0], options, refspecs: false }
}
const fn prog(names: &'static [&'static str], shape: Shape, options: &'static [Opt], subs: &'static [Sub]) -> Program {
    Program { names, shape, options, subs }
}

#[rustfmt::skip]
const RM: &[Opt] = &[f(&["--recursive", "-r", "-R"]), f(&["--force", "-f"]), f(&["-i"]), f(&["-I"]),
    o(&["--interactive"]), f(&["--dir", "-d"]), f(&["--verbose", "-v"]), f(&["--one-file-system"]),
    f(&["--no-preserve-root"]), o(&["--preserve-root"])];
#[rustfmt::skip]
const RMDIR: &[Opt] = &[f(&["--parents", "-p"]), f(&["--verbose", "-v"]), f(&["--ignore-fail-on-non-empty"])];
#[rustfmt::skip]
const CP: &[Opt] = &[f(&["--recursive", "-r", "-R"]), imp(&["--archive", "-a"], &["--recursive"]), f(&["--force", "-f"]),
    f(&["--interactive", "-i"]), f(&["--no-clobber", "-n"]), f(&["--link", "-l"]), f(&["--symbolic-link", "-s"]),
    v(&["--target-directory", "-t"]), f(&["--no-target-directory", "-T"]), o(&["--update"]), f(&["-u"]),
    f(&["--verbose", "-v"]), f(&["-p"]), o(&["--preserve"]), o(&["--backup"]), f(&["-b"]), v(&["--suffix", "-S"]),
    f(&["--dereference", "-L"]), f(&["--no-dereference", "-P"]), f(&["-H"]), f(&["-d"]),
    f(&["--one-file-system", "-x"]), f(&["--remove-destination"]), o(&["--reflink"]), o(&["--sparse"])];
#[rustfmt::skip]
const MV: &[Opt] = &[f(&["--force", "-f"]), f(&["--interactive", "-i"]), f(&["--no-clobber", "-n"]),
    v(&["--target-directory", "-t"]), f(&["--no-target-directory", "-T"]), o(&["--update"]), f(&["-u"]),
    f(&["--verbose", "-v"]), o(&["--backup"]), f(&["-b"]), v(&["--suffix", "-S"]), f(&["--strip-trailing-slashes"])];
#[rustfmt::skip]
const CHMOD: &[Opt] = &[f(&["--recursive", "-R"]), f(&["--changes", "-c"]), f(&["--silent", "--quiet", "-f"]),
    f(&["--verbose", "-v"]), v(&["--reference"]), f(&["--preserve-root"]), f(&["--no-preserve-root"])];
#[rustfmt::skip]
const CHOWN: &[Opt] = &[f(&["--recursive", "-R"]), f(&["--changes", "-c"]), f(&["--silent", "--quiet", "-f"]),
    f(&["--verbose", "-v"]), v(&["--reference"]), v(&["--from"]), f(&["--preserve-root"]), f(&["--no-preserve-root"]),
    f(&["--no-dereference", "-h"]), f(&["--dereference"]), f(&["-H"]), f(&["-L"]), f(&["-P"])];
#[rustfmt::skip]
const LN: &[Opt] = &[f(&["--symbolic", "-s"]), f(&["--force", "-f"]), f(&["--no-dereference", "-n"]),
    f(&["--interactive", "-i"]), f(&["--verbose", "-v"]), o(&["--backup"]), f(&["-b"]), v(&["--suffix", "-S"]),
    v(&["--target-directory", "-t"]), f(&["--no-target-directory", "-T"]), f(&["--relative", "-r"]),
    f(&["--logical", "-L"]), f(&["--physical", "-P"]), f(&["--directory", "-d", "-F"])];
/// find's primaries that take a value (the rest stand alone).
#[rustfmt::skip]
const FIND: &[Opt] = &[v(&["-name"]), v(&["-iname"]), v(&["-path"]), v(&["-ipath"]), v(&["-wholename"]),
    v(&["-iwholename"]), v(&["-regex"]), v(&["-iregex"]), v(&["-regextype"]), v(&["-type"]), v(&["-xtype"]),
    v(&["-size"]), v(&["-mtime"]), v(&["-mmin"]), v(&["-atime"]), v(&["-amin"]), v(&["-ctime"]), v(&["-cmin"]),
    v(&["-newer"]), v(&["-anewer"]), v(&["-cnewer"]), v(&["-perm"]), v(&["-user"]), v(&["-group"]), v(&["-uid"]),
    v(&["-gid"]), v(&["-maxdepth"]), v(&["-mindepth"]), v(&["-links"]), v(&["-inum"]), v(&["-samefile"]),
    v(&["-fstype"]), v(&["-printf"]), v(&["-fprint"]), v(&["-fprint0"]), v(&["-fls"]), v(&["-context"]),
    v(&["-used"]), v(&["-lname"]), v(&["-ilname"]), v(&["-files0-from"]), v(&["-D"])];
#[rustfmt::skip]
const SED: &[Opt] = &[o(&["--in-place", "-i"]), f(&["--quiet", "--silent", "-n"]), v(&["--expression", "-e"]),
    v(&["--file", "-f"]), f(&["--regexp-extended", "-E", "-r"]), f(&["--separate", "-s"]), f(&["--null-data", "-z"]),
    f(&["--unbuffered", "-u"]), v(&["--line-length", "-l"]), f(&["--debug"]), f(&["--posix"]), f(&["--sandbox"]),
    f(&["--follow-symlinks"]), f(&["--binary", "-b"])];
#[rustfmt::skip]
const TAR: &[Opt] = &[f(&["--extract", "--get", "-x"]), f(&["--create", "-c"]), f(&["--list", "-t"]),
    f(&["--append", "-r"]), f(&["--update", "-u"]), f(&["--catenate", "--concatenate", "-A"]), f(&["--delete"]),
    v(&["--file", "-f"]), v(&["--directory", "-C"]), f(&["--gzip", "--gunzip", "--ungzip", "-z"]),
    f(&["--bzip2", "-j"]), f(&["--xz", "-J"]), f(&["--zstd"]), f(&["--auto-compress", "-a"]), f(&["--verbose", "-v"]),
    f(&["--preserve-permissions", "--same-permissions", "-p"]), f(&["--keep-old-files", "-k"]), f(&["--overwrite"]),
    f(&["--to-stdout", "-O"]), v(&["--files-from", "-T"]), v(&["--exclude-from", "-X"]), v(&["--exclude"]),
    v(&["--use-compress-program", "-I"]), v(&["--to-command"]), f(&["--absolute-names", "-P"]),
    f(&["--dereference", "-h"]), f(&["--touch", "-m"]), v(&["--blocking-factor", "-b"]),
    v(&["--newer", "--after-date", "-N"]), v(&["--listed-incremental", "-g"]), v(&["--label", "-V"]),
    v(&["--format", "-H"]), v(&["--starting-file", "-K"]), v(&["--tape-length", "-L"]),
    v(&["--info-script", "--new-volume-script", "-F"]), v(&["--strip-components"]), f(&["--verify", "-W"]),
    f(&["--remove-files"]), f(&["--unlink-first", "-U"]), f(&["--sparse", "-S"]), f(&["--interactive", "-w"]),
    v(&["--checkpoint-action"]), v(&["--rsh-command"]), v(&["--owner"]), v(&["--group"]), v(&["--mode"])];
#[rustfmt::skip]
const KILL: &[Opt] = &[opt(&["--signal", "-s", "-n"], Takes::Value, &[], Norm::Signal), f(&["--list", "-l"]),
    f(&["--table", "-L"]), v(&["--queue", "-q"]), f(&["--pid", "-p"]), v(&["--timeout"]), f(&["--verbose"])];
#[rustfmt::skip]
const CURL: &[Opt] = &[opt(&["--request", "-X"], Takes::Value, &[], Norm::Caseless),
    v(&["--data", "-d", "--data-raw", "--data-binary", "--data-ascii", "--data-urlencode", "--json"]),
    v(&["--form", "-F", "--form-string"]), v(&["--output", "-o"]), f(&["--remote-name", "-O"]),
    f(&["--remote-name-all"]), v(&["--upload-file", "-T"]), v(&["--header", "-H"]), v(&["--user", "-u"]),
    f(&["--location", "-L"]), f(&["--insecure", "-k"]), f(&["--silent", "-s"]), f(&["--show-error", "-S"]),
    f(&["--fail", "-f"]), v(&["--proxy", "-x"]), v(&["--user-agent", "-A"]), v(&["--referer", "-e"]),
    v(&["--cookie", "-b"]), v(&["--cookie-jar", "-c"]), v(&["--config", "-K"]), v(&["--write-out", "-w"]),
    v(&["--max-time", "-m"]), v(&["--connect-timeout"]), f(&["--head", "-I"]), f(&["--get", "-G"]),
    f(&["--verbose", "-v"]), f(&["--include", "-i"]), f(&["--progress-bar", "-#"]), v(&["--retry"]),
    f(&["--compressed"]), v(&["--range", "-r"]), v(&["--continue-at", "-C"]), v(&["--url"]),
    f(&["--create-dirs"]), v(&["--output-dir"]), v(&["--resolve"]), v(&["--cacert"]), v(&["--cert", "-E"]),
    v(&["--key"]), f(&["--netrc", "-n"]), v(&["--limit-rate"]), f(&["--http1.1"]), f(&["--http2"]),
    f(&["--ipv4", "-4"]), f(&["--ipv6", "-6"]), f(&["--globoff", "-g"]), f(&["--no-progress-meter"])];
#[rustfmt::skip]
const WGET: &[Opt] = &[v(&["--output-document", "-O"]), v(&["--output-file", "-o"]), f(&["--quiet", "-q"]),
    f(&["--recursive", "-r"]), imp(&["--mirror", "-m"], &["--recursive"]), f(&["--continue", "-c"]),
    v(&["--directory-prefix", "-P"]), v(&["--post-data"]), v(&["--post-file"]),
    opt(&["--method"], Takes::Value, &[], Norm::Caseless), v(&["--body-data"]), v(&["--body-file"]),
    v(&["--input-file", "-i"]), f(&["--timestamping", "-N"]), f(&["--no-clobber"]), v(&["-n"]),
    v(&["--header"]), v(&["--user"]), v(&["--password"]), v(&["--user-agent", "-U"]), f(&["--verbose", "-v"]),
    f(&["--background", "-b"]), v(&["--tries", "-t"]), v(&["--timeout", "-T"]), v(&["--level", "-l"]),
    f(&["--no-parent"]), f(&["--page-requisites", "-p"]), f(&["--convert-links", "-k"]), v(&["--execute", "-e"]),
    f(&["--no-check-certificate"]), f(&["--spider"]), v(&["--accept", "-A"]), v(&["--reject", "-R"])];

#[rustfmt::skip]
const GIT_PUSH: &[Opt] = &[f(&["--force", "-f"]), o(&["--force-with-lease"]), f(&["--force-if-includes"]),
    f(&["--delete", "-d"]), imp(&["--mirror"], &["--force", "--delete"]), f(&["--all", "--branches"]), f(&["--tags"]),
    f(&["--follow-tags"]), f(&["--set-upstream", "-u"]), f(&["--dry-run", "-n"]), f(&["--verbose", "-v"]),
    f(&["--quiet", "-q"]), imp(&["--prune"], &["--delete"]), f(&["--atomic"]), f(&["--no-verify"]), f(&["--verify"]),
    v(&["--push-option", "-o"]), v(&["--repo"]), v(&["--receive-pack", "--exec"]), o(&["--signed"]),
    f(&["--porcelain"]), f(&["--progress"]), f(&["--thin"]), f(&["--no-thin"]), f(&["--ipv4", "-4"]),
    f(&["--ipv6", "-6"]), o(&["--recurse-submodules"])];
/// git's push plumbing (`send-pack`, `http-push`): push's options that they take, and theirs.
/// `--stdin` reads the refs from standard input, which may force or delete any: read as `--mirror`.
#[rustfmt::skip]
const GIT_SEND_PACK: &[Opt] = &[f(&["--force", "-f"]), o(&["--force-with-lease"]), f(&["--delete", "-d"]),
    same(&["-D"], "--delete", &["--force"]), imp(&["--mirror"], &["--force", "--delete"]), f(&["--all"]),
    imp(&["--stdin"], &["--force", "--delete"]), f(&["--dry-run", "-n"]), f(&["--verbose", "-v"]),
    f(&["--quiet", "-q"]), f(&["--atomic"]), v(&["--push-option"]), v(&["--receive-pack", "--exec"]),
    v(&["--remote"]), o(&["--signed"]), f(&["--progress"]), f(&["--thin"]), f(&["--stateless-rpc"]),
    f(&["--helper-status"])];
#[rustfmt::skip]
const GIT_CLEAN: &[Opt] = &[f(&["--force", "-f"]), f(&["-d"]), f(&["-x"]), f(&["-X"]), f(&["--dry-run", "-n"]),
    f(&["--quiet", "-q"]), f(&["--interactive", "-i"]), v(&["--exclude", "-e"])];
#[rustfmt::skip]
const GIT_RESET: &[Opt] = &[f(&["--hard"]), f(&["--soft"]), f(&["--mixed"]), f(&["--merge"]), f(&["--keep"]),
    f(&["--quiet", "-q"]), f(&["--patch", "-p"]), o(&["--recurse-submodules"]), f(&["--no-refresh"]),
    f(&["--intent-to-add", "-N"]), v(&["--pathspec-from-file"])];
#[rustfmt::skip]
const GIT_BRANCH: &[Opt] = &[f(&["--delete", "-d"]), same(&["-D"], "--delete", &["--force"]), f(&["--force", "-f"]),
    f(&["--move", "-m"]), same(&["-M"], "--move", &["--force"]), f(&["--copy", "-c"]), same(&["-C"], "--copy", &["--force"]),
    f(&["--remotes", "-r"]), f(&["--all", "-a"]), v(&["--set-upstream-to", "-u"]), f(&["--unset-upstream"]),
    o(&["--track", "-t"]), f(&["--list", "-l"]), f(&["--verbose", "-v"]), f(&["--quiet", "-q"]), o(&["--contains"]),
    o(&["--no-contains"]), o(&["--merged"]), o(&["--no-merged"]), v(&["--format"]), v(&["--sort"]),
    v(&["--points-at"]), o(&["--color"]), f(&["--show-current"]), f(&["--edit-description"]), o(&["--column"])];
#[rustfmt::skip]
const GIT_CHECKOUT: &[Opt] = &[f(&["--force", "-f"]), v(&["-b"]), v(&["-B"]), v(&["--orphan"]), o(&["--track", "-t"]),
    f(&["--detach"]), f(&["--patch", "-p"]), f(&["--quiet", "-q"]), f(&["--ours"]), f(&["--theirs"]),
    f(&["--merge", "-m"]), v(&["--conflict"]), f(&["--no-track"]), f(&["--ignore-other-worktrees"]),
    o(&["--recurse-submodules"]), v(&["--pathspec-from-file"])];
#[rustfmt::skip]
const GIT_RESTORE: &[Opt] = &[v(&["--source", "-s"]), f(&["--staged", "-S"]), f(&["--worktree", "-W"]), f(&["--ours"]),
    f(&["--theirs"]), f(&["--merge", "-m"]), v(&["--conflict"]), f(&["--patch", "-p"]), f(&["--quiet", "-q"]),
    f(&["--ignore-unmerged"]), f(&["--overlay"]), f(&["--no-overlay"]), o(&["--recurse-submodules"]),
    v(&["--pathspec-from-file"])];
#[rustfmt::skip]
const GIT_SWITCH: &[Opt] = &[f(&["--force", "--discard-changes", "-f"]), v(&["--create", "-c"]),
    opt(&["--force-create", "-C"], Takes::Value, &["--force"], Norm::Plain), f(&["--detach", "-d"]), v(&["--orphan"]),
    o(&["--track", "-t"]), f(&["--no-track"]), f(&["--guess"]), f(&["--no-guess"]), f(&["--merge", "-m"]),
    v(&["--conflict"]), f(&["--quiet", "-q"]), f(&["--ignore-other-worktrees"]), o(&["--recurse-submodules"])];
#[rustfmt::skip]
const GIT_COMMIT: &[Opt] = &[f(&["--amend"]), f(&["--all", "-a"]), v(&["--message", "-m"]), v(&["--file", "-F"]),
    v(&["--reuse-message", "-C"]), v(&["--reedit-message", "-c"]), v(&["--fixup"]), v(&["--squash"]),
    f(&["--no-verify", "-n"]), f(&["--verify"]), f(&["--allow-empty"]), f(&["--allow-empty-message"]),
    f(&["--signoff", "-s"]), o(&["--gpg-sign", "-S"]), f(&["--verbose", "-v"]), f(&["--quiet", "-q"]),
    f(&["--patch", "-p"]), f(&["--edit", "-e"]), f(&["--no-edit"]), v(&["--author"]), v(&["--date"]),
    o(&["--untracked-files", "-u"]), f(&["--include", "-i"]), f(&["--only", "-o"]), f(&["--dry-run"]),
    v(&["--template", "-t"]), v(&["--cleanup"]), v(&["--trailer"]), f(&["--reset-author"]), f(&["--no-gpg-sign"]),
    v(&["--pathspec-from-file"]), f(&["--status"]), f(&["--no-status"]), f(&["--short"]), f(&["--porcelain"]),
    f(&["--long"]), f(&["-z", "--null"])];
#[rustfmt::skip]
const GIT_REBASE: &[Opt] = &[f(&["--interactive", "-i"]), v(&["--onto"]), v(&["--exec", "-x"]), f(&["--root"]),
    f(&["--continue"]), f(&["--abort"]), f(&["--skip"]), f(&["--quit"]), f(&["--force-rebase", "--no-ff", "-f"]),
    f(&["--autosquash"]), f(&["--no-autosquash"]), v(&["--strategy", "-s"]), v(&["--strategy-option", "-X"]),
    f(&["--update-refs"]), o(&["--rebase-merges", "-r"]), f(&["--autostash"]), f(&["--keep-base"]),
    f(&["--quiet", "-q"]), f(&["--verbose", "-v"]), f(&["--edit-todo"]), f(&["--merge", "-m"]), f(&["--apply"])];
#[rustfmt::skip]
const GIT_TAG: &[Opt] = &[f(&["--delete", "-d"]), f(&["--force", "-f"]), f(&["--annotate", "-a"]), f(&["--sign", "-s"]),
    v(&["--message", "-m"]), v(&["--file", "-F"]), v(&["--local-user", "-u"]), o(&["--list", "-l"]),
    f(&["--verify", "-v"]), o(&["--contains"]), o(&["--merged"]), v(&["--sort"]), v(&["--format"]), o(&["-n"])];
#[rustfmt::skip]
const GIT_RM: &[Opt] = &[f(&["-r"]), f(&["--force", "-f"]), f(&["--cached"]), f(&["--dry-run", "-n"]),
    f(&["--quiet", "-q"]), f(&["--ignore-unmatch"]), f(&["--sparse"]), v(&["--pathspec-from-file"])];
#[rustfmt::skip]
const GIT_FETCH: &[Opt] = &[f(&["--all"]), f(&["--prune", "-p"]), f(&["--prune-tags", "-P"]), f(&["--tags", "-t"]),
    f(&["--force", "-f"]), v(&["--depth"]), v(&["--jobs", "-j"]), v(&["--upload-pack"]), f(&["--dry-run"]),
    f(&["--quiet", "-q"]), f(&["--verbose", "-v"]), v(&["--refmap"]), v(&["--shallow-since"]), f(&["--unshallow"])];
#[rustfmt::skip]
const GIT_PULL: &[Opt] = &[o(&["--rebase", "-r"]), f(&["--force", "-f"]), f(&["--ff-only"]), f(&["--no-ff"]),
    f(&["--ff"]), f(&["--squash"]), f(&["--all"]), f(&["--quiet", "-q"]), f(&["--verbose", "-v"]), v(&["--depth"]),
    v(&["--strategy", "-s"]), v(&["--strategy-option", "-X"]), f(&["--autostash"]), v(&["--upload-pack"])];
#[rustfmt::skip]
const GIT_MERGE: &[Opt] = &[f(&["--no-ff"]), f(&["--ff-only"]), f(&["--ff"]), v(&["--message", "-m"]),
    v(&["--strategy", "-s"]), v(&["--strategy-option", "-X"]), f(&["--squash"]), f(&["--abort"]), f(&["--continue"]),
    f(&["--no-commit"]), f(&["--commit"]), f(&["--no-edit"]), f(&["--edit", "-e"]), v(&["--file", "-F"]),
    f(&["--allow-unrelated-histories"]), f(&["--quiet", "-q"]), f(&["--verbose", "-v"]), f(&["--autostash"])];
#[rustfmt::skip]
const GIT_STASH: &[Opt] = &[v(&["--message", "-m"]), f(&["--include-untracked", "-u"]), f(&["--all", "-a"]),
    f(&["--keep-index", "-k"]), f(&["--staged", "-S"]), f(&["--patch", "-p"]), f(&["--quiet", "-q"]), f(&["--index"])];
#[rustfmt::skip]
const GIT_SUBS: &[Sub] = &[Sub { names: &["push"], canon: "push", options: GIT_PUSH, refspecs: true },
    // The plumbing that does a push is a push (see docs/security.md, "Parse time and exec time").
    Sub { names: &["send-pack", "http-push"], canon: "push", options: GIT_SEND_PACK, refspecs: true },
    sub(&["clean"], GIT_CLEAN), sub(&["reset"], GIT_RESET), sub(&["branch"], GIT_BRANCH), sub(&["checkout"], GIT_CHECKOUT),
    sub(&["restore"], GIT_RESTORE), sub(&["switch"], GIT_SWITCH), sub(&["commit"], GIT_COMMIT),
    sub(&["rebase"], GIT_REBASE), sub(&["tag"], GIT_TAG), sub(&["rm"], GIT_RM), sub(&["fetch"], GIT_FETCH),
    sub(&["pull"], GIT_PULL), sub(&["merge"], GIT_MERGE), sub(&["stash"], GIT_STASH)];

#[rustfmt::skip]
const NPM: &[Opt] = &[f(&["--global", "-g"]), f(&["--save-dev", "-D"]), f(&["--save-exact", "-E"]),
    f(&["--save-optional", "-O"]), f(&["--save-prod", "-P"]), f(&["--save-bundle", "-B"]), f(&["--no-save"]),
    f(&["--force", "-f"]), f(&["--ignore-scripts"]), f(&["--legacy-peer-deps"]), v(&["--workspace", "-w"]),
    f(&["--workspaces"]), v(&["--registry"]), v(&["--prefix"]), v(&["--tag"]), v(&["--access"]),
    v(&["--otp"]), f(&["--dry-run"]), f(&["--provenance"]), f(&["--if-present"]), f(&["--silent", "-s"]),
    f(&["--yes", "-y"]), v(&["--package"]), f(&["--call", "-c"])];
#[rustfmt::skip]
const NPM_SUBS: &[Sub] = &[
    sub(&["install", "i", "in", "ins", "inst", "insta", "instal", "isnt", "isnta", "isntal", "isntall", "add"], &[]),
    sub(&["uninstall", "unlink", "remove", "rm", "r", "un"], &[]), sub(&["run", "run-script", "rum", "urn"], &[]),
    sub(&["publish"], &[]), sub(&["exec", "x"], &[]), sub(&["test", "tst", "t"], &[]),
    sub(&["ci", "clean-install", "ic", "install-clean", "isntall-clean"], &[]),
    sub(&["install-test", "it"], &[]), sub(&["install-ci-test", "cit", "clean-install-test", "sit"], &[]),
    sub(&["update", "up", "upgrade", "udpate"], &[]), sub(&["link", "ln"], &[]), sub(&["list", "ls", "la", "ll"], &[]),
    sub(&["unpublish"], &[]), sub(&["deprecate"], &[])];
#[rustfmt::skip]
const PNPM_SUBS: &[Sub] = &[sub(&["install", "i"], &[]), sub(&["add"], &[]),
    sub(&["remove", "rm", "uninstall", "un"], &[]), sub(&["run", "run-script"], &[]), sub(&["publish"], &[]),
    sub(&["exec"], &[]), sub(&["dlx"], &[]), sub(&["update", "up", "upgrade"], &[]), sub(&["test", "t"], &[]),
    sub(&["list", "ls"], &[])];
#[rustfmt::skip]
const YARN_SUBS: &[Sub] = &[sub(&["add"], &[]), sub(&["remove"], &[]), sub(&["run"], &[]), sub(&["install"], &[]),
    sub(&["publish"], &[]), sub(&["dlx"], &[]), sub(&["upgrade"], &[])];

#[rustfmt::skip]
const DOCKER_RM: &[Opt] = &[f(&["--force", "-f"]), f(&["--volumes", "-v"]), f(&["--link", "-l"])];
#[rustfmt::skip]
const DOCKER_RUN: &[Opt] = &[f(&["--privileged"]), f(&["--rm"]), f(&["--detach", "-d"]), f(&["--interactive", "-i"]),
    f(&["--tty", "-t"]), v(&["--volume", "-v"]), v(&["--env", "-e"]), v(&["--publish", "-p"]), v(&["--name"]),
    v(&["--network", "--net"]), v(&["--user", "-u"]), v(&["--workdir", "-w"]), v(&["--entrypoint"]),
    v(&["--cap-add"]), v(&["--cap-drop"]), v(&["--security-opt"]), v(&["--pid"]), v(&["--ipc"]), v(&["--mount"]),
    v(&["--device"]), v(&["--env-file"]), v(&["--hostname", "-h"]), v(&["--platform"]), v(&["--label", "-l"]),
    v(&["--restart"]), v(&["--memory", "-m"]), v(&["--cpus"]), v(&["--gpus"]), v(&["--userns"]), v(&["--uts"]),
    v(&["--add-host"]), f(&["--init"]), f(&["--publish-all", "-P"]), v(&["--pull"]), f(&["--read-only"]),
    v(&["--tmpfs"]), v(&["--ulimit"]), v(&["--log-driver"])];
#[rustfmt::skip]
const DOCKER_PRUNE: &[Opt] = &[f(&["--all", "-a"]), f(&["--force", "-f"]), f(&["--volumes"]), v(&["--filter"])];
#[rustfmt::skip]
const DOCKER_SUBS: &[Sub] = &[sub(&["rm", "container rm", "container remove"], DOCKER_RM),
    sub(&["rmi", "image rm", "image remove"], &[f(&["--force", "-f"]), f(&["--no-prune"])]),
    sub(&["run", "container run"], DOCKER_RUN), sub(&["create", "container create"], DOCKER_RUN),
    sub(&["exec", "container exec"], &[f(&["--privileged"]), f(&["--detach", "-d"]), f(&["--interactive", "-i"]),
        f(&["--tty", "-t"]), v(&["--env", "-e"]), v(&["--user", "-u"]), v(&["--workdir", "-w"])]),
    sub(&["kill", "container kill"], &[opt(&["--signal", "-s"], Takes::Value, &[], Norm::Signal)]),
    sub(&["stop", "container stop"], &[v(&["--time", "-t"])]), sub(&["push", "image push"], &[f(&["--all-tags", "-a"])]),
    sub(&["pull", "image pull"], &[f(&["--all-tags", "-a"])]), sub(&["build", "image build", "buildx build"], &[]),
    sub(&["system prune"], DOCKER_PRUNE), sub(&["image prune"], DOCKER_PRUNE), sub(&["container prune"], DOCKER_PRUNE),
    sub(&["volume prune"], DOCKER_PRUNE), sub(&["network prune"], DOCKER_PRUNE), sub(&["builder prune"], DOCKER_PRUNE),
    sub(&["volume rm", "volume remove"], &[f(&["--force", "-f"])])];

#[rustfmt::skip]
const KUBECTL: &[Opt] = &[v(&["--namespace", "-n"]), f(&["--all-namespaces", "-A"]), f(&["--all"]),
    v(&["--filename", "-f"]), v(&["--selector", "-l"]), v(&["--output", "-o"]), v(&["--context"]),
    v(&["--kubeconfig"]), f(&["--recursive", "-R"]), v(&["--kustomize", "-k"]), v(&["--field-selector"]),
    o(&["--dry-run"]), v(&["--container", "-c"])];
#[rustfmt::skip]
const KUBECTL_SUBS: &[Sub] = &[sub(&["delete"], &[f(&["--force"]), v(&["--grace-period"]), f(&["--now"]),
    o(&["--cascade"]), o(&["--wait"]), o(&["--ignore-not-found"]), f(&["--interactive", "-i"]), v(&["--timeout"])]),
    sub(&["apply"], &[f(&["--force"]), f(&["--prune"]), f(&["--server-side"])]),
    sub(&["exec"], &[f(&["--stdin", "-i"]), f(&["--tty", "-t"])])];

/// The modelled programs (their first name is the canonical one).
#[rustfmt::skip]
pub(crate) const PROGRAMS: &[Program] = &[
    prog(&["rm"], Shape::Getopt, RM, &[]), prog(&["rmdir"], Shape::Getopt, RMDIR, &[]),
    prog(&["cp"], Shape::Getopt, CP, &[]), prog(&["mv"], Shape::Getopt, MV, &[]),
    prog(&["chmod"], Shape::Chmod, CHMOD, &[]), prog(&["chown"], Shape::Getopt, CHOWN, &[]),
    prog(&["chgrp"], Shape::Getopt, CHOWN, &[]), prog(&["ln"], Shape::Getopt, LN, &[]),
    prog(&["find"], Shape::Find, FIND, &[]), prog(&["sed"], Shape::Getopt, SED, &[]),
    prog(&["tar"], Shape::Tar, TAR, &[]), prog(&["dd"], Shape::Dd, &[], &[]),
    prog(&["kill"], Shape::Kill, KILL, &[]), prog(&["pkill"], Shape::Kill, KILL, &[]),
    prog(&["killall"], Shape::Kill, KILL, &[]), prog(&["curl"], Shape::Getopt, CURL, &[]),
    prog(&["wget"], Shape::Getopt, WGET, &[]), prog(&["git"], Shape::Getopt, &[], GIT_SUBS),
    prog(&["npm"], Shape::Getopt, NPM, NPM_SUBS), prog(&["pnpm"], Shape::Getopt, NPM, PNPM_SUBS),
    prog(&["yarn"], Shape::Getopt, NPM, YARN_SUBS), prog(&["docker", "podman"], Shape::Getopt, &[], DOCKER_SUBS),
    prog(&["kubectl"], Shape::Getopt, KUBECTL, KUBECTL_SUBS),
];
