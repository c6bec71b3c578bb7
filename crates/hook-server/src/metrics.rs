//! The daemon's Prometheus metrics, named `hook_server_<what>_<unit>` with labels for route,
//! status, event and outcome. Recording is a few atomic operations: a request never waits on a
//! metric.

use hook_core::{EventVerdict, Verdict};
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    route: String,
    status: u16,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct DecisionLabels {
    event: &'static str,
    outcome: &'static str,
    /// `enforced`, or `audit` for what an audit-mode hook would have done.
    mode: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct EventLabels {
    event: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ReloadLabels {
    successful: bool,
}

/// Hook latency buckets, in seconds: 100 µs … ~100 s.
fn latency_histogram() -> Histogram {
    Histogram::new(prometheus_client::metrics::histogram::exponential_buckets(0.0001, 4.0, 11))
}

/// Every metric of the daemon, and the registry that renders them.
#[derive(Debug)]
pub(crate) struct Metrics {
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    decisions: Family<DecisionLabels, Counter>,
    hook_latency: Family<EventLabels, Histogram, fn() -> Histogram>,
    hook_errors: Family<EventLabels, Counter>,
    hook_timeouts: Family<EventLabels, Counter>,
    reloads: Family<ReloadLabels, Counter>,
    projects: Gauge<i64, std::sync::atomic::AtomicI64>,
    queued: Gauge<i64, std::sync::atomic::AtomicI64>,
    payload_reads: Gauge<i64, std::sync::atomic::AtomicI64>,
}

impl Metrics {
    pub(crate) fn new() -> Self {
        let mut registry = Registry::with_prefix("hook_server");
        let requests = Family::<RequestLabels, Counter>::default();
        let decisions = Family::<DecisionLabels, Counter>::default();
        let hook_latency = Family::<EventLabels, Histogram, fn() -> Histogram>::new_with_constructor(latency_histogram);
        let hook_errors = Family::<EventLabels, Counter>::default();
        let hook_timeouts = Family::<EventLabels, Counter>::default();
        let reloads = Family::<ReloadLabels, Counter>::default();
        let projects = Gauge::default();
        let queued = Gauge::default();
        let payload_reads = Gauge::default();
        registry.register("requests", "HTTP requests answered, by route and status", requests.clone());
        registry.register("decisions", "Verdicts given, by event and outcome", decisions.clone());
        registry.register_with_unit(
            "hook_duration",
            "Wall time of each invoked hook, by event",
            prometheus_client::registry::Unit::Seconds,
            hook_latency.clone(),
        );
        registry.register("hook_errors", "Hooks that failed (error, crash, timeout), by event", hook_errors.clone());
        registry.register("hook_timeouts", "Hooks that timed out, by event", hook_timeouts.clone());
        registry.register("reloads", "Configuration reloads of served projects, by success", reloads.clone());
        registry.register("projects_loaded", "Projects whose engine is loaded", projects.clone());
        registry.register("requests_queued", "Requests waiting for a hook slot", queued.clone());
        registry.register(
            "payload_reads",
            "Agent payloads this process has read (a forwarded call is read once, by the daemon)",
            payload_reads.clone(),
        );
        Metrics {
            registry,
            requests,
            decisions,
            hook_latency,
            hook_errors,
            hook_timeouts,
            reloads,
            projects,
            queued,
            payload_reads,
        }
    }

    pub(crate) fn request(&self, route: &str, status: u16) {
        self.requests.get_or_create(&RequestLabels { route: route.to_owned(), status }).inc();
    }

    pub(crate) fn verdict(&self, verdict: &EventVerdict) {
        let event = verdict.event.name();
        let mode = hook_config::ENFORCED;
        self.decisions.get_or_create(&DecisionLabels { event, outcome: verdict.outcome.as_str(), mode }).inc();
        let labels = EventLabels { event };
        for run in &verdict.report.runs {
            self.hook_latency.get_or_create(&labels).observe(run.elapsed.as_secs_f64());
            if let Some(error) = run.error.as_deref().or(run.result.failure.as_deref()) {
                self.hook_errors.get_or_create(&labels).inc();
                if error.contains("timed out") {
                    self.hook_timeouts.get_or_create(&labels).inc();
                }
            }
        }
    }

    /// What an audit-mode hook would have decided, counted under `mode="audit"` in the outcome
    /// words of a verdict.
    pub(crate) fn audited(&self, a: &hook_config::Audited) {
        let outcome = match a.outcome {
            "deny" => Verdict::Denied.as_str(),
            "block" => Verdict::Blocked.as_str(),
            "ask" | "defer" => Verdict::Ask.as_str(),
            _ => Verdict::Proceed.as_str(),
        };
        let labels = DecisionLabels { event: a.event.name(), outcome, mode: hook_config::AUDIT };
        self.decisions.get_or_create(&labels).inc();
    }

    pub(crate) fn reload(&self, successful: bool) {
        self.reloads.get_or_create(&ReloadLabels { successful }).inc();
    }

    pub(crate) fn projects_loaded(&self, n: usize) {
        self.projects.set(i64::try_from(n).unwrap_or(i64::MAX));
    }

    pub(crate) fn queued(&self, delta: i64) {
        self.queued.inc_by(delta);
    }

    /// The Prometheus text exposition of every metric.
    pub(crate) fn render(&self) -> String {
        self.payload_reads.set(i64::try_from(hook_wire::payload_reads()).unwrap_or(i64::MAX));
        let mut out = String::new();
        if let Err(e) = prometheus_client::encoding::text::encode(&mut out, &self.registry) {
            tracing::warn!("hooks: cannot render the metrics: {e}");
        }
        out
    }
}
