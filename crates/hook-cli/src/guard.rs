//! `aimon-hooks guard [--project DIR] [--home DIR] -- COMMAND…`: the exec-time guard (hook-guard)
//! on the effective deny rules of the tiers.
//!
//! Claude Code's shell prefix form is `aimon-hooks --guard '<snippet>'` ([`PREFIX_FLAG`]): Claude
//! Code 2.1.332 quotes everything before the prefix's last ` -` as one word, the program, so the
//! prefix must be a path followed by flags only (`<path>/aimon-hooks guard --` would name a
//! program `aimon-hooks guard`). It is `guard --` in the current directory's project.

use std::ffi::OsString;
use std::sync::Arc;

use hook_config::{BuildEnv, DeclarativeHook, TierPaths, load_tiers_lazily, self_protection};
use hook_core::HookEventType;
use hook_guard::{Guard, REFUSED, Started};

use crate::cli::{GuardArgs, TierArgs};
use crate::load;

/// The deny hooks the guard checks, with their events.
type Hooks = Vec<(HookEventType, Arc<DeclarativeHook>)>;

/// The flag of the shell-prefix form (`init claude` writes `<path>/aimon-hooks --guard`).
pub(crate) const PREFIX_FLAG: &str = "--guard";

/// The command of a shell-prefix call (`--guard COMMAND…`, before clap), if this is one.
pub(crate) fn prefix_call(mut args: impl Iterator<Item = OsString>) -> Option<GuardArgs> {
    if args.next()? != PREFIX_FLAG {
        return None;
    }
    let command: Vec<OsString> = args.collect();
    (!command.is_empty()).then(|| GuardArgs { tiers: Default::default(), command })
}

/// Whether a shell-prefix call wraps exactly the hook route `init claude` writes for this binary
/// (`<path>/aimon-hooks claude`): Claude Code puts its shell prefix in front of its shell-form
/// hook commands too, and the hook that answers for the guard is not a tool's command. It runs
/// as `claude` itself, outside the guard's namespace (whose masks would hide serve's token from
/// it, so it could not prove the daemon). A tool's Bash call never comes as that bare snippet
/// (Claude Code wraps it in its shell set-up); were it one, it would run the policy engine and
/// nothing else.
pub(crate) fn wraps_own_route(mut args: impl Iterator<Item = OsString>) -> bool {
    let (Some(flag), Some(snippet), None) = (args.next(), args.next(), args.next()) else { return false };
    let Ok(exe) = std::env::current_exe() else { return false };
    let route = hook_wire::claude::command_route(&exe.display().to_string());
    flag == PREFIX_FLAG && route["command"].as_str().is_some_and(|c| snippet == c)
}

/// `guard [--project DIR] [--home DIR] -- COMMAND…` (each option once, `--opt=DIR` too), read
/// before clap, so a guarded command does not wait for the whole command line's grammar; any
/// other form (help, a mistake) is clap's.
pub(crate) fn plain_call(mut args: impl Iterator<Item = OsString>) -> Option<GuardArgs> {
    if args.next()? != "guard" {
        return None;
    }
    let mut tiers = TierArgs::default();
    loop {
        let arg = args.next()?;
        if arg == "--" {
            break;
        }
        let text = arg.to_str()?;
        let (name, value) = match text.split_once('=') {
            Some((name, value)) => (name, OsString::from(value)),
            None => (text, args.next()?),
        };
        let slot = match name {
            "--project" => &mut tiers.project,
            "--home" => &mut tiers.home,
            _ => return None,
        };
        // What clap would refuse or read otherwise is left to it.
        if slot.is_some() || value.is_empty() || value.as_encoded_bytes().starts_with(b"-") {
            return None;
        }
        *slot = Some(value.into());
    }
    let command: Vec<OsString> = args.collect();
    (!command.is_empty()).then_some(GuardArgs { tiers, command })
}

