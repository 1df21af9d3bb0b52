//! Civil dates (proleptic Gregorian, UTC) of days counted from 1970-01-01, both ways, and
//! ISO 8601 times: for the dates records, stored jobs, cached calibrations and the provider
//! stand-ins read and write without a calendar crate.
//!
//! ```
//! use qchess_core::calendar::{CivilDate, iso8601, parse_iso8601};
//!
//! let leap_day = CivilDate { year: 2000, month: 2, day: 29 };
//! assert_eq!(CivilDate::from_days_since_epoch(leap_day.days_since_epoch()), leap_day);
//! assert_eq!(iso8601(951_782_400, 123), "2000-02-29T00:00:00.123Z");
//! assert_eq!(parse_iso8601("2000-02-29T01:00:00.5+01:00"), Some(951_782_400.5));
//! ```

/// A day of the civil calendar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CivilDate {
    /// The year (negative before year 0).
    pub year: i64,
    /// The month, 1 to 12.
    pub month: u32,
    /// The day of the month, 1 to 31.
    pub day: u32,
}

impl CivilDate {
    /// The date `days` days after 1970-01-01 (before it when negative).
    pub fn from_days_since_epoch(days: i64) -> CivilDate {
        // Howard Hinnant's days-to-civil algorithm: eras of 400 years counted from 0000-03-01,
        // so that the leap day ends a year.
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z - era * 146_097;
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
        let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
        CivilDate { year: yoe + era * 400 + i64::from(month <= 2), month, day }
    }

    /// The date of the moment `seconds` after 1970-01-01 00:00 UTC.
    pub fn from_unix_seconds(seconds: i64) -> CivilDate {
        CivilDate::from_days_since_epoch(seconds.div_euclid(86_400))
    }

    /// Days from 1970-01-01 to this date (negative before it): the inverse of
    /// [`CivilDate::from_days_since_epoch`]. A day past its month's end counts on into the next.
    pub fn days_since_epoch(self) -> i64 {
        // The same eras, read the other way.
        let (month, day) = (i64::from(self.month), i64::from(self.day));
        let year = if month <= 2 { self.year - 1 } else { self.year };
        let era = year.div_euclid(400);
        let yoe = year - era * 400;
        let doy = (153 * (month + if month > 2 { -3 } else { 9 }) + 2) / 5 + day - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        era * 146_097 + doe - 719_468
    }
}

/// `2026-01-01T00:00:00.000Z`: the moment `millis` milliseconds after the second `seconds`
/// counted from 1970-01-01 00:00 UTC, as ISO 8601 writes it in UTC.
pub fn iso8601(seconds: i64, millis: u32) -> String {
    let CivilDate { year, month, day } = CivilDate::from_unix_seconds(seconds);
    let of_day = seconds.rem_euclid(86_400);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        of_day / 3600,
        of_day / 60 % 60,
        of_day % 60
    )
}

/// Seconds since 1970-01-01 00:00 UTC of an ISO 8601 time: `YYYY-MM-DDTHH:MM:SS`, a
/// fraction of a second if any, then `Z`, an offset `+HH:MM` / `-HH:MM` (or `+HHMM`), or
/// nothing (UTC); a space may stand for the `T`. `None` for anything else.
pub fn parse_iso8601(text: &str) -> Option<f64> {
    let text = text.trim();
    let (date, time) = text.split_once(['T', 't', ' '])?;
    let mut parts = date.splitn(3, '-');
    let year: i64 = parts.next()?.parse().ok()?;
    let month: u32 = parts.next()?.parse().ok()?;
    let day: u32 = parts.next()?.parse().ok()?;
    let (clock, offset) = match time.find(['Z', 'z', '+', '-']) {
        Some(at) => (&time[..at], utc_offset(&time[at..])?),
        None => (time, 0),
    };
    let mut fields = clock.splitn(3, ':');
    let hour: i64 = fields.next()?.parse().ok()?;
    let minute: i64 = fields.next()?.parse().ok()?;
    let second_text = fields.next()?;
    let second: f64 = second_text.parse().ok()?;
    let digits = |field: &str| !field.is_empty() && field.bytes().all(|b| b.is_ascii_digit() || b == b'.');
    if !digits(second_text)
        || !(1..=12).contains(&month)
        || !(1..=31).contains(&day)
        || !(0..24).contains(&hour)
        || !(0..60).contains(&minute)
        || !(0.0..61.0).contains(&second)
    {
        return None;
    }
    let days = CivilDate { year, month, day }.days_since_epoch();
    Some((days * 86_400 + hour * 3600 + minute * 60 - offset) as f64 + second)
}

