//! Fischer chess clocks: a time control (`5+3`: minutes per side, seconds added after each of a
//! side's moves), both sides' time left, and the PGN clock comment `[%clk H:MM:SS]`.
//!
//! Arithmetic only: the caller measures the time a move used (`qchess play` with its own
//! monotonic clock, `qchess serve` with the wall clock its store shares between instances).
//!
//! ```
//! use std::time::Duration;
//! use qchess_core::Color;
//! use qchess_engine::clock::{FischerClock, TimeControl, clock_comment};
//!
//! let control: TimeControl = "5+3".parse()?;
//! let mut clock = FischerClock::new(control);
//! let left = clock.charge(Color::White, Duration::from_secs(10));
//! assert_eq!(left, Duration::from_secs(293));
//! assert_eq!(clock_comment(left), "[%clk 0:04:53]");
//! assert!(clock.expired(Color::Black, Duration::from_secs(300)));
//! # Ok::<(), qchess_engine::clock::ParseTimeControlError>(())
//! ```

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use qchess_core::Color;

/// The longest base time a control may give (a day per side).
pub const MAX_BASE: Duration = Duration::from_secs(24 * 3600);

/// The largest increment a control may give (an hour per move).
pub const MAX_INCREMENT: Duration = Duration::from_secs(3600);

/// A time control: the time each side starts with and the increment added after each move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeControl {
    /// Time per side at the start.
    pub base: Duration,
    /// Added to a side's time after each of its moves.
    pub increment: Duration,
}

/// The text is not a time control.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{text}` is not a time control: {reason}; write minutes+increment seconds, like 5+3 (or 0.5+2 for 30 s)")]
pub struct ParseTimeControlError {
    /// The text given (shortened).
    pub text: String,
    /// What is wrong with it.
    pub reason: String,
}

/// Reads a non-negative decimal number (`5`, `0.25`) as thousandths.
fn thousandths(text: &str) -> Option<u64> {
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    let digits = |part: &str| part.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() && fraction.is_empty() || !digits(whole) || !digits(fraction) || fraction.len() > 3 {
        return None;
    }
    let whole: u64 = if whole.is_empty() { 0 } else { whole.parse().ok()? };
    let fraction: u64 = if fraction.is_empty() { 0 } else { format!("{fraction:0<3}").parse().ok()? };
    whole.checked_mul(1000)?.checked_add(fraction)
}

impl FromStr for TimeControl {
    type Err = ParseTimeControlError;

    fn from_str(text: &str) -> Result<TimeControl, ParseTimeControlError> {
        let bad =
            |reason: &str| ParseTimeControlError { text: qchess_core::text::excerpt(text), reason: reason.to_owned() };
        let (minutes, seconds) = text.trim().split_once('+').ok_or_else(|| bad("no `+`"))?;
        let minutes = thousandths(minutes.trim()).ok_or_else(|| bad("the minutes are not a number"))?;
        let seconds = thousandths(seconds.trim()).ok_or_else(|| bad("the increment is not a number of seconds"))?;
        // Minutes in thousandths times 60 are milliseconds.
        let base_ms = minutes.checked_mul(60).ok_or_else(|| bad("the base time is too long"))?;
        if base_ms % 1000 != 0 {
            return Err(bad("the base time must come to whole seconds"));
        }
        let control = TimeControl { base: Duration::from_millis(base_ms), increment: Duration::from_millis(seconds) };
        if control.base > MAX_BASE {
            return Err(bad("the base time is longer than a day"));
        }
        if control.increment > MAX_INCREMENT {
            return Err(bad("the increment is longer than an hour"));
        }
        Ok(control)
    }
}

impl fmt::Display for TimeControl {
    /// `5+3`, `0.5+2`: as the control is written.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let minutes = self.base.as_millis() as f64 / 60_000.0;
        let seconds = self.increment.as_millis() as f64 / 1000.0;
        write!(f, "{}+{}", trim_number(minutes), trim_number(seconds))
    }
}

/// A number with at most three decimals and no trailing zeros.
fn trim_number(value: f64) -> String {
    let text = format!("{value:.3}");
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

impl TimeControl {
    /// The PGN `TimeControl` tag value: `300+3` (seconds; a fractional increment keeps its
    /// decimals).
    pub fn tag(&self) -> String {
        format!("{}+{}", self.base.as_secs(), trim_number(self.increment.as_millis() as f64 / 1000.0))
    }
}

/// Both sides' time left under a time control.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FischerClock {
    control: TimeControl,
    remaining: [Duration; 2],
}

fn slot(side: Color) -> usize {
    usize::from(side == Color::Black)
}

impl FischerClock {
    /// Both sides at the control's base time.
    pub fn new(control: TimeControl) -> FischerClock {
        FischerClock { control, remaining: [control.base; 2] }
    }

    /// The time control.
    pub fn control(&self) -> TimeControl {
        self.control
    }

