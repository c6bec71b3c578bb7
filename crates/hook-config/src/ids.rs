//! Content-derived hook ids (R-CFG-ID-1/2).
//!
//! An id is `<kind>@<source>#<hash>` or, for the k-th repeat (k ≥ 1) of identical content within
//! one allocation, `<kind>@<source>#<hash>.<k>`:
//! - `<kind>`: `command`, `http`, `mcp`, `deny`;
//! - `<source>`: `user#0`, `project#0`, `local#0` (tier and file index) or a skill name;
//! - `<hash>`: 16 hex digits of FNV-1a 64 over the event's AIMON name, the matcher as written, the
//!   handler's canonical summary ([`HandlerSpec::summary`]) and the source, NUL-separated.
//!
//! So the id does not depend on the position in the file (inserting an unrelated entry above a
//! hook keeps its id), is the same across reloads and processes (FNV is fixed, unlike std's
//! hasher), and two identical handlers still differ by their `.k` suffix.

use std::collections::HashMap;
use std::fmt::{self, Write as _};
use std::hash::{BuildHasherDefault, Hasher};

use hook_core::{HandlerKind, HookEventType};

use crate::handler::HandlerSpec;

/// The hash's digits (what `{:016x}` writes, without the formatting machinery).
const HEX_DIGITS: &[u8; 16] = b"0123456789abcdef";

/// Allocates ids for one source (one file, one skill). Keeps the repeat counts, keyed by the
/// content hash and kind (the rest of an id, the source, is the allocator's own).
#[derive(Debug, Default)]
pub struct HookIds {
    seen: HashMap<(u64, HandlerKind), usize, BuildHasherDefault<Prehashed>>,
}

/// The map's hasher: its keys are content hashes already, so it only folds in what it is given
/// (the kind) instead of hashing the hash again.
#[derive(Default)]
struct Prehashed(u64);

impl Hasher for Prehashed {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 ^= n;
    }
}

impl HookIds {
    /// A fresh allocator.
    pub fn new() -> Self {
        Self::default()
    }

    /// A fresh allocator with room for `handlers` ids.
    pub(crate) fn with_capacity(handlers: usize) -> Self {
        HookIds { seen: HashMap::with_capacity_and_hasher(handlers, BuildHasherDefault::default()) }
    }

    /// The id of the next handler with this content.
    pub fn next(&mut self, event: HookEventType, matcher: &str, handler: &HandlerSpec, source: &str) -> String {
        let mut hash = Fnv1a64::default();
        for part in [event.name(), "\0", matcher, "\0"] {
            hash.add(part.as_bytes());
        }
        let _ = handler.write_summary(&mut hash);
        hash.add(b"\0");
        hash.add(source.as_bytes());
        let kind = handler.kind();
        let count = self.seen.entry((hash.0, kind)).or_insert(0);
        let name = kind.config_name();
        let mut id = String::with_capacity(name.len() + source.len() + 24);
        for part in [name, "@", source, "#"] {
            id.push_str(part);
        }
        for shift in (0..16).rev() {
            id.push(char::from(HEX_DIGITS[((hash.0 >> (shift * 4)) & 0xf) as usize]));
        }
        if *count > 0 {
            let _ = write!(id, ".{count}");
        }
        *count += 1;
        id
    }
}

/// FNV-1a, 64 bit (tiny, stable across Rust releases and platforms), fed as text is written:
/// the id's content is never built as one string.
struct Fnv1a64(u64);

impl Default for Fnv1a64 {
    fn default() -> Self {
        Fnv1a64(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv1a64 {
    fn add(&mut self, bytes: &[u8]) {
        self.0 = bytes.iter().fold(self.0, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3));
    }
}

impl fmt::Write for Fnv1a64 {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.add(s.as_bytes());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a64_matches_the_published_test_vectors() {
        let fnv1a64 = |bytes: &[u8]| {
            let mut hash = Fnv1a64::default();
            hash.add(bytes);
            hash.0
        };
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn the_hash_is_of_event_matcher_summary_and_source_nul_separated_as_documented() {
        let h = HandlerSpec::command("echo hi").with_fail_closed(true);
        let content = format!("preTool\0Bash\0{}\0project#0", h.summary());
        let mut hash = Fnv1a64::default();
        hash.add(content.as_bytes());
        let expected = format!("command@project#0#{:016x}", hash.0);
        assert_eq!(HookIds::new().next(HookEventType::PRE_TOOL, "Bash", &h, "project#0"), expected);
    }

    #[test]
    fn identical_handlers_get_distinct_ids_and_a_fresh_allocator_repeats_them() {
        let h = HandlerSpec::command("echo hi");
        let mut ids = HookIds::new();
        let a = ids.next(HookEventType::PRE_TOOL, "*", &h, "project#0");
        let b = ids.next(HookEventType::PRE_TOOL, "*", &h, "project#0");
        assert_ne!(a, b);
        assert_eq!(b, format!("{a}.1"));
        assert!(a.starts_with("command@project#0#"), "{a}");
        assert_eq!(HookIds::new().next(HookEventType::PRE_TOOL, "*", &h, "project#0"), a);
    }

    #[test]
    fn every_part_of_the_content_changes_the_id() {
        let h = HandlerSpec::command("echo hi");
        let id = |e, m: &str, h: &HandlerSpec, s: &str| HookIds::new().next(e, m, h, s);
        let base = id(HookEventType::PRE_TOOL, "*", &h, "project#0");
        assert_ne!(base, id(HookEventType::POST_TOOL, "*", &h, "project#0"));
        assert_ne!(base, id(HookEventType::PRE_TOOL, "Bash", &h, "project#0"));
        assert_ne!(base, id(HookEventType::PRE_TOOL, "*", &HandlerSpec::command("echo ho"), "project#0"));
        assert_ne!(base, id(HookEventType::PRE_TOOL, "*", &h.clone().with_fail_closed(true), "project#0"));
        assert_ne!(base, id(HookEventType::PRE_TOOL, "*", &h, "local#0"));
    }
}
