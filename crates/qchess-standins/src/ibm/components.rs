//! The independent parts of an ISA circuit: groups of qubits no two-qubit gate joins.
//!
//! A circuit without conditions whose qubits fall into several such groups prepares a product
//! state, and every gate's noise stays on the gate's qubits, so its groups can be simulated
//! apart and their shots put side by side: the joint distribution is the product of theirs. This
//! is what lets a circuit over a whole device run, such as the client-side Estimator's template,
//! which changes the basis of and measures all 156 qubits of a Heron while entangling two.

use qchess_route::IsaOp;

use super::isa::IsaCircuit;

/// The operation's qubits.
fn qubits(op: &IsaOp) -> Vec<u32> {
    match *op {
        IsaOp::One { qubit, .. } | IsaOp::Measure { qubit, .. } | IsaOp::Reset { qubit } => vec![qubit],
        IsaOp::Two { a, b, .. } => vec![a, b],
    }
}

/// Union-find root of `q`, halving the path on the way.
fn root(parent: &mut [usize], mut q: usize) -> usize {
    while parent[q] != q {
        parent[q] = parent[parent[q]];
        q = parent[q];
    }
    q
}

/// The circuit's independent parts, each with the operations and delays on its qubits, or
/// `None` when it is one part or its parts are tied classically (a condition, or two parts
/// writing one bit).
pub fn split(circuit: &IsaCircuit) -> Option<Vec<IsaCircuit>> {
    if circuit.conditions.iter().any(Option::is_some) || circuit.waits.iter().any(|w| w.condition.is_some()) {
        return None;
    }
    let mut used: Vec<u32> = circuit.ops.iter().flat_map(qubits).collect();
    used.sort_unstable();
    used.dedup();
    let index = |q: u32| used.binary_search(&q).unwrap_or(0);
    let mut parent: Vec<usize> = (0..used.len()).collect();
    for op in &circuit.ops {
        if let IsaOp::Two { a, b, .. } = *op {
            let (ra, rb) = (root(&mut parent, index(a)), root(&mut parent, index(b)));
            parent[ra] = rb;
        }
    }
    let roots: Vec<usize> = (0..used.len()).map(|i| root(&mut parent, i)).collect();
    let mut groups: Vec<usize> = roots.clone();
    groups.sort_unstable();
    groups.dedup();
    if groups.len() < 2 {
        return None;
    }
    let group_of = |q: u32| groups.binary_search(&roots[index(q)]).unwrap_or(0);
    let mut parts: Vec<IsaCircuit> = groups
        .iter()
        .map(|_| IsaCircuit {
            ops: Vec::new(),
            conditions: Vec::new(),
            registers: circuit.registers.clone(),
            waits: Vec::new(),
        })
        .collect();
    let mut writer = std::collections::HashMap::new();
    let mut positions = Vec::with_capacity(circuit.ops.len());
    for op in &circuit.ops {
        let group = group_of(qubits(op)[0]);
        if let IsaOp::Measure { clbit, .. } = *op
            && *writer.entry(clbit).or_insert(group) != group
        {
            return None;
        }
        positions.push((group, parts[group].ops.len()));
        parts[group].ops.push(*op);
        parts[group].conditions.push(None);
    }
    for wait in &circuit.waits {
        for (group, part) in parts.iter_mut().enumerate() {
            let idle: Vec<u32> = wait
                .qubits
                .iter()
                .copied()
                .filter(|&q| used.binary_search(&q).is_ok() && group_of(q) == group)
                .collect();
            if idle.is_empty() {
                continue;
            }
            // The delay comes before the part's first operation at or after its place.
            let before = positions[wait.before.min(positions.len())..]
                .iter()
                .find(|(g, _)| *g == group)
                .map_or(part.ops.len(), |(_, at)| *at);
            part.waits.push(super::isa::Wait { before, qubits: idle, duration: wait.duration, condition: None });
        }
    }
    Some(parts)
}

/// `part` with the bits it measures into renumbered from 0, and the original bit of each; for a
/// part without conditions (whose bits nothing else reads), so that a circuit of more than 128
/// bits runs when each part writes fewer.
pub fn compact(part: &IsaCircuit) -> (IsaCircuit, Vec<u32>) {
    let mut originals: Vec<u32> = Vec::new();
    let mut compacted = part.clone();
    for op in &mut compacted.ops {
        if let IsaOp::Measure { clbit, .. } = op {
            let position = originals.iter().position(|c| c == clbit).unwrap_or_else(|| {
                originals.push(*clbit);
                originals.len() - 1
            });
            *clbit = position as u32;
        }
    }
    (compacted, originals)
}

#[cfg(test)]
mod tests {
    use qchess_route::NativeGate;

    use super::*;

    fn circuit(ops: Vec<IsaOp>) -> IsaCircuit {
        let conditions = vec![None; ops.len()];
        IsaCircuit { ops, conditions, registers: Vec::new(), waits: Vec::new() }
    }

    #[test]
    fn qubits_joined_by_two_qubit_gates_stay_together() {
        let ops = vec![
            IsaOp::One { gate: NativeGate::Sx, qubit: 5 },
            IsaOp::Two { gate: NativeGate::Cz, a: 0, b: 1 },
            IsaOp::One { gate: NativeGate::Sx, qubit: 9 },
            IsaOp::Two { gate: NativeGate::Cz, a: 1, b: 2 },
            IsaOp::Measure { qubit: 0, clbit: 0 },
            IsaOp::Measure { qubit: 5, clbit: 1 },
            IsaOp::Measure { qubit: 9, clbit: 2 },
        ];
        let parts = split(&circuit(ops)).expect("three parts");
        let qubit_sets: Vec<Vec<u32>> = parts
            .iter()
            .map(|p| {
                let mut q: Vec<u32> = p.ops.iter().flat_map(qubits).collect();
                q.sort_unstable();
                q.dedup();
                q
            })
            .collect();
        assert_eq!(qubit_sets, vec![vec![0, 1, 2], vec![5], vec![9]]);
        assert_eq!(parts.iter().map(|p| p.ops.len()).sum::<usize>(), 7);
    }

    #[test]
    fn one_part_or_shared_bits_are_not_split() {
        let joined = vec![IsaOp::Two { gate: NativeGate::Cz, a: 0, b: 1 }, IsaOp::Measure { qubit: 0, clbit: 0 }];
        assert!(split(&circuit(joined)).is_none());
        let shared = vec![IsaOp::Measure { qubit: 0, clbit: 0 }, IsaOp::Measure { qubit: 1, clbit: 0 }];
        assert!(split(&circuit(shared)).is_none());
    }

    #[test]
    fn compacting_renumbers_the_measured_bits_in_order() {
        let ops = vec![IsaOp::Measure { qubit: 3, clbit: 140 }, IsaOp::Measure { qubit: 4, clbit: 7 }];
        let (compacted, originals) = compact(&circuit(ops));
        assert_eq!(originals, vec![140, 7]);
        assert_eq!(compacted.ops, vec![IsaOp::Measure { qubit: 3, clbit: 0 }, IsaOp::Measure { qubit: 4, clbit: 1 }]);
    }
}
