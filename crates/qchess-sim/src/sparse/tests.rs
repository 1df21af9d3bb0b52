//! Unit tests of the sparse simulator against hand-computed amplitudes.

use std::f64::consts::{FRAC_1_SQRT_2 as H, PI};

use num_complex::Complex64;
use qchess_circuit::ir::{Circuit, Gate, GateKind, Qubit, QubitRole};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::{SimError, SparseState};

fn c(re: f64, im: f64) -> Complex64 {
    Complex64::new(re, im)
}

fn state(qubits: u32) -> SparseState {
    let mut s = SparseState::new();
    for i in 0..qubits {
        s.add_qubit_at(Qubit(i), i as u8).expect("free position");
    }
    s
}

fn amplitude(s: &SparseState, key: u128) -> Complex64 {
    s.amplitudes().filter(|&(k, _)| k == key).map(|(_, a)| a).sum()
}

#[test]
fn hadamard_and_rotations_match_hand_values() {
    let mut s = state(1);
    s.apply_gate(&Gate::one(GateKind::H, Qubit(0))).expect("gate");
    assert!((amplitude(&s, 0) - c(H, 0.0)).norm() < 1e-12 && (amplitude(&s, 1) - c(H, 0.0)).norm() < 1e-12);
    // H again cancels the |1> amplitude exactly enough to be dropped.
    s.apply_gate(&Gate::one(GateKind::H, Qubit(0))).expect("gate");
    assert_eq!(s.len(), 1);
    // Rx(pi/2)|0> = (|0> - i|1>)/sqrt2.
    s.apply_gate(&Gate::one(GateKind::Rx(PI / 2.0), Qubit(0))).expect("gate");
    assert!((amplitude(&s, 1) - c(0.0, -H)).norm() < 1e-12);
}

#[test]
fn controls_and_anti_controls() {
    let mut s = state(3);
    s.apply_gate(&Gate::x(Qubit(0))).expect("gate");
    // X on 2 where 0 = 1 and 1 = 0: fires.
    s.apply_gate(&Gate::x(Qubit(2)).controlled(Qubit(0)).anti_controlled(Qubit(1))).expect("gate");
    assert_eq!(s.amplitudes().map(|(k, _)| k).collect::<Vec<_>>(), vec![0b101]);
    // iSWAP(0, 1) where 2 = 0: does not fire.
    s.apply_gate(&Gate::iswap(Qubit(0), Qubit(1), 1.0).anti_controlled(Qubit(2))).expect("gate");
    assert_eq!(s.amplitudes().map(|(k, _)| k).collect::<Vec<_>>(), vec![0b101]);
    s.apply_gate(&Gate::iswap(Qubit(0), Qubit(1), 1.0)).expect("gate");
    assert!((amplitude(&s, 0b110) - c(0.0, 1.0)).norm() < 1e-12);
}

#[test]
fn malformed_gates_and_unknown_qubits_are_errors() {
    let mut s = state(2);
    let twice = Gate::x(Qubit(0)).controlled(Qubit(0));
    assert!(matches!(s.apply_gate(&twice), Err(SimError::MalformedGate(_))));
    assert!(matches!(s.apply_gate(&Gate::x(Qubit(5))), Err(SimError::UnknownQubit(Qubit(5)))));
    assert!(matches!(s.add_qubit_at(Qubit(9), 1), Err(SimError::PositionTaken { position: 1 })));
}

#[test]
fn the_cap_refuses_growth_and_keeps_the_state() {
    let mut s = SparseState::with_cap(2);
    for i in 0..2 {
        s.add_qubit_at(Qubit(i), i as u8).expect("free");
    }
    s.apply_gate(&Gate::one(GateKind::H, Qubit(0))).expect("2 states fit");
    let before: Vec<_> = s.amplitudes().collect();
    let error = s.apply_gate(&Gate::one(GateKind::H, Qubit(1))).expect_err("4 > 2");
    assert!(matches!(error, SimError::StateTooLarge { limit: 2, .. }), "{error}");
    assert_eq!(s.amplitudes().collect::<Vec<_>>(), before);
}

