//! Tests of the dense simulator against hand-derived values and a naive reference.

use std::f64::consts::{FRAC_1_SQRT_2, PI};

use num_complex::Complex64;
use proptest::prelude::*;
use qchess_circuit::ir::{Circuit, Clbit, Condition, Control, Gate, GateKind, Op, PostSelection, Qubit, QubitRole};

use super::*;

const EPS: f64 = 1e-12;

fn c(re: f64, im: f64) -> Complex64 {
    Complex64::new(re, im)
}

fn circuit(qubits: usize) -> (Circuit, Vec<Qubit>) {
    let mut circuit = Circuit::new();
    let qubits = (0..qubits).map(|_| circuit.add_qubit(QubitRole::General)).collect();
    (circuit, qubits)
}

fn exact(circuit: &Circuit) -> Vec<f64> {
    DenseSimulator::new().probabilities(circuit).expect("simulates").probabilities
}

fn assert_probabilities(actual: &[f64], expected: &[(usize, f64)]) {
    let mut want = vec![0.0; actual.len()];
    for &(index, p) in expected {
        want[index] = p;
    }
    for (index, (a, w)) in actual.iter().zip(&want).enumerate() {
        assert!((a - w).abs() < EPS, "P({index:#b}) = {a}, expected {w}");
    }
}

/// The naive definition: `out[j] = sum_i U[j][i] in[i]` with `U` built from the gate's matrix.
fn reference_apply(state: &[Complex64], gate: &Gate) -> Vec<Complex64> {
    let targets: Vec<usize> = gate.targets.iter().map(|q| q.index()).collect();
    let sub = |index: usize| targets.iter().enumerate().map(|(k, &t)| (index >> t & 1) << k).sum::<usize>();
    let target_mask: usize = targets.iter().map(|t| 1 << t).sum();
    let admits = |index: usize| gate.controls.iter().all(|ctl| (index >> ctl.qubit.index() & 1 == 1) == ctl.on);
    let entry = |row: usize, column: usize| -> Complex64 {
        match gate.kind.arity() {
            1 => gate.kind.matrix2().expect("1q")[row][column],
            _ => gate.kind.matrix4().expect("2q")[row][column],
        }
    };
    let mut out = vec![c(0.0, 0.0); state.len()];
    for (i, amplitude) in state.iter().enumerate() {
        if !admits(i) {
            out[i] += amplitude;
            continue;
        }
        for (j, slot) in out.iter_mut().enumerate() {
            if j & !target_mask == i & !target_mask {
                *slot += entry(sub(j), sub(i)) * amplitude;
            }
        }
    }
    out
}

fn pseudo_random_state(qubits: usize, seed: u64) -> Vec<Complex64> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x >> 11) as f64 / (1u64 << 53) as f64 - 0.5
    };
    let raw: Vec<Complex64> = (0..1usize << qubits).map(|_| c(next(), next())).collect();
    let norm = raw.iter().map(|a| a.norm_sqr()).sum::<f64>().sqrt();
    raw.into_iter().map(|a| a / norm).collect()
}

#[test]
fn every_kind_with_every_control_pattern_matches_the_naive_definition() {
    let qubits = 5;
    let patterns: [&[(u32, bool)]; 6] = [
        &[],
        &[(4, true)],
        &[(2, false)],
        &[(4, true), (0, false)],
        &[(0, false), (2, false), (4, true)],
        &[(3, true), (2, true)],
    ];
    for (seed, kind) in GateKind::samples().into_iter().enumerate() {
        for pattern in patterns {
            // Targets avoid the control qubits of the pattern.
            let free: Vec<u32> = (0..qubits as u32).filter(|q| pattern.iter().all(|(c, _)| c != q)).collect();
            let targets: Vec<Qubit> = free.iter().rev().take(kind.arity()).map(|&q| Qubit(q)).collect();
            let gate = Gate {
                kind,
                targets: targets.into_iter().collect(),
                controls: pattern.iter().map(|&(q, on)| Control { qubit: Qubit(q), on }).collect(),
            };
            let input = pseudo_random_state(qubits, seed as u64 + 1);
            let mut state = DenseState::from_amplitudes(input.clone()).expect("power of two");
            state.apply_gate(&gate).expect("valid gate");
            let expected = reference_apply(&input, &gate);
            for (k, (a, e)) in state.amplitudes().iter().zip(&expected).enumerate() {
                assert!((a - e).norm() < EPS, "{gate}: amplitude {k} is {a}, expected {e}");
            }
        }
    }
}

