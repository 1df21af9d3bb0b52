//! Splits and merges: jumps, the phase-sensitive sequences, and the ten split-slide and ten
//! merge-slide arm cases, against hand-derived states (conventions in `standard_moves.rs`).
//!
//! Arm-case geometry: the rook is on d1; arm 1 runs up the d-file (to d5, path d2 d3 d4) and
//! arm 2 along the first rank (to h1, path e1 f1 g1). Knights split from off the paths put one
//! half on a path square and the other half elsewhere, each with amplitude i/sqrt2:
//! b3^d2a5, b2^d3a4, b5^d4a7 on arm 1; c2^e1a3, h2^f1g4, h3^g1g5 on arm 2.
//!
//! Per branch of the knights, the split slide acts on |d1> as: both arms clear -> (i|d5> +
//! i|h1>)/sqrt2; only arm 1 -> i|d5>; only arm 2 -> i|h1>; neither -> |d1>. The merge acts on the
//! split rook (i|d5> + i|h1>)/sqrt2 as: both clear -> |d1>; only arm 1 -> (|d1> + i|h1>)/sqrt2;
//! only arm 2 -> (i|d5> + |d1>)/sqrt2; neither -> unchanged. With independent arms clear with
//! probabilities q1 and q2 the square probabilities follow by adding the branches.

mod common;

use common::*;

#[test]
fn split_jump_amplitudes() {
    // Sq(b1,a3): (|b1> + i|a3>)/sqrt2; iSW(b1,c3): |b1> -> i|c3>. => (i|a3> + i|c3>)/sqrt2
    let mut b = board("b1");
    play(&mut b, "b1^a3c3:SPLIT_JUMP:BASIC");
    assert_amplitudes(&b, &[("a3", c(0.0, H)), ("c3", c(0.0, H))]);
    assert!(b.register().square_qubit(sq("b1")).is_none(), "the emptied source is unhooked");
}

#[test]
fn split_then_merge_back_returns_the_whole_piece() {
    // (i|a3> + i|c3>)/sqrt2. iSW†(a3,b1): i|a3> -> i(-i)|b1> = |b1>: (|b1> + i|c3>)/sqrt2.
    // Sq†(c3,b1): |b1> -> (-i|c3> + |b1>)/sqrt2 and i|c3> -> (i|c3> + |b1>)/sqrt2 (times i/sqrt2
    // scaling): sum = |b1>, amplitude exactly 1.
    let mut b = board("b1");
    play(&mut b, "b1^a3c3:SPLIT_JUMP:BASIC a3c3^b1:MERGE_JUMP:BASIC");
    assert_amplitudes(&b, &[("b1", c(1.0, 0.0))]);
}

#[test]
fn split_then_one_half_away_and_back_then_merge_lands_on_the_other_square() {
    // (i|a3> + i|c3>)/sqrt2. a3 -> b5: i|a3> -> i*i|b5> = -|b5>. b5 -> a3: -|b5> -> -i|a3>.
    // The round trip multiplied that half by i^2 = -1: (-i|a3> + i|c3>)/sqrt2.
    // iSW†(a3,b1): -i|a3> -> -i(-i)|b1> = -|b1>: (-|b1> + i|c3>)/sqrt2.
    // Sq†(c3,b1): -|b1>/sqrt2 -> (i|c3> - |b1>)/2;  i|c3>/sqrt2 -> (i|c3> + |b1>)/2.
    // Sum: i|c3>. The b1 amplitudes cancel: the piece ends entirely on c3.
    let mut b = board("b1");
    play(&mut b, "b1^a3c3:SPLIT_JUMP:BASIC a3b5:JUMP:BASIC b5a3:JUMP:BASIC a3c3^b1:MERGE_JUMP:BASIC");
    assert_amplitudes(&b, &[("c3", c(0.0, 1.0))]);
}

#[test]
fn split_onto_a_superposed_same_piece_exchanges() {
    // (i|a3> + i|c3>)/sqrt2; c3^b5d5 from the superposed half, b5 d5 empty:
    // Sq(c3,b5), iSW(c3,d5) on i|c3>/sqrt2 -> i(i|b5> + i|d5>)/2 = -(|b5> + |d5>)/2.
    let mut b = board("b1");
    play(&mut b, "b1^a3c3:SPLIT_JUMP:BASIC c3^b5d5:SPLIT_JUMP:BASIC");
    assert_amplitudes(&b, &[("a3", c(0.0, H)), ("b5", c(-0.5, 0.0)), ("d5", c(-0.5, 0.0))]);
}