#[test]
fn projection_of_an_impossible_outcome_is_an_error() {
    let mut s = state(1);
    assert!(matches!(s.project(Qubit(0), true), Err(SimError::ImpossibleOutcome { .. })));
    assert_eq!(s.len(), 1);
    assert!((s.project(Qubit(0), false).expect("certain") - 1.0).abs() < 1e-12);
}

#[test]
fn retired_entangled_qubits_become_labels_and_are_compacted() {
    // Bell pair on positions 0 and 1; retiring 1 keeps its bit as a label in the high word.
    let mut s = state(2);
    s.apply_gate(&Gate::one(GateKind::H, Qubit(0))).expect("gate");
    s.apply_gate(&Gate::cx(Qubit(0), Qubit(1))).expect("gate");
    s.retire(Qubit(1)).expect("retire");
    assert_eq!(s.label_mask().count_ones(), 1);
    assert!(s.label_mask() >> 64 != 0, "labels live in the high word");
    assert!((s.low_word_probabilities()[0] - 0.5).abs() < 1e-12);
    // The label keeps the branches apart: H on qubit 0 no longer interferes back to |0>.
    s.apply_gate(&Gate::one(GateKind::H, Qubit(0))).expect("gate");
    assert!((s.probability(Qubit(0), true).expect("live") - 0.5).abs() < 1e-12);
    // Fill every free high position with labels, then ask for one more qubit: compaction
    // renumbers the labels into the few bits needed.
    let mut next = 10u32;
    while s.layout.free_high().is_some() {
        let qubit = Qubit(next);
        s.add_qubit(qubit).expect("free");
        s.apply_gate(&Gate::cx(Qubit(0), qubit)).expect("gate");
        s.retire(qubit).expect("retire");
        next += 1;
    }
    let distribution = s.low_word_distribution();
    s.add_qubit(Qubit(next)).expect("compaction frees positions");
    assert!(s.label_mask().count_ones() <= 2, "{:#x}", s.label_mask());
    assert_eq!(s.low_word_distribution(), distribution);
}

#[test]
fn retiring_a_constant_qubit_drops_it() {
    let mut s = state(2);
    s.apply_gate(&Gate::x(Qubit(1))).expect("gate");
    s.retire(Qubit(1)).expect("retire");
    assert_eq!(s.amplitudes().map(|(k, _)| k).collect::<Vec<_>>(), vec![0]);
    assert_eq!(s.label_mask(), 0);
    assert!(s.add_qubit_at(Qubit(7), 1).is_ok(), "its position is free again");
}

#[test]
fn run_circuit_post_selects_recorded_outcomes() {
    // Split-like circuit: X(0); sqrt-iSWAP(0,1); measure 1 post-selected on 1.
    let mut circuit = Circuit::new();
    let a = circuit.add_qubit(QubitRole::General);
    let b = circuit.add_qubit(QubitRole::General);
    circuit.push_gate(Gate::x(a));
    circuit.push_gate(Gate::iswap(a, b, 0.5));
    let clbit = circuit.push_measure(b);
    circuit.postselect.push(qchess_circuit::ir::PostSelection { qubit: b, clbit, value: true });
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let s = SparseState::run_circuit(&circuit, 16, &mut rng).expect("runs");
    assert_eq!(s.qubit_distribution(), vec![(0b10, 1.0)]);
    assert_eq!(s.clbit(0), Some(true));
}

