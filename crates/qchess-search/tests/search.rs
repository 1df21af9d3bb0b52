//! The search on hand-built official positions: forced king captures, exact chance nodes, the
//! state budget, and legality over random positions.

use proptest::prelude::*;
use qchess_core::Fen;
use qchess_engine::ai::RandomMover;
use qchess_engine::{Game, GameOptions, RuleSet};
use qchess_search::analysis::{SCORE_SCALE, expected_score};
use qchess_search::score::centipawns;
use qchess_search::{SearchConfig, SearchLimits, Searcher, WIN, Weights};

mod common;
use common::{game, search};

#[test]
fn a_king_capture_in_one_is_played_at_once() {
    let position = game("6k1/8/8/8/8/8/8/K5R1 w - - 0 1", &[]);
    let found = search(&position, 3);
    assert_eq!(found.best.to_string(), "g1xg8");
    assert_eq!(found.plies_to_capture(), Some(1));
    assert_eq!(found.depth, 1, "a certain win ends the iterations");
}

#[test]
fn a_back_rank_capture_in_two_is_forced() {
    // The black king can only step along the eighth rank; the rook comes to it.
    let position = game("7k/5ppp/8/8/8/8/8/R5K1 w - - 0 1", &[]);
    let found = search(&position, 3);
    assert_eq!(found.plies_to_capture(), Some(3), "{found:?}");
    assert_eq!(found.best.to_string(), "a1a8");
    // Whatever Black answers, White captures next.
    let mut after = position;
    after.play("a1a8").unwrap();
    let defence = search(&after, 2);
    assert_eq!(defence.plies_to_capture(), Some(-2), "{defence:?}");
}

#[test]
fn a_king_capture_in_three_is_found() {
    // The king on h8 is walled in by white pieces it can take only to be taken back (g8 by the
    // h7 bishop, h7 by the g8 bishop, g7 by the rook) and has no empty square to split to; the
    // walls shut every line to h8. Only a knight on f7 or g6 reaches it, and the knight on c4
    // needs two moves (c4e5 or c4d6) to get there, while Black's pawn has two tempo moves at
    // most (a7a6, a6a5) before a4 stops it: a capture in three moves, not two.
    let position = game("6Bk/p5NB/8/8/P1N5/8/8/2K3R1 w - - 0 1", &[]);
    let shallow = search(&position, 3);
    assert_eq!(shallow.plies_to_capture(), None, "no capture in two: {shallow:?}");
    let found = search(&position, 5);
    assert_eq!(found.plies_to_capture(), Some(5), "{found:?}");
    assert!(["c4e5", "c4d6"].contains(&found.best.to_string().as_str()), "{found:?}");
}

#[test]
fn a_capture_through_a_measurement_wins_either_way() {
    // The knight is split between f7 and g6, both attacking the boxed-in king on h8. Taking from
    // f7 measures whether the knight is there: m1 (1/2) captures now; m0 leaves it all on g6,
    // which captures next move, as nothing Black has reaches g6 or frees h8 in time.
    let position = game("6rk/p5pn/8/4N3/8/8/8/K7 w - - 0 1", &["e5^f7g6", "a7a6"]);
    let found = search(&position, 3);
    let expected = 0.5 * (WIN - 1.0) + 0.5 * (WIN - 3.0);
    assert!((found.score - expected).abs() < 1e-6, "{found:?}");
    assert_eq!(found.plies_to_capture(), Some(2));
    assert!(["f7xh8", "g6xh8"].contains(&found.best.to_string().as_str()), "{found:?}");
}

#[test]
fn chance_nodes_weigh_outcomes_by_their_exact_probabilities() {
    // The knight is on h3 with probability 1/2 and on e5 and d4 with 1/4 each. Taking the queen
    // from e5 gains 900 * 1/4 = 225 expected; taking the rook from h3 gains 500 * 1/2 = 250.
    // Equal weights (1/2 each) would pick the queen.
    let setup = ["g1^f3h3", "a7a6", "f3^e5d4", "a6a5"];
    let position = game("7k/p2q4/8/6r1/8/8/8/K5N1 w - - 0 1", &setup);
    assert!((position.probability("e5".parse().unwrap()) - 0.25).abs() < 1e-12);
    let config = material_config();
    let found = Searcher::new(config).search(&position, &SearchLimits::depth(1)).unwrap();
    assert_eq!(found.best.to_string(), "h3xg5");
    // White's knight (310) against Black's queen, pawn and half a rook: exactly -940 for White.
    assert!((found.score - (310.0 - 900.0 - 100.0 - 250.0)).abs() < 1e-9, "{found:?}");
}

