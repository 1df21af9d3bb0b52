//! One ply in progress: the board steps a rule set takes to play a move.

use qchess_core::{LegalMove, Piece, PositionError};

use super::{Game, PlayedMove, board_error};
use crate::{GameError, MoveCode};

/// A ply being played. A [`Rules`](crate::rules::Rules) implementation gets one in
/// [`Rules::play`](crate::rules::Rules::play) and runs the move's board steps through it; the
/// game counts the steps so that a refused move, and a later undo, take every one of them back.
pub struct Turn<'g> {
    game: &'g mut Game,
    steps: usize,
    played: Option<PlayedMove>,
}

impl std::fmt::Debug for Turn<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Turn").field("steps", &self.steps).field("played", &self.played).finish_non_exhaustive()
    }
}

impl<'g> Turn<'g> {
    pub(super) fn new(game: &'g mut Game) -> Turn<'g> {
        Turn { game, steps: 0, played: None }
    }

    /// The board steps taken and the move the ply records.
    pub(super) fn finish(self) -> (usize, Option<PlayedMove>) {
        (self.steps, self.played)
    }

    /// The game as it stands after the steps so far.
    pub fn game(&self) -> &Game {
        self.game
    }

    /// Runs `legal`, a move of `mover`, on the board and feeds it to the tracker: the turn
    /// passes to the other side. It becomes the move the ply records. `resets_clock` resets the
    /// fifty-move counter whatever the piece count did (a classical pawn move).
    pub(crate) fn run(&mut self, legal: LegalMove, mover: Piece, resets_clock: bool) -> Result<PlayedMove, GameError> {
        let game = &mut *self.game;
        let mut typed = legal.typed;
        if !game.options.force_outcomes {
            typed = typed.with_outcome(None);
        }
        let report = game.board.apply(&typed).map_err(|e| board_error(&legal.notation, e))?;
        self.steps += 1;
        // Only a measurement of a qubit can go either way; a certain (classical) one is not
        // written, so records stay as the players wrote them.
        let outcome = report.outcome_probability.and(report.outcome);
        let recorded = LegalMove { notation: legal.notation.with_outcome(outcome), typed: typed.with_outcome(outcome) };
        let probabilities = game.board.square_probabilities().map_err(GameError::Backend)?;
        let next = game
            .tracker
            .after_move(&recorded, mover, &report, probabilities, resets_clock)
            .map_err(|error| inconsistent(&recorded, error))?;
        game.tracker = next;
        let played =
            PlayedMove { notation: recorded.notation, typed: recorded.typed, mover, report, code: MoveCode::Success };
        self.played = Some(played);
        Ok(played)
    }
}

/// A tracker error after a board step: the board left a square no piece can explain.
fn inconsistent(mv: &LegalMove, error: PositionError) -> GameError {
    match error {
        PositionError::Unlabelled { square, probability } => {
            GameError::Inconsistent { mv: mv.notation.to_string(), square, probability }
        }
        other => GameError::Position(other),
    }
}