// ---- split slide arm cases ----

#[test]
fn split_slide_0_0_is_a_split_jump() {
    let mut b = board("d1");
    play(&mut b, "d1^d5h1:SPLIT_SLIDE:BASIC");
    assert_amplitudes(&b, &[("d5", c(0.0, H)), ("h1", c(0.0, H))]);
}

#[test]
fn split_slide_0_1() {
    // h2^f1g4. f1 branch (i/sqrt2): only arm 1: -1/sqrt2 |d5 f1>.
    // g4 branch (i/sqrt2): both: -1/2 |d5 g4>, -1/2 |h1 g4>.
    let mut b = board("d1 h2");
    play(&mut b, "h2^f1g4:SPLIT_JUMP:BASIC d1^d5h1:SPLIT_SLIDE:BASIC");
    assert_amplitudes(&b, &[("d5 f1", c(-H, 0.0)), ("d5 g4", c(-0.5, 0.0)), ("h1 g4", c(-0.5, 0.0))]);
    assert_probabilities(&mut b, &[("d5", 0.75), ("h1", 0.25), ("f1 g4", 0.5)]);
}

#[test]
fn split_slide_0_many() {
    // q2 = 1/4: P(h1) = 1/8, P(d5) = 3/4 + 1/8 = 7/8.
    let mut b = board("d1 c2 h3");
    play(&mut b, "c2^e1a3:SPLIT_JUMP:BASIC h3^g1g5:SPLIT_JUMP:BASIC d1^d5h1:SPLIT_SLIDE:BASIC");
    assert_probabilities(&mut b, &[("d5", 0.875), ("h1", 0.125), ("e1 a3 g1 g5", 0.5)]);
    assert_eq!(b.state().label_mask(), 0, "the path flag was uncomputed and dropped");
}

#[test]
fn split_slide_1_0() {
    // b2^d3a4. d3 branch: only arm 2: -1/sqrt2 |h1 d3>. a4 branch: -1/2 |d5 a4>, -1/2 |h1 a4>.
    let mut b = board("d1 b2");
    play(&mut b, "b2^d3a4:SPLIT_JUMP:BASIC d1^d5h1:SPLIT_SLIDE:BASIC");
    assert_amplitudes(&b, &[("h1 d3", c(-H, 0.0)), ("d5 a4", c(-0.5, 0.0)), ("h1 a4", c(-0.5, 0.0))]);
}

#[test]
fn split_slide_many_0() {
    // q1 = 1/4: P(d5) = 1/8, P(h1) = 7/8.
    let mut b = board("d1 b3 b5");
    play(&mut b, "b3^d2a5:SPLIT_JUMP:BASIC b5^d4a7:SPLIT_JUMP:BASIC d1^d5h1:SPLIT_SLIDE:BASIC");
    assert_probabilities(&mut b, &[("d5", 0.125), ("h1", 0.875), ("d2 a5 d4 a7", 0.5)]);
}

#[test]
fn split_slide_1_1_on_one_shared_square() {
    // d1 -> d4 and d6: both arms pass d3 only. d3 branch: nothing, i/sqrt2 |d1 d3>.
    // a4 branch: (i/sqrt2)(i|d4> + i|d6>)/sqrt2 = -1/2 |d4 a4>, -1/2 |d6 a4>.
    let mut b = board("d1 b2");
    play(&mut b, "b2^d3a4:SPLIT_JUMP:BASIC d1^d4d6:SPLIT_SLIDE:BASIC");
    assert_amplitudes(&b, &[("d1 d3", c(0.0, H)), ("d4 a4", c(-0.5, 0.0)), ("d6 a4", c(-0.5, 0.0))]);
}

