//! `--time-limit SECONDS`: parsing the flag, and the watchdog for work that cannot check a
//! deadline itself.
//!
//! `qchess sim` hands the limit to the simulators as a [`Deadline`](qchess_sim::deadline::Deadline),
//! which they check between operations. `qchess compare` also waits on remote providers and
//! replays games, so it runs under a watchdog that ends the process with exit code 1 and a
//! clear message once the limit has passed. Without the flag there is no limit.

use std::time::Duration;

/// Parses a positive, finite number of seconds (`30`, `0.5`).
pub fn parse_seconds(text: &str) -> Result<Duration, String> {
    let seconds: f64 = text.trim().parse().map_err(|_| format!("`{text}` is not a number of seconds"))?;
    if !seconds.is_finite() || seconds <= 0.0 {
        return Err(format!("the time limit must be a positive number of seconds, got {text}"));
    }
    Duration::try_from_secs_f64(seconds).map_err(|_| format!("{text} seconds is too long a time limit"))
}

/// Ends the process with exit code 1 once `limit` has passed, saying which command ran out of
/// time. The watchdog is a detached thread: a command that finishes first simply exits.
pub fn exit_after(limit: Duration, command: &'static str) {
    std::thread::spawn(move || {
        std::thread::sleep(limit);
        eprintln!(
            "qchess: error: {command}: {} (raise it with --time-limit)",
            qchess_sim::deadline::TimeLimitExceeded { limit }
        );
        std::process::exit(1);
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_parse_and_bad_values_are_named() {
        assert_eq!(parse_seconds("30"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_seconds("0.25"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_seconds("0").unwrap_err(), "the time limit must be a positive number of seconds, got 0");
        assert_eq!(parse_seconds("-1").unwrap_err(), "the time limit must be a positive number of seconds, got -1");
        assert_eq!(parse_seconds("soon").unwrap_err(), "`soon` is not a number of seconds");
        assert!(parse_seconds("inf").is_err());
        assert!(parse_seconds("1e300").is_err());
    }
}
