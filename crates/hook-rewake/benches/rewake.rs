//! Rewake figures (PERF-5, PERF-7), printed with ratios against baselines measured in the same run:
//!
//! 1. scheduling 1,000,000 delay envelopes (declarative defaults: empty payload) into one service: wall time of the `schedule` calls,
//!    the time the scheduling thread spent on a CPU (what wall time is on a quiet machine), and added RSS (`VmRSS` after minus before; goals ≤ 2 s and ≤ 300 MiB), against spawning
//!    100,000 tokio tasks that each sleep (the one-task-per-envelope design, scaled ×10), and
//!    against the former table layout (one boxed `Envelope` per slot in a `HashMap` keyed by
//!    `Arc<str>`, timers in a `BTreeMap` naming the id) filled with the same envelopes;
//! 2. the SQLite store's persist rate: 20,000 envelopes one insert per transaction, then
//!    100,000 through `insert_batch` in batches of 1,000 (goal ≥ 10,000/s);
//! 3. fire lateness p50/p99/max of 10,000 envelopes due at 10,000 fires/s (one every 100 µs)
//!    while the 1,000,000 stay pending (goal p99 ≤ 10 ms), against 10,000 tokio tasks sleeping
//!    until the same deadlines.
//!
//! Run: `cargo bench -p hook-rewake --bench rewake`.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hook_core::{HookContext, HookEventType, RewakeSpec, RewakeTrigger};
use hook_rewake::{
    DefaultRewakeService, Envelope, Fire, FireFuture, RewakeFireListener, RewakeService, RewakeStore, SqliteStore,
};

const SCHEDULED: usize = 1_000_000;
const BASELINE_TASKS: usize = 100_000;
const TIMED: usize = 10_000;
const SINGLE_INSERTS: usize = 20_000;
const BATCHED: usize = 100_000;
const BATCH: usize = 1_000;

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

