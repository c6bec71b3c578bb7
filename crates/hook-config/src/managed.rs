//! The organisation's managed tier (`/etc/aimon/managed/`): what its files need from the system,
//! and what its switches do to the other tiers.
//!
//! - Its files are read first and dispatched first; the other tiers only add to them (the merge is
//!   additive and the strongest decision wins), so no file of theirs removes, disables, shadows or
//!   reorders a managed hook; a lower tier's rewrite of the tool input is judged by the managed
//!   hooks again (`DeclarativeHook::judges_the_final_input`).
//! - `allowManagedHooksOnly: true` leaves the other tiers' hooks (and skills') out;
//!   `disableAllHooks: true` leaves every hook out, the managed ones too. Self-protection is not a
//!   tier's hook and stays on; while a managed file exists, the person's
//!   `"selfProtection": false` is refused with a WARN.
//! - A file (or its directory) that is not root-owned, or that its group or others may write, is
//!   applied with a WARN: it protects only as well as its permissions (docs/security.md).

use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};

use crate::diagnostic::{Diagnostic, Severity};
use crate::position::{Pos, PositionIndex};
use crate::protect::SELF_PROTECTION_KEY;
use crate::spec::LoadedConfig;
use crate::tier::{Tier, TierPaths};

/// The start of a file, where whole-file WARNs point.
const START: Pos = Pos { line: 1, column: 1 };

/// The WARNs of managed files and directories anyone but root could change: the directory, its
/// `hooks.d`, and each of `files` (the managed files read).
pub(crate) fn unprotected(paths: &TierPaths, files: &[PathBuf]) -> Vec<Diagnostic> {
    let dirs = [paths.managed.clone(), paths.managed_drop_ins()];
    let dirs = dirs.into_iter().filter(|d| d.is_dir() && !files.is_empty());
    dirs.chain(files.iter().cloned())
        .filter_map(|path| {
            let meta = std::fs::metadata(&path).ok()?;
            let writable = meta.mode() & 0o022 != 0;
            (meta.uid() != 0 || writable).then(|| {
                let message = format!(
                    "hooks: the managed policy {} is not protected by the system (owner uid {}, mode {:o}); it is \
                     applied, but whoever can write it can change it: make it owned by root and writable by root only",
                    path.display(),
                    meta.uid(),
                    meta.mode() & 0o7777
                );
                Diagnostic::at(Severity::Warning, &path, START, "", message)
            })
        })
        .collect()
}

/// Applies the managed tier's switches to `config` (files in dispatch order), with a WARN for
/// each file whose hooks are left out and for a refused `selfProtection: false`. `texts` finds a
/// file's text, for positions.
pub(crate) fn apply(config: &mut LoadedConfig, text_of: impl Fn(&Path) -> Option<String>) -> Vec<Diagnostic> {
    let managed: Vec<_> = config.files.iter().filter(|f| f.tier == Tier::Managed).collect();
    let Some(first) = managed.first() else { return Vec::new() };
    let policy = first.path.parent().unwrap_or(&first.path).to_owned();
    let disabled = managed.iter().find(|f| f.switches.all_hooks_disabled).map(|f| f.path.clone());
    let only = managed.iter().find(|f| f.switches.managed_hooks_only).map(|f| f.path.clone());
    let mut out = Vec::new();
    for file in &mut config.files {
        if file.tier == Tier::User && file.switches.self_protection_off {
            let pos = text_of(&file.path).map_or(START, |t| PositionIndex::new(&t).key("/selfProtection"));
            let message = format!(
                "hooks: '{SELF_PROTECTION_KEY}' cannot be turned off while the organisation's managed policy ({}) \
                 is installed; ignored",
                policy.display()
            );
            out.push(Diagnostic::at(Severity::Warning, &file.path, pos, "/selfProtection", message));
        }
        let why = match (&disabled, &only) {
            (Some(by), _) => format!("disableAllHooks in {}", by.display()),
            (None, Some(by)) if file.tier != Tier::Managed => format!("allowManagedHooksOnly in {}", by.display()),
            _ => continue,
        };
        if !file.entries.is_empty() {
            let message = format!("hooks: the hooks of this {} file do not run: {why}", file.tier);
            out.push(Diagnostic::at(Severity::Warning, &file.path, START, "", message));
            file.entries.clear();
        }
    }
    config.managed_hooks_only = disabled.is_some() || only.is_some();
    out
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt as _;

    use super::*;

    /// A managed tier with one file of mode `mode` in a directory of mode `dir_mode`.
    struct Managed {
        _root: tempfile::TempDir,
        dir: PathBuf,
        file: PathBuf,
    }

    impl Managed {
        fn new(mode: u32, dir_mode: u32) -> Self {
            let root = tempfile::tempdir().expect("dir");
            let dir = root.path().join("managed");
            std::fs::create_dir_all(&dir).expect("mkdir");
            let file = dir.join("hooks.json");
            std::fs::write(&file, "{}").expect("write");
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(mode)).expect("chmod");
            std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(dir_mode)).expect("chmod");
            Managed { _root: root, dir, file }
        }

        /// The paths `unprotected` warns about.
        fn warned(&self) -> Vec<PathBuf> {
            let paths = TierPaths::new(None, "/p").with_managed_dir(&self.dir);
            unprotected(&paths, std::slice::from_ref(&self.file)).into_iter().map(|d| d.file).collect()
        }
    }

    #[test]
    fn a_managed_file_or_directory_that_group_or_others_may_write_is_warned_about() {
        let writable_file = Managed::new(0o666, 0o755);
        assert!(writable_file.warned().contains(&writable_file.file));
        let writable_dir = Managed::new(0o644, 0o777);
        assert!(writable_dir.warned().contains(&writable_dir.dir));
    }

    #[test]
    fn a_managed_file_root_does_not_own_is_warned_about_and_a_root_owned_one_is_not() {
        let managed = Managed::new(0o644, 0o755);
        let owner = std::fs::metadata(&managed.file).expect("stat").uid();
        if owner == 0 {
            assert_eq!(managed.warned(), Vec::<PathBuf>::new());
            std::os::unix::fs::chown(&managed.file, Some(1000), None).expect("chown as root");
        }
        assert_eq!(
            managed.warned(),
            std::slice::from_ref(&managed.file),
            "a file of uid 1000 (or {owner}) is not the system's"
        );
    }
}
