//! The end of the game: kings, the fifty-move rule, repetition, and measuring every square.

use qchess_core::{Bitboard, Color, PositionError};
use rand::RngExt;

use super::Game;
use crate::{EndReason, GameEnd, GameError};

/// The fifty-move counter value at which every square is measured.
pub const FIFTY_MOVE_LIMIT: u32 = 100;

/// Probabilities at or below this count as impossible for a replayed full-board measurement.
const IMPOSSIBLE: f64 = 1e-12;

impl Game {
    /// How the official game stands after the tracker took in a move: kings, then the
    /// fifty-move and repetition claims, which measure every square.
    pub(crate) fn decide_by_kings(&mut self) -> Result<Option<GameEnd>, GameError> {
        let kings = (self.tracker.has_king(Color::White), self.tracker.has_king(Color::Black));
        if let Some(end) = GameEnd::from_kings(kings.0, kings.1, None) {
            return Ok(Some(end));
        }
        let claim = if self.tracker.position.halfmove_clock() >= FIFTY_MOVE_LIMIT {
            Some(EndReason::FiftyMoveRule)
        } else if self.is_third_repetition() {
            Some(EndReason::ThreefoldRepetition)
        } else {
            None
        };
        let Some(claim) = claim else { return Ok(None) };
        let measured = self.measure_every_square()?;
        self.tracker = self.tracker.after_measurement(measured).map_err(position_error)?;
        let kings = (self.tracker.has_king(Color::White), self.tracker.has_king(Color::Black));
        Ok(GameEnd::from_kings(kings.0, kings.1, Some(claim)))
    }

    /// Whether the current (fully classical) position occurred at least twice before.
    pub(crate) fn is_third_repetition(&self) -> bool {
        if !self.tracker.is_classical() {
            return false;
        }
        let earlier = self.snapshots.iter().filter(|s| s.tracker.repeats(&self.tracker)).count();
        earlier >= 2
    }

    /// One whole board drawn from the exact distribution with the game's generator, or the
    /// board set for replay (checked to be possible when the board is exact).
    fn measure_every_square(&mut self) -> Result<Bitboard, GameError> {
        let distribution = self.board.distribution().map_err(GameError::Backend)?;
        if let Some(measured) = self.pending_measurement {
            let probability: f64 = distribution.iter().filter(|(b, _)| *b == measured).map(|(_, p)| p).sum();
            if self.board.is_exact() && probability <= IMPOSSIBLE {
                let squares: Vec<String> = measured.iter().map(|sq| sq.to_string()).collect();
                return Err(GameError::ImpossibleMeasurement { board: squares.join(" ") });
            }
            self.pending_measurement = None;
            return Ok(measured);
        }
        let total: f64 = distribution.iter().map(|(_, p)| p).sum();
        let mut draw = self.rng.random::<f64>() * total;
        for &(board, probability) in &distribution {
            if draw < probability {
                return Ok(board);
            }
            draw -= probability;
        }
        // Rounding left the draw past the end: the last board with weight is the one.
        distribution.iter().rev().find(|(_, p)| *p > 0.0).map(|&(board, _)| board).ok_or_else(|| {
            GameError::Backend(qchess_core::BoardError::Backend("the board has an empty distribution".into()))
        })
    }
}

fn position_error(error: PositionError) -> GameError {
    GameError::Position(error)
}
