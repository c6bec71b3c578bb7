//! Matchers compiled once per load (PERF-6).
//!
//! A [`Matcher`] is a pattern (an entry `matcher` or a handler `if`) with the anchors it compiles
//! against, compiled at most once: by the loader when it validates the pattern (to WARN with
//! file:line:col, on every load), or on first use when nothing validated it (a spec built in
//! code). Compiling is hook-predicate's parse, a syntax check: the regex automata are built only
//! when a call is tested, so a pattern no dispatch tests costs its parse only. The loader hands its
//! compiled matcher on in the entry ([`MatcherCache`]); the build reuses it when it anchors the
//! same way, so validating and building share one compilation, and every handler of an entry
//! shares its entry's matcher.

use std::sync::{Arc, OnceLock};

use hook_predicate::{Call, PathAnchors, ToolInputPredicate, Verdict};

/// A pattern and its anchors, compiled on first need.
#[derive(Debug)]
pub(crate) struct Matcher {
    pattern: Box<str>,
    /// Shared by every pattern of one file (and its build).
    anchors: Arc<PathAnchors>,
    /// The predicate (the exact-name fallback when the pattern does not parse) and whether it parsed.
    pub(crate) compiled: OnceLock<(Box<dyn ToolInputPredicate>, bool)>,
    /// A rule pack's pattern, built into the binary: its regexes were checked by the packs' tests.
    built_in: bool,
}

impl Matcher {
    pub(crate) fn new(pattern: &str, anchors: &Arc<PathAnchors>) -> Arc<Self> {
        Arc::new(Matcher {
            pattern: pattern.into(),
            anchors: anchors.clone(),
            compiled: OnceLock::new(),
            built_in: false,
        })
    }

    fn compiled(&self) -> &(Box<dyn ToolInputPredicate>, bool) {
        self.compiled.get_or_init(|| {
            let parsed = if self.built_in {
                hook_predicate::parse_built_in(&self.pattern, &self.anchors)
            } else {
                hook_predicate::parse(&self.pattern, &self.anchors)
            };
            match parsed {
                Ok(predicate) => (predicate, true),
                Err(e) => (e.fallback(), false),
            }
        })
    }

    /// Compiles now (once); `false` when the pattern does not parse (R-PRED-5: the exact-name
    /// fallback is used).
    pub(crate) fn parses(&self) -> bool {
        self.compiled().1
    }

    /// Whether the call matches (an uncertain match is a match).
    pub(crate) fn test(&self, tool_name: &str, input: &serde_json::Value) -> bool {
        self.verdict(&Call::new(tool_name, input)).matches()
    }

    /// What the predicate says of the call.
    pub(crate) fn verdict(&self, call: &Call<'_>) -> Verdict {
        self.compiled().0.verdict(call)
    }

    /// Whether it compiles against exactly `anchors`.
    pub(crate) fn anchored_like(&self, anchors: &Arc<PathAnchors>) -> bool {
        Arc::ptr_eq(&self.anchors, anchors)
            || (self.anchors.project_root == anchors.project_root
                && self.anchors.home == anchors.home
                && self.anchors.tier_root == anchors.tier_root)
    }
}

/// The loader's matcher for a pattern, handed to the build; not part of a spec's identity.
#[derive(Clone, Debug, Default)]
pub(crate) struct MatcherCache(pub(crate) Option<Arc<Matcher>>);

impl MatcherCache {
    /// The cached matcher when it anchors like `anchors`, else a fresh (uncompiled) one;
    /// `built_in`: the pattern is a rule pack's.
    pub(crate) fn take_or_new(&self, pattern: &str, anchors: &Arc<PathAnchors>, built_in: bool) -> Arc<Matcher> {
        match &self.0 {
            Some(m) if *m.pattern == *pattern && m.anchored_like(anchors) => m.clone(),
            _ if built_in => Arc::new(Matcher {
                pattern: pattern.into(),
                anchors: anchors.clone(),
                compiled: OnceLock::new(),
                built_in,
            }),
            _ => Matcher::new(pattern, anchors),
        }
    }
}

impl PartialEq for MatcherCache {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}
