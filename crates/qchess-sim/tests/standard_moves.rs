//! Jumps, slides, pawn steps and two-steps in every variant, against hand-derived state vectors.
//!
//! Conventions: `iSW|10> = i|01>`, `Sq|10> = (|10> + i|01>)/sqrt2`. A knight split `b1^a3c3`
//! from a classically full square gives `(i/sqrt2)|a3> + (i/sqrt2)|c3>` (written `(i|a3> +
//! i|c3>)/sqrt2`); classical squares are listed in every board but carry no qubit.

mod common;

use common::*;
use qchess_core::{BoardError, QuantumBoard};

#[test]
fn classical_jump_moves_the_bit_and_emits_nothing() {
    let mut b = board("b1");
    let report = play(&mut b, "b1c3:JUMP:BASIC");
    assert_report(report, true, None, None);
    assert_eq!(b.circuit().ops.len(), 0);
    assert_distribution(&mut b, &[("c3", 1.0)]);
}

#[test]
fn jump_from_a_superposed_source() {
    // (i|a3> + i|c3>)/sqrt2, then iSW(c3, e4): i|c3> -> i*i|e4> = -|e4>.
    // => (i|a3> - |e4>)/sqrt2, and c3 is unhooked empty (e4 was classically empty).
    let mut b = board("b1");
    let report = play(&mut b, "b1^a3c3:SPLIT_JUMP:BASIC c3e4:JUMP:BASIC");
    assert_report(report, true, None, None);
    assert_amplitudes(&b, &[("a3", c(0.0, H)), ("e4", c(-H, 0.0))]);
    assert!(b.register().square_qubit(sq("c3")).is_none());
}

#[test]
fn jump_onto_a_full_square_is_the_identity_from_a_full_source() {
    let mut b = board("b1 c3");
    let report = play(&mut b, "b1c3:JUMP:BASIC");
    assert_report(report, true, None, None);
    assert_distribution(&mut b, &[("b1 c3", 1.0)]);
}

#[test]
fn jump_onto_a_full_square_moves_its_occupant_back_where_the_source_is_empty() {
    // (i|a3> + i|c3>)/sqrt2 with e4 classically full. iSW(c3, e4):
    //   |c3 e4> (c3=1): iSW|11> = |11>, unchanged: i/sqrt2 |c3 e4>
    //   |a3 e4> (c3=0): iSW|01> = i|10>: e4's piece goes to c3: i*i/sqrt2 = -1/sqrt2 |a3 c3>
    let mut b = board("b1 e4");
    play(&mut b, "b1^a3c3:SPLIT_JUMP:BASIC c3e4:JUMP:BASIC");
    assert_amplitudes(&b, &[("c3 e4", c(0.0, H)), ("a3 c3", c(-H, 0.0))]);
    assert_probabilities(&mut b, &[("c3", 1.0), ("a3 e4", 0.5)]);
}

#[test]
fn excluded_jump_m1_measures_the_target_empty_then_jumps() {
    // g1^e2h3: (i|e2> + i|h3>)/sqrt2; c3 classical. Measure e2: P(empty) = 1/2.
    // m1: project e2 = 0 -> i|h3>, e2 classical empty, then the classical jump c3 -> e2.
    let mut b = board("c3 g1");
    play(&mut b, "g1^e2h3:SPLIT_JUMP:BASIC");
    let report = play(&mut b, "c3e2.m1:JUMP:EXCLUDED");
    assert_report(report, true, Some(true), Some(0.5));
    assert_distribution(&mut b, &[("e2 h3", 1.0)]);
    assert_eq!(b.circuit().postselect.len(), 1);
    assert!(!b.circuit().postselect[0].value, "m1 means the target read 0");
}

#[test]
fn excluded_jump_m0_finds_the_target_occupied_and_stays() {
    let mut b = board("c3 g1");
    play(&mut b, "g1^e2h3:SPLIT_JUMP:BASIC");
    let report = play(&mut b, "c3e2.m0:JUMP:EXCLUDED");
    assert_report(report, false, Some(false), Some(0.5));
    assert_distribution(&mut b, &[("c3 e2", 1.0)]);
    assert!(b.register().classical_occupancy().contains(sq("e2")), "a measured square is classical");
}