#[test]
fn every_target_placement_matches_the_naive_definition() {
    // Kernels take different paths for low and high targets (adjacent pairs, short periods,
    // long runs): try every ordered target pair, alone and under a control.
    let qubits = 5u32;
    for (seed, kind) in GateKind::samples().into_iter().enumerate() {
        for a in 0..qubits {
            for b in (0..qubits).filter(|&b| b != a) {
                let targets: Vec<Qubit> = if kind.arity() == 1 { vec![Qubit(a)] } else { vec![Qubit(a), Qubit(b)] };
                let control = (0..qubits).find(|&q| q != a && q != b).map(Qubit);
                for controlled in [false, true] {
                    let mut gate =
                        Gate { kind, targets: targets.iter().copied().collect(), controls: Default::default() };
                    if controlled {
                        gate = gate.controlled(control.expect("a fifth qubit"));
                    }
                    let input = pseudo_random_state(qubits as usize, seed as u64 + 7);
                    let mut state = DenseState::from_amplitudes(input.clone()).expect("power of two");
                    state.apply_gate(&gate).expect("valid gate");
                    let expected = reference_apply(&input, &gate);
                    for (k, (x, e)) in state.amplitudes().iter().zip(&expected).enumerate() {
                        assert!((x - e).norm() < EPS, "{gate}: amplitude {k} is {x}, expected {e}");
                    }
                }
            }
        }
    }
}

#[test]
fn iswap_moves_a_piece_with_phase_i_and_its_square_root_splits_it() {
    let (mut circ, q) = circuit(2);
    circ.push_gate(Gate::x(q[0]));
    circ.push_gate(Gate::iswap(q[0], q[1], 1.0));
    let state = DenseSimulator::new().final_state(&circ).expect("runs");
    assert!((state.amplitudes()[0b10] - c(0.0, 1.0)).norm() < EPS);

    let (mut circ, q) = circuit(2);
    circ.push_gate(Gate::x(q[0]));
    circ.push_gate(Gate::iswap(q[0], q[1], 0.5));
    let state = DenseSimulator::new().final_state(&circ).expect("runs");
    assert!((state.amplitudes()[0b01] - c(FRAC_1_SQRT_2, 0.0)).norm() < EPS);
    assert!((state.amplitudes()[0b10] - c(0.0, FRAC_1_SQRT_2)).norm() < EPS);

    // Split then merge back with the inverse: the piece returns to its square.
    circ.push_gate(Gate::iswap(q[0], q[1], -0.5));
    assert_probabilities(&exact(&circ), &[(0b01, 1.0)]);
}

#[test]
fn rotations_give_their_textbook_probabilities() {
    for theta in [0.0, 0.3, 1.0, PI / 3.0, PI, 4.0] {
        let (mut circ, q) = circuit(1);
        circ.push_gate(Gate::one(GateKind::Rx(theta), q[0]));
        let p1 = (theta / 2.0).sin().powi(2);
        assert_probabilities(&exact(&circ), &[(0, 1.0 - p1), (1, p1)]);
    }
    // Controlled Ry on a |+> control: P(11) = sin^2(theta/2) / 2.
    let theta = 0.9;
    let (mut circ, q) = circuit(2);
    circ.push_gate(Gate::one(GateKind::H, q[0]));
    circ.push_gate(Gate::one(GateKind::Ry(theta), q[1]).controlled(q[0]));
    let p = (theta / 2.0).sin().powi(2) / 2.0;
    assert_probabilities(&exact(&circ), &[(0b00, 0.5), (0b01, 0.5 - p), (0b11, p)]);
}

