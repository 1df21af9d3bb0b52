//! Helpers shared by the local-board tests: building boards, running typed moves, reading exact
//! amplitudes by board, and comparing against hand-derived values to 1e-12.

#![allow(dead_code)]

use std::collections::BTreeMap;

use num_complex::Complex64;
use qchess_core::{Bitboard, MoveReport, QuantumBoard, Square, TypedMove};
use qchess_sim::local_board::{LocalBoard, LocalBoardOptions};
use rand::RngExt;
use rand_chacha::ChaCha8Rng;

pub const EPS: f64 = 1e-12;
pub const H: f64 = std::f64::consts::FRAC_1_SQRT_2;

pub fn c(re: f64, im: f64) -> Complex64 {
    Complex64::new(re, im)
}

pub fn sq(name: &str) -> Square {
    name.parse().unwrap_or_else(|e| panic!("{e}"))
}

/// A bitboard from space-separated square names.
pub fn bb(names: &str) -> Bitboard {
    names.split_whitespace().map(sq).collect()
}

pub fn board(names: &str) -> LocalBoard {
    LocalBoard::with_options(bb(names), LocalBoardOptions { seed: 7, ..LocalBoardOptions::default() })
}

pub fn mv(text: &str) -> TypedMove {
    text.parse().unwrap_or_else(|e| panic!("{e}"))
}

/// Applies moves that must succeed and returns the last report.
pub fn play(board: &mut LocalBoard, moves: &str) -> MoveReport {
    let mut last = None;
    for text in moves.split_whitespace() {
        last = Some(board.apply(&mv(text)).unwrap_or_else(|e| panic!("{text}: {e}")));
    }
    last.expect("at least one move")
}

/// Exact amplitudes by full bitboard. Fails if any basis state carries an ancilla or branch
/// label (the hand-derived tests below are set up so that none does).
pub fn amplitudes(board: &LocalBoard) -> BTreeMap<u64, Complex64> {
    let classical = board.register().classical_occupancy().0;
    let mut map = BTreeMap::new();
    for (key, amp) in board.state().amplitudes() {
        assert_eq!(key >> 64, 0, "unexpected ancilla or label bits in {key:#x}");
        assert!(map.insert(key as u64 | classical, amp).is_none());
    }
    map
}

/// Asserts the exact amplitude of every board (boards not listed must be absent).
pub fn assert_amplitudes(board: &LocalBoard, expected: &[(&str, Complex64)]) {
    let actual = amplitudes(board);
    assert_eq!(actual.len(), expected.len(), "boards: {actual:?}");
    for (names, amp) in expected {
        let got = actual.get(&bb(names).0).unwrap_or_else(|| panic!("board {names} missing: {actual:?}"));
        assert!((got - amp).norm() < EPS, "board {names}: got {got}, expected {amp}");
    }
}

/// Asserts square probabilities: the listed squares have the given values, all others 0 or
/// 1 as `certain` says.
pub fn assert_probabilities(board: &mut LocalBoard, expected: &[(&str, f64)]) {
    let probabilities = board.square_probabilities().expect("probabilities");
    let mut listed = Bitboard::EMPTY;
    for (names, p) in expected {
        for square in bb(names) {
            listed = listed.with(square);
            let got = probabilities.get(square);
            assert!((got - p).abs() < EPS, "{square}: got {got}, expected {p}");
        }
    }
    for square in !listed {
        let got = probabilities.get(square);
        assert!(got.abs() < EPS, "{square}: got {got}, expected 0");
    }
}

/// Asserts the exact distribution over boards.
pub fn assert_distribution(board: &mut LocalBoard, expected: &[(&str, f64)]) {
    let distribution = board.distribution().expect("distribution");
    assert_eq!(distribution.len(), expected.len(), "{distribution:?}");
    for (names, p) in expected {
        let got = distribution.iter().find(|(b, _)| *b == bb(names)).map(|&(_, p)| p);
        let got = got.unwrap_or_else(|| panic!("board {names} missing: {distribution:?}"));
        assert!((got - p).abs() < EPS, "board {names}: got {got}, expected {p}");
    }
    for pair in distribution.windows(2) {
        assert!(pair[0].1 >= pair[1].1, "not most likely first: {distribution:?}");
    }
}

pub fn assert_report(report: MoveReport, proceeded: bool, outcome: Option<bool>, probability: Option<f64>) {
    assert_eq!(report.proceeded, proceeded, "{report:?}");
    assert_eq!(report.outcome, outcome, "{report:?}");
    match (report.outcome_probability, probability) {
        (Some(got), Some(p)) => assert!((got - p).abs() < EPS, "{report:?}"),
        (got, p) => assert_eq!(got, p, "{report:?}"),
    }
}

/// The squares moves are drawn from: a 4x4 corner, so slides have paths and states stay small.
pub fn region() -> Vec<Square> {
    (0..4u8).flat_map(|rank| (0..4u8).filter_map(move |file| Square::from_coords(file, rank))).collect()
}

/// A random typed move over the region; the board decides whether it is valid.
pub fn random_move(rng: &mut ChaCha8Rng, squares: &[Square]) -> String {
    let mut pick = || squares[rng.random_range(0..squares.len())];
    let (a, b, c) = (pick(), pick(), pick());
    let variants = ["BASIC", "EXCLUDED", "CAPTURE"];
    let variant = variants[rng.random_range(0..3)];
    match rng.random_range(0..8) {
        0 | 1 => format!("{a}^{b}{c}:SPLIT_JUMP:BASIC"),
        2 => format!("{a}{b}^{c}:MERGE_JUMP:BASIC"),
        3 => format!("{a}^{b}{c}:SPLIT_SLIDE:BASIC"),
        4 => format!("{a}{b}^{c}:MERGE_SLIDE:BASIC"),
        5 => format!("{a}{b}:SLIDE:{variant}"),
        6 => format!("{a}{b}:PAWN_CAPTURE:CAPTURE"),
        _ => format!("{a}{b}:JUMP:{variant}"),
    }
}
