//! Chess clocks for `qchess play --clock 5+3`: minutes per side plus an increment per move.

use std::str::FromStr;
use std::time::{Duration, Instant};

use qchess_core::Color;

/// A time control: the time each side starts with and the increment added after each move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeControl {
    /// Time per side at the start.
    pub base: Duration,
    /// Added to a side's time after each of its moves.
    pub increment: Duration,
}

impl FromStr for TimeControl {
    type Err = String;

    fn from_str(text: &str) -> Result<TimeControl, String> {
        let bad = || format!("`{text}` is not a time control; write minutes+increment seconds, like 5+3");
        let (minutes, seconds) = text.split_once('+').ok_or_else(bad)?;
        let minutes: u64 = minutes.trim().parse().map_err(|_| bad())?;
        let seconds: u64 = seconds.trim().parse().map_err(|_| bad())?;
        Ok(TimeControl {
            base: Duration::from_secs(minutes.checked_mul(60).ok_or_else(bad)?),
            increment: Duration::from_secs(seconds),
        })
    }
}

impl TimeControl {
    /// The time control as a stored game keeps it.
    pub fn to_stored(self) -> serde_json::Value {
        serde_json::json!({ "base_secs": self.base.as_secs(), "increment_secs": self.increment.as_secs() })
    }

    /// The PGN `TimeControl` tag value: `300+3`.
    pub fn tag(&self) -> String {
        format!("{}+{}", self.base.as_secs(), self.increment.as_secs())
    }
}

/// Both sides' remaining time, charged to the side to move.
#[derive(Debug, Clone)]
pub struct Clock {
    control: TimeControl,
    remaining: [Duration; 2],
    turn_started: Instant,
    /// The mover's remaining time after each ply of this session, in order.
    pub after_each_ply: Vec<Duration>,
}

impl Clock {
    /// A clock with both sides at the control's base time, running from now.
    pub fn new(control: TimeControl) -> Clock {
        Clock { control, remaining: [control.base; 2], turn_started: Instant::now(), after_each_ply: Vec::new() }
    }

    /// The time control.
    pub fn control(&self) -> TimeControl {
        self.control
    }

    /// Whether `side` has used up its time on the current turn.
    pub fn expired(&self, side: Color) -> bool {
        self.turn_started.elapsed() >= self.remaining[usize::from(side == Color::Black)]
    }

    /// Charges the turn's time to `side`, which just moved, adds the increment and starts the
    /// other side's turn.
    pub fn charge(&mut self, side: Color) {
        let slot = &mut self.remaining[usize::from(side == Color::Black)];
        *slot = slot.saturating_sub(self.turn_started.elapsed()) + self.control.increment;
        self.after_each_ply.push(*slot);
        self.turn_started = Instant::now();
    }

    /// Restarts the current turn's timing (after a pause such as undo or load).
    pub fn restart_turn(&mut self) {
        self.turn_started = Instant::now();
    }
}

/// The clock of a stored game taken up again: its time control, each side's time left as its
/// last stored move said (full time for a side that has not moved), running from now.
pub fn resumed(stored: &qchess_store::StoredGame) -> Option<Clock> {
    let kept = stored.options.get("clock")?;
    let seconds = |name: &str| kept.get(name).and_then(serde_json::Value::as_u64).map(Duration::from_secs);
    let control = TimeControl { base: seconds("base_secs")?, increment: seconds("increment_secs")? };
    let record = qchess_store::replay::export(stored);
    let start_black = record.start().is_ok_and(|fen| fen.turn == Color::Black);
    let mut clock = Clock::new(control);
    for (index, mv) in record.moves.iter().enumerate() {
        let Some(remaining) = mv.comment.as_deref().and_then(parse_clock_comment) else { continue };
        let black = (index % 2 == 1) != start_black;
        clock.remaining[usize::from(black)] = remaining;
    }
    Some(clock)
}

/// Reads `[%clk H:MM:SS]`.
fn parse_clock_comment(text: &str) -> Option<Duration> {
    let inner = text.trim().strip_prefix("[%clk ")?.strip_suffix(']')?;
    let mut parts = inner.split(':').map(|p| p.parse::<u64>().ok());
    let (hours, minutes, seconds) = (parts.next()??, parts.next()??, parts.next()??);
    Some(Duration::from_secs(hours * 3600 + minutes * 60 + seconds))
}

/// `[%clk 0:04:58]`, the PGN clock comment.
pub fn clock_comment(remaining: Duration) -> String {
    let seconds = remaining.as_secs();
    format!("[%clk {}:{:02}:{:02}]", seconds / 3600, seconds / 60 % 60, seconds % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_controls_parse_and_clocks_count_down() {
        let control: TimeControl = "5+3".parse().expect("control");
        assert_eq!((control.base, control.increment), (Duration::from_secs(300), Duration::from_secs(3)));
        assert_eq!(control.tag(), "300+3");
        assert!("5".parse::<TimeControl>().is_err() && "x+3".parse::<TimeControl>().is_err());
        let mut clock = Clock::new(control);
        assert!(!clock.expired(Color::White));
        clock.charge(Color::White);
        assert!(
            clock.after_each_ply[0] > Duration::from_secs(302) && clock.after_each_ply[0] <= Duration::from_secs(303)
        );
        assert!(Clock::new("0+0".parse().expect("control")).expired(Color::Black));
        assert_eq!(clock_comment(Duration::from_secs(3725)), "[%clk 1:02:05]");
    }
}
