//! Civil dates (proleptic Gregorian, UTC) of days counted from 1970-01-01, for the dates
//! records, stored jobs and the IBM stand-in write without a calendar crate.

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
            previous = next;
        }
    }
}
