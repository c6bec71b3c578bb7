//! The service alone, with a recording listener, under tokio's paused clock.

use std::sync::Arc;
use std::time::Duration;

use hook_rewake::{DefaultRewakeQuotaManager, DefaultRewakeService, Error, RewakeService};
use tokio::time::sleep;

use crate::support::{HOUR, MIN, at, cron, delay, drain, envelope, event, payload, recorder, spec, t0};

#[tokio::test(start_paused = true)]
async fn a_delay_envelope_fires_once_at_now_plus_delay_and_leaves_the_pending_list_per_r_rw_3_and_r_rw_5() {
    let (listener, mut rx) = recorder();
    let service = DefaultRewakeService::builder(listener).clock_start(t0()).start().expect("start");
    let id = service.schedule(envelope("h", "c", spec(delay(5 * MIN), HOUR, 3))).expect("schedule").expect("id");
    let pending = service.pending();
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0].next_fire_at, Some(at("2026-03-01T00:05:00Z")));
    assert_eq!(pending[0].expires_at, Some(at("2026-03-01T01:00:00Z")));

    sleep(5 * MIN - Duration::from_millis(1)).await;
    assert!(drain(&mut rx).is_empty(), "fired early");
    let fire = rx.recv().await.expect("fire");
    assert_eq!(fire.envelope.id, id);
    assert_eq!(fire.envelope.attempt, 1);
    assert_eq!(fire.fired_at, at("2026-03-01T00:05:00Z"));
    assert!(service.pending().is_empty());
    sleep(2 * HOUR).await;
    assert!(drain(&mut rx).is_empty(), "a one-shot envelope fired twice");
}

#[tokio::test(start_paused = true)]
async fn an_event_envelope_fires_only_on_a_matching_resolve_with_the_callers_payload_winning_per_r_rw_3() {
    let (listener, mut rx) = recorder();
    let service = DefaultRewakeService::builder(listener).clock_start(t0()).start().expect("start");
    let spec = spec(event("approval", "prod-kubectl-apply"), HOUR, 1)
        .with_payload(payload(&[("ticket", "T-123"), ("decision", "pending")]));
    service.schedule(envelope("h", "c", spec)).expect("schedule");
    assert_eq!(service.pending()[0].next_fire_at, None);

    assert_eq!(service.resolve("approval", "prod-other", payload(&[])), 0);
    assert_eq!(service.resolve("other", "prod-kubectl-apply", payload(&[])), 0);
    sleep(10 * MIN).await;
    assert!(drain(&mut rx).is_empty());

    let fired = service.resolve("approval", "prod-kubectl-apply", payload(&[("decision", "approved"), ("by", "kim")]));
    assert_eq!(fired, 1);
    let fire = rx.recv().await.expect("fire");
    assert_eq!(fire.payload, payload(&[("by", "kim"), ("decision", "approved"), ("ticket", "T-123")]));
    assert_eq!(fire.envelope.payload, payload(&[("decision", "pending"), ("ticket", "T-123")]));
    assert!(service.pending().is_empty());
    assert_eq!(service.resolve("approval", "prod-kubectl-apply", payload(&[])), 0);
}

#[tokio::test(start_paused = true)]
async fn resolve_fires_every_envelope_waiting_on_the_same_key() {
    let (listener, mut rx) = recorder();
    let service = DefaultRewakeService::builder(listener).clock_start(t0()).start().expect("start");
    for hook in ["a", "b"] {
        service.schedule(envelope(hook, "c", spec(event("ci", "build-7"), HOUR, 1))).expect("schedule");
    }
    service.schedule(envelope("c", "c", spec(event("ci", "build-8"), HOUR, 1))).expect("schedule");
    assert_eq!(service.resolve("ci", "build-7", payload(&[])), 2);
    sleep(Duration::from_millis(1)).await;
    let mut hooks: Vec<String> = drain(&mut rx).into_iter().map(|f| f.envelope.hook_id).collect();
    hooks.sort();
    assert_eq!(hooks, ["a", "b"]);
    assert_eq!(service.pending().len(), 1);
}

#[tokio::test(start_paused = true)]
async fn an_unresolved_event_envelope_expires_and_a_late_resolve_fires_nothing() {
    let (listener, mut rx) = recorder();
    let service = DefaultRewakeService::builder(listener).clock_start(t0()).start().expect("start");
    service.schedule(envelope("h", "c", spec(event("approval", "k"), 10 * MIN, 1))).expect("schedule");
    sleep(10 * MIN - Duration::from_millis(1)).await;
    assert_eq!(service.pending().len(), 1);
    sleep(Duration::from_millis(2)).await;
    assert!(service.pending().is_empty());
    assert_eq!(service.resolve("approval", "k", payload(&[])), 0);
    assert!(drain(&mut rx).is_empty());
}

