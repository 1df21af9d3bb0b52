//! Gate fusion: runs of gates on a few qubits become one matrix applied in one pass.
//!
//! Open blocks hold disjoint qubit sets. A gate joins the blocks it touches when their qubits
//! together stay within `max_qubits`; otherwise those blocks are emitted and the gate opens a
//! new one. Blocks on disjoint qubits commute, so emitting one while others stay open keeps the
//! circuit's meaning. A gate wider than `max_qubits` (many controls) becomes a block by itself.
//! A block's matrix is built by applying its gates, in order, to every basis state of its
//! qubits with the ordinary dense kernels: the fused matrix is exactly the product.

use num_complex::Complex64;
use qchess_circuit::ir::{Control, Gate, Qubit};

use super::state::DenseState;

/// The widest matrix a block may have, whatever the options say (64 x 64 amplitudes).
pub const MAX_FUSED_QUBITS: usize = 6;

/// A fused block: a unitary on a few qubits, applied where its controls hold.
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    /// The qubits, in increasing order; local bit `i` of the matrix's indices is `qubits[i]`.
    pub qubits: Vec<usize>,
    /// The `2^m x 2^m` matrix, row-major.
    pub matrix: Vec<Complex64>,
    /// Index bits that must equal `control_value` for the block to act (only a gate too wide
    /// to fuse keeps its controls here; fused blocks have none).
    pub control_mask: usize,
    /// The values the controls must have.
    pub control_value: usize,
    /// How many circuit gates it replaces.
    pub gates: usize,
}

/// A block while it is open: its qubits and the gates it holds, in order.
struct Open {
    qubits: Vec<usize>,
    gates: Vec<Gate>,
}

/// Fuses `gates` (already checked against the state's size) into blocks of at most
/// `max_qubits` qubits (clamped to 1..=[`MAX_FUSED_QUBITS`]; wider gates stand alone).
pub fn fuse(gates: &[Gate], max_qubits: usize) -> Vec<Block> {
    let limit = max_qubits.clamp(1, MAX_FUSED_QUBITS);
    let mut open: Vec<Open> = Vec::new();
    let mut out = Vec::new();
    for gate in gates {
        let mut qubits: Vec<usize> = gate.qubits().map(Qubit::index).collect();
        qubits.sort_unstable();
        let (touching, rest): (Vec<Open>, Vec<Open>) =
            open.into_iter().partition(|block| block.qubits.iter().any(|q| qubits.contains(q)));
        open = rest;
        let mut union = qubits.clone();
        for block in &touching {
            union.extend(&block.qubits);
        }
        union.sort_unstable();
        union.dedup();
        if qubits.len() > limit {
            out.extend(touching.into_iter().map(close));
            out.push(controlled(gate));
        } else if union.len() <= limit {
            let mut merged = Open { qubits: union, gates: Vec::new() };
            for block in touching {
                merged.gates.extend(block.gates);
            }
            merged.gates.push(gate.clone());
            open.push(merged);
        } else {
            out.extend(touching.into_iter().map(close));
            open.push(Open { qubits, gates: vec![gate.clone()] });
        }
    }
    out.extend(open.into_iter().map(close));
    out
}

/// A gate too wide to fuse: its targets' matrix, with its controls kept as a mask.
fn controlled(gate: &Gate) -> Block {
    let (mut control_mask, mut control_value) = (0usize, 0usize);
    for control in &gate.controls {
        control_mask |= 1 << control.qubit.index();
        if control.on {
            control_value |= 1 << control.qubit.index();
        }
    }
    let bare = Gate { kind: gate.kind, targets: gate.targets.clone(), controls: Default::default() };
    let mut qubits: Vec<usize> = gate.targets.iter().map(|t| t.index()).collect();
    qubits.sort_unstable();
    let block = close(Open { qubits, gates: vec![bare] });
    Block { control_mask, control_value, ..block }
}

/// The matrix of an open block: its gates applied to each local basis state.
fn close(block: Open) -> Block {
    let m = block.qubits.len();
    let dim = 1usize << m;
    let local = |q: Qubit| Qubit(block.qubits.iter().position(|&b| b == q.index()).unwrap_or(0) as u32);
    let gates: Vec<Gate> = block
        .gates
        .iter()
        .map(|gate| Gate {
            kind: gate.kind,
            targets: gate.targets.iter().map(|&t| local(t)).collect(),
            controls: gate.controls.iter().map(|c| Control { qubit: local(c.qubit), on: c.on }).collect(),
        })
        .collect();
    let mut matrix = vec![Complex64::new(0.0, 0.0); dim * dim];
    for column in 0..dim {
        let mut amplitudes = vec![Complex64::new(0.0, 0.0); dim];
        amplitudes[column] = Complex64::new(1.0, 0.0);
        let Ok(mut state) = DenseState::from_amplitudes(amplitudes) else { continue };
        for gate in &gates {
            state.apply_checked(gate);
        }
        for (row, &value) in state.amplitudes().iter().enumerate() {
            matrix[row * dim + column] = value;
        }
    }
    Block { qubits: block.qubits, matrix, control_mask: 0, control_value: 0, gates: block.gates.len() }
}

#[cfg(test)]
mod tests {
    use qchess_circuit::ir::GateKind;

    use super::*;

    #[test]
    fn disjoint_and_overlapping_gates_fuse_within_the_limit() {
        let q = |i: u32| Qubit(i);
        let gates = vec![
            Gate::one(GateKind::H, q(0)),
            Gate::one(GateKind::H, q(5)),
            Gate::cx(q(0), q(1)),
            Gate::cx(q(1), q(2)),
            Gate::cx(q(5), q(6)),
        ];
        let blocks = fuse(&gates, 3);
        let shapes: Vec<(Vec<usize>, usize)> = blocks.iter().map(|b| (b.qubits.clone(), b.gates)).collect();
        assert_eq!(shapes, [(vec![0, 1, 2], 3), (vec![5, 6], 2)]);
        let blocks = fuse(&gates, 2);
        let shapes: Vec<(Vec<usize>, usize)> = blocks.iter().map(|b| (b.qubits.clone(), b.gates)).collect();
        assert_eq!(shapes, [(vec![0, 1], 2), (vec![1, 2], 1), (vec![5, 6], 2)]);
    }

    #[test]
    fn a_block_matrix_is_the_product_of_its_gates() {
        // H then CX on (0, 1): columns are the Bell states.
        let blocks = fuse(&[Gate::one(GateKind::H, Qubit(0)), Gate::cx(Qubit(0), Qubit(1))], 2);
        let h = std::f64::consts::FRAC_1_SQRT_2;
        let m = &blocks[0].matrix;
        // Column |00> -> (|00> + |11>)/sqrt2.
        assert!((m[0].re - h).abs() < 1e-15 && (m[3 * 4].re - h).abs() < 1e-15);
        assert!(m[4].norm() < 1e-15 && m[2 * 4].norm() < 1e-15);
    }
}
