//! Determinism, undo and the state cap of the local board.

mod common;

use common::*;
use num_complex::Complex64;
use qchess_core::{BoardError, QuantumBoard};
use qchess_sim::local_board::{LocalBoard, LocalBoardOptions};

/// Sorted exact amplitudes (key, amplitude) of the whole state, labels included.
fn exact_state(board: &LocalBoard) -> Vec<(u128, Complex64)> {
    let mut amplitudes: Vec<(u128, Complex64)> = board.state().amplitudes().collect();
    amplitudes.sort_by_key(|&(key, _)| key);
    amplitudes
}

const GAME: &str = "b1^a3c3:SPLIT_JUMP:BASIC g1^e2h3:SPLIT_JUMP:BASIC c3e2:JUMP:CAPTURE a1a5:SLIDE:BASIC \
                    e2c3:JUMP:EXCLUDED h3g1:JUMP:BASIC";

fn outcomes(seed: u64) -> Vec<Option<bool>> {
    let mut b = LocalBoard::with_options(bb("a1 b1 g1"), LocalBoardOptions { seed, ..Default::default() });
    GAME.split_whitespace().map(|text| b.apply(&mv(text)).expect("runs").outcome).collect()
}

#[test]
fn the_same_seed_gives_the_same_outcomes() {
    assert_eq!(outcomes(5), outcomes(5));
    // Some seed differs somewhere: outcomes really are drawn.
    let reference = outcomes(0);
    assert!((1..40).any(|seed| outcomes(seed) != reference));
}

#[test]
fn undo_after_a_random_measurement_restores_the_exact_state() {
    for seed in 0..20 {
        let mut b = LocalBoard::with_options(bb("a1 b1 g1"), LocalBoardOptions { seed, ..Default::default() });
        play(&mut b, "b1^a3c3:SPLIT_JUMP:BASIC g1^e2h3:SPLIT_JUMP:BASIC");
        let state = exact_state(&b);
        let circuit = b.circuit().clone();
        let distribution = b.distribution().expect("distribution");
        let report = b.apply(&mv("c3e2:JUMP:CAPTURE")).expect("runs");
        assert!(report.outcome_probability.is_some(), "a quantum measurement");
        b.undo().expect("undo");
        assert_eq!(exact_state(&b), state, "seed {seed}");
        assert_eq!(b.circuit(), &circuit, "seed {seed}");
        assert_eq!(b.distribution().expect("distribution"), distribution, "seed {seed}");
        assert_eq!(b.history().len(), 2);
    }
}

#[test]
fn undo_replays_recorded_outcomes_when_no_snapshot_is_kept() {
    // Undo twice from the end: each step must give back the exact state seen going forward.
    let options = LocalBoardOptions { seed: 3, snapshot_budget: 0, ..Default::default() };
    let mut b = LocalBoard::with_options(bb("a1 b1 g1"), options);
    let mut states = vec![exact_state(&b)];
    for text in GAME.split_whitespace() {
        b.apply(&mv(text)).expect("runs");
        states.push(exact_state(&b));
    }
    while let Some(expected) = states.pop() {
        assert_eq!(exact_state(&b), expected, "after {} moves", b.history().len());
        if b.history().is_empty() {
            break;
        }
        b.undo().expect("undo");
    }
    assert!(matches!(b.undo(), Err(BoardError::NothingToUndo)));
}

/// Plays [`GAME`] on a board with `options`, then undoes it move by move, checking each
/// state against the one recorded on the way.
fn assert_undo_restores_every_state(options: LocalBoardOptions) {
    let mut b = LocalBoard::with_options(bb("a1 b1 g1"), options);
    let mut states = vec![exact_state(&b)];
    for text in GAME.split_whitespace() {
        b.apply(&mv(text)).expect("runs");
        states.push(exact_state(&b));
    }
    states.pop();
    while let Some(expected) = states.pop() {
        b.undo().expect("undo");
        assert_eq!(exact_state(&b), expected, "{options:?}, after {} moves", b.history().len());
    }
}