#[test]
fn split_slide_1_1_on_different_squares() {
    // Knight amplitude (i/sqrt2)^2 = -1/2 per branch:
    //   d3 f1: neither, -1/2 |d1 d3 f1>;  d3 g4: only arm 2, -i/2 |h1 d3 g4>
    //   a4 f1: only arm 1, -i/2 |d5 a4 f1>;  a4 g4: both, -i/(2 sqrt2) |d5 a4 g4> and |h1 a4 g4>
    let mut b = board("d1 b2 h2");
    play(&mut b, "b2^d3a4:SPLIT_JUMP:BASIC h2^f1g4:SPLIT_JUMP:BASIC d1^d5h1:SPLIT_SLIDE:BASIC");
    let q = 0.5 * H;
    assert_amplitudes(
        &b,
        &[
            ("d1 d3 f1", c(-0.5, 0.0)),
            ("h1 d3 g4", c(0.0, -0.5)),
            ("d5 a4 f1", c(0.0, -0.5)),
            ("d5 a4 g4", c(0.0, -q)),
            ("h1 a4 g4", c(0.0, -q)),
        ],
    );
    assert_eq!(b.state().label_mask(), 0, "the scratch ancilla returned to 0 and was dropped");
}

#[test]
fn split_slide_1_many() {
    // q1 = 1/2, q2 = 1/4: P(d5) = 1/16 + 3/8 = 7/16, P(h1) = 1/16 + 1/8 = 3/16, P(d1) = 3/8.
    let mut b = board("d1 b2 c2 h3");
    play(
        &mut b,
        "b2^d3a4:SPLIT_JUMP:BASIC c2^e1a3:SPLIT_JUMP:BASIC h3^g1g5:SPLIT_JUMP:BASIC d1^d5h1:SPLIT_SLIDE:BASIC",
    );
    assert_probabilities(&mut b, &[("d5", 7.0 / 16.0), ("h1", 3.0 / 16.0), ("d1", 0.375), ("d3 a4 e1 a3 g1 g5", 0.5)]);
}

#[test]
fn split_slide_many_1() {
    // q1 = 1/4, q2 = 1/2: P(d5) = 3/16, P(h1) = 7/16, P(d1) = 3/8.
    let mut b = board("d1 b3 b5 h2");
    play(
        &mut b,
        "b3^d2a5:SPLIT_JUMP:BASIC b5^d4a7:SPLIT_JUMP:BASIC h2^f1g4:SPLIT_JUMP:BASIC d1^d5h1:SPLIT_SLIDE:BASIC",
    );
    assert_probabilities(&mut b, &[("d5", 3.0 / 16.0), ("h1", 7.0 / 16.0), ("d1", 0.375), ("d2 a5 d4 a7 f1 g4", 0.5)]);
}

#[test]
fn split_slide_many_many() {
    // q1 = q2 = 1/4: both 1/16 -> 1/32 each; only arm 1: 3/16; only arm 2: 3/16; neither 9/16.
    let mut b = board("d1 b3 b5 c2 h3");
    play(
        &mut b,
        "b3^d2a5:SPLIT_JUMP:BASIC b5^d4a7:SPLIT_JUMP:BASIC c2^e1a3:SPLIT_JUMP:BASIC h3^g1g5:SPLIT_JUMP:BASIC \
         d1^d5h1:SPLIT_SLIDE:BASIC",
    );
    assert_probabilities(
        &mut b,
        &[("d5", 7.0 / 32.0), ("h1", 7.0 / 32.0), ("d1", 9.0 / 16.0), ("d2 a5 d4 a7 e1 a3 g1 g5", 0.5)],
    );
    assert_eq!(b.state().label_mask(), 0);
}

#[test]
fn split_slide_with_a_classically_blocked_arm_moves_along_the_other() {
    // Arm 1 blocked by a classical piece on d3: only arm 2 can be clear; with f1 superposed
    // that is X̄f1-iSW(d1,h1): f1 branch: i/sqrt2 |d1 d3 f1>; g4 branch: -1/sqrt2 |h1 d3 g4>.
    let mut b = board("d1 d3 h2");
    play(&mut b, "h2^f1g4:SPLIT_JUMP:BASIC d1^d5h1:SPLIT_SLIDE:BASIC");
    assert_amplitudes(&b, &[("d1 d3 f1", c(0.0, H)), ("h1 d3 g4", c(-H, 0.0))]);
    let mut b = board("d1 d3 f1");
    assert_report(play(&mut b, "d1^d5h1:SPLIT_SLIDE:BASIC"), true, None, None);
    assert_distribution(&mut b, &[("d1 d3 f1", 1.0)]);
}