/// Runs `guard`; the exit code is the command's.
pub(crate) fn run(args: &GuardArgs) -> u8 {
    // The command's process is started first: it sets itself up while the rules are read, and
    // nothing of the command runs until the guard answers its first exec.
    let started = match Started::start(&shell_form(&args.command)) {
        Ok(started) => started,
        Err(e) => {
            eprintln!("{e}");
            return REFUSED as u8;
        }
    };
    let guard = match rules(&args.tiers) {
        Ok((hooks, paths)) => {
            Guard::with_files(&hooks, &self_protection(&paths, crate::env::Env::get().moved_log()), &paths)
        }
        Err(e) => {
            // Dropped unsupervised, the process is killed before its exec.
            drop(started);
            eprintln!("aimon-hooks guard: the rules cannot be read, so nothing was run: {e:#}");
            return REFUSED as u8;
        }
    };
    let guard = match guard {
        Ok(guard) => guard,
        Err(e) => {
            drop(started);
            eprintln!("{e}");
            return REFUSED as u8;
        }
    };
    match started.supervise(&guard) {
        Ok(code) => exit_code(code),
        Err(e) => {
            eprintln!("{e}");
            REFUSED as u8
        }
    }
}

/// The tiers' hooks, as the guard needs them, with self-protection's (the policy files are
/// read-only to the command), and the tiers' paths: it enforces `deny` hooks only, which hold
/// whatever the trust store says and need no MCP server, so neither is read (and nothing is
/// compiled until an exec is checked).
fn rules(tiers: &TierArgs) -> anyhow::Result<(Hooks, TierPaths)> {
    let paths = TierPaths::new(tiers.home_dir(), tiers.project_dir()?);
    let (config, _diagnostics) = load_tiers_lazily(&paths).map_err(load::config_error)?;
    let hooks = config.into_hooks(&BuildEnv::without_mcp(&paths));
    Ok((hooks, paths))
}

/// One argument is a shell snippet (Claude Code's CLAUDE_CODE_SHELL_PREFIX passes one): `bash -c`.
fn shell_form(command: &[OsString]) -> Vec<OsString> {
    match command {
        [snippet] => vec!["bash".into(), "-c".into(), snippet.clone()],
        _ => command.to_vec(),
    }
}

/// Whether the guard can run on this machine: `None`, or the sentence saying why not.
pub(crate) fn unavailable() -> Option<String> {
    hook_guard::probe().err().map(|e| e.to_string())
}

fn exit_code(code: i32) -> u8 {
    u8::try_from(code).unwrap_or(u8::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plain_guard_forms_skip_clap_and_every_other_form_is_left_to_it() {
        // A command line, and (project, home, command) when it is read before clap.
        type Read = (Option<&'static str>, Option<&'static str>, &'static [&'static str]);
        let cases: &[(&[&str], Option<Read>)] = &[
            (&["guard", "--", "make", "-j4"], Some((None, None, &["make", "-j4"]))),
            (&["guard", "--project", "p", "--home", "h", "--", "true"], Some((Some("p"), Some("h"), &["true"]))),
            (&["guard", "--home=h", "--project=p", "--", "x"], Some((Some("p"), Some("h"), &["x"]))),
            (&["guard", "--", "--project", "p"], Some((None, None, &["--project", "p"]))),
            (&["guard", "--"], None),
            (&["guard", "--project", "p"], None),
            (&["guard", "--project", "p", "--project", "q", "--", "x"], None),
            (&["guard", "--project", "--home", "--", "x"], None),
            (&["guard", "--project=", "--", "x"], None),
            (&["guard", "--help"], None),
            (&["guard", "-v", "--", "x"], None),
            (&["guard", "true"], None),
            (&["validate", "--", "x"], None),
        ];
        for (line, want) in cases {
            let got = plain_call(line.iter().map(OsString::from)).map(|a| {
                let text = |p: Option<std::path::PathBuf>| p.map(|p| p.to_string_lossy().into_owned());
                (text(a.tiers.project), text(a.tiers.home), a.command)
            });
            let want = want.map(|(p, h, c)| {
                (p.map(str::to_owned), h.map(str::to_owned), c.iter().map(OsString::from).collect::<Vec<_>>())
            });
            assert_eq!(got, want, "{line:?}");
        }
    }
}
