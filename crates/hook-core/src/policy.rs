//! Execution policy (R-EXEC-1, R-EXEC-4).

use std::time::Duration;

/// Whether hooks run one after another or all at once.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ExecutionMode {
    /// In dispatch order, threading `updated_input` (the default).
    #[default]
    Sequential,
    /// All at once; every result is returned; `stop_on_blocked` is a no-op.
    Parallel,
}

/// What a hook that errors, panics or times out becomes (R-EXEC-6).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OnException {
    /// Allow, with a WARN (the default).
    #[default]
    FailOpen,
    /// Block, with the failure as the reason, on events whose failures refuse: for hooks whose
    /// silence must not let an action through. Events that only report failures still proceed.
    FailClosed,
}

/// How the executor runs a chain.
///
/// The five ready-made policies are all sequential; parallel execution is only had by building a
/// policy explicitly:
/// ```
/// use hook_core::{ExecutionMode, HookExecutionPolicy};
/// let parallel = HookExecutionPolicy { mode: ExecutionMode::Parallel, ..HookExecutionPolicy::fail_open() };
/// assert!(HookExecutionPolicy::ready_made().iter().all(|p| p.mode == ExecutionMode::Sequential));
/// # let _ = parallel;
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HookExecutionPolicy {
    /// Sequential or parallel.
    pub mode: ExecutionMode,
    /// Sequential only: stop at the first blocked result.
    pub stop_on_blocked: bool,
    /// The net around each hook.
    pub timeout: Duration,
    /// What failures become.
    pub on_exception: OnException,
}

impl Default for HookExecutionPolicy {
    fn default() -> Self {
        Self::fail_open()
    }
}

impl HookExecutionPolicy {
    /// Default per-hook net.
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
    /// Added to a declared budget that is at least the policy timeout.
    pub const DECLARED_BUDGET_GRACE: Duration = Duration::from_secs(5);
    /// Declared budgets above this are clamped with a WARN.
    pub const MAX_DECLARED_BUDGET: Duration = Duration::from_secs(600);

    /// Sequential, fail-open, every hook runs (the default).
    pub const fn fail_open() -> Self {
        HookExecutionPolicy {
            mode: ExecutionMode::Sequential,
            stop_on_blocked: false,
            timeout: Self::DEFAULT_TIMEOUT,
            on_exception: OnException::FailOpen,
        }
    }

    /// Sequential, fail-open, stops at the first blocked result.
    pub const fn stop_on_blocked() -> Self {
        HookExecutionPolicy { stop_on_blocked: true, ..Self::fail_open() }
    }

    /// Sequential, failures block, every hook runs.
    pub const fn fail_closed() -> Self {
        HookExecutionPolicy { on_exception: OnException::FailClosed, ..Self::fail_open() }
    }

    /// Sequential, failures block, stops at the first blocked result.
    pub const fn fail_closed_stop_on_blocked() -> Self {
        HookExecutionPolicy { stop_on_blocked: true, ..Self::fail_closed() }
    }

    /// Sequential, fail-open, with another per-hook net.
    pub const fn with_timeout(timeout: Duration) -> Self {
        HookExecutionPolicy { timeout, ..Self::fail_open() }
    }

    /// The five ready-made policies.
    pub fn ready_made() -> [HookExecutionPolicy; 5] {
        [
            Self::fail_open(),
            Self::stop_on_blocked(),
            Self::fail_closed(),
            Self::fail_closed_stop_on_blocked(),
            Self::with_timeout(Duration::from_secs(5)),
        ]
    }

    /// The net for a hook that declares `budget` (R-EXEC-4): shorter than the policy timeout →
    /// ignored; equal or longer → `budget + 5 s`; above 10 min → WARN and `10 min + 5 s`.
    pub fn effective_timeout(&self, hook_id: &str, budget: Option<Duration>) -> Duration {
        match budget {
            Some(b) if b >= self.timeout => {
                let b = if b > Self::MAX_DECLARED_BUDGET {
                    tracing::warn!(
                        hook = hook_id,
                        "Hook declared an execution budget of {b:?} exceeding the maximum of {:?}; clamped",
                        Self::MAX_DECLARED_BUDGET
                    );
                    Self::MAX_DECLARED_BUDGET
                } else {
                    b
                };
                b + Self::DECLARED_BUDGET_GRACE
            }
            _ => self.timeout,
        }
    }
}
