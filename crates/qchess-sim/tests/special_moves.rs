//! Pawn captures, en passant and castling against hand-derived state vectors (see
//! `standard_moves.rs` for the conventions). Pawn captures and basic en passant are X/CNOT
//! circuits: they add no `i` phase.

mod common;

use common::*;
use qchess_core::{BoardError, QuantumBoard};

#[test]
fn pawn_capture_from_a_classical_source_is_a_cnot() {
    // c3^b5d5: (i|b5> + i|d5>)/sqrt2; e4 takes on d5: the source is classical (certain m1),
    // then CNOT(d5 -> e4): the pawn leaves e4 exactly where d5 is occupied, with no phase.
    //   i/sqrt2 |d5> (the pawn now on d5), i/sqrt2 |e4 b5>
    let mut b = board("e4 c3");
    play(&mut b, "c3^b5d5:SPLIT_JUMP:BASIC");
    let report = play(&mut b, "e4d5:PAWN_CAPTURE:CAPTURE");
    assert_report(report, true, Some(true), None);
    assert_amplitudes(&b, &[("d5", c(0.0, H)), ("e4 b5", c(0.0, H))]);
}

#[test]
fn pawn_capture_from_a_superposed_source_measures_it() {
    // Continuing: e4 is occupied with probability 1/2 (the b5 branch); e4 takes on f5.
    let mut b = board("e4 c3 f5");
    play(&mut b, "c3^b5d5:SPLIT_JUMP:BASIC e4d5:PAWN_CAPTURE:CAPTURE");
    let mut stays = b.clone();
    let report = play(&mut b, "e4f5.m1:PAWN_CAPTURE:BASIC");
    assert_report(report, true, Some(true), Some(0.5));
    assert_distribution(&mut b, &[("b5 f5", 1.0)]);
    let report = play(&mut stays, "e4f5.m0:PAWN_CAPTURE:EXCLUDED");
    assert_report(report, false, Some(false), Some(0.5));
    assert_distribution(&mut stays, &[("d5 f5", 1.0)]);
}

#[test]
fn pawn_capture_onto_an_empty_square_leaves_the_pawn() {
    let mut b = board("e4");
    let report = play(&mut b, "e4d5:PAWN_CAPTURE:CAPTURE");
    assert_report(report, true, Some(true), None);
    assert_distribution(&mut b, &[("e4", 1.0)]);
    let mut b = board("d5");
    let report = play(&mut b, "e4d5:PAWN_CAPTURE:CAPTURE");
    assert_report(report, false, Some(false), None);
}

#[test]
fn classical_en_passant() {
    let mut b = board("e5 d5");
    let report = play(&mut b, "e5d6:PAWN_EP:BASIC");
    assert_report(report, true, None, None);
    assert_eq!(b.circuit().ops.len(), 0);
    assert_distribution(&mut b, &[("d6", 1.0)]);
}

#[test]
fn basic_en_passant_on_a_superposed_victim() {
    // b4^d5a6: (i|d5> + i|a6>)/sqrt2. The record ancilla is X controlled on d5 (e5 and d6 are
    // classical and need no control), then flips e5, d6, d5. No phase:
    //   i/sqrt2 |d6> (record 1), i/sqrt2 |e5 a6> (record 0)
    let mut b = board("e5 b4");
    play(&mut b, "b4^d5a6:SPLIT_JUMP:BASIC");
    let report = play(&mut b, "e5d6:PAWN_EP:BASIC");
    assert_report(report, true, None, None);
    assert_distribution(&mut b, &[("d6", 0.5), ("e5 a6", 0.5)]);
    assert_probabilities(&mut b, &[("d6 e5 a6", 0.5)]);
    let phases: Vec<_> = b.state().amplitudes().map(|(_, amp)| amp).collect();
    assert!(phases.iter().all(|amp| (amp - c(0.0, H)).norm() < EPS), "{phases:?}");
}

#[test]
fn excluded_en_passant_measures_the_target() {
    // b5^d6c7 puts a piece on d6 with probability 1/2. m1: d6 empty, then the classical capture.
    let mut b = board("e5 d5 b5");
    play(&mut b, "b5^d6c7:SPLIT_JUMP:BASIC");
    let mut blocked = b.clone();
    let report = play(&mut b, "e5d6.m1:PAWN_EP:EXCLUDED");
    assert_report(report, true, Some(true), Some(0.5));
    assert_distribution(&mut b, &[("d6 c7", 1.0)]);
    let report = play(&mut blocked, "e5d6.m0:PAWN_EP:EXCLUDED");
    assert_report(report, false, Some(false), Some(0.5));
    assert_distribution(&mut blocked, &[("e5 d5 d6", 1.0)]);
}

