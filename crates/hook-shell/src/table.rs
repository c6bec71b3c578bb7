//! The program table: what the analyser (and through hook-predicate the matcher) and the
//! exec-time guard (hook-guard) both know about programs that run other programs — shells, git's
//! commands, global options and plumbing, the dynamic loader. One table, read by both: a program
//! added here is known to both at once.

/// POSIX-family shells whose `-c` argument, script or standard input is a command line.
#[rustfmt::skip]
pub const SHELLS: &[&str] =
    &["sh", "bash", "dash", "zsh", "ksh", "ksh93", "mksh", "lksh", "pdksh", "oksh", "loksh", "ash", "yash", "posh"];

/// The multi-call binary whose applets include shells (`busybox sh -c …`).
pub const MULTI_CALL: &str = "busybox";

/// The applets of [`MULTI_CALL`] that are a POSIX shell (`bash` where it is built as ash).
pub const MULTI_CALL_SHELLS: &[&str] = &["sh", "ash", "hush", "bash"];

/// Shells with another syntax (fish, the C shells, PowerShell, nushell, …): every word that is not
/// an option may be a command line (`fish -c …`, `pwsh -Command …`, `tcsh -c …`); read with the
/// POSIX lexer, which errs on seeing commands.
#[rustfmt::skip]
pub const OTHER_SHELLS: &[&str] = &["fish", "csh", "tcsh", "pwsh", "powershell", "nu", "xonsh", "elvish",
    "rc", "es", "osh", "ysh", "oil", "ion", "murex", "scsh", "sash", "hush", "jsh", "rbash"];

/// git's own commands: its builtins and the commands it ships in its exec-path. Produced on git
/// 2.47.3 as the union of `git help -a` (the sections before "User-facing repository, command and
/// file interfaces") and `git --list-cmds=builtins,main` (helpers such as
/// `submodule--helper` included), less the commands distributions
/// package apart (gitk, git-gui, citool, gitweb, instaweb, scalar, svn, p4, send-email, the CVS and
/// Arch importers): where those are not installed, their name can be an alias.
#[rustfmt::skip]
pub const GIT_COMMANDS: &[&str] = &["add", "am", "annotate", "apply", "archive", "bisect", "blame", "branch", "bugreport", "bundle", "cat-file",
    "check-attr", "check-ignore", "check-mailmap", "check-ref-format", "checkout", "checkout--worker",
    "checkout-index", "cherry", "cherry-pick", "clean", "clone", "column", "commit", "commit-graph", "commit-tree",
    "config", "count-objects", "credential", "credential-cache", "credential-cache--daemon", "credential-store",
    "daemon", "describe", "diagnose", "diff", "diff-files", "diff-index", "diff-tree", "difftool",
    "difftool--helper", "fast-export", "fast-import", "fetch", "fetch-pack", "filter-branch", "fmt-merge-msg",
    "for-each-ref", "for-each-repo", "format-patch", "fsck", "fsck-objects", "fsmonitor--daemon", "gc",
    "get-tar-commit-id", "grep", "hash-object", "help", "hook", "http-backend", "http-fetch", "http-push",
    "imap-send", "index-pack", "init", "init-db", "interpret-trailers", "log", "ls-files", "ls-remote", "ls-tree",
    "mailinfo", "mailsplit", "maintenance", "merge", "merge-base", "merge-file", "merge-index", "merge-octopus",
    "merge-one-file", "merge-ours", "merge-recursive", "merge-recursive-ours", "merge-recursive-theirs",
    "merge-resolve", "merge-subtree", "merge-tree", "mergetool", "mktag", "mktree", "multi-pack-index", "mv",
    "name-rev", "notes", "pack-objects", "pack-redundant", "pack-refs", "patch-id", "pickaxe", "prune",
    "prune-packed", "pull", "push", "quiltimport", "range-diff", "read-tree", "rebase", "receive-pack", "reflog",
    "refs", "remote", "remote-ext", "remote-fd", "remote-ftp", "remote-ftps", "remote-http", "remote-https",
    "repack", "replace", "replay", "request-pull", "rerere", "reset", "restore", "rev-list", "rev-parse", "revert",
    "rm", "send-pack", "sh-i18n", "sh-i18n--envsubst", "sh-setup", "shell", "shortlog", "show", "show-branch",
    "show-index", "show-ref", "sparse-checkout", "stage", "stash", "status", "stripspace", "submodule",
    "submodule--helper", "switch", "symbolic-ref", "tag", "unpack-file", "unpack-objects", "update-index",
    "update-ref", "update-server-info", "upload-archive", "upload-archive--writer", "upload-pack", "var",
    "verify-commit", "verify-pack", "verify-tag", "version", "web--browse", "whatchanged", "worktree", "write-tree"];

/// Whether `name` is one of git's own commands.
pub fn is_git_command(name: &str) -> bool {
    GIT_COMMANDS.binary_search(&name).is_ok()
}

