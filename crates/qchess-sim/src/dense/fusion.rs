//! Gate fusion: runs of gates on a few qubits become one matrix applied in one pass.
//!
//! Open blocks hold disjoint qubit sets. A gate joins the largest set of blocks it touches whose
//! qubits together with its own stay within `max_qubits`; the other blocks it touches are
//! emitted first (they are disjoint from the ones it joins, so they commute with them). Blocks
//! on disjoint qubits commute, so emitting one while others stay open keeps the circuit's
//! meaning. A gate wider than `max_qubits` (many controls) becomes a block by itself.
//!
//! Every pass over the state costs about as much whatever the block's width (up to 4 qubits),
//! so a second sweep then moves each narrow block into a neighbouring block it fits in: forward
//! into the next block that shares a qubit with it, or back into the previous one, provided
//! every block in between is on other qubits (so the narrow block commutes past them).
//!
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

/// A block before its matrix is built: its qubits (sorted) and its gates, in order.
#[derive(Debug, Clone)]
pub(crate) struct Open {
    /// The qubits, in increasing order (a wide gate's targets and controls).
    pub(crate) qubits: Vec<usize>,
    gates: Vec<Gate>,
    /// A gate too wide to fuse, kept alone with its controls.
    pub(crate) wide: bool,
}

impl Open {
    fn touches(&self, qubits: &[usize]) -> bool {
        self.qubits.iter().any(|q| qubits.contains(q))
    }

    /// Whether every gate maps basis states to basis states (the block's matrix then has one
    /// nonzero entry per row).
    pub(crate) fn permutes(&self) -> bool {
        self.gates.iter().all(permutes_basis)
    }

    /// The block with its matrix.
    pub(crate) fn build(self) -> Block {
        if self.wide { controlled(&self.gates[0]) } else { close(self) }
    }
}

fn union(a: &[usize], b: &[usize]) -> Vec<usize> {
    let mut all: Vec<usize> = a.iter().chain(b).copied().collect();
    all.sort_unstable();
    all.dedup();
    all
}

/// Fuses `gates` (already checked against the state's size) into blocks of at most
/// `max_qubits` qubits (clamped to 1..=[`MAX_FUSED_QUBITS`]; wider gates stand alone).
pub fn fuse(gates: &[Gate], max_qubits: usize) -> Vec<Block> {
    shapes(gates, max_qubits).into_iter().map(Open::build).collect()
}

/// The blocks [`fuse`] makes, before their matrices are built.
pub(crate) fn shapes(gates: &[Gate], max_qubits: usize) -> Vec<Open> {
    let limit = max_qubits.clamp(1, MAX_FUSED_QUBITS);
    let mut blocks = group(gates, limit);
    absorb_narrow(&mut blocks, limit);
    blocks
}

/// The greedy grouping of gates into blocks, in an order that keeps the circuit's meaning.
fn group(gates: &[Gate], limit: usize) -> Vec<Open> {
    let mut open: Vec<Open> = Vec::new();
    let mut out = Vec::new();
    for gate in gates {
        let mut qubits: Vec<usize> = gate.qubits().map(Qubit::index).collect();
        qubits.sort_unstable();
        let (mut touching, rest): (Vec<Open>, Vec<Open>) = open.into_iter().partition(|block| block.touches(&qubits));
        open = rest;
        if qubits.len() > limit {
            out.append(&mut touching);
            out.push(Open { qubits, gates: vec![gate.clone()], wide: true });
            continue;
        }
        // Join the widest touching blocks that fit; emit the others.
        touching.sort_by_key(|block| std::cmp::Reverse(block.qubits.len()));
        let mut merged = Open { qubits: qubits.clone(), gates: Vec::new(), wide: false };
        let mut joined = Vec::new();
        for block in touching {
            let wider = union(&merged.qubits, &block.qubits);
            if wider.len() <= limit {
                merged.qubits = wider;
                joined.push(block);
            } else {
                out.push(block);
            }
        }
        for block in joined {
            merged.gates.extend(block.gates);
        }
        merged.gates.push(gate.clone());
        open.push(merged);
    }
    out.append(&mut open);
    out
}

