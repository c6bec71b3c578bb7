//! `aimon-hooks guard [--project DIR] [--home DIR] -- COMMAND…`: the exec-time guard (hook-guard)
//! on the effective deny rules of the tiers, and `--exec-step`, the guarded process's first step.
//!
//! Claude Code's shell prefix form is `aimon-hooks --guard '<snippet>'` ([`PREFIX_FLAG`]): Claude
//! Code 2.1.332 quotes everything before the prefix's last ` -` as one word, the program, so the
//! prefix must be a path followed by flags only (`<path>/aimon-hooks guard --` would name a
//! program `aimon-hooks guard`). It is `guard --` in the current directory's project.

use std::ffi::OsString;
use std::process::Command;

use hook_core::HookEventType;
use hook_guard::{Guard, REFUSED, Started};

use crate::cli::GuardArgs;
use crate::load::{self, Scope};
use crate::trust::Trust;

/// The flag of the shell-prefix form (`init claude --guard` writes `<path>/aimon-hooks --guard`).
pub(crate) const PREFIX_FLAG: &str = "--guard";

/// The command of a shell-prefix call (`--guard COMMAND…`, before clap), if this is one.
pub(crate) fn prefix_call(mut args: impl Iterator<Item = OsString>) -> Option<GuardArgs> {
    if args.next()? != PREFIX_FLAG {
        return None;
    }
    let command: Vec<OsString> = args.collect();
    (!command.is_empty()).then(|| GuardArgs { tiers: Default::default(), exec_step: false, command })
}

/// The arguments [`step`] gives the guarded process's first step, before the command.
const STEP_ARGS: [&str; 3] = ["guard", "--exec-step", "--"];

/// The command of the guarded process's first step (`guard --exec-step -- COMMAND…`, exactly as
/// [`step`] writes it), if this is one: read before clap, so the step costs a process start and
/// little more.
pub(crate) fn step_call(mut args: impl Iterator<Item = OsString>) -> Option<Vec<OsString>> {
    for word in STEP_ARGS {
        if args.next()? != word {
            return None;
        }
    }
    Some(args.collect())
}

/// Runs `guard`; the exit code is the command's.
pub(crate) fn run(args: &GuardArgs) -> u8 {
    if args.exec_step {
        return exit_code(hook_guard::exec_step(&args.command));
    }
    let command = shell_form(&args.command);
    let step = match step(&command) {
        Ok(step) => step,
        Err(e) => {
            eprintln!("{e}");
            return REFUSED as u8;
        }
    };
    // The step starts up and stops itself, before anything of the command runs, while the
    // rules are read; when they cannot be, it is killed there.
    let started = match Started::spawn(step) {
        Ok(started) => started,
        Err(e) => {
            eprintln!("{e}");
            return REFUSED as u8;
        }
    };
    // Deny hooks hold whatever the trust store says; the store is read as `claude` reads it.
    let loaded = match load::load(&args.tiers, &[], false, Scope::Event(HookEventType::PRE_TOOL), Trust::Store) {
        Ok(loaded) => loaded,
        Err(e) => {
            eprintln!("aimon-hooks guard: the rules cannot be read, so nothing was run: {e:#}");
            return REFUSED as u8;
        }
    };
    match started.supervise(&Guard::new(&loaded.hooks)) {
        Ok(code) => exit_code(code),
        Err(e) => {
            eprintln!("{e}");
            REFUSED as u8
        }
    }
}

/// One argument is a shell snippet (Claude Code's CLAUDE_CODE_SHELL_PREFIX passes one): `bash -c`.
fn shell_form(command: &[OsString]) -> Vec<OsString> {
    match command {
        [snippet] => vec!["bash".into(), "-c".into(), snippet.clone()],
        _ => command.to_vec(),
    }
}

/// This binary re-run as the guarded process's first step for `command`.
pub(crate) fn step(command: &[OsString]) -> Result<Command, String> {
    let me = std::env::current_exe()
        .map_err(|e| format!("aimon-hooks guard: cannot find its own binary ({e}); nothing was run"))?;
    let mut step = Command::new(me);
    step.args(STEP_ARGS).args(command);
    Ok(step)
}

/// Whether the guard can run on this machine: `None`, or the sentence saying why not.
pub(crate) fn unavailable() -> Option<String> {
    let step = step(&["true".into()]).ok()?;
    hook_guard::probe(step).err().map(|e| e.to_string())
}

pub(crate) fn exit_code(code: i32) -> u8 {
    u8::try_from(code).unwrap_or(u8::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_step_command_line_the_guard_writes_skips_clap() {
        // A command line, and the command it reads as, if it is the step's.
        let cases: &[(&[&str], Option<&[&str]>)] = &[
            (&["guard", "--exec-step", "--", "bash", "-c", "x"], Some(&["bash", "-c", "x"])),
            (&["guard", "--exec-step", "--"], Some(&[])),
            (&["guard", "--exec-step", "--project", "p", "--", "true"], None),
            (&["guard", "--", "--exec-step", "--", "true"], None),
            (&["--guard", "--exec-step", "--", "true"], None),
            (&["guard", "--exec-step"], None),
            (&[], None),
        ];
        for (line, command) in cases {
            let got = step_call(line.iter().map(OsString::from));
            let want = command.map(|c| c.iter().map(OsString::from).collect::<Vec<_>>());
            assert_eq!(got, want, "{line:?}");
        }
    }
}