#[test]
fn a_mid_circuit_measurement_decoheres() {
    // H; H is the identity, but a measurement between them leaves a fair coin.
    let (mut circ, q) = circuit(1);
    circ.push_gate(Gate::one(GateKind::H, q[0]));
    circ.push_measure(q[0]);
    circ.push_gate(Gate::one(GateKind::H, q[0]));
    assert_probabilities(&exact(&circ), &[(0, 0.5), (1, 0.5)]);

    let (mut unmeasured, q) = circuit(1);
    unmeasured.push_gate(Gate::one(GateKind::H, q[0]));
    unmeasured.push_gate(Gate::one(GateKind::H, q[0]));
    assert_probabilities(&exact(&unmeasured), &[(0, 1.0)]);
}

#[test]
fn classical_conditions_read_the_measured_register() {
    // Teleport-like feed-forward: measure a |+>, copy the result into b by a condition.
    let (mut circ, q) = circuit(2);
    let register = circ.add_register("c", 1);
    circ.push_gate(Gate::one(GateKind::Ry(2.0 * (0.3f64).sqrt().asin()), q[0]));
    circ.ops.push(Op::Measure { qubit: q[0], clbit: Clbit(0) });
    circ.ops.push(Op::Gate { gate: Gate::x(q[1]), condition: Some(Condition { register, value: 1 }) });
    assert_probabilities(&exact(&circ), &[(0b00, 0.7), (0b11, 0.3)]);

    // A two-bit register compared as an integer, bit 0 least significant.
    let (mut circ, q) = circuit(3);
    let register = circ.add_register("c", 2);
    circ.push_gate(Gate::x(q[0]));
    circ.ops.push(Op::Measure { qubit: q[0], clbit: Clbit(0) });
    circ.ops.push(Op::Measure { qubit: q[1], clbit: Clbit(1) });
    circ.ops.push(Op::Gate { gate: Gate::x(q[2]), condition: Some(Condition { register, value: 1 }) });
    circ.ops.push(Op::Gate { gate: Gate::x(q[1]), condition: Some(Condition { register, value: 2 }) });
    assert_probabilities(&exact(&circ), &[(0b101, 1.0)]);
}

#[test]
fn reset_returns_a_qubit_to_zero_keeping_its_partner() {
    let (mut circ, q) = circuit(2);
    circ.push_gate(Gate::one(GateKind::H, q[0]));
    circ.push_gate(Gate::cx(q[0], q[1]));
    circ.ops.push(Op::Reset { qubit: q[0] });
    assert_probabilities(&exact(&circ), &[(0b00, 0.5), (0b10, 0.5)]);
}

#[test]
fn post_selection_conditions_the_distribution() {
    // Ry(theta) a; CX a b; measure a, keep a = 1: everything is |11>, with P(keep) = sin^2.
    let theta = 1.1;
    let (mut circ, q) = circuit(2);
    circ.push_gate(Gate::one(GateKind::Ry(theta), q[0]));
    circ.push_gate(Gate::cx(q[0], q[1]));
    let bit = circ.push_measure(q[0]);
    circ.postselect.push(PostSelection { qubit: q[0], clbit: bit, value: true });
    let result = DenseSimulator::new().probabilities(&circ).expect("simulates");
    assert_probabilities(&result.probabilities, &[(0b11, 1.0)]);
    assert!((result.postselection_probability - (theta / 2.0).sin().powi(2)).abs() < EPS);

    let counts = DenseSimulator::new().sample(&circ, 500, 3).expect("samples");
    assert_eq!(counts.counts.into_iter().collect::<Vec<_>>(), [(1, 500)]);

    // An impossible post-selection is an error, not a division by zero.
    let (mut circ, q) = circuit(1);
    let bit = circ.push_measure(q[0]);
    circ.postselect.push(PostSelection { qubit: q[0], clbit: bit, value: true });
    assert_eq!(DenseSimulator::new().probabilities(&circ), Err(DenseError::PostSelectionImpossible));
}

