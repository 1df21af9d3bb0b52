//! Circuits with mid-circuit measurements, resets and conditions on sparse branches, checked
//! against hand-derived values and against the dense simulator.

use std::time::Duration;

use qchess_circuit::ir::{Circuit, Clbit, Condition, Gate, GateKind, Op, PostSelection, QubitRole};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::*;
use crate::deadline::Deadline;
use crate::dense::DenseState;

/// `rounds` rounds of `h q[i]; measure q[i] -> c[i]` on `qubits` qubits.
pub(crate) fn measured_rounds(qubits: usize, rounds: usize) -> Circuit {
    let mut circuit = Circuit::new();
    let q: Vec<_> = (0..qubits).map(|_| circuit.add_qubit(QubitRole::General)).collect();
    circuit.add_register("c", qubits as u32);
    for _ in 0..rounds {
        for (i, &qubit) in q.iter().enumerate() {
            circuit.push_gate(Gate::one(GateKind::H, qubit));
            circuit.ops.push(Op::Measure { qubit, clbit: Clbit(i as u32) });
        }
    }
    circuit
}

/// `h q0; measure q0 -> c0; if (c0 == 1) x q1; h q2; measure q2 -> c1; measure q1 -> c2`, on
/// four qubits (the fourth idle): bits c0 = c2, and c1 independent, all fair.
fn feed_forward() -> Circuit {
    let mut circuit = Circuit::new();
    let q: Vec<_> = (0..4).map(|_| circuit.add_qubit(QubitRole::General)).collect();
    let first = circuit.add_register("a", 1);
    circuit.add_register("b", 2);
    circuit.push_gate(Gate::one(GateKind::H, q[0]));
    circuit.ops.push(Op::Measure { qubit: q[0], clbit: Clbit(0) });
    circuit.ops.push(Op::Gate { gate: Gate::x(q[1]), condition: Some(Condition { register: first, value: 1 }) });
    circuit.push_gate(Gate::one(GateKind::H, q[2]));
    circuit.ops.push(Op::Measure { qubit: q[2], clbit: Clbit(1) });
    circuit.ops.push(Op::Measure { qubit: q[1], clbit: Clbit(2) });
    circuit
}

fn probability_of(outcomes: &Outcomes, key: u64) -> f64 {
    outcomes.probabilities.iter().find(|(k, _)| *k == key).map_or(0.0, |(_, p)| *p)
}

#[test]
fn feed_forward_is_exact_on_sparse_branches() {
    let outcomes = probabilities(&feed_forward(), &AutoLimits::default()).expect("runs");
    assert_eq!(outcomes.engine, Engine::Sparse);
    // Qubits q0 = q1, q2 independent: 0000, 0011, 0100, 0111 each 1/4.
    for key in [0b0000, 0b0011, 0b0100, 0b0111] {
        assert!((probability_of(&outcomes, key) - 0.25).abs() < 1e-12, "{key:04b}");
    }
    assert_eq!(outcomes.probabilities.len(), 4);
}

#[test]
fn reset_returns_a_qubit_to_zero_in_every_branch() {
    let mut circuit = Circuit::new();
    let q: Vec<_> = (0..4).map(|_| circuit.add_qubit(QubitRole::General)).collect();
    circuit.push_gate(Gate::one(GateKind::Ry(1.0), q[0]));
    circuit.push_gate(Gate::cx(q[0], q[1]));
    circuit.ops.push(Op::Reset { qubit: q[0] });
    let outcomes = probabilities(&circuit, &AutoLimits::default()).expect("runs");
    assert_eq!(outcomes.engine, Engine::Sparse);
    // q1 keeps the Ry(1) weights: sin^2(1/2) of reading 1; q0 is 0 everywhere.
    let one = (0.5f64).sin().powi(2);
    assert!((probability_of(&outcomes, 0b10) - one).abs() < 1e-12);
    assert!((probability_of(&outcomes, 0b00) - (1.0 - one)).abs() < 1e-12);
}

