//! `HookProcessGroups` (R-CLI-11): the live command-hook process groups of this process, killed
//! all at once when the process is going away. Its own test binary: `kill_all` is for good.

use std::path::Path;
use std::time::{Duration, Instant};

use hook_actions::{HookProcessGroups, ShellAction, ShellSpec};
use hook_core::{ExecutionHook, HookContext, HookEventType};

/// The live (non-zombie) processes of group `pgid`.
fn live_members(pgid: i32) -> usize {
    let Ok(entries) = std::fs::read_dir("/proc") else { return 0 };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { return false };
            let fields: Vec<&str> = stat.rsplit_once(')').map_or("", |(_, rest)| rest).split_whitespace().collect();
            fields.first().is_some_and(|state| *state != "Z") && fields.get(2) == Some(&pgid.to_string().as_str())
        })
        .count()
}

async fn until(mut done: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !done() {
        if Instant::now() > deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    true
}

#[tokio::test]
async fn kill_all_kills_every_running_hook_group_and_every_later_one_at_start() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut ctx = HookContext::new(HookEventType::PRE_TOOL);
    ctx.cwd = Some(dir.path().to_path_buf());
    let hook = |n: usize| {
        let command = format!("echo $$ > g{n}.tmp; mv g{n}.tmp g{n}.pid; sleep 30 & sleep 30; wait");
        ShellAction::new(format!("command@test#{n}"), "test", ShellSpec::new(command))
    };
    let (first, second) = (hook(1), hook(2));
    let running = futures_util::future::join(first.execute(&ctx), second.execute(&ctx));
    let check = async {
        let pid = |n: usize| -> Option<i32> {
            std::fs::read_to_string(dir.path().join(format!("g{n}.pid"))).ok()?.trim().parse().ok()
        };
        assert!(
            until(|| pid(1).is_some_and(|g| live_members(g) == 3) && pid(2).is_some_and(|g| live_members(g) == 3))
                .await
        );
        assert_eq!(HookProcessGroups::live(), 2);
        assert_eq!(HookProcessGroups::kill_all(), 2);
        let groups = [pid(1).expect("pid"), pid(2).expect("pid")];
        assert!(until(|| groups.iter().all(|g| live_members(*g) == 0)).await, "left behind");
    };
    let (results, ()) = tokio::join!(running, check);
    for r in [results.0, results.1] {
        assert!(r.expect("a result").failure.is_some_and(|f| f.starts_with("crashed")));
    }
    assert_eq!(HookProcessGroups::live(), 0);

    // A hook started afterwards is killed at once.
    let late = ShellAction::new("late", "test", ShellSpec::new("sleep 30; touch survived"));
    let started = Instant::now();
    let r = late.execute(&ctx).await.expect("a result");
    assert!(r.failure.is_some_and(|f| f.starts_with("crashed")));
    assert!(started.elapsed() < Duration::from_secs(10) && !Path::new(&dir.path().join("survived")).exists());
}