/// The subcommand of git's exec-path name (`git-push` → `push`).
pub fn git_dashed(name: &str) -> Option<&str> {
    name.strip_prefix("git-").filter(|sub| is_git_command(sub))
}

/// Environment variables whose value is a command line a program runs: pagers, editors,
/// browsers, askpass helpers, git's transports and external diff, less's preprocessors, bash's
/// prompt command. Wherever one is assigned in a command (`PAGER='…' man ls`, `export EDITOR=…`,
/// `env GIT_SSH_COMMAND=… git fetch`), its value is analysed as a command line.
#[rustfmt::skip]
pub const COMMAND_VARIABLES: &[&str] = &["PAGER", "MANPAGER", "GIT_PAGER", "SYSTEMD_PAGER", "EDITOR", "VISUAL",
    "SUDO_EDITOR", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "FCEDIT", "BROWSER", "LESSOPEN", "LESSCLOSE",
    "GIT_SSH_COMMAND", "GIT_SSH", "GIT_ASKPASS", "SSH_ASKPASS", "SUDO_ASKPASS", "GIT_EXTERNAL_DIFF",
    "GIT_PROXY_COMMAND", "PROMPT_COMMAND", "RSYNC_RSH", "RSYNC_CONNECT_PROG", "CVS_RSH"];

/// Of [`COMMAND_VARIABLES`], those whose command is run with no arguments (a pager reads its
/// standard input, bash's prompt command) or only a file its program chose (an editor): the rest
/// get text the command line may choose (a host, a URL, a prompt naming a URL, a file name), so
/// what they run may hold more words than the value shows.
#[rustfmt::skip]
pub const FIXED_ARGUMENT_VARIABLES: &[&str] = &["PAGER", "MANPAGER", "GIT_PAGER", "SYSTEMD_PAGER", "EDITOR",
    "VISUAL", "SUDO_EDITOR", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "FCEDIT", "PROMPT_COMMAND"];

/// git's global options that take the next word as their value (or attached with `=`).
#[rustfmt::skip]
pub const GIT_GLOBAL_WITH_VALUE: &[&str] = &["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--super-prefix",
    "--config-env", "--attr-source", "--list-cmds"];

/// git's plumbing commands that do what a porcelain command does: (plumbing, porcelain). Only the
/// same act: `receive-pack` is the server's side of a push, `fetch-pack` a fetch. A rule on the
/// porcelain covers the plumbing, at parse time (`options/tables.rs`) and under the guard.
pub const GIT_PLUMBING: &[(&str, &str)] = &[("send-pack", "push"), ("http-push", "push")];

/// The dynamic loaders of x86_64 Linux (glibc's, its 32-bit one, musl's), where they live.
pub const LOADER_PATHS: &[&str] = &[
    "/lib64/ld-linux-x86-64.so.2",
    "/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
    "/usr/lib64/ld-linux-x86-64.so.2",
    "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
    "/lib/ld-linux.so.2",
    "/lib/ld-musl-x86_64.so.1",
];

/// The loader's option naming what its program runs as (`argv[0]`), one of [`LOADER_WITH_VALUE`].
pub const LOADER_ARGV0: &str = "--argv0";

/// The name the dynamic loader is read under.
pub const LOADER: &str = "ld.so";

/// The dynamic loader's options that take the next word as their value (glibc's `ld.so --help`).
#[rustfmt::skip]
pub const LOADER_WITH_VALUE: &[&str] = &["--library-path", "--glibc-hwcaps-prepend", "--glibc-hwcaps-mask",
    "--inhibit-rpath", "--audit", "--preload", "--argv0"];

/// The dynamic loader's options that stand alone.
pub const LOADER_FLAGS: &[&str] =
    &["--list", "--verify", "--inhibit-cache", "--list-tunables", "--list-diagnostics", "--help", "--version"];

/// Whether `name` (a basename) is the dynamic loader's: `ld.so`, `ld-linux-x86-64.so.2`,
/// `ld-linux.so.2`, `ld-musl-x86_64.so.1`, … Run by hand, it runs its first operand.
pub fn is_loader(name: &str) -> bool {
    name == LOADER || (name.starts_with("ld-linux") || name.starts_with("ld-musl")) && name.contains(".so")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gits_command_list_is_sorted_for_its_binary_search() {
        assert!(GIT_COMMANDS.windows(2).all(|p| p[0] < p[1]));
        assert!(is_git_command("submodule--helper") && is_git_command("push") && !is_git_command("pushy"));
    }

    #[test]
    fn a_loader_is_known_by_its_name() {
        for (name, loader) in [
            ("ld-linux-x86-64.so.2", true),
            ("ld.so", true),
            ("ld-linux.so.2", true),
            ("ld-musl-x86_64.so.1", true),
            ("ld", false),
            ("ld-linux", false),
            ("ldconfig", false),
        ] {
            assert_eq!(is_loader(name), loader, "{name}");
        }
    }
}
