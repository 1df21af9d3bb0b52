//! Each ply reports the squares it changed, and undo puts back the position it replaced.

use qchess_core::Fen;
use qchess_engine::ai::RandomMover;
use qchess_engine::{Game, GameOptions, RuleSet};

#[test]
fn every_ply_reports_exactly_the_squares_it_changed_under_every_rule_set() {
    for rules in RuleSet::ALL {
        for seed in 0..6u64 {
            let options = GameOptions { rules, ..GameOptions::with_seed(seed) };
            let mut game = Game::new(&Fen::start(), options).unwrap();
            let mut mover = RandomMover::new(seed);
            let mut before = vec![game.position().clone()];
            while !game.is_over() && game.moves().len() < 120 {
                let Ok(played) = mover.play(&mut game) else { break };
                let previous = game.previous_position().unwrap();
                assert_eq!(previous, before.last().unwrap(), "{rules:?} seed {seed}");
                let expected = if game.measured_board().is_some() {
                    qchess_core::Bitboard::FULL
                } else {
                    game.position().changed_squares(previous)
                };
                assert_eq!(played.changed, expected, "{rules:?} seed {seed}: {}", played.notation);
                before.push(game.position().clone());
            }
            // Undo gives back every earlier position exactly.
            while game.undo().is_ok() {
                before.pop();
                assert_eq!(game.position(), before.last().unwrap(), "{rules:?} seed {seed}");
            }
        }
    }
}
