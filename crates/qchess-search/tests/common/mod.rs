//! What the search's test files share: games from a FEN and moves, and a plain search.

use qchess_core::Fen;
use qchess_engine::{Game, GameOptions};
use qchess_search::{SearchConfig, SearchInfo, SearchLimits, Searcher};

/// The game from `fen` after `moves`, under the official rules.
pub fn game(fen: &str, moves: &[&str]) -> Game {
    let fen: Fen = fen.parse().unwrap();
    let mut game = Game::new(&fen, GameOptions::default()).unwrap();
    for mv in moves {
        game.play(mv).unwrap();
    }
    game
}

/// A fresh search of `game` to `depth` (not every test file searches plainly).
#[allow(dead_code)]
pub fn search(game: &Game, depth: u32) -> SearchInfo {
    Searcher::new(SearchConfig::default()).search(game, &SearchLimits::depth(depth)).unwrap()
}