/// A random circuit of gates, measurements, resets, conditions and one post-selection.
fn random_dynamic_circuit(seed: u64) -> Circuit {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut circuit = Circuit::new();
    let q: Vec<_> = (0..5).map(|_| circuit.add_qubit(QubitRole::General)).collect();
    let register = circuit.add_register("c", 3);
    let pick = |rng: &mut ChaCha8Rng| q[rng.random_range(0..q.len())];
    for _ in 0..24 {
        let a = pick(&mut rng);
        let mut b = pick(&mut rng);
        while b == a {
            b = pick(&mut rng);
        }
        let angle = rng.random::<f64>() * 3.0;
        let op = match rng.random_range(0..9) {
            0 => Op::Gate { gate: Gate::one(GateKind::H, a), condition: None },
            1 => Op::Gate { gate: Gate::one(GateKind::Rx(angle), a), condition: None },
            2 => Op::Gate { gate: Gate::one(GateKind::U(angle, 0.3, 1.1), a), condition: None },
            3 => Op::Gate { gate: Gate::cx(a, b), condition: None },
            4 => Op::Gate { gate: Gate::iswap(a, b, 0.5), condition: None },
            5 => Op::Measure { qubit: a, clbit: Clbit(rng.random_range(0..3)) },
            6 => Op::Reset { qubit: a },
            7 => Op::Gate {
                gate: Gate::one(GateKind::Ry(angle), a),
                condition: Some(Condition { register, value: rng.random_range(0..8) }),
            },
            _ => Op::Gate { gate: Gate::one(GateKind::T, a), condition: None },
        };
        circuit.ops.push(op);
    }
    let bit = circuit.add_clbit();
    circuit.ops.insert(6, Op::Measure { qubit: q[4], clbit: bit });
    circuit.postselect.push(PostSelection { qubit: q[4], clbit: bit, value: false });
    circuit
}

#[test]
fn random_dynamic_circuits_agree_with_the_dense_simulator() {
    // The mixture is called directly with room for full states, so every circuit runs on it.
    let limits = AutoLimits::default();
    let mut compared = 0;
    for seed in 0..60 {
        let circuit = random_dynamic_circuit(seed);
        let plan = crate::dense::plan::plan(&circuit).expect("valid");
        let dense = DenseSimulator::new().probabilities(&circuit);
        let mixed = mixture::exact(&circuit, &plan, &limits, 1 << 10);
        let (dense, mixed) = match (dense, mixed) {
            (Ok(dense), Ok(mixed)) => (dense, mixed),
            (
                Err(DenseError::PostSelectionImpossible),
                Err(Stop::Failed(AutoError::Dense(DenseError::PostSelectionImpossible))),
            ) => {
                continue;
            }
            (dense, Err(Stop::Failed(error))) => panic!("seed {seed}: dense {dense:?}, mixture {error:?}"),
            (dense, _) => panic!("seed {seed}: dense {dense:?}, mixture not sparse"),
        };
        compared += 1;
        assert!((dense.postselection_probability - mixed.accepted).abs() < 1e-9, "seed {seed}");
        let mixed = Outcomes {
            num_qubits: 5,
            probabilities: mixed.probabilities,
            postselection_probability: 1.0,
            engine: Engine::Sparse,
        };
        for (key, &p) in dense.probabilities.iter().enumerate() {
            assert!((p - probability_of(&mixed, key as u64)).abs() < 1e-9, "seed {seed}, outcome {key:05b}");
        }
    }
    assert!(compared >= 30, "only {compared} circuits had possible post-selections");
}

