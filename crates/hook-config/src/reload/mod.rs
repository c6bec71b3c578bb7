//! Hot reload (R-HOT-1…8): the bootstrap and its builder, the watcher, the debounce and the
//! reloader, one module each.
//!
//! - Detection (`watch`): `notify` on the *parent directories* of the tier files and the two
//!   `mcp.json` registries (non-recursive, filtered by path, so rename-saves and files that do not
//!   exist yet work), and on the managed `hooks.d` directory (any file in it), plus a poller that
//!   compares `(mtime, len, exists)` every `poll_interval` (the fallback when a directory is
//!   missing or events are lost or disabled; `hooks.d`'s own stats show a file added or removed).
//!   Directories that appear later are watched on the next trigger.
//! - Debounce (`debounce`): a trigger opens a window that closes after `debounce` of quiet, or at
//!   the latest `max_wait` after the first trigger (default 2 s, R-HOT-2).
//! - Reload (`builder`'s worker): one task does every reload in turn, so depth is at most 1;
//!   triggers that arrive during a reload queue up and cause exactly one more reload afterwards
//!   (R-HOT-6). A reload whose texts are byte-identical to the previous attempt's is a no-op.
//! - Swap (`reloader`): all tiers parse (and an edited `mcp.json` is JSON), or nothing changes and
//!   `onConfigReload(successful=false)` fires (R-HOT-4). Otherwise the hooks are built first and
//!   installed with one [`HookRegistry::replace_managed`](hook_core::HookRegistry::replace_managed)
//!   call, a single atomic store: a dispatch sees all-old or all-new, and "installing fails midway"
//!   cannot happen — a build that panics installs nothing and keeps the previous set. Rewake
//!   envelopes of removed ids are cancelled (R-HOT-8). An edited `mcp.json` gives a new server
//!   table, and the hooks are rebuilt against it (REL-5).

mod builder;
mod debounce;
mod reloader;
mod watch;

pub use builder::{HookHotReloadBootstrap, HotReloadBuilder, HotReloadHandle};

/// The registry group the file tiers' hooks live in (the managed tier's first).
pub const CONFIG_GROUP: &str = "config";
