//! Playing and undoing moves.

use qchess_core::{IllegalMove, LegalMove, Notation, Piece, Position, PositionError};

use super::{Game, PlayedMove, Snapshot, board_error};
use crate::tracker::Tracker;
use crate::{GameError, MoveCode};

impl Game {
    /// Plays a move in official notation (see the [module docs](super)).
    pub fn play(&mut self, text: &str) -> Result<PlayedMove, GameError> {
        let notation: Notation = text.trim().parse()?;
        self.play_notation(&notation)
    }

    /// Plays a parsed move. On any error the game and the board are unchanged.
    pub fn play_notation(&mut self, notation: &Notation) -> Result<PlayedMove, GameError> {
        if let Some(end) = self.tracker.end.filter(|_| self.options.enforce_win_conditions) {
            return Err(GameError::GameOver { result: end.result, reason: end.reason });
        }
        let (legal, mover) = self.validate(notation)?;
        self.run_checked(legal, mover)
    }

    /// Runs a checked move on the board and feeds it to the tracker.
    fn run_checked(&mut self, legal: LegalMove, mover: Piece) -> Result<PlayedMove, GameError> {
        let mut typed = legal.typed;
        if !self.options.force_outcomes {
            typed = typed.with_outcome(None);
        }
        let report = self.board.apply(&typed).map_err(|e| board_error(&legal.notation, e))?;
        // Only a measurement of a qubit can go either way; a certain (classical) one is not
        // written, so records stay as the players wrote them.
        let outcome = report.outcome_probability.and(report.outcome);
        let recorded = LegalMove { notation: legal.notation.with_outcome(outcome), typed: typed.with_outcome(outcome) };
        match self.advance(&recorded, mover, report) {
            Ok(played) => Ok(played),
            Err(error) => {
                // Take the move back off the board so nothing is half-applied.
                self.board.undo().map_err(GameError::Backend)?;
                Err(error)
            }
        }
    }

    /// Plays a move taken from [`Game::legal_moves`] in the current position, without checking
    /// and classifying it again (the generator just did). A move whose source does not hold a
    /// piece of the side to move is checked in full, like [`Game::play_notation`], so it is
    /// refused with the rule it breaks. On any error the game and the board are unchanged.
    pub fn play_legal(&mut self, mv: &LegalMove) -> Result<PlayedMove, GameError> {
        let position = &self.tracker.position;
        let (first, second, _) = mv.typed.squares.api_squares();
        let mover = position.piece_at(first).filter(|piece| piece.color == position.turn());
        let second_source = matches!(mv.typed.squares, qchess_core::MoveSquares::Merge { .. }).then_some(second);
        match mover {
            Some(piece) if second_source.is_none_or(|sq| position.piece_at(sq) == Some(piece)) => {
                if let Some(end) = self.tracker.end.filter(|_| self.options.enforce_win_conditions) {
                    return Err(GameError::GameOver { result: end.result, reason: end.reason });
                }
                self.run_checked(*mv, piece)
            }
            _ => self.play_notation(&mv.notation.into()),
        }
    }

    /// Checks `notation` against the position of the side that moves it.
    fn validate(&self, notation: &Notation) -> Result<(LegalMove, Piece), GameError> {
        let position = self.position_for(notation)?;
        let legal = position.validate(notation)?;
        let source = legal.typed.sources()[0];
        // `validate` has checked that the source holds a piece of the side to move.
        let mover = position.piece_at(source).ok_or_else(|| {
            GameError::Illegal(IllegalMove {
                text: notation.to_string(),
                reason: qchess_core::Illegal::EmptySource { square: source },
            })
        })?;
        Ok((legal, mover))
    }

    /// The position to check a move in: the game's, or, without turn order, the same position
    /// with the moving piece's side to move (and no en-passant square, which belongs to the
    /// side whose turn it is).
    fn position_for(&self, notation: &Notation) -> Result<std::borrow::Cow<'_, Position>, GameError> {
        let position = &self.tracker.position;
        let Notation::Move(mv) = notation else { return Ok(std::borrow::Cow::Borrowed(position)) };
        let source = mv.squares.sources()[0];
        match position.piece_at(source) {
            Some(piece) if !self.options.enforce_turn_order && piece.color != position.turn() => {
                let mut fen = position.to_fen();
                fen.turn = piece.color;
                fen.en_passant = None;
                let flipped = Position::new(fen, position.probabilities().clone())?;
                Ok(std::borrow::Cow::Owned(flipped))
            }
            _ => Ok(std::borrow::Cow::Borrowed(position)),
        }
    }

    /// Feeds a move the board has run into the tracker and decides how the game stands.
    fn advance(
        &mut self,
        mv: &LegalMove,
        mover: Piece,
        report: qchess_core::MoveReport,
    ) -> Result<PlayedMove, GameError> {
        let probabilities = self.board.square_probabilities().map_err(GameError::Backend)?;
        let next = self.tracker.after_move(mv, mover, &report, probabilities).map_err(|error| match error {
            PositionError::Unlabelled { square, probability } => {
                GameError::Inconsistent { mv: mv.notation.to_string(), square, probability }
            }
            other => GameError::Position(other),
        })?;
        let rng_word = self.rng.get_word_pos();
        let snapshot = Snapshot { tracker: self.tracker.save(), rng_word };
        let previous = std::mem::replace(&mut self.tracker, next);
        self.snapshots.push(snapshot);
        let code = match self.decide() {
            Ok(code) => code,
            Err(error) => {
                self.snapshots.pop();
                self.tracker = previous;
                self.rng.set_word_pos(rng_word);
                return Err(error);
            }
        };
        let played = PlayedMove { notation: mv.notation, typed: mv.typed, mover, report, code };
        self.played.push(played);
        Ok(played)
    }

    /// Takes back the last move: the board's undo and the tracker's snapshot. Returns the
    /// move taken back.
    pub fn undo(&mut self) -> Result<PlayedMove, GameError> {
        let (Some(played), Some(snapshot)) = (self.played.last().copied(), self.snapshots.last()) else {
            return Err(GameError::NothingToUndo);
        };
        let tracker = Tracker::restore(&snapshot.tracker)?;
        self.board.undo().map_err(GameError::Backend)?;
        self.tracker = tracker;
        self.rng.set_word_pos(snapshot.rng_word);
        self.snapshots.pop();
        self.played.pop();
        Ok(played)
    }

    /// The result codes of the moves played so far; for the official engine's view of a game.
    pub fn codes(&self) -> Vec<MoveCode> {
        self.played.iter().map(|m| m.code).collect()
    }
}