/// Material only, at the classical values (pawn 100, knight 310, bishop 330, rook 500, queen
/// 900) that the expected values in these tests are worked out with.
/// A fifty-move claim scores its expected result, not a draw: Black, with half its king left
/// (split to d8 and f8, the d8 half taken by the rook), must let the counter reach 100, and
/// the board is then measured: Black loses when its king is not found, half the time.
#[test]
fn a_fifty_move_claim_scores_the_kings_chances_before_the_measurement() {
    let position = game("4k3/8/8/8/8/8/8/3RK3 b - - 97 60", &["e8^d8f8", "d1xd8"]);
    assert_eq!(position.fifty_move_counter(), 99);
    let found = search(&position, 2);
    // Reported in centipawns, as the search played for expected score reads it back.
    let scale = SearchConfig::default().score_scale;
    let expected = centipawns(-0.5 * (WIN - 1.0), scale);
    assert!((found.score - expected).abs() < 1e-6, "{} against {expected}", found.score);
    // White, a ply before, takes the half king for that chance rather than wait.
    let before = game("4k3/8/8/8/8/8/8/3RK3 b - - 97 60", &["e8^d8f8"]);
    let white = search(&before, 3);
    assert_eq!(white.best.notation.to_string(), "d1xd8", "{white:?}");
    assert!(white.score >= centipawns(0.5 * (WIN - 2.0), scale) - 1e-6, "{}", white.score);
}

/// Played for expected score, a chance on the king and the position it leaves mix by their
/// probabilities as the game's results do. The knight is split over f7 and d7; taking the king
/// on h8 from f7 measures whether it is there: half the time it is (a win), half the time it
/// was all on d7 and nothing happens, a knight against a pawn. Read as an expected score the
/// value is exactly `0.5 * 1 + 0.5 * E(210)`; valued in centipawns (`0.5 * WIN + 105`) the
/// logistic curve would read a certain win.
#[test]
fn a_chance_on_the_king_is_weighed_by_expected_score() {
    let position = game("7k/p7/8/4N3/8/8/8/K7 w - - 0 1", &["e5^f7d7", "a7a6"]);
    let config = SearchConfig { score_scale: Some(SCORE_SCALE), ..material_config() };
    let found = Searcher::new(config).search(&position, &SearchLimits::depth(1)).unwrap();
    assert_eq!(found.best.to_string(), "f7xh8", "{found:?}");
    // The win one ply on is worth `WIN - 1`, a hair under an expected score of 1.
    let win = (1.0 + (WIN - 1.0) / WIN) / 2.0;
    let wanted = 0.5 * win + 0.5 * expected_score(310.0 - 100.0);
    assert!((expected_score(found.score) - wanted).abs() < 1e-9, "{found:?}: {wanted}");
    let centipawn_valued = Searcher::new(material_config()).search(&position, &SearchLimits::depth(1)).unwrap();
    assert!((centipawn_valued.score - (0.5 * (WIN - 1.0) + 105.0)).abs() < 1e-6, "{centipawn_valued:?}");
    assert_eq!(expected_score(centipawn_valued.score), 1.0);
}

fn classical_material() -> Weights {
    Weights { material: [100.0, 310.0, 330.0, 500.0, 900.0], ..Weights::material_only() }
}

/// A depth-1 search of material only, valued in centipawns (expected material), without
/// captures past it.
fn material_config() -> SearchConfig {
    SearchConfig { weights: classical_material(), quiescence_plies: 0, score_scale: None, ..SearchConfig::default() }
}

/// The material-only search at depth 1 of `fen` after `setup`.
fn material_choice(fen: &str, setup: &[&str]) -> qchess_search::SearchInfo {
    let position = game(fen, setup);
    let config = material_config();
    Searcher::new(config).search(&position, &SearchLimits::depth(1)).unwrap()
}

