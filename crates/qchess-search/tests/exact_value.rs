//! The pruned search against the plain game tree: with judgement off
//! ([`SearchConfig::selective`]), alpha-beta over exact chance nodes must return exactly the
//! depth-limited expectimax value that a full-width search of every move and every outcome
//! gives, whatever windows its chance nodes derive.

use qchess_core::{Bitboard, Color, Fen};
use qchess_engine::ai::RandomMover;
use qchess_engine::{EndReason, Game, GameOptions, GameResult};
use qchess_search::branch::for_each_outcome;
use qchess_search::eval::evaluate;
use qchess_search::score::{centipawns, leaf_value};
use qchess_search::{SearchConfig, SearchLimits, Searcher, WIN, Weights};
use qchess_sim::local_board::{LocalBoard, LocalBoardOptions};

/// Nodes the full-width search may visit before a position counts as too big for a test.
const NODE_LIMIT: u64 = 60_000;

/// The full-width value of `game` for the side to move, `depth` plies deep, then captures
/// only for `quiescence` plies (standing pat on the evaluation), as the search defines it;
/// `None` once more than [`NODE_LIMIT`] nodes were visited.
fn full_width(game: &mut Game, depth: i32, quiescence: i32, ply: usize, nodes: &mut u64) -> Option<f64> {
    *nodes += 1;
    if *nodes > NODE_LIMIT {
        return None;
    }
    if let Some(end) = game.end() {
        let win = WIN - ply as f64;
        // A claim is worth its expected result: P(only the mover's king found) less P(only
        // the other's), the difference of the two kings' presence before the measurement.
        if matches!(end.reason, EndReason::FiftyMoveRule | EndReason::ThreefoldRepetition) {
            let kings = game.kings_before_measurement().expect("a claim measured the board");
            let (white, black) = (kings[0], kings[1]);
            return Some(if game.turn() == Color::White { white - black } else { black - white } * win);
        }
        return Some(match end.result {
            result if result == GameResult::win_for(game.turn()) => win,
            result if result == GameResult::win_for(!game.turn()) => -win,
            _ => 0.0,
        });
    }
    let weights = Weights::default();
    // An evaluation as the search weighs it (expected score, or centipawns).
    let leaf = |game: &Game| leaf_value(evaluate(game.position(), &weights), SearchConfig::default().score_scale);
    let (moves, mut best) = if depth > 0 {
        (game.legal_moves(), f64::NEG_INFINITY)
    } else {
        let stand = leaf(game);
        if -depth >= quiescence {
            return Some(stand);
        }
        (game.legal_captures(), stand)
    };
    for mv in &moves {
        let values = for_each_outcome(game, mv, |after, p| {
            full_width(after, depth - 1, quiescence, ply + 1, nodes).map(|value| -p * value)
        });
        let values: Option<Vec<f64>> = values.expect("a legal move plays").into_iter().collect();
        best = best.max(values?.iter().sum());
    }
    Some(if best == f64::NEG_INFINITY { leaf(game) } else { best })
}

/// `fen` after `plies` random moves (splits and merges among them) seeded by `seed`, on a
/// board that keeps a snapshot per move, so the full-width search undoes without replaying.
/// `None` when the game ends or the position has more than [`MAX_MOVES`] moves.
fn random_position(fen: &str, seed: u64, plies: usize) -> Option<Game> {
    let fen: Fen = fen.parse().unwrap();
    let options = LocalBoardOptions { snapshot_interval: 1, ..LocalBoardOptions::default() };
    let board = LocalBoard::with_options(Bitboard::EMPTY, options);
    let mut game = Game::with_board(&fen, GameOptions::with_seed(seed), board).unwrap();
    let mut mover = RandomMover::new(seed);
    for _ in 0..plies {
        if game.is_over() || mover.play(&mut game).is_err() {
            return None;
        }
    }
    (!game.is_over() && game.legal_moves().len() <= MAX_MOVES).then_some(game)
}

/// Positions with more moves than this make the full-width tree too slow for a test.
const MAX_MOVES: usize = 120;

/// Checks the search against the full-width value; false when the tree is too big to check.
fn check_exact(game: &mut Game, depth: u32, quiescence: i32) -> bool {
    let Some(expected) = full_width(game, depth as i32, quiescence, 0, &mut 0) else { return false };
    let config = SearchConfig {
        quiescence_plies: quiescence as u32,
        state_budget: 1 << 20,
        selective: false,
        ..SearchConfig::default()
    };
    let found = Searcher::new(config).search(game, &SearchLimits::depth(depth)).unwrap();
    // The search reports centipawns: the full-width value read the same way.
    let expected = centipawns(expected, config.score_scale);
    assert!(
        (found.score - expected).abs() <= 1e-6 * expected.abs().max(1.0),
        "depth {depth}, quiescence {quiescence}: search {} against full width {expected} after {:?}",
        found.score,
        game.moves().iter().map(|m| m.notation.to_string()).collect::<Vec<_>>(),
    );
    true
}

/// Few pieces, so the full-width tree stays small, but enough to capture, split and measure.
const POSITIONS: [&str; 4] = [
    "4k3/3p4/8/2n5/8/3N4/8/R3K3 w - - 0 1",
    "r3k3/8/2b5/8/4N3/8/1B6/4K3 w - - 0 1",
    "4k3/8/3q4/8/8/2N1R3/8/4K3 b - - 0 1",
    "3rk3/8/8/1n6/8/5B2/8/3QK3 w - - 0 1",
];

/// Checks `count` positions from `fens` after 2 to 9 random plies (seeded from
/// `first_seed` on), skipping those too big to search full width.
fn check_positions(fens: &[&str], count: usize, first_seed: u64, depth: u32, quiescence: i32) {
    let mut checked = 0;
    for seed in first_seed..first_seed + 400 {
        let fen = fens[seed as usize % fens.len()];
        if let Some(mut game) = random_position(fen, seed, 2 + seed as usize % 8)
            && check_exact(&mut game, depth, quiescence)
        {
            checked += 1;
            if checked == count {
                return;
            }
        }
    }
    panic!("only {checked} of {count} positions were small enough");
}

/// Three or four pieces, for three plies.
const TINY_POSITIONS: [&str; 3] =
    ["7k/8/8/8/8/8/1N6/K7 w - - 0 1", "k7/p7/8/8/8/8/6N1/7K w - - 0 1", "4k3/8/8/2b5/8/8/8/2R1K3 b - - 0 1"];

#[test]
fn chance_nodes_give_the_full_width_value_at_depth_two() {
    check_positions(&POSITIONS, 12, 0, 2, 2);
}

#[test]
fn chance_nodes_give_the_full_width_value_at_depth_three() {
    check_positions(&TINY_POSITIONS, 4, 1000, 3, 1);
}
