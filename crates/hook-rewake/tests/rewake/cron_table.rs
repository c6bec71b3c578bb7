//! Next fire times: expression × zone × start instant → expected instant (R-CFG-RW-4/5).
//! Expected values were worked out by hand from the zone rules (US DST 2026: 03-08 02:00 EST →
//! 03:00 EDT, 11-01 02:00 EDT → 01:00 EST; EU: 03-29 02:00 CET → 03:00 CEST, 10-25 03:00 CEST →
//! 02:00 CET; Seoul is UTC+9 all year).

use hook_rewake::CronSchedule;

use crate::support::at;

/// (expression, zone, start, expected next fire strictly after start)
const TABLE: &[(&str, &str, &str, &str)] = &[
    // Plain UTC.
    ("0 * * * *", "UTC", "2026-03-01T00:00:00Z", "2026-03-01T01:00:00Z"),
    ("*/15 * * * *", "UTC", "2026-03-01T00:07:00Z", "2026-03-01T00:15:00Z"),
    ("0 9 * * 1", "UTC", "2026-03-01T00:00:00Z", "2026-03-02T09:00:00Z"),
    ("0 9 * * 0", "UTC", "2026-03-01T10:00:00Z", "2026-03-08T09:00:00Z"),
    ("0 9 * * 7", "UTC", "2026-03-01T10:00:00Z", "2026-03-08T09:00:00Z"),
    ("0 9 * * sun", "UTC", "2026-03-01T10:00:00Z", "2026-03-08T09:00:00Z"),
    ("0 0 1 jan *", "UTC", "2026-03-01T00:00:00Z", "2027-01-01T00:00:00Z"),
    ("59 23 31 12 *", "UTC", "2026-12-31T23:59:00Z", "2027-12-31T23:59:00Z"),
    // Asia/Seoul (UTC+9, no DST).
    ("0 9 * * *", "Asia/Seoul", "2026-03-01T00:00:00Z", "2026-03-02T00:00:00Z"),
    ("30 8 * * *", "Asia/Seoul", "2026-03-01T00:00:00Z", "2026-03-01T23:30:00Z"),
    ("0 0 * * *", "Asia/Seoul", "2026-03-01T14:59:00Z", "2026-03-01T15:00:00Z"),
    ("0 9 13 * 1", "Asia/Seoul", "2026-03-10T00:00:00Z", "2026-03-13T00:00:00Z"),
    // America/New_York, spring forward: 02:30 does not exist on 03-08 → 03:00 EDT that day.
    ("30 2 * * *", "America/New_York", "2026-03-07T12:00:00Z", "2026-03-08T07:00:00Z"),
    ("30 2 * * *", "America/New_York", "2026-03-08T07:00:00Z", "2026-03-09T06:30:00Z"),
    ("0 * * * *", "America/New_York", "2026-03-08T06:30:00Z", "2026-03-08T07:00:00Z"),
    ("0 12 * * *", "America/New_York", "2026-03-07T18:00:00Z", "2026-03-08T16:00:00Z"),
    // America/New_York, fall back: a fixed 01:30 runs once (first pass), intervals run in both passes.
    ("30 1 * * *", "America/New_York", "2026-11-01T04:00:00Z", "2026-11-01T05:30:00Z"),
    ("30 1 * * *", "America/New_York", "2026-11-01T05:30:00Z", "2026-11-02T06:30:00Z"),
    ("*/30 1 * * *", "America/New_York", "2026-11-01T05:30:00Z", "2026-11-01T06:00:00Z"),
    ("*/30 1 * * *", "America/New_York", "2026-11-01T06:00:00Z", "2026-11-01T06:30:00Z"),
    // Europe/Berlin, spring forward: 02:30 does not exist on 03-29 → 03:00 CEST (01:00Z).
    ("30 2 * * *", "Europe/Berlin", "2026-03-28T12:00:00Z", "2026-03-29T01:00:00Z"),
    ("0 3 * * *", "Europe/Berlin", "2026-03-28T12:00:00Z", "2026-03-29T01:00:00Z"),
    ("0 12 * * *", "Europe/Berlin", "2026-03-28T12:00:00Z", "2026-03-29T10:00:00Z"),
    // Europe/Berlin, fall back: 02:30 occurs twice on 10-25; it fires once (CEST pass).
    ("30 2 * * *", "Europe/Berlin", "2026-10-24T12:00:00Z", "2026-10-25T00:30:00Z"),
    ("30 2 * * *", "Europe/Berlin", "2026-10-25T00:30:00Z", "2026-10-26T01:30:00Z"),
    // Day-of-month and day-of-week both restricted: either day (R-CFG-RW-5). AND would give
    // 2026-04-13 (a Monday the 13th) for the first two rows.
    ("0 0 13 * 1", "UTC", "2026-03-10T00:00:00Z", "2026-03-13T00:00:00Z"),
    ("0 0 13 * 1", "UTC", "2026-03-13T00:00:00Z", "2026-03-16T00:00:00Z"),
    ("0 12 1 * 6", "UTC", "2026-03-29T00:00:00Z", "2026-04-01T12:00:00Z"),
    ("0 12 1 * 6", "UTC", "2026-04-01T12:00:00Z", "2026-04-04T12:00:00Z"),
    ("0 0 13 * fri", "Europe/Berlin", "2026-02-12T00:00:00Z", "2026-02-12T23:00:00Z"),
    // Only one day field restricted: that field alone.
    ("0 0 13 * *", "UTC", "2026-03-10T00:00:00Z", "2026-03-13T00:00:00Z"),
    ("0 0 * * 1", "UTC", "2026-03-10T00:00:00Z", "2026-03-16T00:00:00Z"),
];

#[test]
fn next_fire_times_match_the_table_across_zones_dst_and_day_unions() {
    let mut failures = Vec::new();
    for &(expr, zone, start, expected) in TABLE {
        let schedule = CronSchedule::parse(expr, zone).expect(expr);
        let got = schedule.next_after(at(start));
        if got != Some(at(expected)) {
            failures.push(format!("{expr:?} in {zone} after {start}: expected {expected}, got {got:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn an_expression_that_never_matches_has_no_next_fire() {
    let schedule = CronSchedule::parse("0 0 31 2 *", "UTC").expect("parses");
    assert_eq!(schedule.next_after(at("2026-01-01T00:00:00Z")), None);
}
