//! kill -9 while fires are in flight (R-RW-9): at-least-once, never lost, duplicates only for
//! fires that were in flight, each duplicate with the same (id, attempt).
//!
//! A `harness = false` test with real processes: the parent re-executes its own binary as the
//! firing process. Run 1 schedules 1,000 envelopes due 0.5–2.5 s ahead into a SQLite store and
//! fires them through the real listener into a programmatic hook that appends `START run id
//! attempt` to a log file (what the hook saw in `ctx.rewake`), then works for 300 ms. The store
//! is wrapped to append `FINISHED run id attempt` once a fire's finish has committed. The parent
//! SIGKILLs run 1 once 400 fires have started (about 150 are in flight), then starts run 2 on
//! the same file with its clock 40 s ahead, past every lease (1 s budget + 35 s), so the dead
//! owner's leases are taken over at once; run 2 exits when the store is empty. The parent then
//! checks the log: every id fired at least once; an id fired twice only if run 1 started it and
//! did not finish it; every fire of an id carries the same attempt.

use std::collections::{BTreeMap, BTreeSet};
use std::fs::OpenOptions;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::{DateTime, TimeDelta, Utc};
use hook_core::{
    FnHook, HookContext, HookEventType, HookExecutionPolicy, HookRegistry, HookResult, RewakeSpec, RewakeTrigger,
};
use hook_rewake::{
    DefaultRewakeFireListener, DefaultRewakeService, Envelope, Error, Lease, LeaseOutcome, Mail, RewakeService,
    RewakeStore, RuntimeRegistry, SqliteStore, StoreSnapshot,
};

const DB: &str = "REWAKE_CRASH_DB";
const LOG: &str = "REWAKE_CRASH_LOG";
const RUN: &str = "REWAKE_CRASH_RUN";
const ENVELOPES: usize = 1_000;
const KILL_AFTER_STARTS: usize = 400;
const HOOK_ID: &str = "command@project#crash";

/// Appends whole lines to the shared log (one `write` each, `O_APPEND`).
#[derive(Debug)]
struct Log(Mutex<std::fs::File>);

impl Log {
    fn open(path: &Path) -> Arc<Self> {
        let file = OpenOptions::new().create(true).append(true).open(path).expect("open log");
        Arc::new(Log(Mutex::new(file)))
    }

    fn line(&self, line: String) {
        let mut file = self.0.lock().expect("log lock");
        file.write_all(format!("{line}\n").as_bytes()).expect("append log");
    }
}

/// The SQLite store, logging each committed finish.
#[derive(Debug)]
struct LoggingStore {
    inner: SqliteStore,
    log: Arc<Log>,
    run: String,
}

impl RewakeStore for LoggingStore {
    fn load(&self) -> Result<StoreSnapshot, Error> {
        self.inner.load()
    }
    fn changes_since(&self, cursor: u64) -> Result<StoreSnapshot, Error> {
        self.inner.changes_since(cursor)
    }
    fn insert_batch(&self, envelopes: &[Envelope]) -> Result<(), Error> {
        self.inner.insert_batch(envelopes)
    }
    fn lease(
        &self,
        id: &str,
        attempt: u32,
        lease: &Lease,
        now: DateTime<Utc>,
        body: Option<&Envelope>,
    ) -> Result<LeaseOutcome, Error> {
        self.inner.lease(id, attempt, lease, now, body)
    }
    fn finish(&self, id: &str, attempt: u32, owner: &str, next: Option<&Envelope>) -> Result<bool, Error> {
        let finished = self.inner.finish(id, attempt, owner, next)?;
        if finished {
            self.log.line(format!("FINISHED {} {id} {attempt}", self.run));
        }
        Ok(finished)
    }
    fn remove(&self, id: &str) -> Result<bool, Error> {
        self.inner.remove(id)
    }
    fn remove_hook(&self, project_dir: Option<&Path>, hook_id: &str) -> Result<Vec<String>, Error> {
        self.inner.remove_hook(project_dir, hook_id)
    }
    fn put_mail(&self, mail: &Mail) -> Result<bool, Error> {
        self.inner.put_mail(mail)
    }
    fn take_mail(&self, session_id: &str, claim: &Lease, now: DateTime<Utc>) -> Result<Vec<Mail>, Error> {
        self.inner.take_mail(session_id, claim, now)
    }
    fn ack_mail(&self, owner: &str, ids: &[String]) -> Result<usize, Error> {
        self.inner.ack_mail(owner, ids)
    }
    fn purge_mail(&self, now: DateTime<Utc>) -> Result<usize, Error> {
        self.inner.purge_mail(now)
    }
    fn mail_depth(&self) -> Result<usize, Error> {
        self.inner.mail_depth()
    }
}

