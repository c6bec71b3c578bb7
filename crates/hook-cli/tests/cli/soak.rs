//! The short soak of the normal suite (R-SRV-7): 1,000 concurrent connections of slow, garbage
//! and decision clients against a real `aimon-hooks serve` process for 11 s; `/v1/health`
//! answers within 1 s every time, the daemon cuts the slow clients off, never panics, keeps its
//! request metric's labels bounded (unknown paths and events add none), and shuts down cleanly
//! afterwards. The RSS bound is the bench's (`cargo bench -p hook-cli --bench soak`):
//! 11 s on a shared test machine is too short to judge memory.

use std::time::Duration;

use crate::traffic::{Plan, binary, soak};

#[test]
fn under_a_thousand_slow_and_garbage_connections_health_is_answered_throughout_and_nothing_panics() {
    let plan = Plan {
        connections: 1000,
        duration: Duration::from_secs(11),
        pace: Some(Duration::from_millis(20)),
        settle: false,
    };
    let report = soak(&binary(), &plan);
    println!("{report}");
    assert_eq!(report.misses, 0, "/v1/health must answer within 1 s throughout:\n{report}\n{}", report.stderr);
    // The checks are sequential: at least one a second means it asked throughout.
    assert!(report.checks >= 10, "the health thread must have asked throughout:\n{report}");
    assert!(!report.panicked(), "the daemon panicked:\n{}", report.stderr);
    // Five routes times a few statuses; unknown paths and events add no series.
    let series = report.request_series;
    assert!((1..=16).contains(&series), "the request metric's labels must stay bounded:\n{report}");
    assert!(report.slow_cut > 0, "the daemon must cut slow clients off (header/body timeouts):\n{report}");
    assert!(report.decisions > 0 && report.garbage > 0, "the traffic must have been answered:\n{report}");
    assert_eq!(
        report.exit,
        Some(128 + 15),
        "the daemon must shut down cleanly on SIGTERM:\n{report}\n{}",
        report.stderr
    );
}