#[test]
fn post_selection_with_feed_forward_samples_by_rejection() {
    // a = |+>, measured; b flipped when a read 1; keep only runs where b reads 1.
    let (mut circ, q) = circuit(2);
    let a_bits = circ.add_register("a", 1);
    circ.add_register("b", 1);
    circ.push_gate(Gate::one(GateKind::H, q[0]));
    circ.ops.push(Op::Measure { qubit: q[0], clbit: Clbit(0) });
    circ.ops.push(Op::Gate { gate: Gate::x(q[1]), condition: Some(Condition { register: a_bits, value: 1 }) });
    circ.ops.push(Op::Measure { qubit: q[1], clbit: Clbit(1) });
    circ.postselect.push(PostSelection { qubit: q[1], clbit: Clbit(1), value: true });
    let exact = DenseSimulator::new().probabilities(&circ).expect("simulates");
    assert_probabilities(&exact.probabilities, &[(0b11, 1.0)]);
    assert!((exact.postselection_probability - 0.5).abs() < EPS);
    let counts = DenseSimulator::new().sample(&circ, 200, 9).expect("samples");
    assert_eq!(counts.counts.into_iter().collect::<Vec<_>>(), [(0b11, 200)]);
}

#[test]
fn memory_is_checked_before_allocation() {
    let (circ, _) = circuit(40);
    let error = DenseSimulator::new().probabilities(&circ).expect_err("too large");
    assert_eq!(error, DenseError::TooManyQubits { qubits: 40, limit: DEFAULT_MAX_QUBITS });
    assert_eq!(
        error.to_string(),
        "40 qubits need 16 TiB for a dense state vector, over the limit of 30 qubits (16 GiB)"
    );
    let small = DenseSimulator::with_limits(Limits::with_max_qubits(3));
    let (circ, _) = circuit(4);
    assert!(matches!(small.sample(&circ, 10, 0), Err(DenseError::TooManyQubits { qubits: 4, limit: 3 })));
    // An absurd limit is capped instead of overflowing.
    let huge = Limits::with_max_qubits(usize::MAX);
    assert!(huge.check(200).is_err());
}

#[test]
fn branching_stays_within_the_memory_budget() {
    // Each qubit: H, measure, H. Every measurement doubles the distinct branches (|+> and |->
    // on the measured qubit); a 5-qubit budget holds 8 states of 2 qubits or 4 of 3.
    let measure_between = |qubits: usize| {
        let (mut circ, q) = circuit(qubits);
        for &qubit in &q {
            circ.push_gate(Gate::one(GateKind::H, qubit));
            circ.push_measure(qubit);
            circ.push_gate(Gate::one(GateKind::H, qubit));
        }
        circ
    };
    let sim = DenseSimulator::with_limits(Limits::with_max_qubits(5));
    assert_probabilities(
        &sim.probabilities(&measure_between(2)).expect("fits").probabilities,
        &[(0, 0.25), (1, 0.25), (2, 0.25), (3, 0.25)],
    );
    assert_eq!(
        sim.probabilities(&measure_between(3)),
        Err(DenseError::TooManyBranches { branches: 8, qubits: 3, limit: 5 })
    );
    // Measuring one qubit again and again keeps two branches, merged after each measurement.
    let (mut deep, q) = circuit(3);
    for _ in 0..40 {
        deep.push_gate(Gate::one(GateKind::H, q[0]));
        deep.push_measure(q[0]);
    }
    deep.push_gate(Gate::one(GateKind::H, q[0]));
    assert_probabilities(&sim.probabilities(&deep).expect("fits").probabilities, &[(0, 0.5), (1, 0.5)]);
}