/// The right move depends on which way a measurement is likely to go, and flips when the
/// probabilities flip.
///
/// The knight splits twice (h3 1/2, e5 1/4, d4 1/4) and the rook slides from a4 to h4 through
/// d4: it reaches h4 when d4 is empty (3/4) and stays on a4 otherwise (1/4). A capture by the
/// rook measures whether it is there. Taking the queen from the likely square (h4xh8, 3/4)
/// gains 900 * 3/4 = 675 expected, more than the pawn's certain capture of a rook (500);
/// taking it from the unlikely square (a4xa8, 1/4) gains 225, less. Equal weights (450 either
/// way) would take the rook in both positions.
///
/// The example is 0.3 against 0.7. Splits, slides and merges are sqrt-iSWAP and
/// iSWAP gates, whose amplitudes are sums of powers of `i / sqrt 2`: without measurements every
/// occupancy probability is `(a + b sqrt 2) / 2^k` with integers `a`, `b`, and 3/10 is not of
/// that form. This test uses 1/4 against 3/4, which one slide through a quarter-occupied
/// square gives; closer pairs of that form (5/16 against 11/16) need longer setups, and 3/8
/// against 5/8 (two independent blockers) is further from 0.3.
#[test]
fn the_best_move_flips_when_the_outcome_probabilities_flip() {
    let setup = ["g1^f3h3", "c8b8", "f3^e5d4", "b8c8", "a4h4", "c8b8"];
    // The queen where the rook is likely (3/4): take it.
    let likely = "2k4q/8/8/8/R7/2r5/1P6/K5N1 w - - 0 1";
    let position = game(likely, &setup);
    assert!((position.probability("h4".parse().unwrap()) - 0.75).abs() < 1e-12);
    assert!((position.probability("a4".parse().unwrap()) - 0.25).abs() < 1e-12);
    let found = material_choice(likely, &setup);
    assert_eq!(found.best.to_string(), "h4xh8", "{found:?}");
    // White: rook, knight, pawn (910) against queen and rook (1400), plus the expected queen.
    assert!((found.score - (910.0 - 1400.0 + 0.75 * 900.0)).abs() < 1e-9, "{found:?}");
    // The queen where the rook is unlikely (1/4): take the rook for certain instead.
    let unlikely = "q1k5/8/8/8/R7/2r5/1P6/K5N1 w - - 0 1";
    let found = material_choice(unlikely, &setup);
    assert_eq!(found.best.to_string(), "b2xc3", "{found:?}");
    assert!((found.score - (910.0 - 900.0)).abs() < 1e-9, "{found:?}");
}

#[test]
fn observer_pairs_are_searched_at_the_root() {
    // Observer rules: the queen is split over e5 and c2, and a lone half may not move. A pair
    // whose two halves both capture (e5xe8|c2xc7, e5xc7|c2xc7) takes a rook whichever square
    // the queen turns out to be on: 500 for certain, where one capturing half gains 250
    // expected and no single move gains anything.
    let fen: Fen = "4r1k1/2r5/8/8/4Q3/8/8/K7 w - - 0 1".parse().unwrap();
    let options = GameOptions { rules: RuleSet::Observer, ..GameOptions::default() };
    let mut position = Game::new(&fen, options).unwrap();
    for mv in ["e4^e5c2", "g8f8"] {
        position.play(mv).unwrap();
    }
    let config = material_config();
    let found = Searcher::new(config).search(&position, &SearchLimits::depth(1)).unwrap();
    let pair = found.pair.expect("a pair is best");
    assert!(["e5e8|c2c7", "e5c7|c2c7"].contains(&pair.to_string().as_str()), "{found:?}");
    assert_eq!(found.to_play(), pair);
    // Queen (900) against two rooks (1000), one of which is taken for certain.
    assert!((found.score - (900.0 - 500.0)).abs() < 1e-9, "{found:?}");
    position.play_notation(&pair).unwrap();
    let rooks = ["e8", "c7"]
        .iter()
        .filter(|sq| position.piece_at(sq.parse().unwrap()).is_some_and(|p| p.char() == 'r'))
        .count();
    assert_eq!(rooks, 1, "one rook is gone, whichever half played");
}

