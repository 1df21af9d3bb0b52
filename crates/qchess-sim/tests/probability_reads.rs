//! The board's square probabilities as a game reads them, after every move and every undo:
//! after a move of gates only, only the squares it touched are read again from the state.
//! Over random move sequences on a crowded corner (splits, merges, measured captures and
//! undos), every read equals a full read of the state to 1e-12, and reads after a move of
//! gates only keep the untouched squares to the bit.

mod common;

use common::{random_move, region};
use qchess_core::{Bitboard, QuantumBoard, Square, SquareProbabilities, TypedMove};
use qchess_sim::local_board::{LocalBoard, LocalBoardOptions};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The square probabilities from a full read of the state, classical squares added.
fn full_read(board: &LocalBoard) -> [f64; 64] {
    let mut probabilities = board.state().low_word_probabilities();
    for square in board.register().classical_occupancy() {
        probabilities[usize::from(square)] = 1.0;
    }
    probabilities
}

fn read(board: &mut LocalBoard) -> SquareProbabilities {
    board.square_probabilities().expect("probabilities")
}

/// Plays a random sequence with undos, checking every read; returns how many moves ran gates
/// only (changed the state and measured nothing).
fn check_sequence(seed: u64, classical_when_certain: bool) -> usize {
    let squares = region();
    let occupancy: Bitboard = squares.iter().copied().step_by(2).collect();
    let options = LocalBoardOptions { seed, snapshot_interval: 1, classical_when_certain, ..Default::default() };
    let mut board = LocalBoard::with_options(occupancy, options);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut gates_only = 0;
    let mut reads = vec![read(&mut board)];
    for step in 0..120 {
        if reads.len() > 1 && rng.random_bool(0.3) {
            board.undo().expect("undo");
            reads.pop();
            let again = read(&mut board);
            assert_eq!(Some(&again), reads.last(), "seed {seed}, step {step}: the read after undo");
            continue;
        }
        let Ok(mv) = random_move(&mut rng, &squares).parse::<TypedMove>() else { continue };
        let version = board.state_version();
        let Ok(report) = board.apply(&mv) else { continue };
        let probabilities = read(&mut board);
        let full = full_read(&board);
        for square in Square::ALL {
            let (got, want) = (probabilities.get(square), full[usize::from(square)]);
            assert!((got - want).abs() < 1e-12, "seed {seed}, step {step}, {mv}: {square} read {got}, full {want}");
        }
        let parent = reads.last().expect("the start's read");
        if board.state_version() != version && report.outcome_probability.is_none() {
            gates_only += 1;
            // Squares away from the move (outside the rectangle of its squares, which holds
            // every slide's path) are not touched: their read stands to the bit.
            let named = [mv.squares.sources(), mv.squares.targets()].concat();
            let away = |square: &Square| !in_rectangle(*square, &named);
            let quantum = |square: &Square| !board.register().classical_occupancy().contains(*square);
            for square in Square::ALL.into_iter().filter(away).filter(quantum) {
                let before = parent.get(square);
                assert_eq!(
                    probabilities.get(square).to_bits(),
                    before.to_bits(),
                    "seed {seed}, step {step}, {mv}: {square} changed without being touched"
                );
            }
        }
        reads.push(probabilities);
    }
    gates_only
}

/// Whether `square` lies in the smallest rectangle holding every one of `squares`.
fn in_rectangle(square: Square, squares: &[Square]) -> bool {
    let spans = |coordinate: fn(Square) -> u8| {
        let values = squares.iter().map(|&s| coordinate(s));
        values.clone().min().zip(values.max())
    };
    let inside = |span: Option<(u8, u8)>, value: u8| span.is_some_and(|(low, high)| low <= value && value <= high);
    inside(spans(Square::file), square.file()) && inside(spans(Square::rank), square.rank())
}

#[test]
fn reads_after_moves_and_undos_equal_full_reads() {
    let mut gates_only = 0;
    for seed in 0..40 {
        gates_only += check_sequence(seed, seed % 2 == 0);
    }
    // The check is only worth something if the partial reads happen.
    assert!(gates_only > 200, "only {gates_only} moves ran gates only");
}