#[test]
fn run_circuit_resets_and_conditions() {
    let mut circuit = Circuit::new();
    let a = circuit.add_qubit(QubitRole::General);
    let b = circuit.add_qubit(QubitRole::General);
    let register = circuit.add_register("c", 1);
    circuit.push_gate(Gate::x(a));
    circuit.ops.push(qchess_circuit::ir::Op::Measure { qubit: a, clbit: qchess_circuit::ir::Clbit(0) });
    circuit.ops.push(qchess_circuit::ir::Op::Gate {
        gate: Gate::x(b),
        condition: Some(qchess_circuit::ir::Condition { register, value: 1 }),
    });
    circuit.ops.push(qchess_circuit::ir::Op::Reset { qubit: a });
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let s = SparseState::run_circuit(&circuit, 16, &mut rng).expect("runs");
    assert_eq!(s.qubit_distribution(), vec![(0b10, 1.0)]);
}

#[test]
fn measurement_draws_with_the_exact_probability() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut ones = 0;
    for _ in 0..2000 {
        let mut s = state(1);
        s.apply_gate(&Gate::one(GateKind::Ry(2.0 * (0.25f64).sqrt().asin()), Qubit(0))).expect("gate");
        let (value, p) = s.measure(Qubit(0), &mut rng).expect("measure");
        assert!((p - if value { 0.25 } else { 0.75 }).abs() < 1e-12);
        ones += usize::from(value);
    }
    // Binomial(2000, 1/4): mean 500, sd ~19.4; 6 sd is far beyond 1e-6.
    assert!((ones as f64 - 500.0).abs() < 6.0 * 19.4, "{ones}");
}

/// A state with the given amplitudes on qubits 0..n at positions 0..n.
fn state_with(qubits: u32, amplitudes: &[(u128, Complex64)]) -> SparseState {
    let mut s = state(qubits);
    s.entries = amplitudes.iter().map(|&(key, amp)| super::Entry { key, amp }).collect();
    s
}

/// The gate applied by brute force from its matrix: every controlled basis state spread over
/// the rows of its column, summed, negligible amplitudes dropped.
fn reference(s: &SparseState, gate: &Gate) -> std::collections::BTreeMap<u128, Complex64> {
    let bit = |q: Qubit| 1u128 << s.position(q).expect("live");
    let (a, b) = (bit(gate.targets[0]), bit(gate.targets[1]));
    let m = gate.kind.matrix4().expect("two-qubit gate");
    let mut out = std::collections::BTreeMap::new();
    for (key, amp) in s.amplitudes() {
        let fires = gate.controls.iter().all(|c| (key & bit(c.qubit) != 0) == c.on);
        if !fires {
            *out.entry(key).or_insert(c(0.0, 0.0)) += amp;
            continue;
        }
        let column = usize::from(key & a != 0) | usize::from(key & b != 0) << 1;
        let base = key & !(a | b);
        for (row, values) in m.iter().enumerate() {
            let target = base | if row & 1 != 0 { a } else { 0 } | if row & 2 != 0 { b } else { 0 };
            if values[column].norm() > 1e-15 {
                *out.entry(target).or_insert(c(0.0, 0.0)) += values[column] * amp;
            }
        }
    }
    out.retain(|_, amp| amp.norm_sqr() >= 1e-24);
    out
}

fn assert_matches(s: &SparseState, expected: &std::collections::BTreeMap<u128, Complex64>) {
    let got: std::collections::BTreeMap<u128, Complex64> = s.amplitudes().collect();
    assert_eq!(got.len(), s.len(), "keys are unique");
    assert_eq!(got.keys().collect::<Vec<_>>(), expected.keys().collect::<Vec<_>>());
    for (key, amp) in expected {
        assert!((got[key] - amp).norm() < 1e-12, "key {key:b}: {} vs {amp}", got[key]);
    }
}

