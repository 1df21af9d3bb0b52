//! Qubit recycling on real games: random legal games from the start position, whose recycled
//! circuits must give exactly the board distribution of the local simulation on fewer qubits.

use std::collections::BTreeMap;

use proptest::prelude::*;
use qchess_circuit::compiler::Register;
use qchess_circuit::ir::{Circuit, Op};
use qchess_circuit::recycle::{Recycling, recycle};
use qchess_core::{Fen, Square};
use qchess_engine::ai::RandomMover;
use qchess_engine::{Game, GameOptions};
use qchess_sim::auto::{AutoLimits, probabilities};

/// A random game of `plies` plies (fewer if it ends), seeded.
fn random_game(seed: u64, plies: usize) -> Game {
    let options = GameOptions { seed, ..GameOptions::default() };
    let mut game = Game::new(&Fen::start(), options).expect("start position");
    let mut mover = RandomMover::new(seed);
    for _ in 0..plies {
        if game.is_over() || mover.play(&mut game).is_err() {
            break;
        }
    }
    game
}

/// The exact board distribution of `circuit`, reading each quantum square at `bit(square)`.
/// Post-selection is done here, as a remote board does it, so the sparse simulator runs the
/// circuit whatever its width.
fn boards(circuit: &Circuit, register: &Register, bit: impl Fn(Square) -> usize) -> BTreeMap<u64, f64> {
    let mut unselected = circuit.clone();
    let postselect = std::mem::take(&mut unselected.postselect);
    let outcomes = probabilities(&unselected, &AutoLimits::default()).expect("simulates");
    let kept: Vec<(u64, f64)> = outcomes
        .probabilities
        .into_iter()
        .filter(|(outcome, _)| postselect.iter().all(|p| (outcome >> p.qubit.index() & 1 == 1) == p.value))
        .collect();
    let total: f64 = kept.iter().map(|k| k.1).sum();
    let mut boards = BTreeMap::new();
    for (outcome, p) in kept {
        let p = p / total;
        let board = register.quantum_squares().into_iter().fold(register.classical_occupancy(), |board, square| {
            if outcome >> bit(square) & 1 == 1 { board.with(square) } else { board }
        });
        *boards.entry(board.0).or_insert(0.0) += p;
    }
    boards
}