    /// `side`'s time left before its current turn.
    pub fn remaining(&self, side: Color) -> Duration {
        self.remaining[slot(side)]
    }

    /// Sets `side`'s time left (a stored clock taken up again).
    pub fn set_remaining(&mut self, side: Color, left: Duration) {
        self.remaining[slot(side)] = left;
    }

    /// Whether `side` runs out of time having used `used` of its current turn.
    pub fn expired(&self, side: Color, used: Duration) -> bool {
        used >= self.remaining(side)
    }

    /// Charges `used` to `side`, which just moved, and adds the increment; returns its time left.
    pub fn charge(&mut self, side: Color, used: Duration) -> Duration {
        let left = &mut self.remaining[slot(side)];
        *left = left.saturating_sub(used) + self.control.increment;
        *left
    }
}

/// `[%clk 0:04:58]`, the PGN clock comment (whole seconds, rounded down).
pub fn clock_comment(remaining: Duration) -> String {
    let seconds = remaining.as_secs();
    format!("[%clk {}:{:02}:{:02}]", seconds / 3600, seconds / 60 % 60, seconds % 60)
}

/// Reads `[%clk H:MM:SS]` (seconds may have decimals, as other programs write them).
pub fn parse_clock_comment(text: &str) -> Option<Duration> {
    let inner = text.trim().strip_prefix("[%clk ")?.strip_suffix(']')?;
    let mut parts = inner.trim().split(':');
    let (hours, minutes, seconds) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() {
        return None;
    }
    let hours: u64 = hours.parse().ok()?;
    let minutes: u64 = minutes.parse().ok()?;
    let seconds = thousandths(seconds)?;
    let millis = hours.checked_mul(3_600_000)?.checked_add(minutes.checked_mul(60_000)?)?.checked_add(seconds)?;
    Some(Duration::from_millis(millis))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_controls_read_and_print() {
        let control: TimeControl = "5+3".parse().expect("control");
        assert_eq!((control.base, control.increment), (Duration::from_secs(300), Duration::from_secs(3)));
        assert_eq!((control.tag(), control.to_string()), ("300+3".to_owned(), "5+3".to_owned()));
        let short: TimeControl = " 0.05 + 0.5 ".parse().expect("fractions");
        assert_eq!((short.base, short.increment), (Duration::from_secs(3), Duration::from_millis(500)));
        assert_eq!((short.tag(), short.to_string()), ("3+0.5".to_owned(), "0.05+0.5".to_owned()));
        assert_eq!(".5+0".parse::<TimeControl>().expect("a bare fraction").base, Duration::from_secs(30));
        for (bad, says) in [
            ("5", "no `+`"),
            ("x+3", "minutes"),
            ("5+y", "increment"),
            ("0.001+0", "whole seconds"),
            ("1441+0", "longer than a day"),
            ("5+3601", "longer than an hour"),
            ("-1+0", "minutes"),
            ("1.2345+0", "minutes"),
            ("99999999999999999999+0", "minutes"),
            ("+", "minutes"),
        ] {
            let error = bad.parse::<TimeControl>().expect_err(bad).to_string();
            assert!(error.contains(says) && error.contains("like 5+3"), "{bad}: {error}");
        }
    }

    #[test]
    fn fischer_clocks_charge_the_mover_and_add_the_increment() {
        let mut clock = FischerClock::new("1+2".parse().expect("control"));
        assert_eq!(clock.charge(Color::White, Duration::from_secs(5)), Duration::from_secs(57));
        assert_eq!(clock.remaining(Color::Black), Duration::from_secs(60));
        assert!(!clock.expired(Color::Black, Duration::from_millis(59_999)));
        assert!(clock.expired(Color::Black, Duration::from_secs(60)));
        // Time past the flag is not owed: the clock stops at zero, then gets its increment.
        assert_eq!(clock.charge(Color::Black, Duration::from_secs(90)), Duration::from_secs(2));
        clock.set_remaining(Color::White, Duration::from_millis(1500));
        assert_eq!(clock.remaining(Color::White), Duration::from_millis(1500));
    }

    #[test]
    fn clock_comments_round_trip() {
        assert_eq!(clock_comment(Duration::from_secs(3725)), "[%clk 1:02:05]");
        assert_eq!(clock_comment(Duration::from_millis(59_999)), "[%clk 0:00:59]");
        assert_eq!(parse_clock_comment("[%clk 1:02:05]"), Some(Duration::from_secs(3725)));
        assert_eq!(parse_clock_comment(" [%clk 0:00:02.5] "), Some(Duration::from_millis(2500)));
        for bad in ["[%clk 1:02]", "[%clk a:00:00]", "clk 0:00:01", "[%clk 0:00:01:00]", "[%clk 0:00:-1]"] {
            assert_eq!(parse_clock_comment(bad), None, "{bad}");
        }
    }
}
