//! Independent check: random sequences of typed moves run on the local board (sparse simulator,
//! incremental, with retired qubits and branch labels) must give the same square probabilities
//! and board distribution as a straightforward dense evolution of the accumulated circuit over
//! all its qubits, written here from the IR matrices, with the recorded post-selections applied
//! at the end (deferred measurement).

mod common;

use std::collections::BTreeMap;

use num_complex::Complex64;
use qchess_circuit::ir::{Circuit, Gate, Op};
use qchess_core::{Bitboard, MoveSquares, MoveType, MoveVariant, QuantumBoard, Square, TypedMove};
use qchess_sim::local_board::{LocalBoard, LocalBoardOptions};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

const MAX_QUBITS: usize = 14;

/// Applies one gate to a dense vector: for every index whose controls hold and whose target
/// bits are all 0, mixes the 2 or 4 amplitudes of the target subspace with the gate matrix.
fn apply_dense(state: &mut [Complex64], gate: &Gate) {
    let targets: Vec<usize> = gate.targets.iter().map(|q| q.index()).collect();
    let mut matrix = vec![vec![Complex64::new(0.0, 0.0); 4]; 4];
    let dim = match (gate.kind.matrix2(), gate.kind.matrix4()) {
        (Some(m), _) => {
            for r in 0..2 {
                for c in 0..2 {
                    matrix[r][c] = m[r][c];
                }
            }
            2
        }
        (None, Some(m)) => {
            for r in 0..4 {
                for c in 0..4 {
                    matrix[r][c] = m[r][c];
                }
            }
            4
        }
        (None, None) => unreachable!("every gate has a matrix"),
    };
    let offset = |k: usize| {
        targets.iter().enumerate().filter(|(j, _)| k >> j & 1 == 1).map(|(_, &t)| 1usize << t).sum::<usize>()
    };
    let target_mask: usize = targets.iter().map(|&t| 1usize << t).sum();
    for base in 0..state.len() {
        if base & target_mask != 0 {
            continue;
        }
        if !gate.controls.iter().all(|c| (base >> c.qubit.index() & 1 == 1) == c.on) {
            continue;
        }
        let input: Vec<Complex64> = (0..dim).map(|k| state[base | offset(k)]).collect();
        for r in 0..dim {
            state[base | offset(r)] = (0..dim).map(|k| matrix[r][k] * input[k]).sum();
        }
    }
}

/// Board distribution of the dense evolution of `circuit`, post-selected.
fn dense_distribution(board: &LocalBoard) -> BTreeMap<u64, f64> {
    let circuit: &Circuit = board.circuit();
    let n = circuit.num_qubits();
    let mut state = vec![Complex64::new(0.0, 0.0); 1 << n];
    state[0] = Complex64::new(1.0, 0.0);
    let mut measured = BTreeMap::new();
    for op in &circuit.ops {
        match op {
            Op::Gate { gate, condition: None } => apply_dense(&mut state, gate),
            Op::Measure { qubit, clbit } => {
                measured.insert(clbit.0, qubit.index());
            }
            other => panic!("unexpected op {other:?}"),
        }
    }
    for post in &circuit.postselect {
        let qubit = measured[&post.clbit.0];
        assert_eq!(qubit, post.qubit.index());
        for (index, amp) in state.iter_mut().enumerate() {
            if (index >> qubit & 1 == 1) != post.value {
                *amp = Complex64::new(0.0, 0.0);
            }
        }
    }
    let norm: f64 = state.iter().map(|a| a.norm_sqr()).sum();
    let register = board.register();
    let classical = register.classical_occupancy().0;
    let squares: Vec<(Square, usize)> = register.square_qubits().map(|(sq, q)| (sq, q.index())).collect();
    let mut distribution = BTreeMap::new();
    for (index, amp) in state.iter().enumerate() {
        let p = amp.norm_sqr() / norm;
        if p < 1e-20 {
            continue;
        }
        let board =
            squares.iter().filter(|(_, q)| index >> q & 1 == 1).fold(classical, |b, (sq, _)| b | 1 << u8::from(*sq));
        *distribution.entry(board).or_insert(0.0) += p;
    }
    distribution
}