/// Moves each block narrower than `limit` into a neighbour it fits in (see the module docs).
fn absorb_narrow(blocks: &mut Vec<Open>, limit: usize) {
    let mut index = 0;
    while index < blocks.len() {
        let candidate = &blocks[index];
        if candidate.wide || candidate.qubits.len() >= limit {
            index += 1;
            continue;
        }
        let fits = |other: &Open| !other.wide && union(&candidate.qubits, &other.qubits).len() <= limit;
        let later = blocks[index + 1..].iter().position(|b| b.touches(&candidate.qubits)).map(|p| index + 1 + p);
        let earlier = blocks[..index].iter().rposition(|b| b.touches(&candidate.qubits));
        if let Some(target) = later.filter(|&t| fits(&blocks[t])) {
            let moved = blocks.remove(index);
            let host = &mut blocks[target - 1];
            host.qubits = union(&host.qubits, &moved.qubits);
            let mut gates = moved.gates;
            gates.append(&mut host.gates);
            host.gates = gates;
        } else if let Some(target) = earlier.filter(|&t| fits(&blocks[t])) {
            let moved = blocks.remove(index);
            let host = &mut blocks[target];
            host.qubits = union(&host.qubits, &moved.qubits);
            host.gates.extend(moved.gates);
        } else {
            index += 1;
        }
    }
}

/// Whether `gate` maps each basis state to one basis state (a permutation with phases: X, CX,
/// CZ, SWAP, T, Rz, ..., with or without controls).
pub(crate) fn permutes_basis(gate: &Gate) -> bool {
    let zero = Complex64::new(0.0, 0.0);
    match (gate.kind.matrix2(), gate.kind.matrix4()) {
        (Some(m), _) => (m[0][1] == zero && m[1][0] == zero) || (m[0][0] == zero && m[1][1] == zero),
        (_, Some(m)) => (0..4).all(|c| (0..4).filter(|&r| m[r][c] != zero).count() == 1),
        _ => false,
    }
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
    let block = close(Open { qubits, gates: vec![bare], wide: false });
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
    fn a_gate_joins_the_blocks_that_fit_and_emits_the_others() {
        let q = |i: u32| Qubit(i);
        // {0,1,2} and {3,4} are open; CX(2,3) cannot join both (5 qubits), so it joins the
        // wider one and {3,4} is emitted first.
        let gates = vec![
            Gate::cx(q(0), q(1)),
            Gate::cx(q(1), q(2)),
            Gate::cx(q(3), q(4)),
            Gate::cx(q(2), q(3)),
            Gate::cx(q(0), q(4)),
        ];
        let shapes: Vec<(Vec<usize>, usize)> = fuse(&gates, 4).iter().map(|b| (b.qubits.clone(), b.gates)).collect();
        assert_eq!(shapes, [(vec![3, 4], 1), (vec![0, 1, 2, 3], 3), (vec![0, 4], 1)].map(|(q, g)| (q.to_vec(), g)));
    }

    #[test]
    fn narrow_blocks_move_into_a_neighbour_past_disjoint_blocks() {
        let q = |i: u32| Qubit(i);
        // Grouping gives {2,3} (emitted when CX(1,2) joins {0,1}), {0,1,2} and {3,4}; the last
        // moves back into {2,3} past {0,1,2}, with which it shares no qubit.
        let gates = vec![Gate::cx(q(0), q(1)), Gate::cx(q(2), q(3)), Gate::cx(q(1), q(2)), Gate::cx(q(3), q(4))];
        let shapes: Vec<(Vec<usize>, usize)> = fuse(&gates, 3).iter().map(|b| (b.qubits.clone(), b.gates)).collect();
        assert_eq!(shapes, [(vec![2, 3, 4], 2), (vec![0, 1, 2], 2)]);
        // A gate too wide to fuse keeps its controls, hosts nothing, and a block sharing a
        // qubit with it does not move past it; one on other qubits does.
        let wide = Gate::one(GateKind::Z, q(5)).controlled(q(1)).controlled(q(2)).controlled(q(3));
        let gates = vec![Gate::cx(q(0), q(1)), wide.clone(), Gate::cx(q(1), q(4))];
        let blocks = fuse(&gates, 3);
        let shapes: Vec<Vec<usize>> = blocks.iter().map(|b| b.qubits.clone()).collect();
        assert_eq!(shapes, [vec![0, 1], vec![5], vec![1, 4]]);
        assert_eq!(blocks[1].control_mask, 0b1110);
        let gates = vec![Gate::cx(q(0), q(1)), wide, Gate::cx(q(0), q(4))];
        let shapes: Vec<Vec<usize>> = fuse(&gates, 3).iter().map(|b| b.qubits.clone()).collect();
        assert_eq!(shapes, [vec![0, 1, 4], vec![5]]);
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
