//! Fused, threaded and single-precision runs against unfused double-precision ones.

use proptest::prelude::*;
use qchess_circuit::ir::{Circuit, Control, Gate, GateKind, Qubit, QubitRole};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::*;

fn kind_from(choice: u32, angle: f64) -> GateKind {
    match choice % 12 {
        0 => GateKind::X,
        1 => GateKind::H,
        2 => GateKind::T,
        3 => GateKind::Sx,
        4 => GateKind::Ry(angle),
        5 => GateKind::Phase(angle),
        6 => GateKind::U(angle, 0.7 * angle, -1.3),
        7 => GateKind::Swap,
        8 => GateKind::ISwap(angle / 3.0),
        9 => GateKind::Rxx(angle),
        10 => GateKind::Rzz(angle),
        _ => GateKind::Rx(angle),
    }
}

/// A random circuit on `qubits` qubits: every kind, up to three controls of either polarity.
fn random_circuit(qubits: usize, gates: usize, seed: u64) -> Circuit {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut circuit = Circuit::new();
    for _ in 0..qubits {
        circuit.add_qubit(QubitRole::General);
    }
    for _ in 0..gates {
        let kind = kind_from(rng.random_range(0..12), rng.random::<f64>() * 6.0 - 3.0);
        let mut chosen: Vec<u32> = Vec::new();
        let controls = if rng.random_range(0..4) == 0 { rng.random_range(1..=3) } else { 0 };
        while chosen.len() < kind.arity() + controls {
            let q = rng.random_range(0..qubits as u32);
            if !chosen.contains(&q) {
                chosen.push(q);
            }
        }
        circuit.push_gate(Gate {
            kind,
            targets: chosen[..kind.arity()].iter().map(|&q| Qubit(q)).collect(),
            controls: chosen[kind.arity()..].iter().map(|&q| Control { qubit: Qubit(q), on: rng.random() }).collect(),
        });
    }
    circuit
}

fn final_amplitudes(circuit: &Circuit, acceleration: Acceleration) -> Vec<num_complex::Complex64> {
    DenseSimulator::new().with_acceleration(acceleration).final_state(circuit).expect("runs").into_amplitudes()
}

proptest! {
    #[test]
    fn every_fusion_width_gives_the_unfused_state(seed in any::<u64>(), gates in 0usize..40) {
        let circuit = random_circuit(6, gates, seed);
        let reference = final_amplitudes(&circuit, Acceleration::unfused());
        for width in 1..=6 {
            let fused = final_amplitudes(&circuit, Acceleration { max_fused_qubits: width, ..Acceleration::unfused() });
            for (a, b) in reference.iter().zip(&fused) {
                prop_assert!((a - b).norm() < 1e-12, "width {}: {} vs {}", width, a, b);
            }
        }
    }
}

#[test]
fn thread_counts_give_identical_amplitudes() {
    // 15 qubits: large enough for the passes to be split between threads.
    let circuit = random_circuit(15, 60, 5);
    let reference = final_amplitudes(&circuit, Acceleration::unfused());
    let one = final_amplitudes(&circuit, Acceleration::fused(Precision::Double, 1));
    for (a, b) in reference.iter().zip(&one) {
        assert!((a - b).norm() < 1e-12);
    }
    for threads in [2, 3, 4, 8] {
        let threaded = final_amplitudes(&circuit, Acceleration::fused(Precision::Double, threads));
        assert!(threaded == one, "{threads} threads changed the amplitudes");
        let unfused = Acceleration { max_fused_qubits: 1, threads, precision: Precision::Double };
        let threaded = final_amplitudes(&circuit, unfused);
        for (a, b) in reference.iter().zip(&threaded) {
            assert!((a - b).norm() < 1e-12);
        }
    }
}

#[test]
fn single_precision_agrees_with_double_to_1e5() {
    for seed in 0..4 {
        let mut circuit = random_circuit(12, 120, seed);
        circuit.push_measure(Qubit(3));
        let double = DenseSimulator::new().probabilities(&circuit).expect("runs");
        let single = Acceleration::fused(Precision::Single, 2);
        let simulator = DenseSimulator::new().with_acceleration(single);
        let single_run = simulator.probabilities(&circuit).expect("runs");
        for (d, s) in double.probabilities.iter().zip(&single_run.probabilities) {
            assert!((d - s).abs() < 1e-5, "seed {seed}: {d} vs {s}");
        }
        let counts = simulator.sample(&circuit, 1000, 9).expect("samples");
        assert_eq!(counts.keys, CountKeys::Clbits(1));
        assert_eq!(counts.counts.values().sum::<u64>(), 1000);
    }
}

#[test]
fn single_precision_keeps_post_selection() {
    // H on q0, CX to q1, post-select q0 = 1: q1 reads 1.
    let mut circuit = Circuit::new();
    let a = circuit.add_qubit(QubitRole::General);
    let b = circuit.add_qubit(QubitRole::General);
    circuit.push_gate(Gate::one(GateKind::H, a));
    let bit = circuit.push_measure(a);
    circuit.push_gate(Gate::cx(a, b));
    circuit.postselect.push(qchess_circuit::ir::PostSelection { qubit: a, clbit: bit, value: true });
    let single = Acceleration::fused(Precision::Single, 1);
    let run = DenseSimulator::new().with_acceleration(single).probabilities(&circuit).expect("runs");
    assert!((run.probabilities[0b11] - 1.0).abs() < 1e-7);
    assert!((run.postselection_probability - 0.5).abs() < 1e-7);
}
