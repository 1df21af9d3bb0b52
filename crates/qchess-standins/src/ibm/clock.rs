//! Times as the IBM stand-in keeps them (seconds since the epoch) and writes them.

use std::time::{SystemTime, UNIX_EPOCH};

use qchess_core::calendar;

/// Seconds since the epoch.
pub(super) fn now() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64())
}

/// An epoch time as the service writes times (ISO 8601, UTC).
pub(super) fn iso_time(seconds: f64) -> String {
    let whole = seconds.max(0.0) as u64;
    calendar::iso8601(i64::try_from(whole).unwrap_or(i64::MAX), (seconds.fract() * 1000.0) as u32)
}
