//! A computer opponent that plays a random legal move, seeded so games are repeatable.
//!
//! ```
//! use qchess_engine::Game;
//! use qchess_engine::ai::RandomMover;
//!
//! let mut game = Game::standard();
//! let mut ai = RandomMover::new(7);
//! let played = ai.play(&mut game)?;
//! assert_eq!(game.moves().len(), 1);
//! assert_eq!(game.moves()[0].notation, played.notation);
//! # Ok::<(), qchess_engine::GameError>(())
//! ```

use qchess_core::BoardError;
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

use crate::{Game, GameError, PlayedMove};

/// Picks uniformly among the legal moves with its own seeded generator.
#[derive(Debug, Clone)]
pub struct RandomMover {
    rng: ChaCha8Rng,
}

impl RandomMover {
    /// A mover whose choices follow from `seed`.
    pub fn new(seed: u64) -> RandomMover {
        RandomMover { rng: ChaCha8Rng::seed_from_u64(seed) }
    }

    /// Plays a random legal move for the side to move.
    ///
    /// A move the board cannot hold (its state would grow past the cap) is skipped and another
    /// one tried; the game is unchanged by a skipped move. Fails when no move can be played.
    pub fn play(&mut self, game: &mut Game) -> Result<PlayedMove, GameError> {
        let mut moves = game.legal_moves();
        moves.shuffle(&mut self.rng);
        let mut last_error = None;
        for mv in moves {
            match game.play_legal(&mv) {
                Ok(played) => return Ok(played),
                Err(error @ GameError::Board { source: BoardError::StateTooLarge { .. }, .. }) => {
                    last_error = Some(error);
                }
                Err(error) => return Err(error),
            }
        }
        Err(last_error.unwrap_or(GameError::NoLegalMove { side: game.turn() }))
    }
}