#[test]
fn capture_en_passant_takes_the_target_piece_or_the_passed_pawn() {
    // State |e5 d5> (i|d6> + i|c7>)/sqrt2; the source e5 is classical: certain m1.
    //   X̄d6-iSW(d5, a_ep): in the c7 branch d5 -> a_ep: -1/sqrt2 |e5 c7; a_ep>
    //   iSW(a_t, d6): in the d6 branch d6 -> a_t: -1/sqrt2 |e5 d5; a_t>
    //   C_{a_t}-iSW(d6, e5): -i/sqrt2 |d6 d5; a_t>
    //   C_{a_ep}-iSW(d6, e5): -i/sqrt2 |d6 c7; a_ep>
    let mut b = board("e5 d5 b5");
    play(&mut b, "b5^d6c7:SPLIT_JUMP:BASIC");
    let report = play(&mut b, "e5d6:PAWN_EP:CAPTURE");
    assert_report(report, true, Some(true), None);
    assert_distribution(&mut b, &[("d5 d6", 0.5), ("c7 d6", 0.5)]);
    let phases: Vec<_> = b.state().amplitudes().map(|(_, amp)| amp).collect();
    assert_eq!(phases.len(), 2);
    assert!(phases.iter().all(|amp| (amp - c(0.0, -H)).norm() < EPS), "{phases:?}");
}

#[test]
fn en_passant_geometry_is_checked() {
    let mut b = board("e2 d2");
    let error = b.apply(&mv("e2d3:PAWN_EP:BASIC")).expect_err("not from the fifth rank");
    // The error keeps the move for the caller, who names it once.
    assert!(matches!(&error, BoardError::InvalidMove { mv, .. } if mv == "e2d3:PAWN_EP:BASIC"), "{error:?}");
}

#[test]
fn classical_castles() {
    let mut b = board("e1 h1");
    assert_report(play(&mut b, "e1g1:KS_CASTLE:BASIC"), true, None, None);
    assert_distribution(&mut b, &[("g1 f1", 1.0)]);
    let mut b = board("e8 a8");
    assert_report(play(&mut b, "e8c8:QS_CASTLE:BASIC"), true, None, None);
    assert_distribution(&mut b, &[("c8 d8", 1.0)]);
    assert_eq!(b.circuit().ops.len(), 0);
}

#[test]
fn king_side_castle_swaps_rooks_with_a_superposed_rook_on_f1() {
    // d2^f1b1: (i|f1> + i|b1>)/sqrt2. The king moves classically; iSW(h1, f1):
    //   f1 occupied: iSW|11> = |11>: i/sqrt2 |g1 h1 f1>
    //   f1 empty:    h1 -> f1 with i: -1/sqrt2 |g1 f1 b1>
    let mut b = board("e1 h1 d2");
    play(&mut b, "d2^f1b1:SPLIT_JUMP:BASIC");
    assert_report(play(&mut b, "e1g1:KS_CASTLE:BASIC"), true, None, None);
    assert_amplitudes(&b, &[("g1 h1 f1", c(0.0, H)), ("g1 f1 b1", c(-H, 0.0))]);
    assert_probabilities(&mut b, &[("g1 f1", 1.0), ("h1 b1", 0.5)]);
}

#[test]
fn excluded_king_side_castle_with_one_superposed_square() {
    // e2^g1c3: g1 occupied with probability 1/2; measure g1, m1 = empty.
    let mut b = board("e1 h1 e2");
    play(&mut b, "e2^g1c3:SPLIT_JUMP:BASIC");
    let mut blocked = b.clone();
    let report = play(&mut b, "e1g1.m1:KS_CASTLE:EXCLUDED");
    assert_report(report, true, Some(true), Some(0.5));
    assert_distribution(&mut b, &[("g1 f1 c3", 1.0)]);
    let report = play(&mut blocked, "e1g1.m0:KS_CASTLE:EXCLUDED");
    assert_report(report, false, Some(false), Some(0.5));
    assert_distribution(&mut blocked, &[("e1 h1 g1", 1.0)]);
}

