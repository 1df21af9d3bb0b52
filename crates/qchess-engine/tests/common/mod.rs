//! Helpers shared by the engine's integration tests.

#![allow(dead_code)]

use qchess_core::{Color, Fen, Piece, Role, Square};
use qchess_engine::{Game, GameOptions};

/// Probabilities are compared to hand-derived values to this precision.
pub const EXACT: f64 = 1e-12;

/// A square by name.
pub fn sq(name: &str) -> Square {
    name.parse().unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// A game from a FEN with the default options and `seed`.
pub fn game_from(fen: &str, seed: u64) -> Game {
    let fen: Fen = fen.parse().unwrap_or_else(|e| panic!("{fen}: {e}"));
    Game::new(&fen, GameOptions::with_seed(seed)).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

/// Plays every move, failing the test with the move and the error.
pub fn play_all(game: &mut Game, moves: &str) {
    for mv in moves.split_whitespace() {
        game.play(mv).unwrap_or_else(|e| panic!("{mv}: {e}"));
    }
}

/// Asserts a square's probability to 1e-12.
pub fn assert_probability(game: &Game, square: &str, expected: f64) {
    let actual = game.probability(sq(square));
    assert!((actual - expected).abs() < EXACT, "P({square}) = {actual}, expected {expected}");
}

/// A piece by FEN letter.
pub fn piece(letter: char) -> Piece {
    Piece::from_char(letter).unwrap_or_else(|| panic!("{letter} is no piece"))
}

/// The white or black king.
pub fn king(color: Color) -> Piece {
    Piece::new(color, Role::King)
}

/// A game under `rules` from a FEN (`startpos` for the standard start) with `seed`.
pub fn game_under(rules: qchess_engine::RuleSet, fen: &str, seed: u64) -> Game {
    let fen: Fen = if fen == "startpos" { Fen::start() } else { fen.parse().unwrap_or_else(|e| panic!("{fen}: {e}")) };
    let options = GameOptions { rules, ..GameOptions::with_seed(seed) };
    Game::new(&fen, options).unwrap_or_else(|e| panic!("{fen}: {e}"))
}