#[test]
fn excluded_jump_onto_a_classically_full_target_fails_with_certainty() {
    let mut b = board("b1 c3");
    play(&mut b, "b1^a3d2:SPLIT_JUMP:BASIC");
    let report = play(&mut b, "d2c4:JUMP:EXCLUDED");
    // c4 is classically empty: certain m1 (no probability), the jump runs.
    assert_report(report, true, Some(true), None);
    let report = play(&mut b, "a3c3:JUMP:EXCLUDED");
    assert_report(report, false, Some(false), None);
    assert!(b.apply(&mv("a3c3.m1:JUMP:EXCLUDED")).is_err(), "m1 has probability 0");
}

#[test]
fn capture_jump_from_a_classical_source_is_certain_and_keeps_the_victim_record() {
    // c3 captures on e2 where a split piece is: (i|e2> + i|h3>)/sqrt2. The attacker certainly
    // lands; the victim's qubit stays as a label, so the two branches stay apart:
    // {e2 h3} and {e2}, each with probability 1/2.
    let mut b = board("c3 g1");
    play(&mut b, "g1^e2h3:SPLIT_JUMP:BASIC");
    let report = play(&mut b, "c3e2:JUMP:CAPTURE");
    assert_report(report, true, Some(true), None);
    assert_distribution(&mut b, &[("e2 h3", 0.5), ("e2", 0.5)]);
    assert_probabilities(&mut b, &[("e2", 1.0), ("h3", 0.5)]);
    assert!(b.state().label_mask() != 0, "the victim's qubit is kept as a branch label");
}

#[test]
fn capture_jump_from_a_superposed_source_measures_it() {
    // (i|a3> + i|c3>)/sqrt2 with a victim on e4. Measure c3: P(occupied) = 1/2.
    let mut b = board("b1 e4");
    play(&mut b, "b1^a3c3:SPLIT_JUMP:BASIC");
    let mut taken = b.clone();
    let report = play(&mut taken, "c3e4.m1:JUMP:CAPTURE");
    assert_report(report, true, Some(true), Some(0.5));
    assert_distribution(&mut taken, &[("e4", 1.0)]);
    let report = play(&mut b, "c3e4.m0:JUMP:CAPTURE");
    assert_report(report, false, Some(false), Some(0.5));
    assert_distribution(&mut b, &[("a3 e4", 1.0)]);
}

#[test]
fn slide_through_one_superposed_square() {
    // (i|a3> + i|c3>)/sqrt2, rook a1 -> a5 with path {a3}: anti-controlled iSW(a1, a5).
    //   a3 occupied: blocked, i/sqrt2 |a1 a3>
    //   c3 occupied: a1 -> a5 with i: i*i/sqrt2 = -1/sqrt2 |a5 c3>
    let mut b = board("a1 b1");
    let report = play(&mut b, "b1^a3c3:SPLIT_JUMP:BASIC a1a5:SLIDE:BASIC");
    assert_report(report, true, None, None);
    assert_amplitudes(&b, &[("a1 a3", c(0.0, H)), ("a5 c3", c(-H, 0.0))]);
}

#[test]
fn slide_through_several_superposed_squares_uncomputes_its_flag() {
    // Two splits: (i|a3> + i|c3>)(i|a5> + i|e5>)/2 = -(|a3>+|c3>)(|a5>+|e5>)/2.
    // Rook a1 -> a8 through {a3, a5}: only the branch c3,e5 is clear, where a1 -> a8 with i:
    //   -1/2 |a1 a3 a5>, -1/2 |a1 a3 e5>, -1/2 |a1 c3 a5>, -i/2 |a8 c3 e5>
    let mut b = board("a1 b1 c4");
    play(&mut b, "b1^a3c3:SPLIT_JUMP:BASIC c4^a5e5:SPLIT_JUMP:BASIC a1a8:SLIDE:BASIC");
    assert_amplitudes(
        &b,
        &[
            ("a1 a3 a5", c(-0.5, 0.0)),
            ("a1 a3 e5", c(-0.5, 0.0)),
            ("a1 c3 a5", c(-0.5, 0.0)),
            ("a8 c3 e5", c(0.0, -0.5)),
        ],
    );
    assert_probabilities(&mut b, &[("a1", 0.75), ("a8", 0.25), ("a3 c3 a5 e5", 0.5)]);
}

