//! The option grammar of the common multi-command programs (R-PRED-4c): the global options that may
//! stand between a program and its subcommand (`git -C dir push`, `kubectl -n ns delete`), so that a
//! rule on `git push` sees `git push`.

use crate::table::GIT_GLOBAL_WITH_VALUE;
use crate::word::{Text, basename};

/// The global options of one family of programs.
struct Grammar {
    names: &'static [&'static str],
    /// Options that take a value: the next word, attached with `=` (`--git-dir=.git`), or attached
    /// to a one-letter option (`-nprod`).
    with_value: &'static [&'static str],
    /// Options that stand alone (a long one may still carry an optional `=value`).
    flags: &'static [&'static str],
}

const HELP: [&str; 4] = ["-h", "--help", "-v", "--version"];

/// git settings (`-c key=value`) that name a command git runs: the subcommand that runs is then not
/// all that runs (`git -c core.pager='sh -c …' log`). Aliases (`alias.*`) are resolved in `git.rs`.
#[rustfmt::skip]
const GIT_COMMAND_SETTINGS: &[&str] = &["core.pager", "core.editor", "core.sshcommand", "core.fsmonitor",
    "core.hookspath", "core.askpass", "credential.", "diff.", "difftool.", "merge.", "mergetool.", "pager.",
    "sequence.editor", "gpg.", "filter.", "uploadpack.", "receivepack.", "sendemail.", "web.browser", "browser.",
    "man.", "include.", "includeif."];

#[rustfmt::skip]
const GRAMMARS: &[Grammar] = &[
    Grammar {
        names: &["git"],
        with_value: GIT_GLOBAL_WITH_VALUE,
        flags: &["-p", "--paginate", "-P", "--no-pager", "--bare", "--no-replace-objects", "--no-lazy-fetch",
            "--no-optional-locks", "--no-advice", "--literal-pathspecs", "--glob-pathspecs", "--noglob-pathspecs",
            "--icase-pathspecs", "--exec-path", "--html-path", "--man-path", "--info-path"],
    },
    Grammar {
        names: &["npm"],
        with_value: &["--prefix", "--registry", "--userconfig", "--globalconfig", "--cache", "--loglevel",
            "--workspace", "-w", "--tag", "--otp", "--scope", "--location", "--auth-type", "--cafile", "--proxy",
            "--https-proxy", "--omit", "--include", "--install-strategy", "--script-shell", "--before"],
        flags: &["-g", "--global", "-s", "--silent", "-q", "--quiet", "-d", "-dd", "-ddd", "--verbose", "-y",
            "--yes", "--no-yes", "-ws", "--workspaces", "--include-workspace-root", "--if-present",
            "--ignore-scripts", "--dry-run", "-f", "--force", "--json", "--offline", "--prefer-offline",
            "--prefer-online", "--legacy-peer-deps", "--no-audit", "--no-fund", "--no-color"],
    },
    Grammar {
        names: &["pnpm"],
        with_value: &["-C", "--dir", "--filter", "-F", "--reporter", "--loglevel", "--workspace-concurrency",
            "--store-dir", "--virtual-store-dir", "--registry"],
        flags: &["-r", "--recursive", "-w", "--workspace-root", "-s", "--silent", "--stream", "--parallel",
            "--aggregate-output", "--no-bail", "--if-present", "--frozen-lockfile", "--offline",
            "--prefer-offline", "-g", "--global", "--color", "--no-color"],
    },
    Grammar {
        names: &["yarn"],
        with_value: &["--cwd", "--modules-folder", "--cache-folder", "--registry", "--mutex", "--network-timeout",
            "--use-yarnrc", "--global-folder", "--link-folder", "--preferred-cache-folder"],
        flags: &["-s", "--silent", "--verbose", "--offline", "--prefer-offline", "--frozen-lockfile",
            "--pure-lockfile", "--json", "--no-progress", "--non-interactive", "--ignore-engines",
            "--no-default-rc"],
    },
    Grammar {
        names: &["cargo"],
        with_value: &["-C", "--config", "-Z", "--color", "--explain"],
        flags: &["-vv", "-vvv", "--verbose", "-q", "--quiet", "--locked", "--offline", "--frozen", "--list", "-V"],
    },
    Grammar {
        names: &["docker"],
        with_value: &["-c", "--context", "-H", "--host", "--config", "-l", "--log-level", "--tlscacert",
            "--tlscert", "--tlskey"],
        flags: &["-D", "--debug", "--tls", "--tlsverify"],
    },
    Grammar {
        names: &["podman"],
        with_value: &["-c", "--connection", "--url", "--identity", "--root", "--runroot", "--storage-driver",
            "--storage-opt", "--cgroup-manager", "--events-backend", "--log-level", "--module",
            "--network-cmd-path", "--runtime", "--runtime-flag", "--tmpdir", "--ssh", "--config", "--conmon",
            "--hooks-dir", "--imagestore", "--network-config-dir", "--volumepath", "--cdi-spec-dir"],
        flags: &["-r", "--remote", "--syslog", "--debug"],
    },
    Grammar {
        names: &["kubectl"],
        with_value: &["-n", "--namespace", "--context", "--kubeconfig", "--cluster", "--user", "-s", "--server",
            "--token", "--as", "--as-group", "--as-uid", "--request-timeout", "--cache-dir",
            "--certificate-authority", "--client-certificate", "--client-key", "--tls-server-name", "-v", "--v",
            "--vmodule", "--log-file", "--password", "--username", "--profile", "--profile-output"],
        flags: &["--insecure-skip-tls-verify", "--match-server-version", "--warnings-as-errors",
            "--disable-compression"],
    },
    Grammar { names: &["gh"], with_value: &["-R", "--repo", "--hostname"], flags: &[] },
    Grammar { names: &["terraform", "tofu"], with_value: &["-chdir"], flags: &["-help", "-version"] },
];

