//! Measurements and resets as early as the circuit allows.
//!
//! A branching run splits at every mid-circuit measurement or reset, and its cost follows the
//! basis states of its branches. Where a measurement stands among gates on *other* qubits does
//! not change what the circuit does (the operations commute), but it changes that cost a great
//! deal: sixteen Hadamards followed by sixteen measurements first spread one branch over 2^16
//! basis states, while each Hadamard followed at once by its qubit's measurement never holds a
//! branch of more than two. So the branching simulators run the circuit in a reordered form:
//! every operation keeps its order with each operation it shares a qubit with, and with each
//! that writes or reads a classical bit it writes or reads (two reads may swap); among the
//! operations whose predecessors have all run, measurements and resets go first, then the
//! earliest in the original order.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use qchess_circuit::ir::{Circuit, Op};

/// `circuit` with its measurements and resets moved as early as their dependencies allow (see
/// the module docs). The circuit must have passed the dense plan's checks: every qubit, bit and
/// register it names exists.
pub(super) fn measurements_early(circuit: &Circuit) -> Circuit {
    let ops = &circuit.ops;
    let mut successors: Vec<Vec<usize>> = vec![Vec::new(); ops.len()];
    let mut waiting_on = vec![0usize; ops.len()];
    let mut add_edge = |from: usize, to: usize, successors: &mut Vec<Vec<usize>>| {
        successors[from].push(to);
        waiting_on[to] += 1;
    };

    let mut last_on_qubit: Vec<Option<usize>> = vec![None; circuit.num_qubits()];
    let mut last_write: Vec<Option<usize>> = vec![None; circuit.clbits as usize];
    let mut reads_since_write: Vec<Vec<usize>> = vec![Vec::new(); circuit.clbits as usize];
    for (index, op) in ops.iter().enumerate() {
        let mut predecessors: Vec<usize> = Vec::new();
        let qubits: Vec<usize> = match op {
            Op::Gate { gate, .. } => gate.qubits().map(|q| q.index()).collect(),
            Op::Measure { qubit, .. } | Op::Reset { qubit } => vec![qubit.index()],
        };
        for qubit in qubits {
            predecessors.extend(last_on_qubit[qubit].replace(index));
        }
        match op {
            Op::Measure { clbit, .. } => {
                let bit = clbit.index();
                predecessors.extend(last_write[bit].replace(index));
                predecessors.append(&mut reads_since_write[bit]);
            }
            Op::Gate { condition: Some(condition), .. } => {
                let register = &circuit.registers[condition.register];
                for bit in register.start as usize..(register.start + register.len) as usize {
                    predecessors.extend(last_write[bit]);
                    reads_since_write[bit].push(index);
                }
            }
            Op::Gate { condition: None, .. } | Op::Reset { .. } => {}
        }
        predecessors.sort_unstable();
        predecessors.dedup();
        for predecessor in predecessors {
            add_edge(predecessor, index, &mut successors);
        }
    }

    let collapses = |index: usize| matches!(ops[index], Op::Measure { .. } | Op::Reset { .. });
    let mut ready_collapses = BinaryHeap::new();
    let mut ready_gates = BinaryHeap::new();
    let release = |index: usize, collapses_heap: &mut BinaryHeap<Reverse<usize>>, gates: &mut BinaryHeap<_>| {
        if collapses(index) { collapses_heap.push(Reverse(index)) } else { gates.push(Reverse(index)) }
    };
    for index in (0..ops.len()).filter(|&i| waiting_on[i] == 0) {
        release(index, &mut ready_collapses, &mut ready_gates);
    }
    let mut order = Vec::with_capacity(ops.len());
    while let Some(Reverse(index)) = ready_collapses.pop().or_else(|| ready_gates.pop()) {
        order.push(index);
        for &next in &successors[index] {
            waiting_on[next] -= 1;
            if waiting_on[next] == 0 {
                release(next, &mut ready_collapses, &mut ready_gates);
            }
        }
    }
    debug_assert_eq!(order.len(), ops.len(), "the dependencies follow the original order, so they have no cycle");
    Circuit { ops: order.into_iter().map(|index| ops[index].clone()).collect(), ..circuit.clone() }
}

#[cfg(test)]
mod tests {
    use qchess_circuit::ir::{Clbit, Condition, Gate, GateKind, Qubit, QubitRole};

    use super::*;

    fn qubits(n: usize) -> Circuit {
        let mut circuit = Circuit::new();
        (0..n).for_each(|_| {
            circuit.add_qubit(QubitRole::General);
        });
        circuit
    }

    fn measure(qubit: u32, clbit: u32) -> Op {
        Op::Measure { qubit: Qubit(qubit), clbit: Clbit(clbit) }
    }

    fn h(qubit: u32) -> Op {
        Op::Gate { gate: Gate::one(GateKind::H, Qubit(qubit)), condition: None }
    }

    #[test]
    fn each_measurement_follows_the_last_gate_on_its_qubit() {
        let mut circuit = qubits(3);
        circuit.clbits = 3;
        circuit.ops = vec![h(0), h(1), h(2), measure(0, 0), measure(1, 1), measure(2, 2), h(0)];
        let early = measurements_early(&circuit);
        assert_eq!(early.ops, vec![h(0), measure(0, 0), h(1), measure(1, 1), h(2), measure(2, 2), h(0)]);
    }

    #[test]
    fn classical_bits_keep_writes_and_reads_in_order() {
        // The conditional X on qubit 2 reads bit 0: it stays after the measurement writing it
        // and before the second measurement writing it, whatever qubits they touch.
        let mut circuit = qubits(3);
        let register = circuit.add_register("c", 1);
        let conditional = Op::Gate { gate: Gate::x(Qubit(2)), condition: Some(Condition { register, value: 1 }) };
        circuit.ops = vec![h(0), measure(0, 0), h(1), conditional.clone(), measure(1, 0)];
        let early = measurements_early(&circuit);
        assert_eq!(early.ops, vec![h(0), measure(0, 0), h(1), conditional, measure(1, 0)]);
    }

    #[test]
    fn a_reordered_circuit_keeps_its_distribution() {
        // Four rounds of H on every qubit, then a measurement of every qubit: the same exact
        // distribution (uniform) whether measured late or early.
        let mut circuit = qubits(4);
        circuit.clbits = 4;
        for _ in 0..4 {
            circuit.ops.extend((0..4).map(h));
            circuit.ops.extend((0..4).map(|q| measure(q, q)));
        }
        circuit.ops.push(Op::Gate { gate: Gate::cx(Qubit(0), Qubit(1)), condition: None });
        let late = crate::dense::DenseSimulator::new().probabilities(&circuit).expect("runs");
        let early = crate::dense::DenseSimulator::new().probabilities(&measurements_early(&circuit)).expect("runs");
        for (a, b) in late.probabilities.iter().zip(&early.probabilities) {
            assert!((a - b).abs() < 1e-12);
        }
    }
}
