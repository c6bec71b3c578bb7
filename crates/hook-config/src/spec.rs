//! The validated shape of a hooks.json file: what the loader hands on (R-CFG-3/4).

use std::fmt::Write as _;
use std::path::PathBuf;

use hook_core::HookEventType;
use serde_json::Value;

use crate::handler::HandlerSpec;
use crate::matcher::MatcherCache;
use crate::tier::Tier;

/// One entry of one event: a matcher and its valid handlers.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct HookEntrySpec {
    /// The event.
    pub event: HookEventType,
    /// The event name as written in the file (used in messages).
    pub event_as_written: String,
    /// The matcher as written (`*` when omitted).
    pub matcher: String,
    /// The handlers that passed validation, in file order.
    pub handlers: Vec<HandlerSpec>,
    /// The loader's compiled matcher, reused by the build (PERF-6).
    pub(crate) compiled: MatcherCache,
}

impl HookEntrySpec {
    /// An entry for `event` with `matcher` and `handlers` (the event written as its AIMON name).
    pub fn new(event: HookEventType, matcher: impl Into<String>, handlers: Vec<HandlerSpec>) -> Self {
        HookEntrySpec {
            event,
            event_as_written: event.name().to_owned(),
            matcher: matcher.into(),
            handlers,
            compiled: MatcherCache::default(),
        }
    }
}

/// One parsed file.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ConfigFile {
    /// Its tier.
    pub tier: Tier,
    /// Its path.
    pub path: PathBuf,
    /// Entries in file order (events in file order, then entries in array order).
    pub entries: Vec<HookEntrySpec>,
    /// The SHA-256 (hex) of the text it was parsed from, which trust compares (R-CLI-12).
    pub sha256: String,
    /// Its top-level switches, as far as its tier may set them.
    pub(crate) switches: Switches,
}

/// The top-level switches of one file: `allowManagedHooksOnly` and `disableAllHooks` count only
/// in the managed tier, `selfProtection: false` only in the person's own file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Switches {
    pub(crate) managed_hooks_only: bool,
    pub(crate) all_hooks_disabled: bool,
    pub(crate) self_protection_off: bool,
}

impl ConfigFile {
    /// The source name of the file's hooks (`project#0`, R-CFG-ID-1); a managed `hooks.d` file's
    /// is named after it (`managed#10-base.json`), so adding a file does not change other ids.
    pub fn source(&self) -> String {
        if let Some(pack) = crate::packs::of_file(self) {
            return pack.name().to_owned();
        }
        let drop_in = self.path.parent().and_then(|d| d.file_name()).is_some_and(|d| d == "hooks.d");
        match self.path.file_name() {
            Some(name) if self.tier == Tier::Managed && drop_in => format!("managed#{}", name.to_string_lossy()),
            _ => self.tier.source(),
        }
    }
}

/// The merged configuration of the file tiers, in dispatch order (R-CFG-2).
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct LoadedConfig {
    /// The files that exist, MANAGED → USER → PROJECT → LOCAL.
    pub files: Vec<ConfigFile>,
    /// The managed tier says `allowManagedHooksOnly`: no other file's hooks, and no skill's, run.
    pub(crate) managed_hooks_only: bool,
}

impl LoadedConfig {
    /// A config of `files`, given in dispatch order.
    pub fn from_files(files: Vec<ConfigFile>) -> Self {
        LoadedConfig { files, managed_hooks_only: false }
    }

    /// Whether the organisation's managed tier allows managed hooks only (`allowManagedHooksOnly`
    /// or `disableAllHooks`): skills must not be activated either.
    pub fn managed_hooks_only(&self) -> bool {
        self.managed_hooks_only
    }

    /// Every (file, entry, handler) in dispatch order.
    pub fn handlers(&self) -> impl Iterator<Item = (&ConfigFile, &HookEntrySpec, &HandlerSpec)> {
        self.files.iter().flat_map(|f| f.entries.iter().flat_map(move |e| e.handlers.iter().map(move |h| (f, e, h))))
    }

    /// A deterministic multi-line rendering (one handler per line), for snapshots and `list`.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for (file, entry, handler) in self.handlers() {
            let _ = writeln!(
                out,
                "{} {} matcher={} {}",
                file.tier,
                entry.event,
                Value::String(entry.matcher.clone()),
                handler.summary()
            );
        }
        out
    }
}