/// Squares the random moves use: the first rank (castles), a few squares on ranks 2-3 and the
/// en passant squares.
fn pool() -> Vec<Square> {
    ["a1", "b1", "c1", "d1", "e1", "f1", "g1", "h1", "c2", "d2", "e3", "d5", "e5", "d6", "e6"]
        .iter()
        .map(|s| s.parse().expect("square"))
        .collect()
}

fn random_move(rng: &mut ChaCha8Rng) -> Option<TypedMove> {
    let squares = pool();
    let pick = |rng: &mut ChaCha8Rng| squares[rng.random_range(0..squares.len())];
    let move_type = MoveType::ALL[rng.random_range(0..MoveType::ALL.len())];
    let variant = MoveVariant::ALL[rng.random_range(0..3)];
    let (a, b, c) = (pick(rng), pick(rng), pick(rng));
    let shape = match move_type {
        MoveType::SplitJump | MoveType::SplitSlide => MoveSquares::Split { from: a, to1: b, to2: c },
        MoveType::MergeJump | MoveType::MergeSlide => MoveSquares::Merge { from1: a, from2: b, to: c },
        MoveType::KsCastle => MoveSquares::Standard { from: Square::E1, to: Square::G1 },
        MoveType::QsCastle => MoveSquares::Standard { from: Square::E1, to: Square::C1 },
        MoveType::PawnEp => {
            let to = if rng.random::<bool>() { Square::D6 } else { Square::E6 };
            let from = if to == Square::D6 { Square::E5 } else { Square::D5 };
            MoveSquares::Standard { from, to }
        }
        _ => MoveSquares::Standard { from: a, to: b },
    };
    let variant = match move_type {
        MoveType::SplitJump | MoveType::SplitSlide | MoveType::MergeJump | MoveType::MergeSlide => MoveVariant::Basic,
        MoveType::KsCastle | MoveType::QsCastle if variant == MoveVariant::Capture => MoveVariant::Basic,
        _ => variant,
    };
    TypedMove::new(shape, move_type, variant).ok()
}

/// Runs one random sequence; returns (moves applied, quantum measurements, final boards).
fn check_sequence(seed: u64) -> (usize, usize, usize) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let occupancy: Bitboard = pool().into_iter().filter(|_| rng.random_range(0..3) == 0).collect();
    let mut board = LocalBoard::with_options(occupancy, LocalBoardOptions { seed, ..Default::default() });
    let (mut applied, mut measured) = (0, 0);
    for _ in 0..40 {
        let Some(mv) = random_move(&mut rng) else { continue };
        let report = board.apply(&mv).unwrap_or_else(|e| panic!("seed {seed}, {mv}: {e}"));
        if board.circuit().num_qubits() > MAX_QUBITS {
            board.undo().expect("undo");
            break;
        }
        applied += 1;
        measured += usize::from(report.outcome_probability.is_some());
    }
    let expected = dense_distribution(&board);
    let actual: Vec<(Bitboard, f64)> = board.distribution().expect("distribution");
    assert_eq!(actual.len(), expected.len(), "seed {seed}: {actual:?} vs {expected:?}\n{}", board.circuit());
    for (bitboard, p) in &actual {
        let q = expected.get(&bitboard.0).copied().unwrap_or(f64::NAN);
        assert!((p - q).abs() < 1e-12, "seed {seed}: board {bitboard:?}: {p} vs {q}\n{}", board.circuit());
    }
    let probabilities = board.square_probabilities().expect("probabilities");
    for square in Square::ALL {
        let q: f64 = expected.iter().filter(|(b, _)| *b >> u8::from(square) & 1 == 1).map(|(_, p)| p).sum();
        assert!((probabilities.get(square) - q).abs() < 1e-12, "seed {seed}: {square}");
    }
    (applied, measured, actual.len())
}

#[test]
fn random_move_sequences_agree_with_a_dense_evolution() {
    let (mut moves, mut measured, mut superposed) = (0, 0, 0);
    for seed in 0..150 {
        let (applied, measurements, boards) = check_sequence(seed);
        moves += applied;
        measured += measurements;
        superposed += usize::from(boards > 1);
    }
    // The check is only worth something if the sequences get quantum.
    assert!(moves > 600, "only {moves} moves were checked");
    assert!(measured > 40, "only {measured} quantum measurements");
    assert!(superposed > 40, "only {superposed} sequences ended in superposition");
}