#[test]
fn classically_blocked_slide_does_nothing() {
    let mut b = board("a1 a3");
    let report = play(&mut b, "a1a5:SLIDE:BASIC");
    assert_report(report, true, None, None);
    assert_eq!(b.circuit().ops.len(), 0);
    assert_distribution(&mut b, &[("a1 a3", 1.0)]);
    for variant in ["EXCLUDED", "CAPTURE"] {
        let report = b.apply(&mv(&format!("a1a5:SLIDE:{variant}"))).expect("runs");
        assert_report(report, false, Some(false), None);
    }
    assert_distribution(&mut b, &[("a1 a3", 1.0)]);
}

#[test]
fn slide_with_a_clear_path_is_a_jump() {
    let mut b = board("a1");
    let report = play(&mut b, "a1a8:SLIDE:BASIC");
    assert_report(report, true, None, None);
    assert_eq!(b.circuit().ops.len(), 0);
    assert_distribution(&mut b, &[("a8", 1.0)]);
}

#[test]
fn excluded_slide_measures_the_target_then_slides() {
    // b1^a3c3 and b2^a4c4: (i|a3>+i|c3>)(i|a4>+i|c4>)/2. Rook a1 -> a4 (path {a3}) excluded:
    // measure a4, P(empty) = 1/2. m1: a4 empty, c4 certain -> (i|a3>+i|c3>)/sqrt2 * i|c4>
    //   = (-|a3 c4> - |c3 c4>)/sqrt2, then X̄a3-iSW(a1,a4):
    //   -1/sqrt2 |a1 a3 c4>, -i/sqrt2 |a4 c3 c4>
    let mut b = board("a1 b1 b2");
    play(&mut b, "b1^a3c3:SPLIT_JUMP:BASIC b2^a4c4:SPLIT_JUMP:BASIC");
    let report = play(&mut b, "a1a4.m1:SLIDE:EXCLUDED");
    assert_report(report, true, Some(true), Some(0.5));
    assert_amplitudes(&b, &[("a1 a3 c4", c(-H, 0.0)), ("a4 c3 c4", c(0.0, -H))]);
}

#[test]
fn capture_slide_with_a_classical_source_measures_its_one_path_square() {
    // (i|a3>+i|c3>)/sqrt2, rook a1 captures on a5 through {a3}: measure a3, m1 = empty (1/2).
    let mut b = board("a1 b1 a5");
    play(&mut b, "b1^a3c3:SPLIT_JUMP:BASIC");
    let mut blocked = b.clone();
    let report = play(&mut b, "a1a5.m1:SLIDE:CAPTURE");
    assert_report(report, true, Some(true), Some(0.5));
    assert_distribution(&mut b, &[("a5 c3", 1.0)]);
    let report = play(&mut blocked, "a1a5.m0:SLIDE:CAPTURE");
    assert_report(report, false, Some(false), Some(0.5));
    assert_distribution(&mut blocked, &[("a1 a3 a5", 1.0)]);
}

#[test]
fn capture_slide_with_a_superposed_source_measures_a_computed_condition() {
    // a1^a2b1 (clear paths, a split jump): (i|a2> + i|b1>)/sqrt2; c2^a3e3: (i|a3> + i|e3>)/sqrt2.
    // State: -(|a2>+|b1>)(|a3>+|e3>)/2. a2 captures on a8 through {a3}: the condition
    // "a2 occupied and a3 empty" holds on |a2 e3> only: P(m1) = 1/4.
    // m1: -|a2 e3>; the victim leaves, iSW(a2, a8): -i|a8 e3>.
    // m0 (3/4): -(|a2 a3> + |b1 a3> + |b1 e3>)/sqrt3 with a8 untouched.
    let mut b = board("a1 c2 a8");
    play(&mut b, "a1^a2b1:SPLIT_SLIDE:BASIC c2^a3e3:SPLIT_JUMP:BASIC");
    let mut missed = b.clone();
    let report = play(&mut b, "a2a8.m1:SLIDE:CAPTURE");
    assert_report(report, true, Some(true), Some(0.25));
    assert_distribution(&mut b, &[("a8 e3", 1.0)]);
    let amps = amplitudes(&b);
    assert!((amps[&bb("a8 e3").0] - c(0.0, -1.0)).norm() < EPS, "{amps:?}");
    let report = play(&mut missed, "a2a8.m0:SLIDE:CAPTURE");
    assert_report(report, false, Some(false), Some(0.75));
    let third = 1.0 / 3.0;
    assert_distribution(&mut missed, &[("a2 a3 a8", third), ("b1 a3 a8", third), ("b1 e3 a8", third)]);
}