// ---- merge slide arm cases (the rook was split d1 -> d5, h1 first) ----

#[test]
fn merge_slide_0_0_is_a_merge_jump() {
    let mut b = board("d1");
    play(&mut b, "d1^d5h1:SPLIT_SLIDE:BASIC d5h1^d1:MERGE_SLIDE:BASIC");
    assert_amplitudes(&b, &[("d1", c(1.0, 0.0))]);
}

#[test]
fn merge_slide_0_1() {
    // f1 branch: only arm 1: (|d1> + i|h1>)/sqrt2 * i/sqrt2 = i/2 |d1 f1>, -1/2 |h1 f1>.
    // g4 branch: both: i/sqrt2 |d1 g4>.
    let mut b = board("d1 h2");
    play(&mut b, "d1^d5h1:SPLIT_SLIDE:BASIC h2^f1g4:SPLIT_JUMP:BASIC d5h1^d1:MERGE_SLIDE:BASIC");
    assert_amplitudes(&b, &[("d1 f1", c(0.0, 0.5)), ("h1 f1", c(-0.5, 0.0)), ("d1 g4", c(0.0, H))]);
    assert_probabilities(&mut b, &[("d1", 0.75), ("h1", 0.25), ("f1 g4", 0.5)]);
}

#[test]
fn merge_slide_0_many() {
    // q2 = 1/4: both -> d1 1/4; only arm 1 (3/4) -> d1 3/8, h1 3/8.
    let mut b = board("d1 c2 h3");
    play(
        &mut b,
        "d1^d5h1:SPLIT_SLIDE:BASIC c2^e1a3:SPLIT_JUMP:BASIC h3^g1g5:SPLIT_JUMP:BASIC d5h1^d1:MERGE_SLIDE:BASIC",
    );
    assert_probabilities(&mut b, &[("d1", 0.625), ("h1", 0.375), ("e1 a3 g1 g5", 0.5)]);
}

#[test]
fn merge_slide_1_0() {
    // d3 branch: only arm 2: (i|d5> + |d1>)/sqrt2 * i/sqrt2 = -1/2 |d5 d3>, i/2 |d1 d3>.
    // a4 branch: both: i/sqrt2 |d1 a4>.
    let mut b = board("d1 b2");
    play(&mut b, "d1^d5h1:SPLIT_SLIDE:BASIC b2^d3a4:SPLIT_JUMP:BASIC d5h1^d1:MERGE_SLIDE:BASIC");
    assert_amplitudes(&b, &[("d5 d3", c(-0.5, 0.0)), ("d1 d3", c(0.0, 0.5)), ("d1 a4", c(0.0, H))]);
}

#[test]
fn merge_slide_many_0() {
    // q1 = 1/4: P(d1) = 5/8, P(d5) = 3/8.
    let mut b = board("d1 b3 b5");
    play(
        &mut b,
        "d1^d5h1:SPLIT_SLIDE:BASIC b3^d2a5:SPLIT_JUMP:BASIC b5^d4a7:SPLIT_JUMP:BASIC d5h1^d1:MERGE_SLIDE:BASIC",
    );
    assert_probabilities(&mut b, &[("d1", 0.625), ("d5", 0.375), ("d2 a5 d4 a7", 0.5)]);
}

#[test]
fn merge_slide_1_1_on_one_shared_square() {
    // Rook split d1 -> d4, d6; both merge arms pass d3 only. d3 branch: unchanged,
    // (i/sqrt2)(i|d4> + i|d6>)/sqrt2 = -1/2 |d4 d3>, -1/2 |d6 d3>. a4 branch: i/sqrt2 |d1 a4>.
    let mut b = board("d1 b2");
    play(&mut b, "d1^d4d6:SPLIT_SLIDE:BASIC b2^d3a4:SPLIT_JUMP:BASIC d4d6^d1:MERGE_SLIDE:BASIC");
    assert_amplitudes(&b, &[("d4 d3", c(-0.5, 0.0)), ("d6 d3", c(-0.5, 0.0)), ("d1 a4", c(0.0, H))]);
}

