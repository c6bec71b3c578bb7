//! git's own indirections (DESIGN-0.3 §1): its exec-path names (`git-push`), aliases — from `-c
//! alias.x=…`, from `GIT_CONFIG_*` in the command's environment, or set earlier in the same command
//! line by `git config alias.x …` — and the options of its subcommands that run a command
//! (`rebase --exec`, `bisect run`, `submodule foreach`, `filter-branch --tree-filter`, …).
//!
//! git runs a command of its own whatever its aliases say: a subcommand on [`COMMANDS`] is certain.
//! Any other subcommand may be an alias (from a config file the analysis does not read) or be
//! autocorrected (`help.autocorrect`), so a rule on git is uncertain for it unless its definition
//! is visible in the command (see `options.rs`).

use crate::analyse::split_words;
use crate::analysis::MAX_DEPTH;
use crate::lex::Stdin;
use crate::programs;
use crate::table::{git_dashed, is_git_command};
use crate::walk::{Walk, analyse_into};
use crate::word::{Word, basename};

/// Options of git's subcommands whose value is a command line: (subcommand, short letters, long names).
#[rustfmt::skip]
const COMMAND_OPTIONS: &[(&str, &[u8], &[&str])] = &[
    ("rebase", b"x", &["--exec"]),
    ("filter-branch", b"", &["--tree-filter", "--index-filter", "--msg-filter", "--commit-filter", "--env-filter",
        "--parent-filter", "--tag-name-filter", "--setup"]),
    ("difftool", b"x", &["--extcmd"]),
    ("fetch", b"", &["--upload-pack"]),
    ("pull", b"", &["--upload-pack"]),
    ("clone", b"u", &["--upload-pack"]),
    ("ls-remote", b"", &["--upload-pack"]),
    ("archive", b"", &["--exec"]),
    ("push", b"", &["--receive-pack", "--exec"]),
    ("send-pack", b"", &["--receive-pack", "--exec"]),
    ("fetch-pack", b"", &["--upload-pack", "--exec"]),
    ("daemon", b"", &["--access-hook"]),
    ("grep", b"O", &["--open-files-in-pager"]),
];

/// `text` in single quotes, for the shell.
fn quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// The `key=value` settings of `GIT_CONFIG_PARAMETERS` (`'alias.p'='push' 'k=v'`); `None` when the
/// text is not in that form.
fn parameters(text: &str) -> Option<Vec<(String, String)>> {
    let mut out = Vec::new();
    let mut rest = text.trim_start();
    let quoted_part = |s: &str| -> Option<(String, usize)> {
        let body = s.strip_prefix('\'')?;
        let mut value = String::new();
        let mut at = 0;
        loop {
            let end = body[at..].find('\'')? + at;
            value.push_str(&body[at..end]);
            // `'\''` continues the quoted text with a quote.
            if body[end..].starts_with(r"'\''") {
                value.push('\'');
                at = end + 4;
            } else {
                return Some((value, end + 2));
            }
        }
    };
    while !rest.is_empty() {
        let (first, used) = quoted_part(rest)?;
        rest = &rest[used..];
        let pair = if let Some(after) = rest.strip_prefix('=') {
            let (value, used) = quoted_part(after)?;
            rest = &after[used..];
            (first, value)
        } else {
            match first.split_once('=') {
                Some((k, v)) => (k.to_owned(), v.to_owned()),
                None => (first, String::from("true")),
            }
        };
        out.push(pair);
        rest = rest.trim_start();
    }
    Some(out)
}

/// The settings git reads from the command's environment (`GIT_CONFIG_PARAMETERS`,
/// `GIT_CONFIG_COUNT` with its `GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n`); `None` when some of them
/// cannot be known, or another config file is named (`GIT_CONFIG_GLOBAL=…`).
fn environment_settings(env: &[Word]) -> Option<Vec<(String, String)>> {
    let mut out = Vec::new();
    let mut keyed: Vec<(&str, &str)> = Vec::new();
    for w in env {
        let Some((name, value)) = w.text.split_once('=') else { continue };
        if !name.starts_with("GIT_CONFIG") {
            continue;
        }
        if !w.known {
            return None;
        }
        match name {
            "GIT_CONFIG_PARAMETERS" => out.extend(parameters(value)?),
            "GIT_CONFIG_COUNT" => keyed.push((name, value)),
            "GIT_CONFIG_NOSYSTEM" => {}
            _ if name.starts_with("GIT_CONFIG_KEY_") || name.starts_with("GIT_CONFIG_VALUE_") => {
                keyed.push((name, value))
            }
            _ => return None,
        }
    }
    let count = keyed.iter().rev().find(|(n, _)| *n == "GIT_CONFIG_COUNT").map(|(_, v)| v.parse::<usize>());
    match count {
        None if keyed.is_empty() => {}
        Some(Ok(count)) if count <= 1024 => {
            for i in 0..count {
                let get = |prefix: &str| {
                    let name = format!("{prefix}{i}");
                    keyed.iter().rev().find(|(n, _)| *n == name).map(|(_, v)| (*v).to_owned())
                };
                out.push((get("GIT_CONFIG_KEY_")?, get("GIT_CONFIG_VALUE_")?));
            }
        }
        _ => return None,
    }
    Some(out)
}