#[test]
fn pawn_two_step_through_a_superposed_square() {
    // g2^e3h4: (i|e3> + i|h4>)/sqrt2; e2 -> e4 through {e3}:
    //   i/sqrt2 |e2 e3> (blocked), i*i/sqrt2 = -1/sqrt2 |e4 h4>
    let mut b = board("e2 g2");
    play(&mut b, "g2^e3h4:SPLIT_JUMP:BASIC e2e4:PAWN_TWO_STEP:BASIC");
    assert_amplitudes(&b, &[("e2 e3", c(0.0, H)), ("e4 h4", c(-H, 0.0))]);
}

#[test]
fn pawn_step_variants() {
    let mut b = board("e2");
    assert_report(play(&mut b, "e2e3:PAWN_STEP:BASIC"), true, None, None);
    assert_distribution(&mut b, &[("e3", 1.0)]);

    // An excluded step in front of a superposed piece: measure e3, P(empty) = 1/2.
    let mut b = board("e2 g2");
    play(&mut b, "g2^e3h4:SPLIT_JUMP:BASIC");
    let report = play(&mut b, "e2e3.m1:PAWN_STEP:EXCLUDED");
    assert_report(report, true, Some(true), Some(0.5));
    assert_distribution(&mut b, &[("e3 h4", 1.0)]);

    // Excluded two-step: the target e4 is superposed, the path clear.
    let mut b = board("e2 g3");
    play(&mut b, "g3^e4h5:SPLIT_JUMP:BASIC");
    let report = play(&mut b, "e2e4.m0:PAWN_TWO_STEP:EXCLUDED");
    assert_report(report, false, Some(false), Some(0.5));
    assert_distribution(&mut b, &[("e2 e4", 1.0)]);
}

#[test]
fn forced_outcomes_on_moves_without_measurement_are_errors() {
    let mut b = board("b1");
    let error = b.apply(&mv("b1c3.m1:JUMP:BASIC")).expect_err("no measurement");
    assert!(matches!(&error, BoardError::NoMeasurement { mv } if mv == "b1c3.m1:JUMP:BASIC"), "{error:?}");
    assert!(error.to_string().contains("no measurement"), "{error}");
    assert_distribution(&mut b, &[("b1", 1.0)]);
    assert!(b.apply(&mv("b1^a3c3.m0:SPLIT_JUMP:BASIC")).is_err());
    assert!(b.history().is_empty());
}

#[test]
fn forced_outcome_of_probability_zero_is_an_error_and_changes_nothing() {
    // After c3e4.m1 captured, a3 is quantum but certainly empty: an excluded jump onto it
    // measures it and m0 ("occupied") is impossible.
    let mut b = board("b1 e4 h1");
    play(&mut b, "b1^a3c3:SPLIT_JUMP:BASIC c3e4.m1:JUMP:CAPTURE");
    let before: Vec<_> = b.state().amplitudes().collect();
    let ops = b.circuit().ops.len();
    let error = b.apply(&mv("h1a3.m0:JUMP:EXCLUDED")).expect_err("impossible");
    assert!(error.to_string().contains("probability 0"), "{error}");
    assert_eq!(b.circuit().ops.len(), ops, "nothing appended");
    assert_eq!(b.state().amplitudes().collect::<Vec<_>>(), before);
    // The certain outcome works and reports probability 1.
    let report = play(&mut b, "h1a3.m1:JUMP:EXCLUDED");
    assert_report(report, true, Some(true), Some(1.0));
}