#[test]
fn merge_slide_1_1_on_different_squares() {
    // Rook and knights give (i/sqrt2)^3 = -i/(2 sqrt2) per term before the merge:
    //   d3 f1 (neither): -i/(2sqrt2) |d5 d3 f1>, |h1 d3 f1>
    //   d3 g4 (only arm 2): -1/2 (i|d5> + |d1>)/sqrt2 -> -i/(2sqrt2) |d5 d3 g4>, -1/(2sqrt2) |d1 d3 g4>
    //   a4 f1 (only arm 1): -1/2 (|d1> + i|h1>)/sqrt2 -> -1/(2sqrt2) |d1 a4 f1>, -i/(2sqrt2) |h1 a4 f1>
    //   a4 g4 (both): -1/2 |d1 a4 g4>
    let mut b = board("d1 b2 h2");
    play(
        &mut b,
        "d1^d5h1:SPLIT_SLIDE:BASIC b2^d3a4:SPLIT_JUMP:BASIC h2^f1g4:SPLIT_JUMP:BASIC d5h1^d1:MERGE_SLIDE:BASIC",
    );
    let q = 0.5 * H;
    assert_amplitudes(
        &b,
        &[
            ("d5 d3 f1", c(0.0, -q)),
            ("h1 d3 f1", c(0.0, -q)),
            ("d5 d3 g4", c(0.0, -q)),
            ("d1 d3 g4", c(-q, 0.0)),
            ("d1 a4 f1", c(-q, 0.0)),
            ("h1 a4 f1", c(0.0, -q)),
            ("d1 a4 g4", c(-0.5, 0.0)),
        ],
    );
}

#[test]
fn merge_slide_1_many() {
    // q1 = 1/2, q2 = 1/4: P(d1) = 3/8, P(d5) = 1/4, P(h1) = 3/8.
    let mut b = board("d1 b2 c2 h3");
    play(
        &mut b,
        "d1^d5h1:SPLIT_SLIDE:BASIC b2^d3a4:SPLIT_JUMP:BASIC c2^e1a3:SPLIT_JUMP:BASIC h3^g1g5:SPLIT_JUMP:BASIC \
         d5h1^d1:MERGE_SLIDE:BASIC",
    );
    assert_probabilities(&mut b, &[("d1", 0.375), ("d5", 0.25), ("h1", 0.375), ("d3 a4 e1 a3 g1 g5", 0.5)]);
}

#[test]
fn merge_slide_many_1() {
    // q1 = 1/4, q2 = 1/2: P(d1) = 3/8, P(d5) = 3/8, P(h1) = 1/4.
    let mut b = board("d1 b3 b5 h2");
    play(
        &mut b,
        "d1^d5h1:SPLIT_SLIDE:BASIC b3^d2a5:SPLIT_JUMP:BASIC b5^d4a7:SPLIT_JUMP:BASIC h2^f1g4:SPLIT_JUMP:BASIC \
         d5h1^d1:MERGE_SLIDE:BASIC",
    );
    assert_probabilities(&mut b, &[("d1", 0.375), ("d5", 0.375), ("h1", 0.25), ("d2 a5 d4 a7 f1 g4", 0.5)]);
}

#[test]
fn merge_slide_many_many() {
    // q1 = q2 = 1/4: P(d1) = 1/16 + 3/32 + 3/32 = 1/4, P(d5) = P(h1) = 3/8.
    let mut b = board("d1 b3 b5 c2 h3");
    play(
        &mut b,
        "d1^d5h1:SPLIT_SLIDE:BASIC b3^d2a5:SPLIT_JUMP:BASIC b5^d4a7:SPLIT_JUMP:BASIC c2^e1a3:SPLIT_JUMP:BASIC \
         h3^g1g5:SPLIT_JUMP:BASIC d5h1^d1:MERGE_SLIDE:BASIC",
    );
    assert_probabilities(&mut b, &[("d1", 0.25), ("d5", 0.375), ("h1", 0.375), ("d2 a5 d4 a7 e1 a3 g1 g5", 0.5)]);
    assert_eq!(b.state().label_mask(), 0);
}
