//! The soak (R-SRV-7), run by hand: `cargo bench -p hook-cli --bench soak [SECONDS]`.
//!
//! For SECONDS (default 60, at most 600) a real `aimon-hooks serve` process (this bench's build
//! of it) gets 1,000 concurrent loopback connections from this process, back to back: slow
//! clients, garbage, decisions (see `tests/cli/traffic.rs`). Passes when `/v1/health` answered
//! every check within 1 s, the daemon's RSS came back within 10 MiB of where it started (after a
//! warm-up; read up to 15 s after the traffic drained, as the allocator returns pages), it never panicked and it shut down cleanly; exits 1 otherwise.

#[path = "../tests/common/serve_process.rs"]
mod serve_process;
#[path = "../tests/cli/traffic.rs"]
mod traffic;

use std::time::Duration;

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let seconds: u64 = std::env::args().skip(1).find_map(|a| a.parse().ok()).unwrap_or(60).clamp(1, 600);
    let plan = traffic::Plan { connections: 1000, duration: Duration::from_secs(seconds), pace: None, settle: true };
    let report = traffic::soak(&traffic::binary(), &plan);
    println!("{report}");
    let grew = report.rss_growth_mib();
    let ok = report.misses == 0 && grew.abs() <= 10.0 && !report.panicked() && report.exit == Some(128 + 15);
    if !ok {
        eprintln!("soak: FAILED (health misses, RSS beyond ±10 MiB, a panic or an unclean shutdown)");
        eprintln!("{}", report.stderr.lines().take(40).collect::<Vec<_>>().join("\n"));
        std::process::exit(1);
    }
    println!("soak: passed");
}
