//! The search's board: its own copy of the game, and what the search keeps per ply, updated by
//! each move and dropped by undo instead of being rebuilt at every node.
//!
//! - The position itself: the game keeps the one before each move and puts it back on undo;
//!   each move's position is built from the one before, square by square
//!   ([`Position::new_after`](qchess_core::Position::new_after)).
//! - The evaluation's material, piece-square and mobility terms ([`KeptTerms`]): updated by
//!   the squares whose label or probability the move changed (the game reports them,
//!   [`PlayedMove::changed`]) and the pieces that reach them.
//! - The key: the position's Zobrist key, kept up to date by the position, and the hash of
//!   the quantum state, reused while moves leave the state untouched (same state version; the
//!   search's board makes every certain square classical, so most moves do).

use qchess_core::{LegalMove, Notation};
use qchess_engine::{Game, GameError, PlayedMove};

use crate::branch::{Branch, play_first, play_outcome};
use crate::eval::{KeptTerms, SquareValues, Weights, evaluate_with};
use crate::table::{combine, position_key, quantum_hash};

/// What the search keeps for one ply.
#[derive(Debug, Clone, Copy)]
struct Frame {
    /// The evaluation's kept terms.
    terms: KeptTerms,
    /// The board's state version, and the hash of that state once computed.
    version: Option<u64>,
    quantum: Option<u64>,
}

/// The search's game with its per-ply state. See the [module docs](self).
pub(crate) struct SearchBoard {
    game: Game,
    values: SquareValues,
    frames: Vec<Frame>,
}

impl SearchBoard {
    /// The board over `game` (the search's own copy), evaluating with `weights`.
    pub(crate) fn new(game: Game, weights: &Weights) -> SearchBoard {
        let values = SquareValues::new(weights);
        let root = Frame {
            terms: KeptTerms::new(game.position(), &values),
            version: game.local_board().map(|board| board.state_version()),
            quantum: None,
        };
        let mut frames = Vec::with_capacity(64);
        frames.push(root);
        SearchBoard { game, values, frames }
    }

    /// The game, for queries.
    pub(crate) fn game(&self) -> &Game {
        &self.game
    }

    /// Plays `mv`, its `m1` outcome when it measures (see [`play_first`]).
    pub(crate) fn play_first(&mut self, mv: &LegalMove) -> Result<Branch, GameError> {
        let branch = play_first(&mut self.game, mv)?;
        self.push();
        Ok(branch)
    }

    /// Plays `mv` with a forced outcome (see [`play_outcome`]).
    pub(crate) fn play_outcome(&mut self, mv: &LegalMove, outcome: Option<bool>) -> Result<PlayedMove, GameError> {
        let played = play_outcome(&mut self.game, mv, outcome)?;
        self.push();
        Ok(played)
    }

    /// Plays a move as written (an observer-rules pair).
    pub(crate) fn play_notation(&mut self, notation: &Notation) -> Result<PlayedMove, GameError> {
        let played = self.game.play_notation(notation)?;
        self.push();
        Ok(played)
    }

    /// Takes the last move back.
    pub(crate) fn undo(&mut self) {
        if self.game.undo().is_ok() && self.frames.len() > 1 {
            self.frames.pop();
        }
    }

    /// The frame after a move: the square terms of the squares it changed replaced, the
    /// quantum hash kept when the state is the same.
    fn push(&mut self) {
        let Some(&parent) = self.frames.last() else { return };
        let position = self.game.position();
        let terms = match (self.game.previous_position(), self.game.moves().last()) {
            (Some(previous), Some(played)) => parent.terms.after(previous, position, played.changed, &self.values),
            _ => KeptTerms::new(position, &self.values),
        };
        let version = self.game.local_board().map(|board| board.state_version());
        let quantum = if version.is_some() && version == parent.version { parent.quantum } else { None };
        self.frames.push(Frame { terms, version, quantum });
    }

    /// The transposition key of the current position ([`position_key`]), hashing the quantum
    /// state only when a move changed it.
    pub(crate) fn key(&mut self) -> u64 {
        let Some(frame) = self.frames.last_mut() else { return position_key(&self.game) };
        let Some(board) = self.game.local_board().filter(|_| frame.version.is_some()) else {
            return position_key(&self.game);
        };
        let quantum = *frame.quantum.get_or_insert_with(|| quantum_hash(board));
        combine(&self.game, quantum)
    }

    /// The evaluation of the current position for the side to move, from the kept terms.
    pub(crate) fn evaluate(&self, weights: &Weights) -> f64 {
        match self.frames.last() {
            Some(frame) => evaluate_with(self.game.position(), weights, &frame.terms),
            None => crate::eval::evaluate(self.game.position(), weights),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::evaluate;
    use qchess_engine::GameOptions;
    use rand::seq::IndexedRandom;
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Random moves (every outcome forced both ways in turn) and undos: the kept terms and key
    /// always equal the ones computed from scratch.
    #[test]
    fn kept_terms_and_keys_match_the_ones_computed_from_scratch() {
        let weights = Weights::default();
        for seed in 0..12u64 {
            let game = Game::new(&qchess_core::Fen::start(), GameOptions::with_seed(seed)).unwrap();
            let copy = crate::search::search_copy(&game, 1 << 12).unwrap();
            let mut board = SearchBoard::new(copy, &weights);
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let mut depth = 0;
            for _ in 0..400 {
                let moves = board.game().legal_moves();
                let undo = depth > 0 && (board.game().is_over() || moves.is_empty() || rng.random_bool(0.4));
                if undo {
                    board.undo();
                    depth -= 1;
                } else if let Some(mv) = moves.choose(&mut rng) {
                    let played = if rng.random_bool(0.5) {
                        board.play_first(mv).is_ok()
                    } else {
                        board.play_outcome(mv, Some(false)).is_ok() || board.play_first(mv).is_ok()
                    };
                    depth += usize::from(played);
                }
                let scratch = evaluate(board.game().position(), &weights);
                let kept = board.evaluate(&weights);
                assert!((kept - scratch).abs() < 1e-6, "seed {seed}: kept {kept}, from scratch {scratch}");
                assert_eq!(board.key(), position_key(board.game()), "seed {seed}");
            }
        }
    }
}
