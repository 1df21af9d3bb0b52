//! How a game is set up: the official engine's `new_game` options plus the seed.

use crate::RuleSet;

/// Options of a [`Game`](crate::Game), as the official engine's `new_game` takes them.
///
/// The default is the official game under the official rules: turn order and win conditions enforced, outcomes written
/// as `.m0` / `.m1` in a move forced (so records replay), seed 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GameOptions {
    /// Seed of the local board's measurement draws and of the game's own draws (the full-board
    /// measurement of the fifty-move and repetition rules).
    pub seed: u64,
    /// `force_turn`: only the side to move may move. When off, either side may move; after a
    /// move the opponent of the piece that moved is to move.
    pub enforce_turn_order: bool,
    /// `force_win`: the game ends by the win conditions (no king left, fifty-move rule,
    /// threefold repetition). When off, the game never ends and moves are always accepted.
    pub enforce_win_conditions: bool,
    /// `forcemeasure`: a `.m0` / `.m1` suffix forces the move's measurement outcome. When off,
    /// suffixes are ignored and every outcome is drawn.
    pub force_outcomes: bool,
    /// The rules the game is played by.
    pub rules: RuleSet,
    /// The checkmate rules' quantum mode: whether splits are allowed (on by default).
    pub quantum_mode: bool,
}

impl Default for GameOptions {
    fn default() -> GameOptions {
        GameOptions {
            seed: 0,
            enforce_turn_order: true,
            enforce_win_conditions: true,
            force_outcomes: true,
            rules: RuleSet::Official,
            quantum_mode: true,
        }
    }
}

impl GameOptions {
    /// The default options with another seed.
    pub fn with_seed(seed: u64) -> GameOptions {
        GameOptions { seed, ..GameOptions::default() }
    }
}