#[test]
fn exchange_gates_pair_populated_partners_and_append_the_others() {
    // Qubits 0 (a), 1 (b), 2 (spectator). |a=1,b=0> states with and without a populated
    // partner, on both sides, plus |00> and |11> states.
    let amplitudes = [
        (0b001, c(0.3, 0.1)),
        (0b010, c(0.2, -0.4)),
        (0b101, c(-0.1, 0.2)),
        (0b110, c(0.0, 0.3)),
        (0b100, c(0.4, 0.0)),
        (0b011, c(0.1, 0.1)),
        (0b111, c(-0.2, 0.0)),
    ];
    for power in [0.5, -0.5] {
        let gate = Gate::iswap(Qubit(0), Qubit(1), power);
        let mut s = state_with(3, &amplitudes[..6]);
        let expected = reference(&s, &gate);
        s.apply_gate(&gate).expect("fits");
        assert_matches(&s, &expected);
        // Only |a=1,b=0> states: nothing to pair, every one appends its partner.
        let mut s = state_with(3, &[amplitudes[0], amplitudes[2], amplitudes[6]]);
        let expected = reference(&s, &gate);
        s.apply_gate(&gate).expect("fits");
        assert_matches(&s, &expected);
        assert_eq!(s.len(), 5);
    }
}

#[test]
fn a_merge_that_cancels_drops_the_empty_branch() {
    // (|01> + i|10>)/sqrt2 is what sqrt-iSWAP makes of |01>; its inverse brings it back.
    let mut s = state_with(2, &[(0b01, c(H, 0.0)), (0b10, c(0.0, H))]);
    s.apply_gate(&Gate::iswap(Qubit(0), Qubit(1), -0.5)).expect("fits");
    assert_eq!(s.len(), 1);
    assert!((amplitude(&s, 0b01) - c(1.0, 0.0)).norm() < 1e-12);
}

#[test]
fn exchange_growth_past_the_cap_reports_the_exact_need() {
    let mut s = state_with(3, &[(0b001, c(H, 0.0)), (0b101, c(H, 0.0))]);
    s.cap = 3;
    let before: Vec<_> = s.amplitudes().collect();
    let error = s.apply_gate(&Gate::iswap(Qubit(0), Qubit(1), 0.5)).expect_err("4 > 3");
    assert_eq!(error, SimError::StateTooLarge { needed: 4, limit: 3 });
    assert_eq!(s.amplitudes().collect::<Vec<_>>(), before);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]

    #[test]
    fn exchange_gates_agree_with_the_matrix(
        populated in proptest::collection::btree_map(0u128..32, (-1.0f64..1.0, -1.0f64..1.0), 1..20),
        targets in proptest::sample::subsequence(vec![0u32, 1, 2, 3, 4], 3),
        power in proptest::sample::select(vec![0.5, -0.5, 0.25, 1.0]),
        control in proptest::option::of(proptest::bool::ANY),
    ) {
        let amplitudes: Vec<(u128, Complex64)> = populated.into_iter().map(|(k, (re, im))| (k, c(re, im))).collect();
        let mut s = state_with(5, &amplitudes);
        let mut gate = Gate::iswap(Qubit(targets[0]), Qubit(targets[1]), power);
        if let Some(on) = control {
            gate = if on { gate.controlled(Qubit(targets[2])) } else { gate.anti_controlled(Qubit(targets[2])) };
        }
        let expected = reference(&s, &gate);
        s.apply_gate(&gate).expect("no cap");
        assert_matches(&s, &expected);
    }
}

#[test]
fn square_probabilities_are_the_same_through_byte_tables() {
    // 2^12 basis states over 12 low positions spread across the bytes, uneven weights.
    let positions = [0u32, 5, 9, 14, 20, 27, 33, 38, 45, 50, 58, 63];
    let mut s = SparseState::new();
    for (i, &p) in positions.iter().enumerate() {
        s.add_qubit_at(Qubit(i as u32), p as u8).expect("free");
    }
    let mut expected = [0.0; 64];
    let mut total = 0.0;
    s.entries = (0..1u32 << positions.len())
        .map(|n| {
            let key =
                positions.iter().enumerate().filter(|(i, _)| n >> i & 1 == 1).fold(0u128, |k, (_, &p)| k | 1 << p);
            let weight = f64::from(n % 7 + 1);
            total += weight;
            for (i, &p) in positions.iter().enumerate() {
                if n >> i & 1 == 1 {
                    expected[p as usize] += weight;
                }
            }
            super::Entry { key, amp: c(weight.sqrt(), 0.0) }
        })
        .collect();
    assert!(s.len() >= super::BYTE_TABLE_STATES);
    let probabilities = s.low_word_probabilities();
    for square in 0..64 {
        assert!((probabilities[square] - expected[square] / total).abs() < 1e-12, "{square}");
    }
}

