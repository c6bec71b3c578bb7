//! Per-context caps on pending envelopes (R-RW-6).

use std::collections::HashMap;
use std::fmt;
use std::sync::{Mutex, PoisonError};

/// Decides how many envelopes a context may have pending. Over the cap, `schedule` drops the
/// new envelope with a WARN.
pub trait RewakeQuotaManager: Send + Sync + fmt::Debug {
    /// The cap for `context_id` (`""` for envelopes without a context); `None` = unlimited.
    fn cap(&self, context_id: &str) -> Option<usize>;
}

/// No cap: the default (enforcement is opt-in).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoopQuota;

impl RewakeQuotaManager for NoopQuota {
    fn cap(&self, _context_id: &str) -> Option<usize> {
        None
    }
}

/// A cap per context (default 64) with per-context overrides.
#[derive(Debug)]
pub struct DefaultRewakeQuotaManager {
    default_cap: usize,
    custom: Mutex<HashMap<String, usize>>,
}

impl Default for DefaultRewakeQuotaManager {
    fn default() -> Self {
        Self::new(Self::DEFAULT_CAP)
    }
}

impl DefaultRewakeQuotaManager {
    /// The seed's default cap.
    pub const DEFAULT_CAP: usize = 64;

    /// A manager capping every context at `default_cap`.
    pub fn new(default_cap: usize) -> Self {
        DefaultRewakeQuotaManager { default_cap, custom: Mutex::new(HashMap::new()) }
    }

    /// Overrides the cap of one context.
    pub fn set_custom_quota(&self, context_id: impl Into<String>, cap: usize) {
        self.custom.lock().unwrap_or_else(PoisonError::into_inner).insert(context_id.into(), cap);
    }

    /// Removes a context's override; `true` if there was one.
    pub fn clear_custom_quota(&self, context_id: &str) -> bool {
        self.custom.lock().unwrap_or_else(PoisonError::into_inner).remove(context_id).is_some()
    }
}

impl RewakeQuotaManager for DefaultRewakeQuotaManager {
    fn cap(&self, context_id: &str) -> Option<usize> {
        let custom = self.custom.lock().unwrap_or_else(PoisonError::into_inner);
        Some(custom.get(context_id).copied().unwrap_or(self.default_cap))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_manager_caps_at_64_with_per_context_overrides_per_r_rw_6() {
        let quota = DefaultRewakeQuotaManager::default();
        quota.set_custom_quota("busy", 2);
        assert_eq!(quota.cap("any"), Some(64));
        assert_eq!(quota.cap("busy"), Some(2));
        assert!(quota.clear_custom_quota("busy"));
        assert_eq!(quota.cap("busy"), Some(64));
        assert_eq!(NoopQuota.cap("any"), None);
    }
}
