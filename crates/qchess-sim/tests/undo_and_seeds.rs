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

#[test]
fn state_versions_follow_the_state_through_moves_and_undo() {
    let options = LocalBoardOptions { seed: 2, snapshot_interval: 1, ..Default::default() };
    let mut b = LocalBoard::with_options(bb("a1 b1 g1"), options);
    let start = (b.state_version(), exact_state(&b));
    // A move on classical squares leaves the state and its version as they were.
    b.apply(&mv("a1a5:SLIDE:BASIC")).expect("runs");
    assert_eq!((b.state_version(), exact_state(&b)), start);
    assert_eq!(b.square_probabilities().expect("probabilities").get(sq("a5")), 1.0);
    b.apply(&mv("b1^a3c3:SPLIT_JUMP:BASIC")).expect("runs");
    let split = (b.state_version(), exact_state(&b), b.square_probabilities().expect("probabilities"));
    assert_ne!(split.0, start.0);
    b.apply(&mv("a5a8:SLIDE:BASIC")).expect("runs");
    assert_eq!(b.state_version(), split.0);
    let after = b.square_probabilities().expect("probabilities");
    assert_eq!((after.get(sq("a8")), after.get(sq("a5")), after.get(sq("a3"))), (1.0, 0.0, 0.5));
    b.undo().expect("undo");
    assert_eq!((b.state_version(), exact_state(&b)), (split.0, split.1.clone()));
    assert_eq!(b.square_probabilities().expect("probabilities"), split.2);
    b.undo().expect("undo");
    assert_eq!((b.state_version(), exact_state(&b)), start);
    // The same move again makes the same state under a version never seen before.
    b.apply(&mv("b1^a3c3:SPLIT_JUMP:BASIC")).expect("runs");
    assert_eq!(exact_state(&b), split.1);
    assert!(b.state_version() != split.0 && b.state_version() != start.0);
    // A move refused after it changed the state puts the version back with the state.
    let mut capped = LocalBoard::with_options(bb("b1 g1"), LocalBoardOptions { state_cap: 3, ..options });
    capped.apply(&mv("b1^a3c3:SPLIT_JUMP:BASIC")).expect("runs");
    let before = (capped.state_version(), exact_state(&capped));
    capped.apply(&mv("g1^e2h3:SPLIT_JUMP:BASIC")).expect_err("4 basis states > 3");
    assert_eq!((capped.state_version(), exact_state(&capped)), before);
}

#[test]
fn certain_squares_made_classical_change_no_probability_and_undo_exactly() {
    let plain = LocalBoardOptions { seed: 6, snapshot_interval: 1, ..Default::default() };
    let mut reference = LocalBoard::with_options(bb("a1 b1 g1"), plain);
    let mut compact =
        LocalBoard::with_options(bb("a1 b1 g1"), LocalBoardOptions { classical_when_certain: true, ..plain });
    let mut seen = Vec::new();
    for text in GAME.split_whitespace().chain(["a5a1:SLIDE:BASIC", "a1a2:SLIDE:BASIC"]) {
        // The reference may measure a square that is certain, where the compact board
        // measures nothing: its outcome is forced on the compact board only when it was not.
        let report = reference.apply(&mv(text)).expect("runs");
        let uncertain = report.outcome_probability.is_some_and(|p| p < 1.0);
        let found = compact.apply(&mv(text).with_outcome(report.outcome.filter(|_| uncertain))).expect("runs");
        assert_eq!(found.proceeded, report.proceeded, "{text}");
        let probabilities = reference.square_probabilities().expect("probabilities");
        assert_eq!(compact.square_probabilities().expect("probabilities"), probabilities, "after {text}");
        assert_eq!(compact.distribution().expect("distribution"), reference.distribution().expect("distribution"));
        seen.push((compact.state_version(), exact_state(&compact), probabilities));
    }
    // The rook's squares are certain throughout: its last move ran classically.
    assert_eq!(seen[seen.len() - 1].0, seen[seen.len() - 2].0);
    assert!(compact.state().live_positions().count_ones() < reference.state().live_positions().count_ones());
    seen.pop();
    while let Some((version, state, probabilities)) = seen.pop() {
        compact.undo().expect("undo");
        assert_eq!(compact.state_version(), version);
        assert_eq!(exact_state(&compact), state);
        assert_eq!(compact.square_probabilities().expect("probabilities"), probabilities);
    }
}