#[test]
fn the_state_budget_holds_on_a_split_heavy_position() {
    let moves = ["b1^a3c3", "b8^a6c6", "g1^f3h3", "g8^f6h6", "e2e3", "e7e6", "f1^d3c4", "f8^d6c5"];
    let position = game(qchess_core::START_FEN, &moves);
    let root = position.state_size();
    assert!(root >= 64, "the setup is split-heavy: {root} basis states");
    let config = SearchConfig { state_budget: root, ..SearchConfig::default() };
    let limits = SearchLimits { depth: Some(3), nodes: Some(3000), ..SearchLimits::default() };
    let found = Searcher::new(config).search(&position, &limits).unwrap();
    assert!(found.peak_states <= root, "peak {} > budget {root}", found.peak_states);
    assert!(position.legal_moves().contains(&found.best));
    // A looser budget lets the search grow the state.
    let config = SearchConfig { state_budget: 4 * root, ..SearchConfig::default() };
    let found = Searcher::new(config).search(&position, &limits).unwrap();
    assert!(found.peak_states > root && found.peak_states <= 4 * root, "{}", found.peak_states);
}

#[test]
fn a_node_limit_stops_the_search_with_a_legal_move() {
    let position = game(qchess_core::START_FEN, &["b1^a3c3", "g8^f6h6"]);
    let limits = SearchLimits { nodes: Some(200), ..SearchLimits::default() };
    let found = Searcher::new(SearchConfig::default()).search(&position, &limits).unwrap();
    assert!(found.nodes < 2000, "{}", found.nodes);
    assert!(position.legal_moves().contains(&found.best));
}

/// A recorded game (a match between two engines) whose every reply ends it: the fifty-move
/// counter is at its last ply, so each move measures the whole board and the game is drawn.
/// No node of such a tree is ever searched past, and each costs a full measurement; the
/// search once took 12 s of a 100 ms move here, iterating to the deepest depth without ever
/// looking at the clock.
const EVERY_REPLY_ENDS_THE_GAME: &str = include_str!("data/every_reply_ends_the_game.moves");

#[test]
fn a_move_time_holds_when_every_reply_ends_the_game() {
    let moves: Vec<&str> = EVERY_REPLY_ENDS_THE_GAME.split_whitespace().collect();
    let position = game(qchess_core::START_FEN, &moves);
    let limits = SearchLimits { movetime: Some(std::time::Duration::from_millis(100)), ..SearchLimits::default() };
    let started = std::time::Instant::now();
    let found = Searcher::new(SearchConfig::default()).search(&position, &limits).unwrap();
    // A generous bound: the point is seconds against a tenth of one.
    assert!(started.elapsed() < std::time::Duration::from_secs(3), "{:?}", started.elapsed());
    assert!(position.legal_moves().contains(&found.best));
}

#[test]
fn classical_rules_checkmate_in_one() {
    // Scholar's mate: the queen takes f7, and the game ends by checkmate.
    let fen: Fen = "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR w KQkq - 4 4".parse().unwrap();
    let options = GameOptions { rules: RuleSet::Classical, ..GameOptions::default() };
    let position = Game::new(&fen, options).unwrap();
    let found = search(&position, 3);
    assert_eq!(found.plies_to_capture(), Some(1), "{found:?}");
    let mut after = position;
    after.play_legal(&found.best).unwrap();
    assert_eq!(after.end().map(|e| e.reason), Some(qchess_engine::EndReason::Checkmate));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 36, ..ProptestConfig::default() })]

    /// Over random positions of every rule set, reached by random play, the move found is
    /// legal and plays.
    #[test]
    fn the_search_never_returns_an_illegal_move(seed in any::<u64>(), plies in 0usize..24, rules in 0..RuleSet::ALL.len()) {
        let options = GameOptions { rules: RuleSet::ALL[rules], ..GameOptions::with_seed(seed) };
        let mut position = Game::new(&Fen::start(), options).unwrap();
        let mut mover = RandomMover::new(seed);
        for _ in 0..plies {
            if position.is_over() || mover.play(&mut position).is_err() {
                break;
            }
        }
        prop_assume!(!position.is_over());
        // The search copies the game through its record, so every record must replay.
        let record = qchess_engine::record::GameRecord::from_game(&position, &Default::default());
        prop_assert!(record.replay().is_ok(), "{record}");
        let limits = SearchLimits { depth: Some(2), nodes: Some(400), ..SearchLimits::default() };
        let found = Searcher::new(SearchConfig::default()).search(&position, &limits).unwrap();
        if found.pair.is_none() {
            prop_assert!(position.legal_moves().contains(&found.best), "{} not legal", found.best);
        }
        // An observer-rules pair (the only moves out of a quantum check by a superposed king)
        // is played as written.
        let to_play = found.to_play();
        prop_assert!(position.play_notation(&to_play).is_ok(), "{to_play} does not play");
    }
}