/// A preTool envelope as a declarative hook asks for it; `timed` ones carry their index in
/// the payload (the mass ones keep the declarative default: an empty payload).
fn envelope(delay: Duration, i: usize, timed: bool) -> Envelope {
    let mut ctx = HookContext::new(HookEventType::PRE_TOOL);
    ctx.context_id = Some(format!("agent-{}", i % 64));
    ctx.session_id = Some(format!("session-{}", i % 64));
    ctx.project_dir = Some("/work/project".into());
    let mut spec =
        RewakeSpec::new(RewakeTrigger::Delay(delay), "bench").with_timeout(delay + Duration::from_secs(3600));
    if timed {
        spec = spec.with_payload([("i".to_owned(), i.to_string())].into());
    }
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

/// Time this thread has spent on a CPU (`/proc/thread-self/schedstat`, ns): on a shared machine
/// the wall time of a single-threaded loop mostly measures the other processes.
fn thread_cpu() -> Duration {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap_or_default();
    Duration::from_nanos(stat.split_whitespace().next().and_then(|n| n.parse().ok()).unwrap_or(0))
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn summary(mut lateness: Vec<Duration>) -> (Duration, Duration, Duration) {
    lateness.sort();
    (percentile(&lateness, 0.5), percentile(&lateness, 0.99), *lateness.last().expect("samples"))
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn persist_rate() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = SqliteStore::open(dir.path().join("rewake.db")).expect("open");
    let singles: Vec<Envelope> = (0..SINGLE_INSERTS).map(|i| envelope(Duration::from_secs(3600), i, true)).collect();
    let started = Instant::now();
    for e in &singles {
        store.insert(e).expect("insert");
    }
    let single = SINGLE_INSERTS as f64 / started.elapsed().as_secs_f64();
    let batched: Vec<Envelope> = (0..BATCHED).map(|i| envelope(Duration::from_secs(3600), i, true)).collect();
    let started = Instant::now();
    for chunk in batched.chunks(BATCH) {
        store.insert_batch(chunk).expect("insert batch");
    }
    let batch = BATCHED as f64 / started.elapsed().as_secs_f64();
    println!(
        "sqlite persist: one insert per transaction {single:.0}/s ({SINGLE_INSERTS}); insert_batch of {BATCH} {batch:.0}/s ({BATCHED}); ratio {:.1}",
        batch / single
    );
}

/// The former table: a boxed envelope per slot, keyed by id, and a timer entry per slot.
/// Returns the time to fill it with `n` envelopes and the RSS it added (KiB).
fn former_layout(n: usize) -> (Duration, u64) {
    type Slot = (Box<Envelope>, Option<(Instant, u64)>, bool);
    let rss_before = status_kib("VmRSS:");
    let mut slots: HashMap<Arc<str>, Slot> = HashMap::new();
    let mut timers: BTreeMap<(Instant, u64), Arc<str>> = BTreeMap::new();
    let mut time = Duration::ZERO;
    let mut chunk = Vec::with_capacity(10_000);
    let now = Instant::now();
    for start in (0..n).step_by(10_000) {
        chunk.extend((start..start + 10_000).map(|i| {
            let delay = Duration::from_secs(3600 + (i % 3600) as u64);
            (envelope(delay, TIMED + i, false), delay)
        }));
        let started = Instant::now();
        for (i, (e, delay)) in chunk.drain(..).enumerate() {
            let id: Arc<str> = Arc::from(e.id.as_str());
            let key = (now + delay, (start + i) as u64);
            slots.insert(id.clone(), (Box::new(e), Some(key), false));
            timers.insert(key, id);
        }
        time += started.elapsed();
    }
    let added = status_kib("VmRSS:").saturating_sub(rss_before);
    assert_eq!(slots.len() + timers.len(), 2 * n);
    (time, added)
}

fn main() {
    persist_rate();
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    rt.block_on(async {
        let listener = Arc::new(Lateness { fired: Mutex::new(Vec::with_capacity(TIMED)) });
        let service = DefaultRewakeService::builder(listener.clone()).start().expect("start");

        // 1. Schedule 1,000,000 envelopes due in one to two hours, built in chunks of 10,000
        //    (building is not timed; the chunk buffer is reused, so it barely shows in RSS).
        let rss_before = status_kib("VmRSS:");
        let mut schedule_time = Duration::ZERO;
        let mut schedule_cpu = Duration::ZERO;
        let mut chunk = Vec::with_capacity(10_000);
        for start in (0..SCHEDULED).step_by(10_000) {
            chunk.extend(
                (start..start + 10_000).map(|i| envelope(Duration::from_secs(3600 + (i % 3600) as u64), TIMED + i, false)),
            );
            let (started, cpu) = (Instant::now(), thread_cpu());
            for e in chunk.drain(..) {
                service.schedule(e).expect("schedule");
            }
            schedule_time += started.elapsed();
            schedule_cpu += thread_cpu().saturating_sub(cpu);
        }
        let rss_after = status_kib("VmRSS:");
        assert_eq!(service.pending_count(), SCHEDULED);

        let started = Instant::now();
        let tasks: Vec<_> = (0..BASELINE_TASKS)
            .map(|i| tokio::spawn(tokio::time::sleep(Duration::from_secs(3600 + (i % 3600) as u64))))
            .collect();
        let spawn_time = started.elapsed() * (SCHEDULED / BASELINE_TASKS) as u32;
        tasks.iter().for_each(|t| t.abort());
        drop(tasks);

        let added = rss_after.saturating_sub(rss_before);
        let (former_time, former_added) = former_layout(SCHEDULED);
        println!(
            "schedule {SCHEDULED} delay envelopes: {:.0} ms wall, {:.0} ms on CPU ({:.2} µs each; goal ≤ 2000 ms); baseline one sleeping task each (×10 of {BASELINE_TASKS}): {:.0} ms; ratio {:.2}",
            ms(schedule_time),
            ms(schedule_cpu),
            schedule_time.as_secs_f64() * 1e6 / SCHEDULED as f64,
            ms(spawn_time),
            schedule_time.as_secs_f64() / spawn_time.as_secs_f64()
        );
        println!(
            "added RSS with {SCHEDULED} pending: {:.1} MiB ({} bytes per envelope; goal ≤ 300 MiB)",
            added as f64 / 1024.0,
            added * 1024 / SCHEDULED as u64,
        );
        println!(
            "former layout (boxed Envelope per slot) with the same {SCHEDULED}: insert {:.0} ms, added RSS {:.1} MiB ({} bytes per envelope); time ratio {:.2}, RSS ratio {:.2}",
            ms(former_time),
            former_added as f64 / 1024.0,
            former_added * 1024 / SCHEDULED as u64,
            schedule_time.as_secs_f64() / former_time.as_secs_f64(),
            added as f64 / former_added.max(1) as f64
        );

        // 3. 10,000 envelopes due at 10,000 fires/s, while the 1,000,000 stay pending.
        let batch: Vec<(Envelope, Duration)> = (0..TIMED)
            .map(|i| {
                let delay = Duration::from_micros(100 * i as u64 + 5000);
                (envelope(delay, i, true), delay)
            })
            .collect();
        let mut due = Vec::with_capacity(TIMED);
        for (e, delay) in batch {
            due.push(Instant::now() + delay);
            service.schedule(e).expect("schedule");
        }
        tokio::time::sleep(Duration::from_millis(2000)).await;
        let fired = std::mem::take(&mut *listener.fired.lock().expect("lock"));
        assert_eq!(fired.len(), TIMED, "every timed envelope fired");
        let (p50, p99, max) = summary(fired.iter().map(|(i, at)| at.saturating_duration_since(due[*i])).collect());

        let deadlines: Vec<Instant> =
            (0..TIMED).map(|i| Instant::now() + Duration::from_micros(100 * i as u64 + 5000)).collect();
        let baseline = Arc::new(Mutex::new(Vec::with_capacity(TIMED)));
        for deadline in &deadlines {
            let (deadline, baseline) = (*deadline, baseline.clone());
            tokio::spawn(async move {
                tokio::time::sleep_until(deadline.into()).await;
                let late = Instant::now().saturating_duration_since(deadline);
                baseline.lock().expect("lock").push(late);
            });
        }
        tokio::time::sleep(Duration::from_millis(2000)).await;
        let baseline = std::mem::take(&mut *baseline.lock().expect("lock"));
        assert_eq!(baseline.len(), TIMED);
        let (b50, b99, bmax) = summary(baseline);
        println!(
            "fire lateness of {TIMED} envelopes at 10,000 fires/s ({SCHEDULED} others pending): p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms (goal p99 ≤ 10 ms)",
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