/// What stands between a known program and its subcommand.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Subcommand {
    /// Not a known program, or no option before the subcommand: nothing to add.
    Plain,
    /// The subcommand starts at this index (the options before it are all known).
    At(usize),
    /// The option at this index is not known (it may or may not take a value), or it changes what a
    /// subcommand means (`git -c alias.p=push p`): the subcommand cannot be told.
    Unknown(usize),
}

/// Whether a git setting names a command git runs (`core.pager`, `credential.helper`, …).
pub(crate) fn git_setting_runs_a_command(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    if let Some(diff) = key.strip_prefix("diff.") {
        // `diff.algorithm`, `diff.renames`, …: options; the external tool, a driver's command or
        // text conversion, and the tools `difftool` opens run something.
        return matches!(diff, "external" | "tool" | "guitool")
            || diff.ends_with(".command")
            || diff.ends_with(".textconv");
    }
    GIT_COMMAND_SETTINGS.iter().any(|prefix| key.starts_with(prefix))
}

/// Whether a command-valued git setting's command is run with no arguments or only a file git
/// chose: an editor (`core.editor`, `sequence.editor`) or a pager (`core.pager`, `pager.<cmd>`).
pub(crate) fn git_setting_takes_no_arguments(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    matches!(key.as_str(), "core.editor" | "sequence.editor" | "core.pager") || key.starts_with("pager.")
}

/// Whether `name` is a program with subcommands after global options of its own.
pub(crate) fn has_subcommands(name: &str) -> bool {
    GRAMMARS.iter().any(|g| g.names.contains(&name))
}

/// Where the subcommand of `words` (a program and its arguments) starts.
pub(crate) fn subcommand<W: Text>(words: &[W]) -> Subcommand {
    globals(words, |_, _| true)
}

