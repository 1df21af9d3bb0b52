//! A wall-clock limit the simulators check between operations.
//!
//! A [`Deadline`] is a point in time (or none). Long loops call [`Deadline::check`] between
//! gates, measurements and shots, and give up with [`TimeLimitExceeded`] once it has passed;
//! the state being built is dropped, nothing is left half-written. The check is one clock read,
//! cheap next to a gate. Anything that runs simulations under a time limit (the command line's
//! `--time-limit`, a server's per-job limit) builds one with [`Deadline::after`] and passes it
//! in [`Limits`](crate::dense::Limits).
//!
//! ```
//! use std::time::Duration;
//! use qchess_sim::deadline::Deadline;
//!
//! assert!(Deadline::none().check().is_ok());
//! assert!(Deadline::after(Duration::from_secs(3600)).check().is_ok());
//! let passed = Deadline::after(Duration::ZERO);
//! assert_eq!(passed.check().unwrap_err().to_string(), "the time limit of 0 s was reached");
//! ```

use std::time::{Duration, Instant};

/// When a computation must stop, if ever. Copyable, so one deadline can cover several runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Deadline {
    /// The moment the limit passes and the limit itself, for the error message.
    at: Option<(Instant, Duration)>,
}

/// The deadline passed before the computation finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the time limit of {} s was reached", format_seconds(*.limit))]
pub struct TimeLimitExceeded {
    /// The limit that was given.
    pub limit: Duration,
}

impl Deadline {
    /// No limit: [`Deadline::check`] always succeeds.
    pub fn none() -> Deadline {
        Deadline { at: None }
    }

    /// A limit of `limit` from now. A limit too far away to represent is no limit.
    pub fn after(limit: Duration) -> Deadline {
        Deadline { at: Instant::now().checked_add(limit).map(|at| (at, limit)) }
    }

    /// The limit this deadline was built with, if any.
    pub fn limit(&self) -> Option<Duration> {
        self.at.map(|(_, limit)| limit)
    }

    /// Time left before the deadline (`None` without a limit, zero once it has passed).
    pub fn remaining(&self) -> Option<Duration> {
        self.at.map(|(at, _)| at.saturating_duration_since(Instant::now()))
    }

    /// Fails once the deadline has passed.
    pub fn check(&self) -> Result<(), TimeLimitExceeded> {
        match self.at {
            Some((at, limit)) if Instant::now() >= at => Err(TimeLimitExceeded { limit }),
            _ => Ok(()),
        }
    }
}

/// `2`, `0.5`, `1.25`: seconds without trailing zeros.
fn format_seconds(limit: Duration) -> String {
    let text = format!("{:.3}", limit.as_secs_f64());
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_passed_deadline_fails_and_names_its_limit() {
        let deadline = Deadline::after(Duration::from_millis(1500));
        assert!(deadline.check().is_ok());
        assert_eq!(deadline.limit(), Some(Duration::from_millis(1500)));
        std::thread::sleep(Duration::from_millis(1));
        let passed = Deadline::after(Duration::from_nanos(1));
        std::thread::sleep(Duration::from_millis(1));
        assert_eq!(passed.remaining(), Some(Duration::ZERO));
        assert_eq!(
            TimeLimitExceeded { limit: Duration::from_millis(1500) }.to_string(),
            "the time limit of 1.5 s was reached"
        );
        assert!(passed.check().is_err());
    }

    #[test]
    fn no_deadline_never_fails() {
        assert!(Deadline::none().check().is_ok());
        assert_eq!(Deadline::none().remaining(), None);
        assert!(Deadline::after(Duration::MAX).check().is_ok());
    }
}