fn assert_same(expected: &BTreeMap<u64, f64>, actual: &BTreeMap<u64, f64>, what: &str) {
    let keys: std::collections::BTreeSet<_> = expected.keys().chain(actual.keys()).collect();
    for key in keys {
        let (e, a) = (expected.get(key).copied().unwrap_or(0.0), actual.get(key).copied().unwrap_or(0.0));
        assert!((e - a).abs() < 1e-9, "{what}: board {key:#x} has {a}, expected {e}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn recycled_game_circuits_give_the_exact_distribution(seed in any::<u64>(), plies in 1usize..40) {
        let mut game = random_game(seed, plies);
        let register = game.local_board().expect("local").register().clone();
        let expected: BTreeMap<u64, f64> =
            game.distribution().expect("exact").into_iter().map(|(b, p)| (b.0, p)).collect();

        let clean = recycle(&register, Recycling::CleanOnly);
        prop_assert!(clean.circuit.num_qubits() <= register.circuit().num_qubits());
        prop_assume!(clean.circuit.num_qubits() <= 64);
        let resets = clean.circuit.ops.iter().filter(|op| matches!(op, Op::Reset { .. })).count();
        prop_assert_eq!(resets, 0);
        let placed = |square: Square| {
            register.square_qubit(square).and_then(|q| clean.physical(q)).map_or(usize::MAX, |q| q.index())
        };
        assert_same(&expected, &boards(&clean.circuit, &register, placed), "clean recycling");
    }
}

/// The long game of the CLI's served-backend test: two knights in superposition wander for
/// 265 plies. Every jump leaves a square certainly empty and takes a fresh qubit, so the circuit
/// grows past any device while the recycled one stays at a handful of qubits.
pub fn wandering_knights() -> String {
    let mut moves = String::from("g1^f3h3 g8^f6h6 e2e3 e7e5 f3xe5.m1 f6g4 e5^c4d3");
    for _ in 0..64 {
        moves.push_str(" g4f6 c4b6 f6g4 b6c4");
    }
    moves + " g4f6 c4b6"
}

#[test]
fn a_long_game_recycles_to_the_pieces_in_superposition() {
    let options = GameOptions { enforce_win_conditions: false, ..GameOptions::default() };
    let mut game = Game::new(&Fen::start(), options).expect("start position");
    for text in wandering_knights().split_whitespace() {
        game.play(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    }
    assert_eq!(game.ply(), 265);
    let register = game.local_board().expect("local").register();
    let recycled = recycle(register, Recycling::CleanOnly);
    assert!(register.circuit().num_qubits() > 250, "{} logical qubits", register.circuit().num_qubits());
    // Five quantum squares (the knights' four halves, and h3, which the capture from f3 left
    // empty without the compiler knowing), the measured f3 qubit, and one qubit in flight.
    assert_eq!(register.quantum_squares().count(), 5);
    assert_eq!(register.circuit().postselect.len(), 1);
    assert_eq!(recycled.circuit.num_qubits(), 5 + 1 + 1);
}

/// With mid-circuit measurements and resets (IBM devices), a measured qubit is reused too, so a
/// long random game needs about the squares in superposition at their peak, not the history.
#[test]
fn measured_qubits_are_reused_where_the_device_measures_mid_circuit() {
    for seed in 0..4 {
        let options = GameOptions { seed, enforce_win_conditions: false, ..GameOptions::default() };
        let mut game = Game::new(&Fen::start(), options).expect("start position");
        let mut mover = RandomMover::new(seed);
        let mut peak_superposed = 0;
        for _ in 0..265 {
            if game.is_over() || mover.play(&mut game).is_err() {
                break;
            }
            let register = game.local_board().expect("local").register();
            peak_superposed = peak_superposed.max(register.quantum_squares().count() as usize);
        }
        let register = game.local_board().expect("local").register();
        let clean = recycle(register, Recycling::CleanOnly).circuit.num_qubits();
        let mid = recycle(register, Recycling::MidCircuit);
        let resets = mid.circuit.ops.iter().filter(|op| matches!(op, Op::Reset { .. })).count();
        assert!(resets > 0, "seed {seed}: no qubit was reset");
        // Measured on seeds 0-3: 47-53 qubits against 81-116 with clean reuse only.
        assert!(mid.circuit.num_qubits() * 3 <= clean * 2, "seed {seed}: {} vs {clean}", mid.circuit.num_qubits());
        assert!(
            mid.circuit.num_qubits() <= peak_superposed + 12,
            "seed {seed}: {} qubits, at most {peak_superposed} squares in superposition",
            mid.circuit.num_qubits()
        );
    }
}

/// The measured f3 qubit of this game is reset and carries a half of the next split.
#[test]
fn a_measured_qubit_carries_the_next_square() {
    let mut game = Game::new(&Fen::start(), GameOptions::default()).expect("start position");
    for text in ["g1^f3h3", "b8^a6c6", "f2f3.m1", "c6^d4e5"] {
        game.play(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    }
    let register = game.local_board().expect("local").register();
    let clean = recycle(register, Recycling::CleanOnly);
    let mid = recycle(register, Recycling::MidCircuit);
    assert!(mid.circuit.num_qubits() < clean.circuit.num_qubits());
    assert!(mid.circuit.ops.iter().any(|op| matches!(op, Op::Reset { .. })));
    // Post-selection 0 is read from its classical bit, after the qubits.
    assert_eq!(mid.postselection_bit(0), Some(mid.circuit.num_qubits() as u32));
    assert_eq!(clean.postselection_bit(0), Some(clean.circuit.postselect[0].qubit.0));
}