#[test]
fn shots_are_validated_and_seeded() {
    let (mut circ, q) = circuit(3);
    for &qubit in &q {
        circ.push_gate(Gate::one(GateKind::H, qubit));
    }
    let sim = DenseSimulator::new();
    assert_eq!(sim.sample(&circ, 0, 1), Err(DenseError::InvalidShots { shots: 0, max: MAX_SHOTS }));
    let first = sim.sample(&circ, 1000, 42).expect("samples");
    assert_eq!(first, sim.sample(&circ, 1000, 42).expect("samples"));
    assert_ne!(first, sim.sample(&circ, 1000, 43).expect("samples"));
    assert_eq!(first.keys, CountKeys::Qubits(3));
    assert_eq!(first.counts.values().sum::<u64>(), 1000);
}

/// Upper tail of the chi-squared distribution with `df` degrees of freedom at `x`.
fn chi_squared_p_value(x: f64, df: usize) -> f64 {
    // Q(a, z) = Gamma(a, z) / Gamma(a) with a = df/2, z = x/2, by series or continued fraction.
    let (a, z) = (df as f64 / 2.0, x / 2.0);
    let ln_gamma_a = ln_gamma(a);
    if z < a + 1.0 {
        let (mut term, mut sum, mut n) = (1.0 / a, 1.0 / a, a);
        for _ in 0..1000 {
            n += 1.0;
            term *= z / n;
            sum += term;
        }
        1.0 - sum * (-z + a * z.ln() - ln_gamma_a).exp()
    } else {
        let mut b = z + 1.0 - a;
        let mut cc = 1.0 / 1e-300;
        let mut d = 1.0 / b;
        let mut h = d;
        for i in 1..1000 {
            let an = -(i as f64) * (i as f64 - a);
            b += 2.0;
            d = an * d + b;
            cc = b + an / cc;
            d = 1.0 / d;
            h *= d * cc;
        }
        (-z + a * z.ln() - ln_gamma_a).exp() * h
    }
}

fn ln_gamma(x: f64) -> f64 {
    // Lanczos approximation (g = 7, n = 9).
    const COEFFICIENTS: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    let x = x - 1.0;
    let t = x + 7.5;
    let series: f64 = COEFFICIENTS[0] + (1..9).map(|i| COEFFICIENTS[i] / (x + i as f64)).sum::<f64>();
    0.5 * (2.0 * PI).ln() + (x + 0.5) * t.ln() - t + series.ln()
}

/// Pearson's chi-squared test of counts against exact probabilities, pooling cells whose
/// expected count is below 5; returns the p-value.
fn goodness_of_fit(counts: &std::collections::BTreeMap<u64, u64>, expected: &[(u64, f64)], shots: u64) -> f64 {
    let mut cells: Vec<(f64, f64)> = Vec::new();
    let (mut pooled_observed, mut pooled_expected) = (0.0, 0.0);
    for &(key, p) in expected {
        let observed = *counts.get(&key).unwrap_or(&0) as f64;
        let wanted = p * shots as f64;
        if wanted < 5.0 {
            pooled_observed += observed;
            pooled_expected += wanted;
        } else {
            cells.push((observed, wanted));
        }
    }
    let unexpected: u64 = counts.iter().filter(|(k, _)| expected.iter().all(|(e, _)| e != *k)).map(|(_, v)| v).sum();
    assert_eq!(unexpected, 0, "results outside the support: {counts:?}");
    if pooled_expected > 0.0 {
        cells.push((pooled_observed, pooled_expected));
    }
    let statistic: f64 = cells.iter().map(|(o, e)| (o - e).powi(2) / e).sum();
    chi_squared_p_value(statistic, cells.len().saturating_sub(1).max(1))
}

