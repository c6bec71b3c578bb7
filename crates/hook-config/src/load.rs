//! Reading the file tiers (the managed tier first) and merging them additively (R-CFG-1/2).

use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::diagnostic::Diagnostic;
use crate::error::Error;
use crate::managed;
use crate::parse::{Options, first_error, parse_with};
use crate::spec::LoadedConfig;
use crate::tier::{Tier, TierPaths};

/// The raw texts of the tier files that exist, in dispatch order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct TierTexts {
    pub(crate) files: Vec<(Tier, PathBuf, String)>,
    /// The WARNs of managed files anyone but root could change (so a `chmod` reloads too).
    pub(crate) unprotected: Vec<Diagnostic>,
}

impl TierTexts {
    /// Reads the tier files; a missing file is silent (DEBUG), any other I/O error fails.
    pub(crate) fn read(paths: &TierPaths) -> Result<Self, Error> {
        let mut files = Vec::new();
        for (tier, path) in paths.files() {
            match std::fs::read(&path) {
                Ok(bytes) => {
                    // Valid UTF-8 (the usual case) is kept as read; anything else is read lossily.
                    let text =
                        String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
                    files.push((tier, path, text));
                }
                Err(e) if e.kind() == ErrorKind::NotFound => {
                    tracing::debug!(path = %path.display(), "hooks: no {tier} hooks file");
                }
                Err(source) => return Err(Error::Read { path, source }),
            }
        }
        let managed: Vec<PathBuf> =
            files.iter().filter(|(t, _, _)| *t == Tier::Managed).map(|(_, p, _)| p.clone()).collect();
        let unprotected = managed::unprotected(paths, &managed);
        Ok(TierTexts { files, unprotected })
    }

    /// Parses every file, its patterns anchored as `paths` builds them (so the build reuses the
    /// parsed matchers). A hard error fails the whole load.
    pub(crate) fn parse(&self, paths: &TierPaths) -> Result<(LoadedConfig, Vec<Diagnostic>), Error> {
        let mut config = LoadedConfig::default();
        let mut diagnostics = self.unprotected.clone();
        for (tier, path, text) in &self.files {
            let options = Options { declared_mcp_servers: None, anchors: Arc::new(paths.anchors(*tier)) };
            let (file, mut d) = parse_with(text, path, *tier, &options);
            let Some(file) = file else { return Err(first_error(d)) };
            config.files.push(file);
            diagnostics.append(&mut d);
        }
        diagnostics.extend(crate::packs::apply(&self.files, &mut config));
        let text_of = |path: &Path| self.files.iter().find(|(_, p, _)| p == path).map(|(_, _, t)| t.clone());
        diagnostics.extend(managed::apply(&mut config, text_of));
        Ok((config, diagnostics))
    }
}

/// Loads MANAGED → USER → PROJECT → LOCAL (missing files are skipped silently; `.claude/` is
/// never read) and returns the merged config in dispatch order plus every WARN (R-CFG-1/2). The
/// managed tier's switches are applied (`allowManagedHooksOnly`, `disableAllHooks`), each file
/// they leave out named in a WARN.
pub fn load_tiers(paths: &TierPaths) -> Result<(LoadedConfig, Vec<Diagnostic>), Error> {
    TierTexts::read(paths)?.parse(paths)
}

/// [`load_tiers`] for a one-shot dispatch (`aimon-hooks run`, `claude`), and now the same load:
/// every matcher is parsed (hook-predicate's syntax check) so a broken one is reported whatever
/// the call, while the regex automata are still built only when a dispatch tests them (PERF-6).
pub fn load_tiers_lazily(paths: &TierPaths) -> Result<(LoadedConfig, Vec<Diagnostic>), Error> {
    load_tiers(paths)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_with_bytes_that_are_not_utf8_is_read_lossily() {
        let project = tempfile::tempdir().expect("project");
        std::fs::create_dir_all(project.path().join(".aimon")).expect("mkdir");
        let paths = TierPaths::new(None, project.path());
        let mut text = br#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "deny", "reason": "no "#.to_vec();
        text.extend_from_slice(b"\xff\"}]}]}}");
        std::fs::write(paths.project_file(), &text).expect("write");
        let texts = TierTexts::read(&paths).expect("reads");
        assert_eq!(texts.files[0].2, String::from_utf8_lossy(&text));
        assert!(texts.files[0].2.contains("no \u{fffd}"));
    }
}