/// 2^17 basis states (17 qubits through H), then the gates a move uses: splits that spawn
/// partners (no partner populated), an exchange with pairs, X, SWAP and a controlled iSWAP.
fn large_state_after_moves(threads: usize) -> (Vec<(u128, Complex64)>, [f64; 64]) {
    let mut s = state(20);
    s.set_threads(threads);
    for q in 0..17 {
        s.apply_gate(&Gate::one(GateKind::H, Qubit(q))).expect("gate");
    }
    assert_eq!(s.len(), 1 << 17);
    s.apply_gate(&Gate::iswap(Qubit(3), Qubit(17), 0.5)).expect("split onto an empty qubit");
    s.apply_gate(&Gate::iswap(Qubit(5), Qubit(18), -0.5)).expect("split onto an empty qubit");
    s.apply_gate(&Gate::iswap(Qubit(17), Qubit(4), 0.5)).expect("exchange with pairs");
    s.apply_gate(&Gate::x(Qubit(19))).expect("gate");
    s.apply_gate(&Gate {
        kind: GateKind::Swap,
        targets: [Qubit(0), Qubit(19)].into_iter().collect(),
        controls: Default::default(),
    })
    .expect("gate");
    s.apply_gate(&Gate::iswap(Qubit(1), Qubit(18), 1.0).controlled(Qubit(2))).expect("gate");
    (s.amplitudes().collect(), s.low_word_probabilities())
}

#[test]
fn large_states_give_identical_results_on_any_number_of_threads() {
    let (amplitudes, probabilities) = large_state_after_moves(1);
    assert!(amplitudes.len() > 1 << 17);
    for threads in [2, 3, 4] {
        let (threaded, threaded_probabilities) = large_state_after_moves(threads);
        assert!(threaded == amplitudes, "{threads} threads changed the amplitudes or their order");
        assert!(threaded_probabilities == probabilities, "{threads} threads changed the probabilities");
    }
}

/// Reading again only the positions gates touched gives the full read: to the bit on those
/// positions (summed the same way), and every other position as it was, which the gates did
/// not change (to rounding, where the full read may differ in the last bits).
#[test]
fn reading_the_touched_positions_again_matches_the_full_read() {
    let mut s = SparseState::new();
    for (qubit, position) in [(0u32, 1u8), (1, 9), (2, 17), (3, 40)] {
        s.add_qubit_at(Qubit(qubit), position).expect("free");
    }
    s.apply_gate(&Gate::x(Qubit(0))).expect("gate");
    s.apply_gate(&Gate::iswap(Qubit(0), Qubit(1), 0.5)).expect("a split");
    s.apply_gate(&Gate::x(Qubit(2))).expect("gate");
    s.apply_gate(&Gate::iswap(Qubit(2), Qubit(3), 0.25)).expect("an uneven split");
    let before = s.low_word_probabilities();
    // Gates on positions 1 and 9 only: a controlled exchange, then an uneven one.
    s.apply_gate(&Gate::iswap(Qubit(1), Qubit(0), 0.5).controlled(Qubit(2))).expect("gate");
    s.apply_gate(&Gate::iswap(Qubit(0), Qubit(1), 0.3)).expect("gate");
    let touched = 1u64 << 1 | 1 << 9;
    let full = s.low_word_probabilities();
    let mut again = [0.0; 64];
    s.low_word_probabilities_after(&before, touched, &mut again);
    for position in 0..64 {
        if touched >> position & 1 == 1 {
            assert_eq!(again[position].to_bits(), full[position].to_bits(), "position {position}");
        } else {
            assert_eq!(again[position], before[position], "position {position}");
            assert!((again[position] - full[position]).abs() < 1e-15, "position {position}");
        }
    }
    assert!((again[1] - before[1]).abs() > 1e-3, "the gates moved probability between 1 and 9");
    // With no states at all, a touched position reads 0 as the full read has it.
    SparseState::new().low_word_probabilities_after(&[0.5; 64], 1 << 3, &mut again);
    assert_eq!((again[3], again[4]), (0.0, 0.5));
}