#[tokio::test(start_paused = true)]
async fn a_fire_past_its_expiry_is_discarded_per_r_rw_5() {
    let (listener, mut rx) = recorder();
    let service = DefaultRewakeService::builder(listener).clock_start(t0()).start().expect("start");
    service.schedule(envelope("late", "c", spec(delay(2 * HOUR), HOUR, 3))).expect("schedule");
    service.schedule(envelope("on-time", "c", spec(delay(HOUR), HOUR, 3))).expect("schedule");
    sleep(3 * HOUR).await;
    let fired: Vec<String> = drain(&mut rx).into_iter().map(|f| f.envelope.hook_id).collect();
    assert_eq!(fired, ["on-time"]);
    assert!(service.pending().is_empty());
}

#[tokio::test(start_paused = true)]
async fn a_cron_envelope_repeats_on_its_own_until_max_attempts_per_r_rw_3_and_r_rw_8() {
    let (listener, mut rx) = recorder();
    let service =
        DefaultRewakeService::builder(listener).clock_start(at("2026-03-01T00:07:00Z")).start().expect("start");
    service.schedule(envelope("h", "c", spec(cron("*/15 * * * *", "UTC"), 24 * HOUR, 3))).expect("schedule");
    let mut seen = Vec::new();
    for _ in 0..3 {
        let fire = rx.recv().await.expect("fire");
        seen.push((fire.envelope.attempt, fire.fired_at));
    }
    assert_eq!(
        seen,
        [(1, at("2026-03-01T00:15:00Z")), (2, at("2026-03-01T00:30:00Z")), (3, at("2026-03-01T00:45:00Z")),]
    );
    assert!(service.pending().is_empty());
    sleep(5 * HOUR).await;
    assert!(drain(&mut rx).is_empty(), "fired beyond maxAttempts");
}

#[tokio::test(start_paused = true)]
async fn a_cron_envelope_stops_at_its_timeout_per_r_rw_3() {
    let (listener, mut rx) = recorder();
    let service = DefaultRewakeService::builder(listener).clock_start(t0()).start().expect("start");
    let timeout = 3 * HOUR + 30 * MIN;
    service.schedule(envelope("h", "c", spec(cron("0 * * * *", "UTC"), timeout, 100))).expect("schedule");
    sleep(24 * HOUR).await;
    let fired: Vec<_> = drain(&mut rx).into_iter().map(|f| f.fired_at).collect();
    assert_eq!(fired, [at("2026-03-01T01:00:00Z"), at("2026-03-01T02:00:00Z"), at("2026-03-01T03:00:00Z")]);
    assert!(service.pending().is_empty());
}

#[tokio::test(start_paused = true)]
async fn a_cron_envelope_with_both_day_fields_restricted_fires_on_either_day_per_r_cfg_rw_5() {
    let (listener, mut rx) = recorder();
    let service =
        DefaultRewakeService::builder(listener).clock_start(at("2026-03-10T00:00:00Z")).start().expect("start");
    service.schedule(envelope("h", "c", spec(cron("0 0 13 * 1", "UTC"), 30 * 24 * HOUR, 3))).expect("schedule");
    let mut fired = Vec::new();
    for _ in 0..3 {
        fired.push(rx.recv().await.expect("fire").fired_at);
    }
    assert_eq!(fired, [at("2026-03-13T00:00:00Z"), at("2026-03-16T00:00:00Z"), at("2026-03-23T00:00:00Z")]);
}

#[tokio::test(start_paused = true)]
async fn over_the_quota_schedule_drops_the_envelope_and_per_context_overrides_apply_per_r_rw_6() {
    let (listener, mut rx) = recorder();
    let quota = Arc::new(DefaultRewakeQuotaManager::new(2));
    quota.set_custom_quota("vip", 3);
    let service = DefaultRewakeService::builder(listener).quota(quota).clock_start(t0()).start().expect("start");
    let outcomes: Vec<bool> = (0..3)
        .map(|_| service.schedule(envelope("h", "plain", spec(delay(MIN), HOUR, 3))).expect("schedule").is_some())
        .collect();
    assert_eq!(outcomes, [true, true, false]);
    let vip: Vec<bool> = (0..4)
        .map(|_| service.schedule(envelope("h", "vip", spec(delay(2 * MIN), HOUR, 3))).expect("schedule").is_some())
        .collect();
    assert_eq!(vip, [true, true, true, false]);
    assert_eq!(service.pending().len(), 5);

    rx.recv().await.expect("a plain envelope fires");
    sleep(Duration::from_secs(1)).await;
    assert_eq!(drain(&mut rx).len(), 1, "both plain envelopes fire at one minute");
    assert!(service.schedule(envelope("h", "plain", spec(delay(MIN), HOUR, 3))).expect("schedule").is_some());
}

