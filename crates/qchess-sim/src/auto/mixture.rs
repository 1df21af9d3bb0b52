//! Exact probabilities of circuits with mid-circuit measurements, resets and conditions, as a
//! mixture of sparse branches.
//!
//! The operations run in order over every live branch at once. A measurement or reset with two
//! possible outcomes splits a branch in two, each renormalised and weighted by its probability;
//! then branches that read the same classical bits (those a later condition reads: no other bit
//! can change what happens next) and hold the same state up to a global phase are merged, their
//! weights added. A circuit that measures and re-prepares its qubits round after round keeps
//! only as many branches as distinct (bits, state) pairs, not two per measurement.
//!
//! Limits: the live branches after a merge ([`Limits::max_branches`]), the basis states of all
//! branches together ([`AutoLimits::max_sparse_states`]), and the deadline; a single branch past
//! the sparse cap (a 64th of the dense vector; see the parent module) means the states are not sparse, and the dense simulator takes
//! over.

use std::hash::{Hash, Hasher};

use qchess_circuit::ir::{Circuit, Op};
use rustc_hash::FxHashMap;

use super::AutoLimits;
use super::branches::{self, Stop, Workspace, canonical};
use crate::canonical::MergedBranches;
use crate::dense::DenseError;
use crate::dense::plan::{Plan, Step};
use crate::sparse::{Entry, SimError};

/// One branch: the classical bits that matter, a normalised state, and its probability.
struct Branch {
    clbits: u128,
    entries: Vec<Entry>,
    weight: f64,
}

/// The answer: outcome probabilities over every qubit (sorted by outcome, conditioned on the
/// post-selections) and the probability of passing the post-selections.
pub(super) struct Mixture {
    pub(super) probabilities: Vec<(u64, f64)>,
    pub(super) accepted: f64,
}

/// Runs `circuit` (at most 64 qubits and 128 classical bits) as a mixture; `branch_cap` is the
/// most basis states one branch may hold.
pub(super) fn exact(circuit: &Circuit, plan: &Plan, limits: &AutoLimits, branch_cap: usize) -> Result<Mixture, Stop> {
    let deadline = limits.dense.deadline;
    let read_mask = condition_bits(circuit);
    let mut workspace = Workspace::new(circuit, branch_cap)?;
    let mut live = vec![Branch { clbits: 0, entries: branches::ground(), weight: 1.0 }];
    for (op, step) in circuit.ops.iter().zip(&plan.steps) {
        deadline.check()?;
        match (op, *step) {
            (Op::Gate { gate, .. }, Step::Gate) => {
                for branch in &mut live {
                    workspace.apply(&mut branch.entries, gate)?;
                }
                check_total(&live, limits)?;
            }
            (Op::Gate { gate, condition: Some(condition) }, Step::ConditionalGate) => {
                for branch in live.iter_mut().filter(|b| branches::condition_holds(circuit, condition, b.clbits)) {
                    workspace.apply(&mut branch.entries, gate)?;
                }
                check_total(&live, limits)?;
            }
            (Op::Measure { qubit, clbit }, Step::Postselect { value }) => {
                let bit = qubit.index();
                live.retain_mut(|branch| {
                    let one = branches::probability_of_one(&branch.entries, bit);
                    let p = if value { one } else { 1.0 - one };
                    if !branches::possible(p) {
                        return false;
                    }
                    branches::keep(&mut branch.entries, bit, value);
                    branch.weight *= p;
                    if read_mask >> clbit.index() & 1 == 1 {
                        branches::record(&mut branch.clbits, clbit.index(), value);
                    }
                    true
                });
                live = merge(live);
            }
            (Op::Measure { qubit, clbit }, Step::Measure) => {
                let written = (read_mask >> clbit.index() & 1 == 1).then_some(clbit.index());
                live = split_all(live, qubit.index(), written, false);
                live = merge(live);
                check_branches(&live, limits)?;
            }
            (Op::Reset { qubit }, _) => {
                live = split_all(live, qubit.index(), None, true);
                live = merge(live);
                check_branches(&live, limits)?;
            }
            _ => {}
        }
    }

    let accepted: f64 = live.iter().map(|b| b.weight).sum();
    if !branches::possible(accepted) {
        return Err(DenseError::PostSelectionImpossible.into());
    }
    let mut totals: FxHashMap<u64, f64> = FxHashMap::default();
    for branch in &live {
        for entry in &branch.entries {
            *totals.entry(entry.key as u64).or_default() += branch.weight * entry.amp.norm_sqr() / accepted;
        }
    }
    let mut probabilities: Vec<(u64, f64)> = totals.into_iter().collect();
    probabilities.sort_unstable_by_key(|&(outcome, _)| outcome);
    Ok(Mixture { probabilities, accepted: accepted.min(1.0) })
}

