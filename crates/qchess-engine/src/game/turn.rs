//! One ply in progress: the board steps a rule set takes to play a move.

use qchess_core::{
    Bitboard, LegalMove, MoveReport, MoveSquares, MoveType, MoveVariant, Notation, Piece, PositionError, Square,
    TypedMove,
};

use rand::RngExt as _;

use super::{Game, PlayedMove, board_error};
use crate::{GameError, MoveCode};

/// A ply being played. A [`Rules`](crate::rules::Rules) implementation gets one in
/// [`Rules::play`](crate::rules::Rules::play) and runs the move's board steps through it; the
/// game counts the steps so that a refused move, and a later undo, take every one of them back.
pub struct Turn<'g> {
    game: &'g mut Game,
    steps: usize,
    played: Option<PlayedMove>,
    collapse: Option<MoveReport>,
    /// The squares the steps so far changed.
    changed: Bitboard,
}

impl std::fmt::Debug for Turn<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Turn").field("steps", &self.steps).field("played", &self.played).finish_non_exhaustive()
    }
}

impl<'g> Turn<'g> {
    pub(super) fn new(game: &'g mut Game) -> Turn<'g> {
        Turn { game, steps: 0, played: None, collapse: None, changed: Bitboard::EMPTY }
    }

    /// The board steps taken and the move the ply records (with every square its steps
    /// changed).
    pub(super) fn finish(self) -> (usize, Option<PlayedMove>) {
        let changed = self.changed;
        (self.steps, self.played.map(|played| PlayedMove { changed, ..played }))
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
        let outcome = written_outcome(&report);
        let recorded = LegalMove { notation: legal.notation.with_outcome(outcome), typed: typed.with_outcome(outcome) };
        game.read_square_probabilities()?;
        self.changed |= game
            .tracker
            .after_move(&recorded, mover, &report, &game.read_probabilities, resets_clock)
            .map_err(|error| inconsistent(&recorded, error))?;
        let played = PlayedMove {
            notation: recorded.notation,
            typed: recorded.typed,
            mover,
            report,
            code: MoveCode::Success,
            declared: Notation::Move(recorded.notation),
            collapse: self.collapse,
            changed: Bitboard::EMPTY,
        };
        self.played = Some(played);
        Ok(played)
    }

    /// Measures whether `square` is occupied, as one board step, and collapses the tracker to
    /// the result; the turn does not pass. `forced` (`Some(true)`: occupied) pins the outcome
    /// unless the game ignores forced outcomes. The report's `outcome` is `Some(true)` when the
    /// square was found occupied; `move_text` names the move in errors.
    ///
    /// The step is a pawn capture from `square` onto a certainly empty square: its circuit
    /// measures its source (m1 = occupied) and, its target holding nothing, moves nothing. So a
    /// collapse is an ordinary typed move that every board, local or remote, compiles and runs.
    pub(crate) fn measure(
        &mut self,
        square: Square,
        forced: Option<bool>,
        move_text: &str,
    ) -> Result<MoveReport, GameError> {
        let forced = forced.filter(|_| self.game.options.force_outcomes);
        self.measure_exactly(square, forced, move_text)
    }

    /// [`Turn::measure`] with `forced` pinning the outcome whatever the game's options say.
    fn measure_exactly(
        &mut self,
        square: Square,
        forced: Option<bool>,
        move_text: &str,
    ) -> Result<MoveReport, GameError> {
        let game = &mut *self.game;
        let empty =
            game.position().certainly_empty().iter().find(|&sq| sq != square).ok_or(GameError::NoEmptySquare)?;
        let squares = MoveSquares::Standard { from: square, to: empty };
        let typed = TypedMove {
            squares,
            move_type: MoveType::PawnCapture,
            variant: MoveVariant::Capture,
            promotion: None,
            outcome: forced,
        };
        let report =
            game.board.apply(&typed).map_err(|source| GameError::Board { mv: move_text.to_owned(), source })?;
        self.steps += 1;
        game.read_square_probabilities()?;
        self.changed |= game.tracker.after_collapse(&game.read_probabilities).map_err(|error| match error {
            PositionError::Unlabelled { square, probability } => {
                GameError::Inconsistent { mv: move_text.to_owned(), square, probability }
            }
            other => GameError::Position(other),
        })?;
        self.collapse = Some(report);
        Ok(report)
    }

    /// Measures `square` as [`Turn::measure`] does, then every other square of its entangled
    /// group ([`entangled_group`](crate::analysis::entangled_group), read before the first
    /// measurement) that is still uncertain, one board step each, so that no square of the
    /// group is left uncertain. `forced` pins `square`'s outcome only; the others are drawn
    /// from their exact probabilities with the game's generator and forced on the board, so a
    /// replay from the same seed collapses them the same way on any board. Returns the report
    /// of `square`'s measurement.
    pub(crate) fn collapse_group(
        &mut self,
        square: Square,
        forced: Option<bool>,
        move_text: &str,
    ) -> Result<MoveReport, GameError> {
        let distribution = self.game.distribution()?;
        let group = crate::analysis::entangled_group(&distribution, square);
        let report = self.measure(square, forced, move_text)?;
        for other in group.iter().filter(|&sq| sq != square) {
            let probability = self.game.probability(other);
            if probability <= 0.0 || probability >= 1.0 {
                continue;
            }
            let occupied = self.game.rng.random::<f64>() < probability;
            self.measure_exactly(other, Some(occupied), move_text)?;
        }
        self.collapse = Some(report);
        Ok(report)
    }

    /// Ends the turn without moving a piece: `declared`, a move of `mover`, failed (or was a
    /// measurement only). The turn passes, counters advance, and the ply records `declared`.
    pub(crate) fn fail(&mut self, declared: LegalMove, mover: Piece) -> Result<PlayedMove, GameError> {
        let game = &mut *self.game;
        let report = MoveReport { proceeded: false, outcome: None, outcome_probability: None };
        let probabilities = game.position().probabilities().clone();
        self.changed |= game
            .tracker
            .after_move(&declared, mover, &report, &probabilities, false)
            .map_err(|error| inconsistent(&declared, error))?;
        let played = PlayedMove {
            notation: declared.notation,
            typed: declared.typed,
            mover,
            report,
            code: MoveCode::Success,
            declared: Notation::Move(declared.notation),
            collapse: self.collapse,
            changed: Bitboard::EMPTY,
        };
        self.played = Some(played);
        Ok(played)
    }

    /// Records the ply as `declared` (with its outcome) instead of the move that ran.
    pub(crate) fn declare(&mut self, declared: Notation) {
        if let Some(played) = &mut self.played {
            played.declared = declared;
        }
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

/// The outcome a record writes for a board step: only a measurement that could have gone
/// either way. A board may measure a qubit whose outcome was certain (a piece that once
/// moved through a circuit but stands on its square with probability 1); the rules see no
/// measurement there, so writing `.m1` would give a record that does not replay.
pub(crate) fn written_outcome(report: &MoveReport) -> Option<bool> {
    report
        .outcome_probability
        .filter(|&p| p < 1.0 - qchess_core::quantum_board::CERTAINTY_TOLERANCE)
        .and(report.outcome)
}