#[test]
fn the_chi_squared_helper_matches_known_quantiles() {
    // 95% quantiles of chi-squared: df 1 -> 3.841, df 7 -> 14.067, df 30 -> 43.773.
    for (x, df) in [(3.841_458_820_694_124, 1), (14.067_140_449_340_169, 7), (43.772_971_825_742_18, 30)] {
        assert!((chi_squared_p_value(x, df) - 0.05).abs() < 1e-6, "df {df}");
    }
}

#[test]
fn sampling_the_final_distribution_fits_the_exact_one() {
    // Independent Ry rotations give a product distribution with uneven cells.
    let angles = [0.4, 1.3, 2.2, 0.9];
    let (mut circ, q) = circuit(angles.len());
    for (&qubit, &theta) in q.iter().zip(&angles) {
        circ.push_gate(Gate::one(GateKind::Ry(theta), qubit));
    }
    for &qubit in &q {
        circ.push_measure(qubit);
    }
    let expected: Vec<(u64, f64)> = (0..16u64)
        .map(|k| {
            let p = angles.iter().enumerate().fold(1.0, |acc, (i, theta)| {
                let one = (theta / 2.0f64).sin().powi(2);
                acc * if k >> i & 1 == 1 { one } else { 1.0 - one }
            });
            (k, p)
        })
        .collect();
    let shots = 20_000;
    for seed in [1, 2, 3] {
        let counts = DenseSimulator::new().sample(&circ, shots, seed).expect("samples");
        assert_eq!(counts.keys, CountKeys::Clbits(4));
        let p = goodness_of_fit(&counts.counts, &expected, shots);
        assert!(p > 1e-6, "seed {seed}: p = {p}");
    }
}

#[test]
fn sampling_per_shot_fits_the_exact_distribution() {
    // a: Ry(1.0), measured into c0; b flipped on c0 = 1, then Ry(0.7) b measured into c1.
    let (mut circ, q) = circuit(2);
    let register = circ.add_register("c0", 1);
    circ.add_register("c1", 1);
    circ.push_gate(Gate::one(GateKind::Ry(1.0), q[0]));
    circ.ops.push(Op::Measure { qubit: q[0], clbit: Clbit(0) });
    circ.ops.push(Op::Gate { gate: Gate::x(q[1]), condition: Some(Condition { register, value: 1 }) });
    circ.push_gate(Gate::one(GateKind::Ry(0.7), q[1]));
    circ.ops.push(Op::Measure { qubit: q[1], clbit: Clbit(1) });
    let pa = (0.5f64).sin().powi(2);
    let pb = (0.35f64).sin().powi(2);
    let expected = [(0b00, (1.0 - pa) * (1.0 - pb)), (0b10, (1.0 - pa) * pb), (0b01, pa * pb), (0b11, pa * (1.0 - pb))];
    let shots = 20_000;
    for seed in [5, 6] {
        let counts = DenseSimulator::new().sample(&circ, shots, seed).expect("samples");
        let p = goodness_of_fit(&counts.counts, &expected, shots);
        assert!(p > 1e-6, "seed {seed}: p = {p}");
    }
}

#[test]
fn unitaries_are_built_and_compared_up_to_global_phase() {
    let (mut circ, q) = circuit(2);
    circ.push_gate(Gate::one(GateKind::Rz(0.8), q[0]));
    let (mut phase, q2) = circuit(2);
    phase.push_gate(Gate::one(GateKind::Phase(0.8), q2[0]));
    let (a, b) = (unitary(&circ).expect("small"), unitary(&phase).expect("small"));
    assert!(a.approx_eq_up_to_global_phase(&b, EPS));
    assert!((a.entry(1, 1) - Complex64::from_polar(1.0, 0.4)).norm() < EPS);
    let (mut different, q3) = circuit(2);
    different.push_gate(Gate::one(GateKind::Phase(0.8), q3[1]));
    assert!(!a.approx_eq_up_to_global_phase(&unitary(&different).expect("small"), 1e-3));

    let (mut measured, q) = circuit(1);
    measured.push_measure(q[0]);
    assert_eq!(unitary(&measured), Err(DenseError::NotUnitary { op: 0, what: "a measurement" }));
    let (big, _) = circuit(MAX_UNITARY_QUBITS + 1);
    assert!(matches!(unitary(&big), Err(DenseError::UnitaryTooLarge { .. })));
}