/// Collapsing into another state's storage gives the state and probability collapsing in
/// place gives, to the bit, and leaves the source as it was; an unknown qubit is an error.
#[test]
fn collapsing_from_a_source_matches_collapsing_in_place() {
    let mut source = state(6);
    for q in 0..4 {
        source.apply_gate(&Gate::one(GateKind::H, Qubit(q))).expect("gate");
    }
    source.apply_gate(&Gate::iswap(Qubit(1), Qubit(4), 0.5)).expect("split");
    source.apply_gate(&Gate::iswap(Qubit(4), Qubit(2), 0.5)).expect("exchange");
    let before: Vec<_> = source.amplitudes().collect();
    // Storage that held another state, with more room than needed.
    let mut reused = state(9);
    for q in 0..8 {
        reused.apply_gate(&Gate::one(GateKind::H, Qubit(q))).expect("gate");
    }
    for (qubit, value) in [(0, true), (2, false), (4, true), (5, true)] {
        let mut in_place = source.clone();
        let expected = in_place.collapse_counting(Qubit(qubit), value).expect("collapse");
        let found = reused.collapse_counting_from(&source, Qubit(qubit), value).expect("collapse");
        assert_eq!(found.to_bits(), expected.to_bits(), "qubit {qubit} = {value}");
        assert_eq!(reused.amplitudes().collect::<Vec<_>>(), in_place.amplitudes().collect::<Vec<_>>());
        assert_eq!(reused.live_positions(), in_place.live_positions());
        assert_eq!(reused.low_word_probabilities(), in_place.low_word_probabilities());
        assert_eq!(source.amplitudes().collect::<Vec<_>>(), before);
    }
    assert!(matches!(reused.collapse_counting_from(&source, Qubit(7), true), Err(SimError::UnknownQubit(_))));
}

/// Monomial gates on qubits in the low word only, and on ones in the high word (ancillas),
/// as targets and as controls, agree with the matrix.
#[test]
fn monomial_gates_agree_with_the_matrix_in_either_word() {
    let mut s = state(3);
    let (high, higher) = (Qubit(3), Qubit(4));
    assert!(s.add_qubit(high).expect("room") >= 64);
    assert!(s.add_qubit(higher).expect("room") >= 64);
    for q in [0, 1, 2, 3] {
        s.apply_gate(&Gate::one(GateKind::H, Qubit(q))).expect("gate");
    }
    let gates = [
        Gate::iswap(Qubit(0), Qubit(1), 1.0),
        Gate::iswap(Qubit(0), Qubit(2), -1.0).controlled(Qubit(1)),
        Gate::iswap(Qubit(1), high, 1.0),
        Gate::iswap(Qubit(2), Qubit(0), 1.0).controlled(high),
        Gate { kind: GateKind::Swap, targets: [higher, Qubit(1)].into_iter().collect(), controls: Default::default() },
        Gate::iswap(Qubit(1), Qubit(2), -1.0).controlled(higher),
    ];
    for gate in gates {
        let expected = reference(&s, &gate);
        s.apply_gate(&gate).expect("gate");
        assert_matches(&s, &expected);
    }
}
