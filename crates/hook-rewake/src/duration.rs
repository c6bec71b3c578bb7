//! Duration strings of an `asyncRewake` block (R-CFG-RW-3).
//!
//! Two notations: shorthand (`30s`, `5m`, `1h30m`, case-insensitive; parsed by humantime after
//! lower-casing and a unit check, since humantime is case-sensitive and reads `M` as months) and
//! ISO-8601 (`PT5M`, `PT1H30M`, `PT0.5S`, `P1DT2H`; a leading `P`/`p` selects it).

use std::time::Duration;

use chrono::{DateTime, TimeDelta, Utc};

use crate::error::Error;

/// The longest duration accepted (100 years): keeps every deadline computation in range.
pub(crate) const MAX_DURATION: Duration = Duration::from_secs(100 * 365 * 24 * 3600);

/// `t` plus `d`; an error when the sum is out of chrono's range.
pub(crate) fn add(t: DateTime<Utc>, d: Duration) -> Result<DateTime<Utc>, Error> {
    TimeDelta::from_std(d)
        .ok()
        .and_then(|d| t.checked_add_signed(d))
        .ok_or_else(|| Error::Rejected(format!("duration {d:?} is out of range")))
}

/// Shorthand units after lower-casing.
const SHORTHAND_UNITS: &[&str] = &["d", "h", "m", "s", "ms"];

/// Parses a `delay` or `timeout` value (R-CFG-RW-3): shorthand `30s`, `5m`, `1h`, `1h30m`,
/// `1h2m3s` (case-insensitive) or ISO-8601 `PT5M`, `PT1H30M`, `PT0.5S` (a leading `P`/`p`
/// selects ISO). Zero, negative, out-of-range (over 100 years) and malformed values are errors.
pub fn parse_duration(text: &str) -> Result<Duration, Error> {
    let fail = |detail: &str| Error::InvalidDuration { text: text.to_owned(), detail: detail.to_owned() };
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err(fail("empty"));
    }
    if trimmed.starts_with('-') {
        return Err(fail("negative durations are not allowed"));
    }
    let parsed = if trimmed.starts_with(['P', 'p']) { parse_iso(trimmed) } else { parse_shorthand(trimmed) };
    let duration = parsed.map_err(|d| fail(&d))?;
    if duration.is_zero() {
        return Err(fail("must be greater than zero"));
    }
    if duration > MAX_DURATION {
        return Err(fail("longer than 100 years"));
    }
    Ok(duration)
}

fn parse_shorthand(text: &str) -> Result<Duration, String> {
    let lower = text.to_ascii_lowercase();
    let mut chars = lower.char_indices().peekable();
    let mut saw_number = false;
    while let Some((start, c)) = chars.next() {
        if c.is_ascii_whitespace() || c.is_ascii_digit() || c == '.' {
            saw_number |= c.is_ascii_digit();
            continue;
        }
        if !c.is_ascii_alphabetic() {
            return Err(format!("unexpected character '{c}'"));
        }
        let mut end = start + c.len_utf8();
        while let Some(&(i, n)) = chars.peek() {
            if !n.is_ascii_alphabetic() {
                break;
            }
            end = i + n.len_utf8();
            chars.next();
        }
        let unit = &lower[start..end];
        if !SHORTHAND_UNITS.contains(&unit) {
            return Err(format!("unknown unit '{unit}' (use d, h, m, s or ms)"));
        }
        if !saw_number {
            return Err(format!("unit '{unit}' has no number"));
        }
        saw_number = false;
    }
    if saw_number {
        return Err("a number needs a unit (s, m, h, d)".to_owned());
    }
    humantime::parse_duration(&lower).map_err(|e| e.to_string())
}

/// `P[nD][T[nH][nM][nS]]` with optional decimal fractions; years, months and weeks are rejected
/// (their length is calendar-dependent).
fn parse_iso(text: &str) -> Result<Duration, String> {
    let upper = text.to_ascii_uppercase();
    let body = &upper[1..];
    let (date, time) = match body.split_once('T') {
        Some((date, "")) => return Err(format!("nothing after 'T' in '{date}T'")),
        Some((date, time)) => (date, Some(time)),
        None => (body, None),
    };
    let mut nanos: u128 = 0;
    let mut components = 0;
    for (part, units) in
        [(date, &[('D', 86_400u128)][..]), (time.unwrap_or(""), &[('H', 3600), ('M', 60), ('S', 1)][..])]
    {
        let mut rest = part;
        let mut allowed = units;
        while !rest.is_empty() {
            let split = rest.find(|c: char| !(c.is_ascii_digit() || c == '.')).ok_or("a number needs a designator")?;
            let (number, tail) = rest.split_at(split);
            let designator = tail.chars().next().ok_or("a number needs a designator")?;
            let position = allowed
                .iter()
                .position(|(d, _)| *d == designator)
                .ok_or_else(|| format!("unexpected designator '{designator}'"))?;
            let secs = allowed[position].1;
            allowed = &allowed[position + 1..];
            nanos = nanos.checked_add(scaled_nanos(number, secs)?).ok_or("too large")?;
            components += 1;
            rest = &tail[designator.len_utf8()..];
        }
    }
    if components == 0 {
        return Err("no components".to_owned());
    }
    let secs = u64::try_from(nanos / 1_000_000_000).map_err(|_| "too large")?;
    Ok(Duration::new(secs, (nanos % 1_000_000_000) as u32))
}

