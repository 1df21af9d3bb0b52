//! One gate on a dense state vector of 16 and 20 qubits: a one-qubit matrix on a low and a
//! high qubit, a controlled NOT and a square root of iSWAP.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use num_complex::Complex64;
use qchess_circuit::ir::{Gate, GateKind, Qubit};
use qchess_sim::dense::{DenseState, Limits};

fn dense_gates(c: &mut Criterion) {
    let mut group = c.benchmark_group("dense_gate");
    group.sample_size(20);
    for qubits in [16usize, 20] {
        let mut state = DenseState::zero(qubits, &Limits::with_max_qubits(qubits)).expect("fits");
        let amplitude = Complex64::new((0.5f64).powf(qubits as f64 / 2.0), 0.0);
        state.amplitudes_mut().iter_mut().for_each(|a| *a = amplitude);
        let top = qubits as u32 - 1;
        let gates = [
            ("h_low", Gate::one(GateKind::H, Qubit(0))),
            ("h_high", Gate::one(GateKind::H, Qubit(top))),
            ("cx", Gate::cx(Qubit(3), Qubit(top - 2))),
            ("sqrt_iswap", Gate::iswap(Qubit(4), Qubit(top - 1), 0.5)),
        ];
        for (name, gate) in gates {
            group.bench_function(format!("{name}_{qubits}q"), |b| {
                b.iter(|| state.apply_gate(black_box(&gate)).expect("valid gate"))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, dense_gates);
criterion_main!(benches);