#[test]
fn excluded_king_side_castle_with_both_squares_superposed_measures_a_flag() {
    // d2^f1b1 and e2^g1c3 are independent halves: P(f1 and g1 empty) = 1/4.
    let mut b = board("e1 h1 d2 e2");
    play(&mut b, "d2^f1b1:SPLIT_JUMP:BASIC e2^g1c3:SPLIT_JUMP:BASIC");
    let mut blocked = b.clone();
    let report = play(&mut b, "e1g1.m1:KS_CASTLE:EXCLUDED");
    assert_report(report, true, Some(true), Some(0.25));
    assert_distribution(&mut b, &[("g1 f1 b1 c3", 1.0)]);
    let report = play(&mut blocked, "e1g1.m0:KS_CASTLE:EXCLUDED");
    assert_report(report, false, Some(false), Some(0.75));
    let third = 1.0 / 3.0;
    assert_distribution(&mut blocked, &[("e1 h1 f1 g1", third), ("e1 h1 f1 c3", third), ("e1 h1 b1 g1", third)]);
}

#[test]
fn excluded_castle_with_a_classical_blocker_fails_with_certainty() {
    let mut b = board("e1 h1 g1");
    let report = play(&mut b, "e1g1:KS_CASTLE:EXCLUDED");
    assert_report(report, false, Some(false), None);
    assert_eq!(b.circuit().ops.len(), 0);
    assert_distribution(&mut b, &[("e1 h1 g1", 1.0)]);
    assert!(b.apply(&mv("e1g1.m1:KS_CASTLE:EXCLUDED")).is_err());
    // With no quantum square among f and g the castle needs no measurement: certain m1.
    let mut b = board("e1 h1");
    assert_report(play(&mut b, "e1g1:KS_CASTLE:EXCLUDED"), true, Some(true), None);
}

#[test]
fn queen_side_castle_entangles_with_a_superposed_b_file_piece() {
    // c3^b1a4: (i|b1> + i|a4>)/sqrt2. X̄b1-iSW(a1, d1); X̄b1-iSW(e1, c1):
    //   b1 occupied: no castle, i/sqrt2 |e1 a1 b1>
    //   b1 empty: two iSWAPs, i*i*i/sqrt2 = -i/sqrt2 |c1 d1 a4>
    let mut b = board("e1 a1 c3");
    play(&mut b, "c3^b1a4:SPLIT_JUMP:BASIC");
    assert_report(play(&mut b, "e1c1:QS_CASTLE:BASIC"), true, None, None);
    assert_amplitudes(&b, &[("e1 a1 b1", c(0.0, H)), ("c1 d1 a4", c(0.0, -H))]);
}

#[test]
fn queen_side_castle_with_a_classical_b_file_piece_does_nothing() {
    let mut b = board("e1 a1 b1");
    assert_report(play(&mut b, "e1c1:QS_CASTLE:BASIC"), true, None, None);
    assert_distribution(&mut b, &[("e1 a1 b1", 1.0)]);
}

#[test]
fn excluded_queen_side_castle_with_the_b_file_in_superposition() {
    // c3^b1a4 and e2^c1g3. Measure c1 (d1 is classically empty): P(empty) = 1/2.
    // m1: c1 empty (g3 occupied), then the castle controlled on b1:
    //   b1 occupied: |e1 a1 b1 g3>, b1 empty: |c1 d1 a4 g3>, each with probability 1/2.
    let mut b = board("e1 a1 c3 e2");
    play(&mut b, "c3^b1a4:SPLIT_JUMP:BASIC e2^c1g3:SPLIT_JUMP:BASIC");
    let report = play(&mut b, "e1c1.m1:QS_CASTLE:EXCLUDED");
    assert_report(report, true, Some(true), Some(0.5));
    assert_distribution(&mut b, &[("e1 a1 b1 g3", 0.5), ("c1 d1 a4 g3", 0.5)]);
}

#[test]
fn castles_have_no_capture_variant() {
    let mut b = board("e1 h1");
    let error = b.apply(&mv("e1g1:KS_CASTLE:CAPTURE")).expect_err("no capture castle");
    // The error keeps the move for the caller, who names it once.
    assert!(matches!(&error, BoardError::InvalidMove { mv, .. } if mv == "e1g1:KS_CASTLE:CAPTURE"), "{error:?}");
}