#[test]
fn malformed_gates_are_errors() {
    let mut state = DenseState::zero(2, &Limits::default()).expect("tiny");
    let bad = Gate { kind: GateKind::Swap, targets: [Qubit(0)].into_iter().collect(), controls: Default::default() };
    assert!(matches!(state.apply_gate(&bad), Err(DenseError::InvalidGate { .. })));
    assert!(state.apply_gate(&Gate::x(Qubit(5))).is_err());
    assert!(state.apply_gate(&Gate::one(GateKind::Rx(f64::NAN), Qubit(0))).is_err());
    assert!(DenseState::from_amplitudes(vec![c(1.0, 0.0); 3]).is_err());
}

fn arbitrary_kind() -> impl Strategy<Value = GateKind> {
    let angle = -7.0f64..7.0;
    prop_oneof![
        Just(GateKind::X),
        Just(GateKind::H),
        Just(GateKind::T),
        Just(GateKind::Sx),
        angle.clone().prop_map(GateKind::Ry),
        angle.clone().prop_map(GateKind::Phase),
        (angle.clone(), angle.clone(), angle.clone()).prop_map(|(a, b, c)| GateKind::U(a, b, c)),
        Just(GateKind::Swap),
        (-2.0f64..2.0).prop_map(GateKind::ISwap),
        angle.clone().prop_map(GateKind::Rxx),
        angle.prop_map(GateKind::Rzz),
    ]
}

fn arbitrary_circuit(qubits: usize) -> impl Strategy<Value = Circuit> {
    let op = (
        arbitrary_kind(),
        proptest::sample::subsequence((0..qubits as u32).collect::<Vec<_>>(), 3),
        any::<[bool; 2]>(),
    );
    proptest::collection::vec(op, 0..25).prop_map(move |ops| {
        let (mut circ, _) = circuit(qubits);
        for (kind, mut chosen, polarity) in ops {
            chosen.reverse();
            let targets: Vec<Qubit> = chosen.iter().take(kind.arity()).map(|&q| Qubit(q)).collect();
            let controls: Vec<Control> = chosen
                .iter()
                .skip(kind.arity())
                .zip(polarity)
                .map(|(&q, on)| Control { qubit: Qubit(q), on })
                .collect();
            circ.push_gate(Gate {
                kind,
                targets: targets.into_iter().collect(),
                controls: controls.into_iter().collect(),
            });
        }
        circ
    })
}

proptest! {
    #[test]
    fn circuits_preserve_the_norm_and_unitaries_are_unitary(circ in arbitrary_circuit(4)) {
        let probabilities = exact(&circ);
        prop_assert!((probabilities.iter().sum::<f64>() - 1.0).abs() < 1e-10);
        let u = unitary(&circ).expect("small");
        for i in 0..u.dim() {
            for j in 0..u.dim() {
                let dot: Complex64 = u.column(i).iter().zip(u.column(j)).map(|(a, b)| a.conj() * b).sum();
                let want = if i == j { 1.0 } else { 0.0 };
                prop_assert!((dot - c(want, 0.0)).norm() < 1e-10);
            }
        }
    }

    #[test]
    fn sampled_counts_add_up_and_stay_in_the_support(circ in arbitrary_circuit(3), seed in any::<u64>()) {
        let probabilities = exact(&circ);
        let counts = DenseSimulator::new().sample(&circ, 300, seed).expect("samples");
        prop_assert_eq!(counts.counts.values().sum::<u64>(), 300);
        for key in counts.counts.keys() {
            prop_assert!(probabilities[*key as usize] > 1e-14, "sampled impossible state {}", key);
        }
    }
}