impl Walk<'_> {
    /// git's indirections in one simple command (`words`, whose command that runs starts at `at`;
    /// its views start at `first_view`). True when the command was emitted again with its alias
    /// resolved (the views it had are replaced).
    pub(crate) fn git(&mut self, words: &[Word], at: usize, first_view: usize, stdin: &Stdin) -> bool {
        let rest = &words[at..];
        let Some(program) = rest.first().filter(|w| w.known) else { return false };
        let name = basename(&program.text);
        if let Some(sub) = git_dashed(name) {
            self.git_runs(sub, &rest[1..]);
            return false;
        }
        if name != "git" {
            return false;
        }
        // Settings the command line gives git: `-c k=v`, then its environment.
        let mut settings: Vec<(String, String)> = Vec::new();
        // Settings whose value cannot be known: an alias (`--config-env=alias.p=VAR`), or any
        // setting at all (`GIT_CONFIG_PARAMETERS=$P`), which may name a command git runs.
        let (mut opaque, mut unreadable) = (false, false);
        let found = programs::globals(rest, |option, value| {
            match (option, value) {
                ("-c", Some(v)) => settings.push(match v.split_once('=') {
                    Some((key, value)) => (key.to_owned(), value.to_owned()),
                    None => (v.to_owned(), String::from("true")),
                }),
                // The value of an environment variable: what an alias would be is not visible.
                ("--config-env", Some(v)) => opaque |= v.to_ascii_lowercase().starts_with("alias."),
                _ => {}
            }
            true
        });
        match environment_settings(&words[..at]) {
            Some(env) => settings.extend(env),
            None => unreadable = true,
        }
        for (key, value) in &settings {
            if programs::git_setting_runs_a_command(key) {
                let appends = !programs::git_setting_takes_no_arguments(key);
                self.command_line(Some(value.strip_prefix('!').unwrap_or(value)), appends);
            }
        }
        if unreadable {
            self.uncertain();
            return false;
        }
        let sub_at = match found {
            programs::Subcommand::Plain => 1,
            programs::Subcommand::At(k) => k,
            programs::Subcommand::Unknown(_) => return false,
        };
        let Some(sub) = rest.get(sub_at).filter(|w| w.known) else { return false };
        let args = &rest[sub_at + 1..];
        if is_git_command(&sub.text) {
            if sub.text == "config" {
                self.git_config(args);
            }
            self.git_runs(&sub.text, args);
            return false;
        }
        if opaque {
            // Settings of unknown value: an alias, or a shell alias, could run anything.
            self.uncertain();
            return false;
        }
        let from_settings = settings.iter().rev().find(|(k, _)| is_alias(k, &sub.text)).map(|(_, v)| v.clone());
        let learned = || {
            self.out.git_aliases.iter().rev().find(|(k, _)| k.eq_ignore_ascii_case(&sub.text)).map(|(_, v)| v.clone())
        };
        let (alias, replaces) = match from_settings {
            Some(alias) => (alias, true),
            // Set in a config file by an earlier command: a file of higher precedence may say otherwise.
            None => match learned() {
                Some(alias) => (alias, false),
                None => return false,
            },
        };
        if let Some(shell) = alias.strip_prefix('!') {
            // A shell alias: git runs it with the arguments appended.
            if args.iter().any(|w| !w.known) {
                self.uncertain();
                return false;
            }
            let line: Vec<String> =
                std::iter::once(shell.to_owned()).chain(args.iter().map(|w| quoted(&w.text))).collect();
            analyse_into(&line.join(" "), self.depth + 1, self.out);
            return false;
        }
        let Some(expansion) = split_words(&alias) else { return false };
        if self.depth >= MAX_DEPTH {
            self.uncertain();
            return false;
        }
        let at_sub = at + sub_at;
        let resolved: Vec<Word> = words[..at_sub]
            .iter()
            .cloned()
            .chain(expansion.iter().map(|w| Word::literal(w)))
            .chain(words[at_sub + 1..].iter().cloned())
            .collect();
        if replaces {
            self.out.views.truncate(first_view);
        }
        self.depth += 1;
        self.emit(resolved, stdin.clone());
        self.depth -= 1;
        replaces
    }

    /// `git config [options] [set] alias.x value`: remembered for the git commands that follow;
    /// a setting that names a command (`core.pager`) is analysed as one.
    fn git_config(&mut self, args: &[Word]) {
        let mut rest: Vec<&Word> = Vec::new();
        let mut i = 0;
        while let Some(w) = args.get(i) {
            match w.text.as_str() {
                "-f" | "--file" | "--blob" | "--type" | "--default" | "--comment" | "--value" => i += 1,
                "set" if rest.is_empty() => {}
                t if t.starts_with('-') => {}
                _ => rest.push(w),
            }
            i += 1;
        }
        let [key, value, ..] = rest[..] else { return };
        if !key.known {
            return;
        }
        if let Some(name) = key.text.get(6..).filter(|_| key.text.to_ascii_lowercase().starts_with("alias.")) {
            if value.known {
                self.out.git_aliases.push((name.to_owned(), value.text.clone()));
            }
        } else if programs::git_setting_runs_a_command(&key.text) {
            let appends = !programs::git_setting_takes_no_arguments(&key.text);
            self.command_line(value.known.then_some(value.text.as_str()), appends);
        }
    }

    /// The command lines that git's subcommand `sub` runs from its arguments.
    fn git_runs(&mut self, sub: &str, args: &[Word]) {
        let after = |word: &str| args.iter().position(|w| w.text == word).map(|p| &args[p + 1..]);
        match sub {
            "bisect" if args.first().is_some_and(|w| w.text == "run") => self.analyse_joined(&args[1..]),
            "submodule" => {
                if let Some(rest) = after("foreach") {
                    let skip =
                        rest.iter().take_while(|w| matches!(w.text.as_str(), "--recursive" | "-q" | "--quiet")).count();
                    self.analyse_joined(&rest[skip..]);
                }
            }
            "for-each-repo" => {
                // `git for-each-repo --config=key ARGS`: `git ARGS` in each repository.
                let skip = args.iter().take_while(|w| w.text.starts_with("--config")).count();
                if skip < args.len() && self.depth < MAX_DEPTH {
                    let words = std::iter::once(Word::literal("git")).chain(args[skip..].iter().cloned()).collect();
                    self.depth += 1;
                    self.emit(words, Stdin::Inherited);
                    self.depth -= 1;
                }
            }
            _ => {}
        }
        let Some((_, short, long)) = COMMAND_OPTIONS.iter().find(|(name, _, _)| *name == sub) else { return };
        let mut i = 0;
        while let Some(w) = args.get(i) {
            i += 1;
            let t = w.text.as_str();
            if t == "--" {
                break;
            }
            let next = |i: &mut usize| {
                let value = args.get(*i).and_then(|v| v.known.then_some(v.text.as_str()));
                *i += 1;
                value
            };
            if long.contains(&t) {
                let value = next(&mut i);
                self.command_line(value, true);
            } else if let Some((_, value)) = t.split_once('=').filter(|(name, _)| long.contains(name)) {
                self.command_line(w.known.then_some(value), true);
            } else if let Some(cluster) = t.strip_prefix('-').filter(|c| !c.starts_with('-'))
                && let Some(k) = cluster.bytes().position(|b| short.contains(&b))
            {
                let attached = &cluster[k + 1..];
                if !attached.is_empty() {
                    self.command_line(w.known.then_some(attached), true);
                } else if cluster.as_bytes()[k] != b'O' {
                    // `grep -O` alone opens the default pager.
                    let value = next(&mut i);
                    self.command_line(value, true);
                }
            }
        }
    }

    /// A command line git runs (with arguments of its own when it `appends`: a host, file
    /// names): analysed when its text is known, uncertain otherwise.
    fn command_line(&mut self, text: Option<&str>, appends: bool) {
        match text {
            Some(text) => self.started_command(text, appends),
            None => self.uncertain(),
        }
    }
}

/// Whether a setting's key defines the alias `name` (`alias.p`, `Alias.P`). Compared as bytes: the
/// key's seventh byte may fall inside a multi-byte character.
fn is_alias(key: &str, name: &str) -> bool {
    let (key, name) = (key.as_bytes(), name.as_bytes());
    key.len() == 6 + name.len() && key[..6].eq_ignore_ascii_case(b"alias.") && key[6..].eq_ignore_ascii_case(name)
}
