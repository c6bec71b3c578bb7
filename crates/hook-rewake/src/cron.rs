//! Strict five-field cron in an IANA zone (R-CFG-RW-4/5), computed with croner.
//!
//! croner alone is too lenient for the contract (it accepts seconds, `L`, `W`, `#`, `?`, `+` and
//! `@nicknames`), so every field is scanned first; croner then parses with seconds and years
//! disallowed and the Vixie day rule (day-of-month OR day-of-week when both are restricted).

use std::fmt;

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use croner::Cron;
use croner::parser::{CronParser, Seconds, Year};

use crate::error::Error;

const MONTH_NAMES: &[&str] = &["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"];
const DAY_NAMES: &[&str] = &["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"];
const FIELD_NAMES: [&str; 5] = ["minute", "hour", "day-of-month", "month", "day-of-week"];

/// Checks a cron trigger expression (R-CFG-RW-4): exactly five fields (minute hour day-of-month
/// month day-of-week, Sunday = 0 or 7) of numbers, `*`, `,`, `-`, `/` and month/day names. A
/// seconds field, `?`, `L`, `W`, `#`, `+` and `@daily`-style nicknames are rejected. The error's
/// Display is `asyncRewake.trigger.cron is not a valid five-field cron expression: <what is wrong>`.
pub fn validate_cron(expr: &str) -> Result<(), Error> {
    parse_cron(expr).map(|_| ())
}

/// Checks an IANA zone id (`UTC`, `Asia/Seoul`); the error names the zone.
pub fn validate_zone(zone: &str) -> Result<(), Error> {
    parse_zone(zone).map(|_| ())
}

fn parse_zone(zone: &str) -> Result<Tz, Error> {
    zone.parse::<Tz>().map_err(|_| Error::UnknownZone(zone.to_owned()))
}

fn parse_cron(expr: &str) -> Result<Cron, Error> {
    let fail = |detail: String| Error::InvalidCron { expr: expr.to_owned(), detail };
    let fields: Vec<&str> = expr.split_whitespace().collect();
    if fields.len() != 5 {
        return Err(fail(format!("expected 5 fields, found {}", fields.len())));
    }
    for (index, field) in fields.iter().enumerate() {
        check_field(index, field).map_err(|d| fail(format!("{} field '{field}': {d}", FIELD_NAMES[index])))?;
    }
    let parser = CronParser::builder().seconds(Seconds::Disallowed).year(Year::Disallowed).dom_and_dow(false).build();
    parser.parse(&fields.join(" ")).map_err(|e| fail(e.to_string()))
}

fn check_field(index: usize, field: &str) -> Result<(), String> {
    let names = match index {
        3 => MONTH_NAMES,
        4 => DAY_NAMES,
        _ => &[],
    };
    let bytes = field.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b.is_ascii_alphabetic() {
            let end = bytes[i..].iter().position(|c| !c.is_ascii_alphabetic()).map_or(bytes.len(), |p| i + p);
            let word = field[i..end].to_ascii_uppercase();
            if !names.contains(&word.as_str()) {
                return Err(format!("'{}' is not allowed", &field[i..end]));
            }
            i = end;
        } else if b.is_ascii_digit() || matches!(b, b'*' | b',' | b'-' | b'/') {
            i += 1;
        } else {
            let c = field[i..].chars().next().unwrap_or('?');
            return Err(format!("'{c}' is not allowed"));
        }
    }
    Ok(())
}

/// A validated cron expression in a zone: "instant in → next fire instant out".
#[derive(Clone)]
pub struct CronSchedule {
    cron: Cron,
    zone: Tz,
}

impl fmt::Debug for CronSchedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CronSchedule").field("expr", &self.cron.pattern.to_string()).field("zone", &self.zone).finish()
    }
}

impl CronSchedule {
    /// Parses `expr` (see [`validate_cron`]) in IANA zone `zone`.
    pub fn parse(expr: &str, zone: &str) -> Result<Self, Error> {
        Ok(CronSchedule { cron: parse_cron(expr)?, zone: parse_zone(zone)? })
    }