#[tokio::test(start_paused = true)]
async fn the_default_quota_manager_caps_a_context_at_64_and_the_default_service_is_unlimited() {
    let (listener, _rx) = recorder();
    let capped = DefaultRewakeService::builder(listener.clone())
        .quota(Arc::new(DefaultRewakeQuotaManager::default()))
        .start()
        .expect("start");
    let unlimited = DefaultRewakeService::builder(listener).start().expect("start");
    for _ in 0..100 {
        capped.schedule(envelope("h", "c", spec(delay(HOUR), 2 * HOUR, 3))).expect("schedule");
        unlimited.schedule(envelope("h", "c", spec(delay(HOUR), 2 * HOUR, 3))).expect("schedule");
    }
    assert_eq!(capped.pending().len(), 64);
    assert_eq!(unlimited.pending().len(), 100);
}

#[tokio::test(start_paused = true)]
async fn cancel_by_hook_id_removes_only_that_hooks_envelopes_and_cancel_by_id_one_per_r_rw_7() {
    let (listener, mut rx) = recorder();
    let service = DefaultRewakeService::builder(listener).clock_start(t0()).start().expect("start");
    for _ in 0..3 {
        service.schedule(envelope("removed", "c", spec(delay(MIN), HOUR, 3))).expect("schedule");
    }
    service.schedule(envelope("removed", "c", spec(event("k", "v"), HOUR, 3))).expect("schedule");
    let kept = service.schedule(envelope("kept", "c", spec(delay(MIN), HOUR, 3))).expect("schedule").expect("id");
    let cancelled = service.schedule(envelope("kept", "c", spec(delay(MIN), HOUR, 3))).expect("schedule").expect("id");

    assert_eq!(service.cancel_by_hook_id(None, "removed"), 4);
    assert_eq!(service.cancel_by_hook_id(None, "removed"), 0);
    assert!(service.cancel(&cancelled));
    assert!(!service.cancel(&cancelled));
    sleep(2 * MIN).await;
    let fired: Vec<String> = drain(&mut rx).into_iter().map(|f| f.envelope.id).collect();
    assert_eq!(fired, [kept]);
    assert_eq!(service.resolve("k", "v", payload(&[])), 0);
}

#[tokio::test(start_paused = true)]
async fn schedule_rejects_what_it_cannot_run() {
    let (listener, _rx) = recorder();
    let service = DefaultRewakeService::builder(listener).clock_start(t0()).start().expect("start");
    let duplicate = envelope("h", "c", spec(delay(MIN), HOUR, 3));
    service.schedule(duplicate.clone()).expect("first");
    let mut attempt_zero = envelope("h", "c", spec(delay(MIN), HOUR, 3));
    attempt_zero.attempt = 0;
    let mut attempt_four = envelope("h", "c", spec(delay(MIN), HOUR, 3));
    attempt_four.attempt = 4;
    let rejected = [
        duplicate,
        attempt_zero,
        attempt_four,
        envelope("h", "c", spec(cron("0 0 * * * ?", "UTC"), HOUR, 3)),
        envelope("h", "c", spec(cron("0 0 * * *", "Mars/Base"), HOUR, 3)),
        envelope("h", "c", spec(cron("0 0 31 2 *", "UTC"), HOUR, 3)),
        envelope("h", "c", spec(delay(Duration::MAX), HOUR, 3)),
    ];
    for envelope in rejected {
        let err = service.schedule(envelope.clone()).expect_err(&format!("{:?}", envelope.trigger));
        assert!(matches!(err, Error::Rejected(_) | Error::InvalidCron { .. } | Error::UnknownZone(_)), "{err}");
    }
    assert_eq!(service.pending().len(), 1);
}

#[tokio::test(start_paused = true)]
async fn dropping_the_last_handle_stops_the_driver_and_nothing_fires_afterwards() {
    let (listener, mut rx) = recorder();
    let service = DefaultRewakeService::builder(listener).clock_start(t0()).start().expect("start");
    service.schedule(envelope("h", "c", spec(delay(MIN), HOUR, 3))).expect("schedule");
    drop(service);
    sleep(2 * MIN).await;
    assert!(drain(&mut rx).is_empty());
}