/// Where the subcommand of `words` starts, calling `each` with every global option and its value
/// (the value's text, `None` when it has none); `each` answers whether the option leaves the
/// subcommand certain.
pub(crate) fn globals<W: Text>(words: &[W], mut each: impl FnMut(&str, Option<&str>) -> bool) -> Subcommand {
    let Some(program) = words.first().filter(|w| w.known()) else { return Subcommand::Plain };
    let name = basename(program.text());
    let Some(grammar) = GRAMMARS.iter().find(|g| g.names.contains(&name)) else { return Subcommand::Plain };
    let mut i = 1;
    while let Some(w) = words.get(i) {
        let t = w.text();
        if !w.known() {
            break;
        }
        if t == "--" {
            i += 1;
            break;
        }
        if name == "cargo" && i == 1 && t.len() > 1 && t.starts_with('+') {
            i += 1;
            continue;
        }
        if !t.starts_with('-') || t.len() == 1 {
            break;
        }
        let (option, attached) = match t.split_once('=') {
            Some((option, value)) => (option, Some(value)),
            None => (t, None),
        };
        let option_at = i;
        let value = if grammar.with_value.contains(&option) {
            match attached {
                Some(value) => Some(value),
                None => {
                    i += 1;
                    match words.get(i) {
                        // `git -c "$SETTING"`: any setting, one that runs a command included.
                        Some(v) if !v.known() && name == "git" && matches!(option, "-c" | "--config-env") => {
                            return Subcommand::Unknown(option_at);
                        }
                        v => v.map(|v| v.text()),
                    }
                }
            }
        } else if grammar.flags.contains(&option) || HELP.contains(&option) {
            None
        } else if let Some(short) = grammar.with_value.iter().find(|o| o.len() == 2 && t.starts_with(**o)) {
            // A one-letter option with its value attached (`-nprod`).
            Some(&t[short.len()..])
        } else {
            return Subcommand::Unknown(i);
        };
        let runs_a_command = |v: &str| git_setting_runs_a_command(v.split_once('=').map_or(v, |(key, _)| key));
        let certain = each(option, value);
        // A known `-c` value that runs a command is analysed as a command line of its own (`git.rs`);
        // one from the environment (`--config-env`) is not visible.
        if !certain || name == "git" && option == "--config-env" && value.is_some_and(runs_a_command) {
            return Subcommand::Unknown(option_at);
        }
        i += 1;
    }
    match i.min(words.len()) {
        1 => Subcommand::Plain,
        at => Subcommand::At(at),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::analyse;

    fn subcommand_of(cmd: &str) -> Subcommand {
        subcommand(&analyse(cmd).views[0].words)
    }

    #[test]
    fn global_options_are_skipped_by_their_grammar() {
        let cases: &[(&str, Subcommand)] = &[
            ("git push", Subcommand::Plain),
            ("git -C dir push", Subcommand::At(3)),
            ("git -c k=v --no-pager push", Subcommand::At(4)),
            ("git --git-dir=.git --work-tree=. push", Subcommand::At(3)),
            ("git --git-dir .git push", Subcommand::At(3)),
            ("git --frobnicate x push", Subcommand::Unknown(1)),
            ("git -c alias.p=push p", Subcommand::At(3)),
            // The pager is a command line of its own (`git.rs` analyses it); git's subcommand is log.
            ("git -c core.pager='git push' log", Subcommand::At(3)),
            ("git --config-env=core.pager=P log", Subcommand::Unknown(1)),
            ("git -c user.name=x push", Subcommand::At(3)),
            ("cargo +nightly -Zunstable-options publish", Subcommand::At(3)),
            ("kubectl -nprod delete pod x", Subcommand::At(2)),
            ("terraform -chdir=infra apply", Subcommand::At(2)),
            ("git -C", Subcommand::At(2)),
            ("ls -la", Subcommand::Plain),
            ("git $OPTS push", Subcommand::Plain),
        ];
        for (cmd, expected) in cases {
            assert_eq!(&subcommand_of(cmd), expected, "{cmd}");
        }
    }
}