/// Every measurement history walked one at a time, nothing merged and nothing reordered: the
/// reference both mixtures and the reordering are held to. Returns the distribution over every
/// qubit and the probability of passing the post-selections.
fn every_history(circuit: &Circuit) -> (Vec<f64>, f64) {
    fn walk(circuit: &Circuit, from: usize, mut state: DenseState, weight: f64, clbits: u64, out: &mut [f64]) {
        for (index, op) in circuit.ops.iter().enumerate().skip(from) {
            match op {
                Op::Gate { gate, condition } => {
                    let holds = condition.is_none_or(|c| {
                        let register = &circuit.registers[c.register];
                        (clbits >> register.start) & ((1 << register.len) - 1) == c.value
                    });
                    if holds {
                        state.apply_gate(gate).expect("valid gate");
                    }
                }
                Op::Measure { qubit, .. } | Op::Reset { qubit } => {
                    let one = state.probability_of_one(*qubit).expect("valid qubit");
                    let selected = circuit
                        .postselect
                        .iter()
                        .find(|s| matches!(op, Op::Measure { clbit, .. } if *clbit == s.clbit));
                    for value in [false, true] {
                        let p = if value { one } else { 1.0 - one };
                        if p < 1e-14 || selected.is_some_and(|s| s.value != value) {
                            continue;
                        }
                        let mut next = state.clone();
                        next.project_scaled(qubit.index(), value, 1.0 / p.sqrt());
                        let mut next_bits = clbits;
                        match op {
                            Op::Measure { clbit, .. } => {
                                next_bits = (next_bits & !(1 << clbit.0)) | (u64::from(value) << clbit.0);
                            }
                            _ if value => next.apply_gate(&Gate::x(*qubit)).expect("valid qubit"),
                            _ => {}
                        }
                        walk(circuit, index + 1, next, weight * p, next_bits, out);
                    }
                    return;
                }
            }
        }
        for (sum, amplitude) in out.iter_mut().zip(state.amplitudes()) {
            *sum += weight * amplitude.norm_sqr();
        }
    }
    let mut out = vec![0.0; 1 << circuit.num_qubits()];
    let start = DenseState::zero(circuit.num_qubits(), &Limits::default()).expect("small");
    walk(circuit, 0, start, 1.0, 0, &mut out);
    let accepted: f64 = out.iter().sum();
    out.iter_mut().for_each(|p| *p /= accepted);
    (out, accepted)
}

#[test]
fn the_dense_mixture_and_the_reordering_agree_with_every_history() {
    let mut compared = 0;
    for seed in 0..60 {
        let circuit = random_dynamic_circuit(seed);
        let (reference, accepted) = every_history(&circuit);
        if accepted < 1e-12 {
            continue;
        }
        compared += 1;
        let early = schedule::measurements_early(&circuit);
        for run in [&circuit, &early] {
            let dense = DenseSimulator::new().probabilities(run).expect("possible post-selection");
            assert!((dense.postselection_probability - accepted).abs() < 1e-9, "seed {seed}");
            for (key, (p, want)) in dense.probabilities.iter().zip(&reference).enumerate() {
                assert!((p - want).abs() < 1e-9, "seed {seed}, outcome {key:05b}: {p} against {want}");
            }
        }
    }
    assert!(compared >= 30, "only {compared} circuits had possible post-selections");
}

#[test]
fn measurements_after_a_whole_round_of_gates_stay_sparse() {
    // Three rounds of H on all 12 qubits, then a measurement of each: measured as written, one
    // branch would spread over 2^12 basis states before the first measurement and the dense
    // simulator would take over; measured as early as the circuit allows, no branch ever holds
    // more than two, and the merged mixture answers on sparse branches.
    let mut circuit = Circuit::new();
    let q: Vec<_> = (0..12).map(|_| circuit.add_qubit(QubitRole::General)).collect();
    circuit.add_register("c", 12);
    for _ in 0..3 {
        q.iter().for_each(|&qubit| circuit.push_gate(Gate::one(GateKind::H, qubit)));
        for (i, &qubit) in q.iter().enumerate() {
            circuit.ops.push(Op::Measure { qubit, clbit: Clbit(i as u32) });
        }
    }
    let outcomes = probabilities(&circuit, &AutoLimits::default()).expect("answers");
    assert_eq!(outcomes.engine, Engine::Sparse);
    assert_eq!(outcomes.probabilities.len(), 1 << 12);
    assert!(outcomes.probabilities.iter().all(|(_, p)| (p - 1.0 / 4096.0).abs() < 1e-15));
}

#[test]
fn equal_branches_merge_so_repeated_rounds_stay_small() {
    // Without merging, 4 rounds on 12 qubits are 2^48 branches; merged, at most 2^12 remain
    // (one per register value, the state being that value), so the limit of 2^12 holds.
    let limits = AutoLimits { dense: Limits::default().max_branches(1 << 12), ..AutoLimits::default() };
    let outcomes = probabilities(&measured_rounds(12, 4), &limits).expect("runs within 2^12 branches");
    assert_eq!(outcomes.engine, Engine::Sparse);
    assert_eq!(outcomes.probabilities.len(), 1 << 12);
    assert!(outcomes.probabilities.iter().all(|(_, p)| (p - 1.0 / 4096.0).abs() < 1e-15));
}

