//! Sampled shots of circuits with mid-circuit measurements, resets and conditions, on sparse
//! states, with the shots that share a history run once.
//!
//! All shots start together in one node. At a measurement or reset with two possible outcomes
//! the node's shots are divided between the outcomes by one binomial draw, and each side goes
//! on with its share: a node is a group of shots that read the same bits so far. Work follows
//! the number of distinct histories, never more than the shots, and memory the nodes waiting on
//! the stack (depth first). At the end of the circuit a node's shots are drawn from its final
//! state, which also reads the deferred (final) measurements.
//!
//! Circuits with post-selections are not sampled here: conditioning on a later post-selection
//! changes how earlier outcomes are shared, which per-shot rejection handles (the dense
//! sampler). A node past the sparse cap (a 64th of the dense vector; see the parent module), or nodes past
//! [`AutoLimits::max_sparse_states`] together, mean the states are not sparse and the dense
//! sampler takes over.

use std::collections::BTreeMap;

use qchess_circuit::ir::{Circuit, Op};
use rand::RngExt;
use rand_chacha::ChaCha8Rng;

use super::AutoLimits;
use super::branches::{self, Stop, Workspace};
use crate::dense::plan::{Plan, Step};
use crate::dense::{CountKeys, Counts, DenseError};
use crate::sparse::Entry;

/// A group of shots with one history: their classical bits, state, count and next operation.
struct Node {
    clbits: u128,
    entries: Vec<Entry>,
    shots: u64,
    next_op: usize,
}

/// Samples `shots` runs of `circuit` (at most 64 qubits and 128 classical bits, no
/// post-selection); `branch_cap` is the most basis states one node may hold.
pub(super) fn sample(
    circuit: &Circuit,
    plan: &Plan,
    shots: u64,
    rng: &mut ChaCha8Rng,
    limits: &AutoLimits,
    branch_cap: usize,
) -> Result<Counts, Stop> {
    if !circuit.postselect.is_empty() {
        return Err(Stop::NotSparse);
    }
    let keys = if plan.measures {
        CountKeys::Clbits(circuit.clbits as usize)
    } else {
        CountKeys::Qubits(circuit.num_qubits())
    };
    if let CountKeys::Clbits(bits) = keys
        && bits > 64
    {
        return Err(DenseError::TooManyResultBits { bits }.into());
    }
    let deferred: Vec<(usize, usize)> = circuit
        .ops
        .iter()
        .zip(&plan.steps)
        .filter_map(|(op, step)| match (op, step) {
            (Op::Measure { qubit, clbit }, Step::DeferredMeasure) => Some((qubit.index(), clbit.index())),
            _ => None,
        })
        .collect();
    let key_of = |clbits: u128, basis: u128| -> u64 {
        match keys {
            CountKeys::Qubits(_) => basis as u64,
            CountKeys::Clbits(_) => {
                let mut bits = clbits;
                for &(qubit, clbit) in &deferred {
                    branches::record(&mut bits, clbit, basis >> qubit & 1 == 1);
                }
                bits as u64
            }
        }
    };

    let deadline = limits.dense.deadline;
    let mut workspace = Workspace::new(circuit, branch_cap)?;
    let mut stack = vec![Node { clbits: 0, entries: branches::ground(), shots, next_op: 0 }];
    let mut waiting_states = 1usize;
    let mut counts = BTreeMap::new();
    while let Some(mut node) = stack.pop() {
        waiting_states -= node.entries.len();
        for op_index in node.next_op..circuit.ops.len() {
            deadline.check()?;
            let op = &circuit.ops[op_index];
            match (op, plan.steps[op_index]) {
                (Op::Gate { gate, .. }, Step::Gate) => workspace.apply(&mut node.entries, gate)?,
                (Op::Gate { gate, condition: Some(condition) }, Step::ConditionalGate)
                    if branches::condition_holds(circuit, condition, node.clbits) =>
                {
                    workspace.apply(&mut node.entries, gate)?;
                }
                (Op::Measure { qubit, .. } | Op::Reset { qubit }, Step::Measure | Step::Reset) => {
                    let bit = qubit.index();
                    let one = branches::probability_of_one(&node.entries, bit);
                    let to_one = branches::shots_reading_one(node.shots, one, rng);
                    let reset = matches!(op, Op::Reset { .. });
                    let clbit = match op {
                        Op::Measure { clbit, .. } => Some(clbit.index()),
                        _ => None,
                    };
                    let settle = |entries: &mut Vec<Entry>, clbits: &mut u128, value: bool| {
                        if let Some(clbit) = clbit {
                            branches::record(clbits, clbit, value);
                        }
                        if reset && value {
                            branches::flip(entries, bit);
                        }
                    };
                    if to_one > 0 && to_one < node.shots {
                        let (mut zeros, mut ones) = branches::split(std::mem::take(&mut node.entries), bit);
                        let mut clbits = node.clbits;
                        settle(&mut ones, &mut clbits, true);
                        waiting_states += ones.len();
                        stack.push(Node { clbits, entries: ones, shots: to_one, next_op: op_index + 1 });
                        settle(&mut zeros, &mut node.clbits, false);
                        node.entries = zeros;
                        node.shots -= to_one;
                    } else {
                        let value = to_one > 0;
                        branches::keep(&mut node.entries, bit, value);
                        settle(&mut node.entries, &mut node.clbits, value);
                    }
                }
                _ => {}
            }
            if waiting_states + node.entries.len() > limits.max_sparse_states {
                return Err(Stop::NotSparse);
            }
        }
        for (basis, hits) in draw(&node.entries, node.shots, rng) {
            *counts.entry(key_of(node.clbits, basis)).or_insert(0) += hits;
        }
    }
    Ok(Counts { keys, shots, counts })
}

/// Draws `shots` basis states from a normalised state: how often each key was drawn.
pub(super) fn draw(entries: &[Entry], shots: u64, rng: &mut ChaCha8Rng) -> Vec<(u128, u64)> {
    if let [only] = entries {
        return vec![(only.key, shots)];
    }
    let mut cumulative = Vec::with_capacity(entries.len());
    let mut total = 0.0;
    for entry in entries {
        total += entry.amp.norm_sqr();
        cumulative.push(total);
    }
    let mut hits = vec![0u64; entries.len()];
    for _ in 0..shots {
        let u = rng.random::<f64>() * total;
        let index = cumulative.partition_point(|&c| c <= u).min(entries.len() - 1);
        hits[index] += 1;
    }
    entries.iter().zip(hits).filter(|&(_, n)| n > 0).map(|(e, n)| (e.key, n)).collect()
}
