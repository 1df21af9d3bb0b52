//! Settings held against their ranges, with an error that names the setting (the flag a person
//! gave it with): the checks the crates' validated configurations share.
//!
//! ```
//! use std::time::Duration;
//!
//! use qchess_core::setting::{check_duration, check_range};
//!
//! assert!(check_range("--workers", 2, 1, 256).is_ok());
//! let error = check_duration("--time-limit", Duration::ZERO, Duration::from_secs(60)).unwrap_err();
//! assert_eq!(error.to_string(), "--time-limit must be above 0 and at most 60 seconds, got 0");
//! ```

use std::time::Duration;

use thiserror::Error;

/// A setting outside its range.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum SettingError {
    /// A count or size is outside its range.
    #[error("{what} must be between {min} and {max}, got {value}")]
    BadLimit {
        /// The setting.
        what: &'static str,
        /// Its smallest value.
        min: u64,
        /// Its largest value.
        max: u64,
        /// The value given.
        value: u64,
    },
    /// A duration is zero or too long.
    #[error("{what} must be above 0 and at most {max_seconds} seconds, got {value}")]
    BadDuration {
        /// The setting.
        what: &'static str,
        /// Its largest value in seconds.
        max_seconds: u64,
        /// The value given, in seconds.
        value: f64,
    },
    /// A probability is out of range.
    #[error("{what} must be in [0, {max}], got {value}")]
    BadProbability {
        /// The setting.
        what: &'static str,
        /// Its largest value.
        max: f64,
        /// The value given.
        value: String,
    },
}

/// `value` of setting `what` is within `min..=max`.
pub fn check_range(what: &'static str, value: u64, min: u64, max: u64) -> Result<(), SettingError> {
    if (min..=max).contains(&value) { Ok(()) } else { Err(SettingError::BadLimit { what, min, max, value }) }
}

/// `value` of setting `what` is above zero and at most `max`.
pub fn check_duration(what: &'static str, value: Duration, max: Duration) -> Result<(), SettingError> {
    if value.is_zero() || value > max {
        return Err(SettingError::BadDuration { what, max_seconds: max.as_secs(), value: value.as_secs_f64() });
    }
    Ok(())
}

/// `value` of setting `what` is a probability of at most `max` (not NaN).
pub fn check_probability(what: &'static str, value: f64, max: f64) -> Result<(), SettingError> {
    if (0.0..=max).contains(&value) {
        Ok(())
    } else {
        Err(SettingError::BadProbability { what, max, value: value.to_string() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_check_names_the_setting_and_its_range() {
        assert_eq!(
            check_range("--max-games", 0, 1, 100_000).unwrap_err().to_string(),
            "--max-games must be between 1 and 100000, got 0"
        );
        assert!(check_range("--max-games", 100_000, 1, 100_000).is_ok());
        let day = Duration::from_secs(86_400);
        assert!(check_duration("--idle-timeout", day, day).is_ok());
        assert!(check_duration("--idle-timeout", day + Duration::from_millis(1), day).is_err());
        assert_eq!(
            check_probability("--readout-error", 0.6, 0.5).unwrap_err().to_string(),
            "--readout-error must be in [0, 0.5], got 0.6"
        );
        assert!(check_probability("--depolarizing", f64::NAN, 1.0).is_err());
        assert!(check_probability("--depolarizing", 0.0, 1.0).is_ok());
    }
}
