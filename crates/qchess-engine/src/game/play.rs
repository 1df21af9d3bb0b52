//! Playing and undoing moves: a ply is whatever board steps the game's rule set takes.

use qchess_core::{LegalMove, Notation, Position};

use super::{Game, PlayedMove, Snapshot, Turn};
use crate::rules::RuleSet;
use crate::{GameError, MoveCode};

impl Game {
    /// Plays a move in official notation (see the [module docs](super)).
    pub fn play(&mut self, text: &str) -> Result<PlayedMove, GameError> {
        let notation: Notation = text.trim().parse()?;
        self.play_notation(&notation)
    }

    /// Plays a parsed move by the game's rules. On any error the game and the board are
    /// unchanged.
    pub fn play_notation(&mut self, notation: &Notation) -> Result<PlayedMove, GameError> {
        self.check_not_over()?;
        let rules = self.options.rules.rules();
        self.play_ply(|turn| rules.play(turn, notation))
    }

    /// Plays a move taken from [`Game::legal_moves`] in the current position. Under the
    /// official rules it is not checked and classified again (the generator just did), unless
    /// its source does not hold a piece of the side to move: then it is checked in full, like
    /// [`Game::play_notation`], so it is refused with the rule it breaks. On any error the game
    /// and the board are unchanged.
    pub fn play_legal(&mut self, mv: &LegalMove) -> Result<PlayedMove, GameError> {
        if self.options.rules != RuleSet::Official {
            return self.play_notation(&mv.notation.into());
        }
        let position = &self.tracker.position;
        let (first, second, _) = mv.typed.squares.api_squares();
        let mover = position.piece_at(first).filter(|piece| piece.color == position.turn());
        let second_source = matches!(mv.typed.squares, qchess_core::MoveSquares::Merge { .. }).then_some(second);
        match mover {
            Some(piece) if second_source.is_none_or(|sq| position.piece_at(sq) == Some(piece)) => {
                self.check_not_over()?;
                self.play_ply(|turn| turn.run(*mv, piece, false).map(|_| ()))
            }
            _ => self.play_notation(&mv.notation.into()),
        }
    }

    /// Refuses moves once the game has ended (unless win conditions are off).
    pub(super) fn check_not_over(&self) -> Result<(), GameError> {
        match self.tracker.end.filter(|_| self.options.enforce_win_conditions) {
            Some(end) => Err(GameError::GameOver { result: end.result, reason: end.reason }),
            None => Ok(()),
        }
    }

    /// Runs one ply: `play` takes its board steps, then the rules decide how the game stands.
    /// Any error takes every step back.
    fn play_ply(&mut self, play: impl FnOnce(&mut Turn<'_>) -> Result<(), GameError>) -> Result<PlayedMove, GameError> {
        // The snapshot goes on its stack first, so the tracker is copied once, into its place.
        self.snapshots.push(Snapshot { tracker: self.tracker.clone(), rng_word: self.rng.get_word_pos(), steps: 0 });
        let mut turn = Turn::new(self);
        let outcome = play(&mut turn);
        let (steps, played) = turn.finish();
        if let Some(snapshot) = self.snapshots.last_mut() {
            snapshot.steps = steps;
        }
        let mut played = match (outcome, played) {
            (Ok(()), Some(played)) => played,
            (Ok(()), None) => {
                self.take_back_ply()?;
                return Err(GameError::NothingPlayed);
            }
            (Err(error), _) => {
                self.take_back_ply()?;
                return Err(error);
            }
        };
        let end = if self.options.enforce_win_conditions {
            match self.options.rules.rules().decide(self) {
                Ok(end) => end,
                Err(error) => {
                    self.take_back_ply()?;
                    return Err(error);
                }
            }
        } else {
            None
        };
        self.tracker.end = end;
        played.code = end.map_or(MoveCode::Success, |end| end.code);
        played.changed = match self.snapshots.last() {
            Some(snapshot) if self.tracker.measured.is_none() => {
                // Steps a rule set took back within the ply may have changed a square only
                // for a while: keep the squares that differ in the end.
                let (now, before) = (&self.tracker.position, &snapshot.tracker.position);
                played
                    .changed
                    .into_iter()
                    .filter(|&sq| {
                        now.piece_at(sq) != before.piece_at(sq) || now.probability(sq) != before.probability(sq)
                    })
                    .collect()
            }
            _ => qchess_core::Bitboard::FULL,
        };
        self.played.push(played);
        Ok(played)
    }

    /// Takes back the board steps of the ply being played and restores the state from before
    /// it (its snapshot, the last, is dropped).
    fn take_back_ply(&mut self) -> Result<(), GameError> {
        let Some(snapshot) = self.snapshots.pop() else { return Ok(()) };
        self.roll_back(&snapshot)
    }

    /// Takes back the board steps of a ply and restores the state from before it.
    fn roll_back(&mut self, snapshot: &Snapshot) -> Result<(), GameError> {
        for _ in 0..snapshot.steps {
            self.board.undo().map_err(GameError::Backend)?;
        }
        if snapshot.steps > 0 || self.tracker != snapshot.tracker {
            self.tracker.clone_from(&snapshot.tracker);
        }
        self.rewind_rng(snapshot.rng_word);
        Ok(())
    }

    /// Puts the game's generator back to `word` in its stream; a ply that drew nothing leaves
    /// it there already, and setting the position refills the generator's block.
    fn rewind_rng(&mut self, word: u128) {
        if self.rng.get_word_pos() != word {
            self.rng.set_word_pos(word);
        }
    }

    /// The position to check a move in: the game's, or, without turn order, the same position
    /// with the moving piece's side to move (and no en-passant square, which belongs to the
    /// side whose turn it is).
    pub(crate) fn position_for(&self, notation: &Notation) -> Result<std::borrow::Cow<'_, Position>, GameError> {
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

    /// Takes back the last move: the board's undo of each of its steps and the tracker's
    /// snapshot. Returns the move taken back.
    pub fn undo(&mut self) -> Result<PlayedMove, GameError> {
        let (Some(played), Some(&Snapshot { rng_word, steps, .. })) =
            (self.played.last().copied(), self.snapshots.last())
        else {
            return Err(GameError::NothingToUndo);
        };
        for _ in 0..steps {
            self.board.undo().map_err(GameError::Backend)?;
        }
        self.rewind_rng(rng_word);
        if let Some(snapshot) = self.snapshots.last() {
            self.tracker.clone_from(&snapshot.tracker);
        }
        // Dropped where it lies: moving it out first would be a second copy.
        self.snapshots.truncate(self.snapshots.len() - 1);
        self.played.pop();
        self.drop_mode_changes_after(self.played.len());
        Ok(played)
    }

    /// The result codes of the moves played so far; for the official engine's view of a game.
    pub fn codes(&self) -> Vec<MoveCode> {
        self.played.iter().map(|m| m.code).collect()
    }
}