fn child(db: &Path, log_path: &Path, run: &str) {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    rt.block_on(async {
        let log = Log::open(log_path);
        let store = Arc::new(LoggingStore {
            inner: SqliteStore::open(db).expect("open store"),
            log: log.clone(),
            run: run.to_owned(),
        });
        let hooks = Arc::new(HookRegistry::new());
        let hook_log = log.clone();
        let hook_run = run.to_owned();
        hooks.register(
            HookEventType::PRE_TOOL,
            FnHook::new(HOOK_ID, move |ctx: HookContext| {
                let rewake = ctx.rewake.clone().expect("a rewake fire");
                hook_log.line(format!("START {hook_run} {} {}", rewake.envelope_id, rewake.attempt));
                async move {
                    tokio::time::sleep(Duration::from_millis(300)).await;
                    Ok(HookResult::allow())
                }
            }),
        );
        let listener = Arc::new(
            DefaultRewakeFireListener::new(hooks, Arc::new(RuntimeRegistry::new()))
                .with_policy(HookExecutionPolicy::with_timeout(Duration::from_secs(1))),
        );
        let mut builder = DefaultRewakeService::builder(listener).store(store.clone());
        if run == "2" {
            // Restarted "40 s later": past every lease of run 1.
            builder = builder.clock_start(Utc::now() + TimeDelta::seconds(40));
        }
        let service = builder.start().expect("start service");
        if run == "1" {
            let envelopes: Vec<Envelope> = (0..ENVELOPES)
                .map(|i| {
                    let delay = Duration::from_millis(500 + 2 * i as u64);
                    let spec = RewakeSpec::new(RewakeTrigger::Delay(delay), "crash test").with_max_attempts(1);
                    Envelope::new(HOOK_ID, HookContext::new(HookEventType::PRE_TOOL), spec, 1)
                })
                .collect();
            let ids = service.schedule_batch(envelopes).expect("schedule");
            assert!(ids.iter().all(Option::is_some));
            println!("SCHEDULED {}", ids.len());
            std::future::pending::<()>().await;
        }
        let deadline = Instant::now() + Duration::from_secs(60);
        while !store.load().expect("load").envelopes.is_empty() {
            assert!(Instant::now() < deadline, "run 2 did not drain the store within 60 s");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        println!("DRAINED");
    });
}

fn count(log: &Path, word: &str) -> usize {
    std::fs::read_to_string(log).unwrap_or_default().lines().filter(|l| l.starts_with(word)).count()
}

fn spawn(db: &Path, log: &Path, run: &str) -> std::process::Child {
    Command::new(std::env::current_exe().expect("own binary"))
        .env(DB, db)
        .env(LOG, log)
        .env(RUN, run)
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn the firing process")
}

fn parent() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (db, log) = (dir.path().join("rewake.db"), dir.path().join("fires.log"));

    let mut first = spawn(&db, &log, "1");
    let mut out = BufReader::new(first.stdout.take().expect("stdout"));
    let mut line = String::new();
    out.read_line(&mut line).expect("child line");
    assert_eq!(line.trim(), format!("SCHEDULED {ENVELOPES}"));
    let deadline = Instant::now() + Duration::from_secs(30);
    while count(&log, "START") < KILL_AFTER_STARTS {
        assert!(Instant::now() < deadline, "run 1 did not start {KILL_AFTER_STARTS} fires within 30 s");
        std::thread::sleep(Duration::from_millis(5));
    }
    first.kill().expect("SIGKILL run 1");
    let status = first.wait().expect("reap run 1");
    assert!(!status.success(), "run 1 was killed, not finished: {status:?}");

    let mut second = spawn(&db, &log, "2");
    let mut out = BufReader::new(second.stdout.take().expect("stdout"));
    let mut line = String::new();
    out.read_line(&mut line).expect("child line");
    assert_eq!(line.trim(), "DRAINED");
    assert!(second.wait().expect("reap run 2").success());

    // (run, id) → attempts seen by the hook; (run, id) finished.
    let text = std::fs::read_to_string(&log).expect("read log");
    let mut starts: BTreeMap<String, Vec<(String, u32)>> = BTreeMap::new();
    let mut finished_in_1: BTreeSet<String> = BTreeSet::new();
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["START", run, id, attempt] => starts
                .entry((*id).to_owned())
                .or_default()
                .push(((*run).to_owned(), attempt.parse().expect("attempt number"))),
            ["FINISHED", "1", id, _] => {
                finished_in_1.insert((*id).to_owned());
            }
            ["FINISHED", "2", _, _] => {}
            _ => panic!("unexpected log line {line:?}"),
        }
    }
    let started_in_1: BTreeSet<&String> =
        starts.iter().filter(|(_, fires)| fires.iter().any(|(run, _)| run == "1")).map(|(id, _)| id).collect();
    let in_flight: BTreeSet<&String> = started_in_1.iter().copied().filter(|id| !finished_in_1.contains(*id)).collect();
    assert_eq!(starts.len(), ENVELOPES, "every envelope fired at least once (none lost)");
    let mut duplicates = 0;
    for (id, fires) in &starts {
        assert!(fires.iter().all(|(_, attempt)| *attempt == 1), "{id}: every fire carries attempt 1: {fires:?}");
        let per_run = |run: &str| fires.iter().filter(|(r, _)| r == run).count();
        assert!(per_run("1") <= 1 && per_run("2") <= 1, "{id} fired twice within one run: {fires:?}");
        if fires.len() > 1 {
            duplicates += 1;
            assert!(in_flight.contains(id), "{id} fired again though run 1 had finished it: {fires:?}");
        }
    }
    assert!(!in_flight.is_empty(), "the kill landed while no fire was in flight; the test proved nothing");
    assert!(duplicates > 0, "no in-flight fire was taken over");
    println!(
        "crash_in_flight: {ENVELOPES} envelopes, kill -9 after {} starts with {} in flight; {duplicates} fired again with the same (id, attempt), none lost, no other duplicate",
        started_in_1.len(),
        in_flight.len()
    );
}

fn main() {
    match (std::env::var_os(DB), std::env::var_os(LOG), std::env::var(RUN)) {
        (Some(db), Some(log), Ok(run)) => child(&PathBuf::from(db), &PathBuf::from(log), &run),
        _ => parent(),
    }
}
