//! Qubit recycling keeps circuits exact: for random typed-move sequences on a crowded small
//! region (captures and measurements of superposed pieces are frequent), the recycled circuit,
//! with clean reuse only, with resets, and with measured qubits reused, gives exactly the board distribution of the
//! move-by-move simulation, on fewer qubits. Real games are checked in qchess-engine's tests.

mod common;

use std::collections::BTreeMap;

use common::{random_move, region};
use proptest::prelude::*;
use qchess_circuit::compiler::Register;
use qchess_circuit::ir::{Circuit, Op};
use qchess_circuit::recycle::{Recycled, Recycling, recycle};
use qchess_core::{Bitboard, QuantumBoard, Square, TypedMove};
use qchess_sim::auto::{AutoLimits, probabilities};
use qchess_sim::local_board::{LocalBoard, LocalBoardOptions};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// Plays `moves` valid random moves from `occupancy`, deciding outcomes exactly.
fn random_game(seed: u64, moves: usize) -> LocalBoard {
    let squares = region();
    let occupancy: Bitboard = squares.iter().copied().step_by(2).collect();
    let mut board = LocalBoard::with_options(occupancy, LocalBoardOptions { seed, ..LocalBoardOptions::default() });
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut played = 0;
    for _ in 0..moves * 20 {
        if played == moves {
            break;
        }
        let Ok(mv) = random_move(&mut rng, &squares).parse::<TypedMove>() else { continue };
        if board.apply(&mv).is_ok() {
            played += 1;
        }
    }
    board
}

/// The exact board distribution of `circuit`, reading each square from `placement`.
fn boards(circuit: &Circuit, register: &Register, placement: impl Fn(Square) -> Option<usize>) -> BTreeMap<u64, f64> {
    let outcomes = probabilities(circuit, &AutoLimits::default()).expect("simulates");
    let mut boards = BTreeMap::new();
    for (outcome, p) in outcomes.probabilities {
        let board = register.quantum_squares().into_iter().fold(register.classical_occupancy(), |board, square| {
            let bit = placement(square).expect("every quantum square is placed");
            if outcome >> bit & 1 == 1 { board.with(square) } else { board }
        });
        *boards.entry(board.0).or_insert(0.0) += p;
    }
    boards
}

fn recycled_boards(register: &Register, recycled: &Recycled) -> BTreeMap<u64, f64> {
    boards(&recycled.circuit, register, |square| {
        register.square_qubit(square).and_then(|q| recycled.physical(q)).map(|q| q.index())
    })
}

fn assert_same(expected: &BTreeMap<u64, f64>, actual: &BTreeMap<u64, f64>, what: &str) {
    let keys: std::collections::BTreeSet<_> = expected.keys().chain(actual.keys()).collect();
    for key in keys {
        let (e, a) = (expected.get(key).copied().unwrap_or(0.0), actual.get(key).copied().unwrap_or(0.0));
        assert!((e - a).abs() < 1e-9, "{what}: board {key:#x} has {a}, expected {e}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn recycled_circuits_give_the_exact_distribution(seed in any::<u64>(), moves in 1usize..16) {
        let mut board = random_game(seed, moves);
        let expected: BTreeMap<u64, f64> = board.distribution().expect("exact").into_iter().map(|(b, p)| (b.0, p)).collect();
        let register = board.register().clone();
        prop_assume!(register.circuit().num_qubits() <= 64);

        let logical = boards(register.circuit(), &register, |square| register.square_qubit(square).map(|q| q.index()));
        assert_same(&expected, &logical, "logical circuit");

        let clean = recycle(&register, Recycling::CleanOnly);
        prop_assert!(clean.circuit.num_qubits() <= register.circuit().num_qubits());
        let resets = clean.circuit.ops.iter().filter(|op| matches!(op, Op::Reset { .. })).count();
        prop_assert_eq!(resets, 0);
        assert_same(&expected, &recycled_boards(&register, &clean), "clean recycling");

        let reset = recycle(&register, Recycling::Reset);
        prop_assert!(reset.circuit.num_qubits() <= clean.circuit.num_qubits());
        // Resets run on the dense simulator: keep it small.
        if reset.circuit.num_qubits() <= 16 {
            assert_same(&expected, &recycled_boards(&register, &reset), "recycling with resets");
        }

        // Measured mid-circuit: the simulator post-selects each measurement where it happens.
        let mid = recycle(&register, Recycling::MidCircuit);
        prop_assert!(mid.circuit.num_qubits() <= reset.circuit.num_qubits());
        if mid.circuit.num_qubits() <= 16 {
            assert_same(&expected, &recycled_boards(&register, &mid), "recycling measured qubits");
        }
    }
}

#[test]
fn a_long_game_fits_the_squares_in_superposition() {
    let board = random_game(2026, 40);
    let register = board.register();
    let clean = recycle(register, Recycling::CleanOnly);
    let reset = recycle(register, Recycling::Reset);
    let live = register.quantum_squares().count() as usize + register.circuit().postselect.len();
    assert!(clean.circuit.num_qubits() < register.circuit().num_qubits(), "{} logical", clean.logical_qubits());
    // With resets, only the squares in superposition and the post-selected qubits (plus at most
    // a move's ancillas) remain.
    assert!(reset.circuit.num_qubits() <= live + 3, "{} qubits for {live} live", reset.circuit.num_qubits());
}