#[test]
fn undo_with_a_small_snapshot_budget_mixes_snapshots_and_replay() {
    for budget in [0, 1, 4, 16] {
        assert_undo_restores_every_state(LocalBoardOptions { seed: 4, snapshot_budget: budget, ..Default::default() });
    }
}

#[test]
fn undo_with_every_snapshot_interval_restores_the_exact_state() {
    for snapshot_interval in [1, 2, 3, 8] {
        for snapshot_budget in [4, 1 << 20] {
            let options = LocalBoardOptions { seed: 4, snapshot_budget, snapshot_interval, ..Default::default() };
            assert_undo_restores_every_state(options);
        }
    }
}

#[test]
fn failed_move_without_snapshots_restores_by_replay() {
    let options = LocalBoardOptions { seed: 1, snapshot_budget: 0, ..Default::default() };
    let mut b = LocalBoard::with_options(bb("b1 e4 h1"), options);
    play(&mut b, "b1^a3c3:SPLIT_JUMP:BASIC c3e4.m1:JUMP:CAPTURE");
    let state = exact_state(&b);
    let ops = b.circuit().ops.len();
    let error = b.apply(&mv("h1a3.m0:JUMP:EXCLUDED")).expect_err("impossible");
    assert!(matches!(error, BoardError::ImpossibleOutcome { .. }), "{error}");
    assert_eq!(exact_state(&b), state);
    assert_eq!(b.circuit().ops.len(), ops);
    assert_eq!(b.history().len(), 2);
}

#[test]
fn recorded_history_replays_on_a_fresh_board_with_any_seed() {
    let mut b = LocalBoard::with_options(bb("a1 b1 g1"), LocalBoardOptions { seed: 9, ..Default::default() });
    play(&mut b, GAME);
    let mut replay = LocalBoard::with_options(bb("a1 b1 g1"), LocalBoardOptions { seed: 12345, ..Default::default() });
    for applied in b.history() {
        let report = replay.apply(&applied.mv).expect("replays");
        assert_eq!(report, applied.report);
    }
    assert_eq!(exact_state(&replay), exact_state(&b));
}

#[test]
fn the_state_cap_is_a_clear_error_that_changes_nothing() {
    let mut b = LocalBoard::with_options(bb("b1 g1"), LocalBoardOptions { state_cap: 3, ..Default::default() });
    play(&mut b, "b1^a3c3:SPLIT_JUMP:BASIC");
    let state = exact_state(&b);
    let error = b.apply(&mv("g1^e2h3:SPLIT_JUMP:BASIC")).expect_err("4 basis states > 3");
    assert!(matches!(error, BoardError::StateTooLarge { limit: 3, .. }), "{error}");
    assert_eq!(exact_state(&b), state);
    assert_eq!(b.history().len(), 1);
    assert_distribution(&mut b, &[("a3 g1", 0.5), ("c3 g1", 0.5)]);
}

#[test]
fn sampling_follows_the_distribution() {
    let mut b = board("b1 g1");
    play(&mut b, "b1^a3c3:SPLIT_JUMP:BASIC g1^e2h3:SPLIT_JUMP:BASIC");
    let shots = b.sample(4000).expect("samples");
    let distribution = b.distribution().expect("distribution");
    assert_eq!(distribution.len(), 4);
    // Chi-squared with 3 degrees of freedom; 30 is far beyond the 1e-6 tail (about 27.9).
    let chi2: f64 = distribution
        .iter()
        .map(|(board, p)| {
            let observed = shots.iter().filter(|s| *s == board).count() as f64;
            let expected = p * shots.len() as f64;
            (observed - expected).powi(2) / expected
        })
        .sum();
    assert!(chi2 < 30.0, "chi2 = {chi2}");
    assert!(shots.iter().all(|s| distribution.iter().any(|(b, _)| b == s)));
}

#[test]
fn init_starts_over() {
    let mut b = board("b1");
    play(&mut b, "b1^a3c3:SPLIT_JUMP:BASIC");
    b.init(bb("e2")).expect("init");
    assert!(b.history().is_empty());
    assert_eq!(b.circuit().num_qubits(), 0);
    assert_distribution(&mut b, &[("e2", 1.0)]);
    assert_eq!(b.state_size(), 1);
    assert!(b.is_exact());
}