/// The seconds east of UTC of `Z`, `+HH:MM`, `-HH:MM` or `+HHMM`.
fn utc_offset(text: &str) -> Option<i64> {
    let sign = match text.as_bytes().first()? {
        b'Z' | b'z' => return (text.len() == 1).then_some(0),
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let rest = text[1..].replace(':', "");
    if rest.len() != 4 || !rest.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let (hours, minutes): (i64, i64) = (rest[..2].parse().ok()?, rest[2..].parse().ok()?);
    (hours < 24 && minutes < 60).then_some(sign * (hours * 3600 + minutes * 60))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn date(year: i64, month: u32, day: u32) -> CivilDate {
        CivilDate { year, month, day }
    }

    #[test]
    fn known_days() {
        assert_eq!(CivilDate::from_days_since_epoch(0), date(1970, 1, 1));
        assert_eq!(CivilDate::from_days_since_epoch(-1), date(1969, 12, 31));
        assert_eq!(CivilDate::from_days_since_epoch(11_016), date(2000, 2, 29));
        assert_eq!(CivilDate::from_days_since_epoch(20_089), date(2025, 1, 1));
        assert_eq!(CivilDate::from_unix_seconds(1_764_165_823), date(2025, 11, 26));
        assert_eq!(CivilDate::from_unix_seconds(-1), date(1969, 12, 31));
    }

    #[test]
    fn known_times() {
        assert_eq!(iso8601(0, 0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso8601(951_782_400, 123), "2000-02-29T00:00:00.123Z");
        assert_eq!(iso8601(1_767_225_599, 0), "2025-12-31T23:59:59.000Z");
        assert_eq!(iso8601(1_764_161_999, 250), "2025-11-26T12:59:59.250Z");
        assert_eq!(date(2025, 2, 26).days_since_epoch() * 86_400, 1_740_528_000);
        assert_eq!(date(2025, 2, 31).days_since_epoch(), date(2025, 3, 3).days_since_epoch(), "counts on");
    }

    #[test]
    fn times_read_back_with_their_offsets() {
        assert_eq!(parse_iso8601("1970-01-01T00:00:00Z"), Some(0.0));
        assert_eq!(parse_iso8601("2025-11-26T12:59:59.250Z"), Some(1_764_161_999.25));
        assert_eq!(parse_iso8601("2025-11-26T12:59:59.250+00:00"), Some(1_764_161_999.25));
        assert_eq!(parse_iso8601("2025-11-26 13:59:59.25+0100"), Some(1_764_161_999.25));
        assert_eq!(parse_iso8601("2025-11-26T07:59:59.25-05:00"), Some(1_764_161_999.25));
        assert_eq!(parse_iso8601("2025-11-26T12:59:59.25"), Some(1_764_161_999.25));
        for time in [1_764_161_999, 0, 951_782_400] {
            assert_eq!(parse_iso8601(&iso8601(time, 125)), Some(time as f64 + 0.125));
        }
        for bad in [
            "",
            "yesterday",
            "2025-13-01T00:00:00Z",
            "2025-01-01T24:00:00Z",
            "2025-01-01T00:00:00+25:00",
            "2025-01-01T00:00:00Q",
            "2025-01-01",
            "2025-01-01T00:00:-1Z",
            "2025-01-01T00:00:00+01",
        ] {
            assert_eq!(parse_iso8601(bad), None, "{bad}");
        }
    }

    /// Day by day over four centuries, each date follows the one before by the calendar's
    /// own rules.
    #[test]
    fn consecutive_days_follow_the_calendar() {
        let month_length = |year: i64, month: u32| match month {
            2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
            2 => 28,
            4 | 6 | 9 | 11 => 30,
            _ => 31,
        };
        let mut previous = CivilDate::from_days_since_epoch(-80_000);
        for days in -79_999..80_000 {
            let next = CivilDate::from_days_since_epoch(days);
            let expected = if previous.day < month_length(previous.year, previous.month) {
                date(previous.year, previous.month, previous.day + 1)
            } else if previous.month < 12 {
                date(previous.year, previous.month + 1, 1)
            } else {
                date(previous.year + 1, 1, 1)
            };
            assert_eq!(next, expected, "day {days}");
            assert_eq!(next.days_since_epoch(), days, "{next:?} read back");
            previous = next;
        }
    }
}