#[test]
fn too_many_branches_is_refused_naming_the_limit() {
    let error = probabilities(&measured_rounds(20, 50), &AutoLimits::default()).expect_err("2^20 branches");
    assert!(matches!(error, AutoError::Dense(DenseError::TooManyOutcomeBranches { limit: 262_144 })), "{error:?}");
    assert_eq!(
        error.to_string(),
        "exact probabilities need more than 262144 measurement branches (the branch limit); sample with shots instead"
    );
}

#[test]
fn many_measured_rounds_sample_per_history() {
    let (counts, engine) = sample(&measured_rounds(20, 50), 100, 7, &AutoLimits::default()).expect("samples");
    assert_eq!(engine, Engine::Sparse);
    assert_eq!(counts.keys, CountKeys::Clbits(20));
    assert_eq!(counts.counts.values().sum::<u64>(), 100);
    let again = sample(&measured_rounds(20, 50), 100, 7, &AutoLimits::default()).expect("samples").0;
    assert_eq!(counts, again, "a seed fixes the counts");
}

#[test]
fn feed_forward_shots_follow_the_exact_distribution() {
    let shots = 10_000;
    let (counts, engine) = sample(&feed_forward(), shots, 11, &AutoLimits::default()).expect("samples");
    assert_eq!(engine, Engine::Sparse);
    // Bits c2 c1 c0 with c0 = c2: 000, 010, 101, 111, each 1/4. Each count is binomial with
    // sd 43.3; 5.3 sd either side has probability below 1e-7 of being left.
    assert_eq!(counts.counts.keys().copied().collect::<Vec<_>>(), [0b000, 0b010, 0b101, 0b111]);
    for (key, &n) in &counts.counts {
        assert!((2270..=2730).contains(&n), "{key:03b}: {n}");
    }
}

#[test]
fn reset_shots_read_zero() {
    let mut circuit = Circuit::new();
    let q: Vec<_> = (0..4).map(|_| circuit.add_qubit(QubitRole::General)).collect();
    circuit.push_gate(Gate::one(GateKind::H, q[0]));
    circuit.ops.push(Op::Reset { qubit: q[0] });
    circuit.push_measure(q[0]);
    let (counts, engine) = sample(&circuit, 500, 3, &AutoLimits::default()).expect("samples");
    assert_eq!(engine, Engine::Sparse);
    assert_eq!(counts.counts.into_iter().collect::<Vec<_>>(), [(0, 500)]);
}

#[test]
fn a_passed_deadline_stops_every_path() {
    let limits =
        AutoLimits { dense: Limits::default().deadline(Deadline::after(Duration::ZERO)), ..AutoLimits::default() };
    let timed_out =
        |error: AutoError| matches!(error, AutoError::TimeLimit(_) | AutoError::Dense(DenseError::TimeLimit(_)));
    assert!(timed_out(probabilities(&measured_rounds(8, 2), &limits).expect_err("mixture")));
    assert!(timed_out(sample(&measured_rounds(8, 2), 10, 1, &limits).expect_err("shot tree")));
    let mut full = Circuit::new();
    for _ in 0..12 {
        let q = full.add_qubit(QubitRole::General);
        full.push_gate(Gate::one(GateKind::H, q));
    }
    assert!(timed_out(probabilities(&full, &limits).expect_err("dense")));
    let dense = DenseSimulator::with_limits(limits.dense);
    assert!(matches!(dense.probabilities(&full), Err(DenseError::TimeLimit(_))));
    assert!(matches!(dense.sample(&feed_forward(), 10, 1), Err(DenseError::TimeLimit(_))));
}

#[test]
fn the_dense_branch_limit_counts_distinct_live_branches() {
    // 2 qubits measured 10 times each: 2^20 outcome histories, but never more than 4 distinct
    // branches alive, which the dense mixture merges.
    let simulator = DenseSimulator::with_limits(Limits::default().max_branches(100));
    let merged = simulator.probabilities(&measured_rounds(2, 10)).expect("4 branches alive at most");
    assert!(merged.probabilities.iter().all(|p| (p - 0.25).abs() < 1e-12));
    // 8 measured qubits whose bits a condition reads afterwards: 256 branches that differ.
    let mut read_later = measured_rounds(8, 1);
    read_later.ops.push(Op::Gate { gate: Gate::x(Qubit(0)), condition: Some(Condition { register: 0, value: 0 }) });
    let error = simulator.probabilities(&read_later).expect_err("256 distinct branches");
    assert_eq!(error, DenseError::TooManyOutcomeBranches { limit: 100 });
}
