//! A claim that measures every square (fifty moves, repetition) keeps what each king's
//! presence was just before: the claim's result is drawn from it, so a search can score the
//! claim by its expected result rather than by the one draw.

use qchess_core::Fen;
use qchess_engine::{EndReason, Game, GameOptions};

/// Black's king split onto d8 and f8, half of it captured on d8 by the rook; the fifty-move
/// counter then reaches 100 with Black's next move.
fn half_a_king_at_the_fifty_move_limit(seed: u64) -> Game {
    let fen: Fen = "4k3/8/8/8/8/8/8/3RK3 b - - 97 60".parse().unwrap();
    let mut game = Game::new(&fen, GameOptions::with_seed(seed)).unwrap();
    game.play("e8^d8f8").unwrap();
    game.play("d1xd8").unwrap();
    assert!((game.probability("d8".parse().unwrap()) - 1.0).abs() < 1e-9, "the rook stands on d8");
    assert!((game.probability("f8".parse().unwrap()) - 0.5).abs() < 1e-9, "half the king is left");
    assert_eq!(game.fifty_move_counter(), 99);
    game
}

#[test]
fn a_fifty_move_claim_keeps_each_kings_presence_from_before_its_measurement() {
    let mut outcomes = [0; 2];
    for seed in 0..40 {
        let mut game = half_a_king_at_the_fifty_move_limit(seed);
        assert_eq!(game.kings_before_measurement(), None);
        game.play("f8g8").unwrap();
        let end = game.end().expect("the claim ended the game");
        assert_eq!(end.reason, EndReason::FiftyMoveRule);
        let kings = game.kings_before_measurement().expect("the claim measured every square");
        assert!((kings[0] - 1.0).abs() < 1e-9 && (kings[1] - 0.5).abs() < 1e-9, "{kings:?}");
        // The draw itself found Black's king or not, about half the time each.
        outcomes[usize::from(game.measured_board().unwrap().contains("g8".parse().unwrap()))] += 1;
        // Undo takes the claim and what it kept back.
        game.undo().unwrap();
        assert_eq!(game.kings_before_measurement(), None);
        assert!(!game.is_over());
    }
    assert!(outcomes.iter().all(|&n| n > 0), "{outcomes:?}");
}
