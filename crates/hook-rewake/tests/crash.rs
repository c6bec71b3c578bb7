//! SIGKILL crash test (R-RW-9): "kill -9 then restart loses no envelope and double-fires none".
//!
//! A `harness = false` test: run without `REWAKE_CRASH_CHILD` it is the parent; it re-executes
//! its own binary with `REWAKE_CRASH_CHILD=<db path>` as the child. The child schedules
//! envelopes into a SQLite store, lets one of them fire, reports, and waits; the parent kills
//! it with SIGKILL (`Child::kill`), waits until the rest are due, opens the store in-process and
//! checks that every due envelope fires exactly once, the expired one is discarded, the ones not
//! yet due stay pending, and a second restart fires nothing again. Real time: the bounds are
//! generous (seconds), only the counts are asserted.

use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use hook_core::{HookContext, HookEventType, RewakeSpec, RewakeTrigger};
use hook_rewake::{DefaultRewakeService, Envelope, Fire, FireFuture, RewakeFireListener, RewakeService, SqliteStore};
use tokio::sync::mpsc;

const CHILD_ENV: &str = "REWAKE_CRASH_CHILD";
const MS: fn(u64) -> Duration = Duration::from_millis;

#[derive(Debug)]
struct Recorder(mpsc::UnboundedSender<Fire>);

impl RewakeFireListener for Recorder {
    fn on_fire(self: Arc<Self>, fire: Fire) -> FireFuture {
        self.0.send(fire).expect("receiver alive");
        Box::pin(async {})
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().expect("tokio runtime")
}

fn start(path: &Path) -> (Arc<DefaultRewakeService>, mpsc::UnboundedReceiver<Fire>) {
    let (tx, rx) = mpsc::unbounded_channel();
    let store = Arc::new(SqliteStore::open(path).expect("open store"));
    let service = DefaultRewakeService::builder(Arc::new(Recorder(tx))).store(store).start().expect("start service");
    (service, rx)
}

fn envelope(hook: &str, trigger: RewakeTrigger, timeout: Duration) -> Envelope {
    let mut ctx = HookContext::new(HookEventType::PRE_TOOL);
    ctx.context_id = Some("agent-1".to_owned());
    Envelope::new(hook, ctx, RewakeSpec::new(trigger, "crash test").with_timeout(timeout).with_max_attempts(1), 1)
}

/// The child: schedule, let `fired-in-child` fire, report every id, then wait to be killed.
fn child(path: &Path) {
    runtime().block_on(async {
        let (service, mut rx) = start(path);
        let hour = Duration::from_secs(3600);
        let plan = [
            ("due-1", RewakeTrigger::Delay(MS(1500)), hour),
            ("due-2", RewakeTrigger::Delay(MS(1500)), hour),
            ("due-3", RewakeTrigger::Delay(MS(2000)), hour),
            ("not-due", RewakeTrigger::Delay(hour), 2 * hour),
            ("expired", RewakeTrigger::Delay(MS(3000)), MS(2000)),
            ("approval", RewakeTrigger::Event { kind: "approval".into(), key: "k".into() }, hour),
            ("fired-in-child", RewakeTrigger::Delay(MS(50)), hour),
        ];
        for (hook, trigger, timeout) in plan {
            let id = service.schedule(envelope(hook, trigger, timeout)).expect("schedule").expect("id");
            println!("SCHEDULED {hook} {id}");
        }
        let fire = rx.recv().await.expect("fired-in-child fires in the child");
        println!("FIRED {}", fire.envelope.hook_id);
        println!("READY");
        std::future::pending::<()>().await;
    });
}

fn parent() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("rewake.db");
    let mut child = Command::new(std::env::current_exe().expect("own binary"))
        .env(CHILD_ENV, &db)
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn child");
    let mut ids = HashMap::new();
    let mut fired_in_child = Vec::new();
    for line in BufReader::new(child.stdout.take().expect("stdout")).lines() {
        let line = line.expect("child line");
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["SCHEDULED", hook, id] => {
                ids.insert((*hook).to_owned(), (*id).to_owned());
            }
            ["FIRED", hook] => fired_in_child.push((*hook).to_owned()),
            ["READY"] => break,
            _ => panic!("unexpected child line {line:?}"),
        }
    }
    child.kill().expect("SIGKILL the child");
    let status = child.wait().expect("reap child");
    assert!(!status.success(), "the child was killed, not finished: {status:?}");
    assert_eq!(ids.len(), 7, "{ids:?}");
    assert_eq!(fired_in_child, ["fired-in-child"]);

    // Everything due has become due, `expired` has expired.
    std::thread::sleep(MS(3200));
    let rt = runtime();
    let fired = rt.block_on(async {
        let (service, mut rx) = start(&db);
        let mut fired = Vec::new();
        while fired.len() < 3 {
            let fire = tokio::time::timeout(Duration::from_secs(10), rx.recv()).await.expect("due fires arrive");
            fired.push(fire.expect("fire").envelope.hook_id);
        }
        tokio::time::sleep(MS(500)).await;
        while let Ok(fire) = rx.try_recv() {
            fired.push(fire.envelope.hook_id);
        }
        let mut pending: Vec<String> = service.pending().into_iter().map(|e| e.hook_id).collect();
        pending.sort();
        assert_eq!(pending, ["approval", "not-due"], "no envelope lost");
        assert_eq!(service.resolve("approval", "k", BTreeMap::new()), 1);
        assert_eq!(service.resolve("approval", "k", BTreeMap::new()), 0);
        assert_eq!(rx.recv().await.expect("approval fires").envelope.id, ids["approval"]);
        fired
    });
    let mut fired = fired;
    fired.sort();
    assert_eq!(fired, ["due-1", "due-2", "due-3"], "each due envelope exactly once; nothing fired twice");

    // A second restart fires nothing again and still holds `not-due`.
    rt.block_on(async {
        let (service, mut rx) = start(&db);
        tokio::time::sleep(MS(500)).await;
        assert!(rx.try_recv().is_err(), "an envelope fired again after the second restart");
        let pending: Vec<String> = service.pending().into_iter().map(|e| e.id).collect();
        assert_eq!(pending, [ids["not-due"].clone()]);
    });
    println!("crash: SIGKILL then restart fired each of 3 due envelopes once, discarded 1 expired, kept 2 pending");
}

fn main() {
    match std::env::var_os(CHILD_ENV) {
        Some(path) => child(Path::new(&path)),
        None => parent(),
    }
}