    /// The first fire strictly after `after`, following croner's Vixie DST rules: a fixed time
    /// inside a spring-forward gap runs right after the gap; a fixed time inside a fall-back
    /// overlap runs once (first pass); interval fields follow the wall clock through both passes.
    /// `None` when the expression never matches again (e.g. `0 0 31 2 *`).
    pub fn next_after(&self, after: DateTime<Utc>) -> Option<DateTime<Utc>> {
        let local = after.with_timezone(&self.zone);
        self.cron.find_next_occurrence(&local, false).ok().map(|t| t.with_timezone(&Utc))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strict_five_field_expressions_are_accepted_per_r_cfg_rw_4() {
        let table = [
            "0 * * * *",
            "*/30 * * * *",
            "0 9 * * 0",
            "0 9 * * 7",
            "0 9 * * sun",
            "0 9 * * MON-FRI",
            "0 9 1 jan,jul *",
            "5-10/2 0-23 1,15 * 1-5",
            "0 0 13 * 5",
            "  0   0 * * *  ",
        ];
        for expr in table {
            assert!(validate_cron(expr).is_ok(), "{expr:?} rejected: {:?}", validate_cron(expr));
        }
    }

    #[test]
    fn quartz_and_extension_syntax_is_rejected_with_the_seed_message_per_r_cfg_rw_4() {
        let table = [
            "0 0 * * * ?",
            "0 0 * * *  *",
            "0 0 9 * * *",
            "@daily",
            "@hourly",
            "0 0 ? * *",
            "0 0 L * *",
            "0 0 15W * *",
            "0 0 * * 5#2",
            "0 0 * * 5L",
            "0 0 * * +5",
            "0 0 * *",
            "",
            "0 0 * * 8",
            "60 * * * *",
            "0 24 * * *",
            "0 0 32 * *",
            "0 0 * 13 *",
            "0 0 * JAN *x",
            "0 0 * * SUNDAY",
            "0 0 * FEB MAR",
            "0 0 * * ٣",
            "0 0 * * \u{0}",
        ];
        for expr in table {
            let err = validate_cron(expr).expect_err(expr);
            let message = err.to_string();
            assert!(
                message.starts_with("asyncRewake.trigger.cron is not a valid five-field cron expression: "),
                "{expr}: {message}"
            );
        }
    }

    #[test]
    fn the_error_says_what_is_wrong_with_the_expression() {
        // One line per case: expression, the reason after the seed's wording.
        let cases = [
            ("0 0 * * * ?", "expected 5 fields, found 6"),
            ("0 0 * *", "expected 5 fields, found 4"),
            ("0 0 * * 5L", "day-of-week field '5L': 'L' is not allowed"),
            ("0 0 ? * *", "day-of-month field '?': '?' is not allowed"),
            ("0 0 * JAN *x", "day-of-week field '*x': 'x' is not allowed"),
            ("0 0 * * SUNDAY", "day-of-week field 'SUNDAY': 'SUNDAY' is not allowed"),
        ];
        for (expr, reason) in cases {
            let err = validate_cron(expr).expect_err(expr);
            assert_eq!(
                err.to_string(),
                format!("asyncRewake.trigger.cron is not a valid five-field cron expression: {reason}"),
                "{expr}"
            );
        }
        let err = validate_cron("60 * * * *").expect_err("minute 60");
        let message = err.to_string();
        let reason = message.strip_prefix("asyncRewake.trigger.cron is not a valid five-field cron expression: ");
        assert!(reason.is_some_and(|r| !r.trim().is_empty()), "croner's reason is carried too: {message}");
    }

    proptest::proptest! {
        #[test]
        fn no_cron_like_string_makes_parsing_or_next_fire_panic(expr in "[0-9*,/ A-Za-z#?@+-]{0,30}", start in 0i64..4_000_000_000) {
            let _ = validate_cron(&expr);
            if let Ok(schedule) = CronSchedule::parse(&expr, "America/New_York") {
                let start = DateTime::from_timestamp(start, 0).expect("in range");
                if let Some(next) = schedule.next_after(start) {
                    proptest::prop_assert!(next > start);
                }
            }
        }

        #[test]
        fn no_string_makes_cron_or_zone_validation_panic(text in "\\PC{0,40}") {
            let _ = validate_cron(&text);
            let _ = validate_zone(&text);
        }
    }

    #[test]
    fn zones_are_iana_ids_and_the_error_names_the_zone() {
        assert!(validate_zone("UTC").is_ok());
        assert!(validate_zone("Asia/Seoul").is_ok());
        assert!(validate_zone("America/New_York").is_ok());
        let err = validate_zone("Mars/Olympus_Mons").expect_err("unknown");
        assert_eq!(err.to_string(), "unknown time zone 'Mars/Olympus_Mons'");
        assert!(validate_zone("").is_err());
    }
}
