//! A lower bound on the basis states a circuit's sparse state reaches, read off its gates, so
//! that a circuit sure to outgrow the sparse simulator goes to the dense one without trying.
//!
//! From `|0...0>`: a one-qubit gate that sends `|0>` to a mix of `|0>` and `|1>`, on a qubit no
//! gate has touched yet, exactly doubles the populated basis states (that qubit is `|0>` in
//! every one of them). A gate that permutes basis states with phases (X, CX, CZ, SWAP, T, Rz,
//! with or without controls) keeps their number. Any other gate on `m` target qubits can merge
//! at most `2^m` states into one.

use num_complex::Complex64;
use qchess_circuit::ir::{Circuit, Gate, Op};

use crate::dense::fusion::permutes_basis;

/// Whether the sparse state of `circuit` (its unconditional gates from `|0...0>`) surely holds
/// more than `cap` basis states after some gate.
pub(super) fn surely_outgrows(circuit: &Circuit, cap: usize) -> bool {
    let bound_bits = (usize::BITS - 1 - cap.max(1).leading_zeros()) as i64;
    let mut fresh = vec![true; circuit.num_qubits()];
    // Populated states are at least 2^log_states.
    let mut log_states: i64 = 0;
    for op in &circuit.ops {
        let Op::Gate { gate, condition: None } = op else { return false };
        match gate.targets.as_slice() {
            [target] if gate.controls.is_empty() && fresh[target.index()] && splits_zero(gate) => log_states += 1,
            targets if !permutes_basis(gate) => log_states -= targets.len() as i64,
            _ => {}
        }
        gate.qubits().for_each(|q| fresh[q.index()] = false);
        if log_states > bound_bits {
            return true;
        }
    }
    false
}

/// Whether a one-qubit gate sends `|0>` to a state with both `|0>` and `|1>`.
fn splits_zero(gate: &Gate) -> bool {
    let zero = Complex64::new(0.0, 0.0);
    gate.kind.matrix2().is_some_and(|m| m[0][0] != zero && m[1][0] != zero)
}

#[cfg(test)]
mod tests {
    use qchess_circuit::ir::{GateKind, Qubit, QubitRole};

    use super::*;

    fn circuit(qubits: usize, gates: &[Gate]) -> Circuit {
        let mut circuit = Circuit::new();
        (0..qubits).for_each(|_| {
            circuit.add_qubit(QubitRole::General);
        });
        gates.iter().for_each(|g| circuit.push_gate(g.clone()));
        circuit
    }

    #[test]
    fn hadamards_on_fresh_qubits_count_and_permutations_keep_the_count() {
        let h = |q: u32| Gate::one(GateKind::H, Qubit(q));
        // 2^5 states after five fresh Hadamards, whatever CX and T do in between.
        let gates = [h(0), Gate::cx(Qubit(0), Qubit(5)), h(1), Gate::one(GateKind::T, Qubit(1)), h(2), h(3), h(4)];
        assert!(surely_outgrows(&circuit(6, &gates), 31));
        assert!(!surely_outgrows(&circuit(6, &gates), 32));
        // H again on a used qubit may merge states: it counts against the bound (here it does:
        // 1, 2, 4 states after the last three gates, not 8).
        let undone = [h(0), h(0), h(1), h(2)];
        assert!(!surely_outgrows(&circuit(3, &undone), 4));
        assert!(surely_outgrows(&circuit(3, &undone), 3));
        // A qubit a CX wrote is not fresh: H on it may merge.
        let written = [h(0), Gate::cx(Qubit(0), Qubit(1)), h(1)];
        assert!(!surely_outgrows(&circuit(2, &written), 2));
    }

    #[test]
    fn the_bound_never_exceeds_the_states_the_sparse_simulator_reaches() {
        use crate::sparse::SparseState;
        use rand::{RngExt, SeedableRng};
        let kinds = [GateKind::H, GateKind::X, GateKind::T, GateKind::Sx, GateKind::Ry(0.3), GateKind::Rz(1.1)];
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        for _ in 0..200 {
            let gates: Vec<Gate> = (0..12)
                .map(|_| {
                    let (a, b) = (rng.random_range(0..6u32), rng.random_range(0..6u32));
                    if a != b && rng.random_bool(0.3) {
                        Gate::cx(Qubit(a), Qubit(b))
                    } else {
                        Gate::one(kinds[rng.random_range(0..kinds.len())], Qubit(a))
                    }
                })
                .collect();
            let mut state = SparseState::with_cap(1 << 6);
            (0..6).for_each(|q| state.add_qubit_at(Qubit(q), q as u8).expect("fits"));
            let mut peak = 1;
            for gate in &gates {
                state.apply_gate(gate).expect("fits");
                peak = peak.max(state.len());
            }
            if surely_outgrows(&circuit(6, &gates), peak) {
                panic!("bound above the peak of {peak} states: {gates:?}");
            }
        }
    }
}
