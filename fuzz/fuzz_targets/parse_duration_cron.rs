#![no_main]
//! Fuzzes hook-rewake's config-time parsers (REL-1): `parse_duration`, `validate_cron`,
//! `validate_zone`, and the next-fire computation of whatever cron expression parses. No input
//! may panic.
//!
//! The input is split at its first newline: a duration / cron expression, then a zone id.

use hook_rewake::{CronSchedule, parse_duration, validate_cron, validate_zone};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let (expr, zone) = text.split_once('\n').unwrap_or((text, "UTC"));
    for input in [text, expr, zone] {
        let _ = parse_duration(input).map_err(|e| e.to_string());
        let _ = validate_cron(input).map_err(|e| e.to_string());
        let _ = validate_zone(input).map_err(|e| e.to_string());
    }
    if let Ok(schedule) = CronSchedule::parse(expr, zone).or_else(|_| CronSchedule::parse(expr, "America/New_York")) {
        // From the Unix epoch (the instant type's default), a few fires forward.
        let mut next = schedule.next_after(Default::default());
        for _ in 0..3 {
            next = next.and_then(|t| schedule.next_after(t));
        }
    }
});