/// The service keeps what envelopes have in common once; each must still come back whole.
#[tokio::test(start_paused = true)]
async fn envelopes_sharing_parts_come_back_whole_from_pending_and_from_their_fires() {
    let (listener, mut rx) = recorder();
    let service = DefaultRewakeService::builder(listener).clock_start(t0()).start().expect("start");
    let mut other_project = envelope("h", "c", spec(delay(MIN), HOUR, 3));
    other_project.context.project_dir = Some("/other".into());
    let mut with_field = envelope("h", "c", spec(delay(MIN), HOUR, 3));
    with_field.context.fields.insert("prompt".to_owned(), "hi".into());
    let cases = [
        envelope("h", "c", spec(delay(MIN), HOUR, 3)),
        envelope("h", "c", spec(delay(2 * MIN), 2 * HOUR, 3)),
        envelope("h", "c", spec(delay(MIN), HOUR, 3).with_payload(payload(&[("k", "v")]))),
        envelope("h2", "c", spec(delay(MIN), HOUR, 3)),
        envelope("h", "c2", spec(delay(MIN), HOUR, 3)),
        envelope("h", "c", spec(cron("*/5 * * * *", "UTC"), HOUR, 3)),
        envelope("h", "c", spec(event("ci", "build-1"), HOUR, 3)),
        other_project,
        with_field,
    ];
    let cancelled = service.schedule(cases[0].clone()).expect("schedule").expect("id");
    assert!(service.cancel(&cancelled), "a freed slot is reused by the next envelope");
    for case in &cases {
        service.schedule(case.clone()).expect("schedule");
    }
    let pending = service.pending();
    assert_eq!(pending.len(), cases.len());
    for case in &cases {
        let mut kept = pending.iter().find(|e| e.id == case.id).expect("pending").clone();
        assert_eq!(kept.scheduled_at, Some(t0()));
        (kept.scheduled_at, kept.next_fire_at, kept.expires_at) = (None, None, None);
        assert_eq!(&kept, case);
    }
    sleep(MIN + Duration::from_secs(1)).await;
    let fires = drain(&mut rx);
    let fired: Vec<&str> = fires.iter().map(|f| f.envelope.id.as_str()).collect();
    let due: Vec<&str> = [0, 2, 3, 4, 7, 8].iter().map(|&i| cases[i].id.as_str()).collect();
    assert_eq!(fired.len(), due.len(), "fired {fired:?}");
    for fire in &fires {
        let case = cases.iter().find(|c| c.id == fire.envelope.id).expect("a scheduled envelope");
        assert!(due.contains(&case.id.as_str()));
        assert_eq!(
            (&fire.envelope.context, &fire.envelope.payload, &fire.payload),
            (&case.context, &case.payload, &case.payload)
        );
        assert_eq!((&fire.envelope.hook_id, &fire.envelope.trigger), (&case.hook_id, &case.trigger));
    }
}

/// The timer heap keeps stale entries for cancelled and re-armed envelopes and sweeps them once
/// they outnumber the live ones: thousands of cancels later, what is left fires once, in order,
/// on time, and nothing cancelled fires.
#[tokio::test(start_paused = true)]
async fn after_thousands_of_cancels_the_rest_fire_once_in_order_and_on_time() {
    let (listener, mut rx) = recorder();
    let service = DefaultRewakeService::builder(listener).clock_start(t0()).start().expect("start");
    let mut kept = Vec::new();
    for n in 0..5_000u32 {
        let minutes = 1 + (n * 7919) % 600;
        let id = service
            .schedule(envelope(&format!("h{n}"), "c", spec(delay(MIN * minutes), 24 * HOUR, 1)))
            .expect("schedule")
            .expect("id");
        if n % 50 == 0 {
            kept.push((minutes, id));
        } else {
            assert!(service.cancel(&id));
        }
    }
    // More scheduling after the cancels: the sweep runs while these are armed.
    for n in 0..2_000u32 {
        let id = service
            .schedule(envelope(&format!("late{n}"), "c", spec(delay(MIN * (601 + n % 60)), 24 * HOUR, 1)))
            .expect("schedule")
            .expect("id");
        kept.push((601 + n % 60, id));
    }
    assert_eq!(service.pending_count(), kept.len());
    kept.sort();
    let mut fired = Vec::new();
    while fired.len() < kept.len() {
        let fire = rx.recv().await.expect("fire");
        let minutes = (fire.fired_at - t0()).num_minutes();
        fired.push((u32::try_from(minutes).expect("after start"), fire.envelope.id));
    }
    let order = |v: &[(u32, String)]| v.iter().map(|(m, _)| *m).collect::<Vec<_>>();
    assert_eq!(order(&fired), order(&kept), "each fired at its own minute, in deadline order");
    let mut ids: Vec<&String> = fired.iter().map(|(_, id)| id).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), kept.len(), "each kept envelope fired once");
    sleep(24 * HOUR).await;
    assert!(drain(&mut rx).is_empty(), "nothing cancelled fired");
}
