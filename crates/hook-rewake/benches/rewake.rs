//! Rewake figures (PERF-5), printed with ratios against baselines measured in the same run:
//!
//! 1. scheduling 100,000 delay envelopes: wall time and peak RSS growth (`VmHWM`), against
//!    spawning 100,000 tokio tasks that each sleep (the naive one-timer-task-per-envelope design);
//! 2. fire lateness p50/p99/max of 10,000 envelopes due within one second while the 100,000
//!    stay pending, against 10,000 tokio tasks sleeping until the same deadlines.
//!
//! Run: `cargo bench -p hook-rewake --bench rewake`.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hook_core::{HookContext, HookEventType, RewakeSpec, RewakeTrigger};
use hook_rewake::{DefaultRewakeService, Envelope, Fire, FireFuture, RewakeFireListener, RewakeService};

const SCHEDULED: usize = 100_000;
const TIMED: usize = 10_000;

/// Records when each fire reached the listener, keyed by the envelope's `i` payload.
#[derive(Debug)]
struct Lateness {
    fired: Mutex<Vec<(usize, Instant)>>,
}

impl RewakeFireListener for Lateness {
    fn on_fire(self: Arc<Self>, fire: Fire) -> FireFuture {
        let now = Instant::now();
        if let Some(i) = fire.payload.get("i").and_then(|i| i.parse().ok()) {
            self.fired.lock().expect("lock").push((i, now));
        }
        Box::pin(async {})
    }
}

fn envelope(delay: Duration, i: usize) -> Envelope {
    let mut ctx = HookContext::new(HookEventType::PRE_TOOL);
    ctx.context_id = Some(format!("agent-{}", i % 64));
    let spec = RewakeSpec::new(RewakeTrigger::Delay(delay), "bench")
        .with_timeout(delay + Duration::from_secs(3600))
        .with_payload([("i".to_owned(), i.to_string())].into());
    Envelope::new("command@project#bench", ctx, spec, 1)
}

fn status_kib(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn summary(mut lateness: Vec<Duration>) -> (Duration, Duration, Duration) {
    lateness.sort();
    (percentile(&lateness, 0.5), percentile(&lateness, 0.99), *lateness.last().expect("samples"))
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    rt.block_on(async {
        let listener = Arc::new(Lateness { fired: Mutex::new(Vec::with_capacity(TIMED)) });
        let service = DefaultRewakeService::builder(listener.clone()).start().expect("start");

        // 1. Schedule 100,000 envelopes due in one to two hours.
        let envelopes: Vec<Envelope> =
            (0..SCHEDULED).map(|i| envelope(Duration::from_secs(3600 + (i % 3600) as u64), SCHEDULED + i)).collect();
        let rss_before = status_kib("VmRSS:");
        let started = Instant::now();
        for e in envelopes {
            service.schedule(e).expect("schedule");
        }
        let schedule_time = started.elapsed();
        let hwm_after = status_kib("VmHWM:");
        assert_eq!(service.pending().len(), SCHEDULED);

        let started = Instant::now();
        let tasks: Vec<_> = (0..SCHEDULED)
            .map(|i| tokio::spawn(tokio::time::sleep(Duration::from_secs(3600 + (i % 3600) as u64))))
            .collect();
        let spawn_time = started.elapsed();
        tasks.iter().for_each(|t| t.abort());
        drop(tasks);

        println!(
            "schedule {SCHEDULED} delay envelopes: {:.1} ms ({:.2} µs each); baseline {SCHEDULED} sleeping tasks: {:.1} ms; ratio {:.2}",
            schedule_time.as_secs_f64() * 1e3,
            schedule_time.as_secs_f64() * 1e6 / SCHEDULED as f64,
            spawn_time.as_secs_f64() * 1e3,
            schedule_time.as_secs_f64() / spawn_time.as_secs_f64()
        );
        println!(
            "peak RSS growth while scheduling: {:.1} MiB ({} bytes per envelope; VmHWM {:.1} MiB)",
            hwm_after.saturating_sub(rss_before) as f64 / 1024.0,
            hwm_after.saturating_sub(rss_before) * 1024 / SCHEDULED as u64,
            hwm_after as f64 / 1024.0
        );

        // 2. 10,000 envelopes due within the next second, while the 100,000 stay pending.
        let batch: Vec<(Envelope, Duration)> = (0..TIMED)
            .map(|i| {
                let delay = Duration::from_micros(100 * i as u64 + 1000);
                (envelope(delay, i), delay)
            })
            .collect();
        let mut due = Vec::with_capacity(TIMED);
        for (e, delay) in batch {
            due.push(Instant::now() + delay);
            service.schedule(e).expect("schedule");
        }
        tokio::time::sleep(Duration::from_millis(1500)).await;
        let fired = std::mem::take(&mut *listener.fired.lock().expect("lock"));
        assert_eq!(fired.len(), TIMED, "every timed envelope fired");
        let (p50, p99, max) = summary(fired.iter().map(|(i, at)| at.saturating_duration_since(due[*i])).collect());

        let deadlines: Vec<Instant> = (0..TIMED).map(|i| Instant::now() + Duration::from_micros(100 * i as u64 + 1000)).collect();
        let baseline = Arc::new(Mutex::new(Vec::with_capacity(TIMED)));
        for deadline in &deadlines {
            let (deadline, baseline) = (*deadline, baseline.clone());
            tokio::spawn(async move {
                tokio::time::sleep_until(deadline.into()).await;
                let late = Instant::now().saturating_duration_since(deadline);
                baseline.lock().expect("lock").push(late);
            });
        }
        tokio::time::sleep(Duration::from_millis(1500)).await;
        let baseline = std::mem::take(&mut *baseline.lock().expect("lock"));
        assert_eq!(baseline.len(), TIMED);
        let (b50, b99, bmax) = summary(baseline);
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        println!(
            "fire lateness of {TIMED} envelopes due within 1 s ({SCHEDULED} others pending): p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms",
            ms(p50),
            ms(p99),
            ms(max)
        );
        println!(
            "baseline {TIMED} sleep_until tasks: p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms; p99 ratio {:.2}",
            ms(b50),
            ms(b99),
            ms(bmax),
            ms(p99) / ms(b99).max(1e-6)
        );
    });
}
