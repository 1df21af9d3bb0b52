//! Chess clocks for `qchess play --clock 5+3`: the engine's Fischer clock (minutes per side plus
//! an increment per move, [`qchess_engine::clock`]) timed by this process's monotonic clock.

use std::time::{Duration, Instant};

use qchess_core::Color;
use qchess_engine::clock::{FischerClock, parse_clock_comment};
pub use qchess_engine::clock::{TimeControl, clock_comment};

/// Both sides' remaining time, charged to the side to move.
#[derive(Debug, Clone)]
pub struct Clock {
    clock: FischerClock,
    turn_started: Instant,
    /// The mover's remaining time after each ply of this session, in order.
    pub after_each_ply: Vec<Duration>,
}

impl Clock {
    /// A clock with both sides at the control's base time, running from now.
    pub fn new(control: TimeControl) -> Clock {
        Clock { clock: FischerClock::new(control), turn_started: Instant::now(), after_each_ply: Vec::new() }
    }

    /// The time control.
    pub fn control(&self) -> TimeControl {
        self.clock.control()
    }

    /// Whether `side` has used up its time on the current turn.
    pub fn expired(&self, side: Color) -> bool {
        self.clock.expired(side, self.turn_started.elapsed())
    }

    /// Charges the turn's time to `side`, which just moved, adds the increment and starts the
    /// other side's turn.
    pub fn charge(&mut self, side: Color) {
        let left = self.clock.charge(side, self.turn_started.elapsed());
        self.after_each_ply.push(left);
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
    let control = qchess_store::clocks::time_control(&stored.options)?;
    let record = qchess_store::replay::export(stored);
    let start_black = record.start().is_ok_and(|fen| fen.turn == Color::Black);
    let mut clock = Clock::new(control);
    for (index, mv) in record.moves.iter().enumerate() {
        let Some(remaining) = mv.comment.as_deref().and_then(parse_clock_comment) else { continue };
        let black = (index % 2 == 1) != start_black;
        clock.clock.set_remaining(if black { Color::Black } else { Color::White }, remaining);
    }
    Some(clock)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clocks_count_down_from_the_time_control() {
        let control: TimeControl = "5+3".parse().expect("control");
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