/// The classical bits some condition reads.
fn condition_bits(circuit: &Circuit) -> u128 {
    let mut mask = 0u128;
    for op in &circuit.ops {
        if let Op::Gate { condition: Some(condition), .. } = op
            && let Some(register) = circuit.registers.get(condition.register)
        {
            for bit in register.start..register.start + register.len {
                mask |= 1u128 << bit.min(127);
            }
        }
    }
    mask
}

/// Splits every branch on key bit `bit`, recording the outcome in classical bit `written`;
/// `reset` brings the qubit back to 0 in the branch that read 1.
fn split_all(live: Vec<Branch>, bit: usize, written: Option<usize>, reset: bool) -> Vec<Branch> {
    let mut next = Vec::with_capacity(live.len() * 2);
    for branch in live {
        let one = branches::probability_of_one(&branch.entries, bit);
        let outcomes = [branches::possible(1.0 - one), branches::possible(one)];
        let mut settle = |mut entries: Vec<Entry>, value: bool, weight: f64| {
            let mut clbits = branch.clbits;
            if let Some(clbit) = written {
                branches::record(&mut clbits, clbit, value);
            }
            if reset && value {
                branches::flip(&mut entries, bit);
            }
            next.push(Branch { clbits, entries, weight });
        };
        match outcomes {
            [true, true] => {
                let (zeros, ones) = branches::split(branch.entries, bit);
                settle(zeros, false, branch.weight * (1.0 - one));
                settle(ones, true, branch.weight * one);
            }
            [false, true] => {
                let mut entries = branch.entries;
                branches::keep(&mut entries, bit, true);
                settle(entries, true, branch.weight);
            }
            [true, false] => {
                let mut entries = branch.entries;
                branches::keep(&mut entries, bit, false);
                settle(entries, false, branch.weight);
            }
            // A branch with no weight left on either side is dropped.
            [false, false] => {}
        }
    }
    next
}

/// Merges branches with the same classical bits and the same state up to a global phase.
///
/// Branches are indexed by a hash of their canonical form ([`MergedBranches`]).
fn merge(live: Vec<Branch>) -> Vec<Branch> {
    let mut merged = MergedBranches::with_capacity(live.len());
    for mut branch in live {
        branch.entries.sort_unstable_by_key(|e| e.key);
        let hash = canonical_hash(branch.clbits, &branch.entries);
        merged.add(branch, hash, same, |kept, branch| kept.weight += branch.weight);
    }
    merged.kept
}

fn canonical_hash(clbits: u128, entries: &[Entry]) -> u64 {
    let mut hasher = rustc_hash::FxHasher::default();
    clbits.hash(&mut hasher);
    for item in canonical(entries) {
        item.hash(&mut hasher);
    }
    hasher.finish()
}

/// Whether two sorted branches have the same bits and the same canonical state.
fn same(a: &Branch, b: &Branch) -> bool {
    a.clbits == b.clbits && a.entries.len() == b.entries.len() && canonical(&a.entries).eq(canonical(&b.entries))
}

fn check_branches(live: &[Branch], limits: &AutoLimits) -> Result<(), Stop> {
    if live.len() > limits.dense.max_branches {
        return Err(DenseError::TooManyOutcomeBranches { limit: limits.dense.max_branches }.into());
    }
    check_total(live, limits)
}

/// The basis states of all branches together must stay within the sparse limit.
fn check_total(live: &[Branch], limits: &AutoLimits) -> Result<(), Stop> {
    let total: usize = live.iter().map(|b| b.entries.len()).sum();
    if total > limits.max_sparse_states {
        return Err(SimError::StateTooLarge { needed: total, limit: limits.max_sparse_states }.into());
    }
    Ok(())
}