/// `number` (digits, optionally one `.` and more digits) times `unit_secs`, in nanoseconds.
fn scaled_nanos(number: &str, unit_secs: u128) -> Result<u128, String> {
    let (int, frac) = number.split_once('.').unwrap_or((number, ""));
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if int.is_empty() || !all_digits(int) || !all_digits(frac) || frac.len() > 9 || number.ends_with('.') {
        return Err(format!("'{number}' is not a number"));
    }
    let unit = unit_secs * 1_000_000_000;
    let whole: u128 = int.parse::<u128>().map_err(|_| "too large")?.checked_mul(unit).ok_or("too large")?;
    let frac_value: u128 = if frac.is_empty() { 0 } else { frac.parse().map_err(|_| "bad fraction")? };
    Ok(whole + frac_value * unit / 10u128.pow(frac.len() as u32))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(text: &str) -> Option<Duration> {
        parse_duration(text).ok()
    }

    #[test]
    fn shorthand_and_iso_forms_parse_case_insensitively_per_r_cfg_rw_3() {
        let table: &[(&str, u64)] = &[
            ("30s", 30_000),
            ("5m", 300_000),
            ("5M", 300_000),
            ("1h", 3_600_000),
            ("1H30M", 5_400_000),
            ("1h30m", 5_400_000),
            ("1h2m3s", 3_723_000),
            ("250ms", 250),
            ("2d", 172_800_000),
            (" 90s ", 90_000),
            ("PT5M", 300_000),
            ("pt5m", 300_000),
            ("PT1H30M", 5_400_000),
            ("PT0.5S", 500),
            ("PT1.5H", 5_400_000),
            ("P1DT2H", 93_600_000),
            ("P1D", 86_400_000),
        ];
        for &(text, millis) in table {
            assert_eq!(ok(text), Some(Duration::from_millis(millis)), "{text}");
        }
    }

    #[test]
    fn zero_negative_and_garbage_are_rejected_per_r_cfg_rw_3() {
        let table = [
            "",
            "0s",
            "PT0S",
            "-5m",
            "5",
            "m",
            "5x",
            "5 months",
            "PT",
            "P",
            "PT5",
            "PTM",
            "PT1M1H",
            "P1Y",
            "P1M",
            "P1W",
            "PT1..5S",
            "PT.5S",
            "PT5.S",
            "P1DT",
            "1h-5m",
            "٣s",
            "5ḿ",
            "PT1S2S",
            "1000000000000000000000h",
        ];
        for text in table {
            assert!(parse_duration(text).is_err(), "{text:?} was accepted");
        }
    }

    #[test]
    fn durations_over_a_hundred_years_are_rejected() {
        assert!(parse_duration("36500d").is_ok());
        assert!(parse_duration("36501d").is_err());
        assert!(parse_duration("PT99999999999999999999H").is_err());
    }

    proptest::proptest! {
        #[test]
        fn shorthand_and_iso_agree_on_every_h_m_s_combination(h in 0u64..1000, m in 0u64..60, s in 0u64..60, upper: bool) {
            let expected = Duration::from_secs(h * 3600 + m * 60 + s);
            let shorthand = format!("{h}h{m}m{s}s");
            let shorthand = if upper { shorthand.to_uppercase() } else { shorthand };
            let iso = format!("PT{h}H{m}M{s}S");
            if expected.is_zero() {
                proptest::prop_assert!(parse_duration(&shorthand).is_err());
                proptest::prop_assert!(parse_duration(&iso).is_err());
            } else {
                proptest::prop_assert_eq!(parse_duration(&shorthand).ok(), Some(expected));
                proptest::prop_assert_eq!(parse_duration(&iso).ok(), Some(expected));
            }
        }

        #[test]
        fn no_string_makes_the_parser_panic(text in "\\PC{0,24}") {
            let _ = parse_duration(&text);
        }
    }

    #[test]
    fn error_names_the_input() {
        let err = parse_duration("5x").expect_err("garbage");
        assert_eq!(err.to_string(), "invalid duration '5x': unknown unit 'x' (use d, h, m, s or ms)");
    }
}
