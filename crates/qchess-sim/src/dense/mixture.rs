//! Exact distributions of circuits with mid-circuit measurements, resets and conditions, on
//! dense states: a mixture of branches run breadth first, equal branches merged.
//!
//! Every live branch takes each operation in turn (runs of gates fused, as a static circuit's).
//! A measurement or reset with two possible outcomes splits a branch in two, each renormalised
//! and weighted by its probability; then branches that read the same classical bits (those a
//! later condition reads) and hold the same state up to a global phase are merged, their
//! weights added. So the work follows the distinct branches alive at once, times the state
//! size and the operations; never the number of measurement histories, which grows
//! exponentially with the measurements (a depth-first walk over every history, as this
//! simulator once did, ran for minutes before reaching its branch limit at 16 qubits).
//!
//! Limits, both checked before a split allocates anything: the live branches
//! ([`Limits::max_branches`](super::Limits)) and their memory (the branch budget: one state at
//! the qubit limit, at most 1 GiB).

use std::hash::Hasher;

use num_complex::Complex64;
use qchess_circuit::ir::{Circuit, Gate, Op};
use rustc_hash::{FxHashMap, FxHasher};

use super::error::{DenseError, branch_budget, state_bytes};
use super::plan::{Plan, Step};
use super::run::{DenseSimulator, Distribution, NEGLIGIBLE_WEIGHT};
use super::state::DenseState;
use crate::canonical::{self, MergedBranches};

/// One branch: a normalised state, the bits later conditions read, and its probability.
struct Branch {
    state: DenseState,
    read_bits: Vec<bool>,
    weight: f64,
}

impl DenseSimulator {
    /// The exact distribution of a circuit that needs trajectories (see the module docs).
    pub(super) fn mixture(&self, circuit: &Circuit, plan: &Plan) -> Result<Distribution, DenseError> {
        let limits = self.limits();
        let num_qubits = circuit.num_qubits();
        let read = bits_read_by_conditions(circuit);
        let mut live = vec![Branch {
            state: DenseState::zero(num_qubits, &limits)?,
            read_bits: vec![false; read.len()],
            weight: 1.0,
        }];
        let mut gates: Vec<Gate> = Vec::new();
        for (op, step) in circuit.ops.iter().zip(&plan.steps) {
            limits.deadline.check()?;
            if let (Op::Gate { gate, .. }, Step::Gate) = (op, step) {
                gates.push(gate.clone());
                continue;
            }
            for branch in &mut live {
                self.run_gates(&mut branch.state, &gates)?;
            }
            gates.clear();
            match (op, *step) {
                (Op::Gate { gate, condition: Some(condition) }, Step::ConditionalGate) => {
                    for branch in &mut live {
                        limits.deadline.check()?;
                        let register = &circuit.registers[condition.register];
                        let start = register.start as usize;
                        let value = (start..start + register.len as usize)
                            .rev()
                            .fold(0u64, |acc, bit| (acc << 1) | u64::from(read_bit(&read, &branch.read_bits, bit)));
                        if value == condition.value {
                            branch.state.apply_checked(gate);
                        }
                    }
                }
                (Op::Measure { qubit, clbit }, Step::Postselect { value }) => {
                    live.retain_mut(|branch| {
                        let (w0, w1) = branch.state.outcome_weights(qubit.index());
                        let p = if value { w1 } else { w0 } / (w0 + w1);
                        if p.is_nan() || p <= NEGLIGIBLE_WEIGHT {
                            return false;
                        }
                        branch.state.project_scaled(qubit.index(), value, 1.0 / p.sqrt());
                        branch.weight *= p;
                        write_bit(&read, &mut branch.read_bits, clbit.index(), value);
                        true
                    });
                }
                (Op::Measure { qubit, clbit }, Step::Measure) => {
                    live = self.split_all(live, qubit.index(), Some(clbit.index()), &read)?;
                    live = merge(live);
                }
                (Op::Reset { qubit }, _) => {
                    live = self.split_all(live, qubit.index(), None, &read)?;
                    for branch in &mut live {
                        // The branch that read 1 is brought back to 0.
                        if branch.state.outcome_weights(qubit.index()).1 > 0.0 {
                            branch.state.apply_checked(&Gate::x(*qubit));
                        }
                    }
                    live = merge(live);
                }
                _ => {}
            }
        }
        for branch in &mut live {
            self.run_gates(&mut branch.state, &gates)?;
        }

        let accepted: f64 = live.iter().map(|b| b.weight).sum();
        if accepted < NEGLIGIBLE_WEIGHT {
            return Err(DenseError::PostSelectionImpossible);
        }
        let mut probabilities = vec![0.0f64; 1usize << num_qubits];
        for branch in &live {
            let scale = branch.weight / accepted;
            for (sum, amplitude) in probabilities.iter_mut().zip(branch.state.amplitudes()) {
                *sum += scale * amplitude.norm_sqr();
            }
        }
        Ok(Distribution { num_qubits, probabilities, postselection_probability: accepted.min(1.0) })
    }

    /// Splits every branch on qubit `index` into its outcomes (each renormalised and weighted),
    /// recording the outcome in classical bit `written` when a condition reads it; refuses
    /// before allocating when the branches would pass a limit.
    fn split_all(
        &self,
        live: Vec<Branch>,
        index: usize,
        written: Option<usize>,
        read: &[Option<usize>],
    ) -> Result<Vec<Branch>, DenseError> {
        let limits = self.limits();
        let weights: Vec<(f64, f64)> = live.iter().map(|b| b.state.outcome_weights(index)).collect();
        let possible = |(w0, w1): (f64, f64)| [w0 > NEGLIGIBLE_WEIGHT * (w0 + w1), w1 > NEGLIGIBLE_WEIGHT * (w0 + w1)];
        let after: usize = weights.iter().map(|&w| possible(w).iter().filter(|&&p| p).count()).sum();
        if after > limits.max_branches {
            return Err(DenseError::TooManyOutcomeBranches { limit: limits.max_branches });
        }
        let num_qubits = live.first().map_or(0, |b| b.state.num_qubits());
        if state_bytes(num_qubits).saturating_mul(after as u128) > branch_budget(limits.max_qubits) {
            return Err(DenseError::TooManyBranches { branches: after, qubits: num_qubits, limit: limits.max_qubits });
        }
        let mut next = Vec::with_capacity(after);
        for (mut branch, (w0, w1)) in live.into_iter().zip(weights) {
            limits.deadline.check()?;
            let total = w0 + w1;
            let outcome = |branch: &mut Branch, value: bool, weight: f64| {
                branch.state.project_scaled(index, value, 1.0 / (weight / total).sqrt());
                branch.weight *= weight / total;
                if let Some(clbit) = written {
                    write_bit(read, &mut branch.read_bits, clbit, value);
                }
            };
            match possible((w0, w1)) {
                [true, true] => {
                    let mut one = Branch {
                        state: branch.state.try_clone()?,
                        read_bits: branch.read_bits.clone(),
                        weight: branch.weight,
                    };
                    outcome(&mut one, true, w1);
                    outcome(&mut branch, false, w0);
                    next.push(branch);
                    next.push(one);
                }
                [false, true] => {
                    outcome(&mut branch, true, w1);
                    next.push(branch);
                }
                [true, false] => {
                    outcome(&mut branch, false, w0);
                    next.push(branch);
                }
                // A branch with no weight left on either side is dropped.
                [false, false] => {}
            }
        }
        Ok(next)
    }
}

/// For each classical bit, its place among the bits some condition reads (`None` for the
/// others: no later operation can tell them apart, so branches never differ by them).
fn bits_read_by_conditions(circuit: &Circuit) -> Vec<Option<usize>> {
    let mut read = vec![false; circuit.clbits as usize];
    for op in &circuit.ops {
        if let Op::Gate { condition: Some(condition), .. } = op {
            let register = &circuit.registers[condition.register];
            let start = register.start as usize;
            read[start..start + register.len as usize].iter_mut().for_each(|r| *r = true);
        }
    }
    let mut places = 0;
    read.into_iter()
        .map(|is_read| {
            is_read.then(|| {
                places += 1;
                places - 1
            })
        })
        .collect()
}

fn read_bit(read: &[Option<usize>], bits: &[bool], clbit: usize) -> bool {
    read[clbit].is_some_and(|place| bits[place])
}

fn write_bit(read: &[Option<usize>], bits: &mut [bool], clbit: usize, value: bool) {
    if let Some(place) = read[clbit] {
        bits[place] = value;
    }
}

/// Merges branches with the same read bits and the same state up to a global phase.
///
/// Most branches of a circuit are unequal, and hashing every amplitude of every branch after
/// every measurement would cost as much as the measurement itself; so branches are first
/// grouped by a fingerprint of their first amplitudes, and only those that share one are hashed
/// in full and compared ([`MergedBranches`]).
fn merge(live: Vec<Branch>) -> Vec<Branch> {
    if live.len() < 2 {
        return live;
    }
    let mut groups: FxHashMap<u64, Vec<Branch>> = FxHashMap::default();
    for branch in live {
        groups.entry(fingerprint(&branch)).or_default().push(branch);
    }
    let mut merged: Vec<Branch> = Vec::new();
    for (_, group) in groups {
        if group.len() == 1 {
            merged.extend(group);
            continue;
        }
        let first = merged.len();
        let mut distinct = MergedBranches::with_capacity(group.len());
        for branch in group {
            let hash = canonical_hash(&branch);
            distinct.add(branch, hash, same, |kept, branch| kept.weight += branch.weight);
        }
        merged.extend(distinct.kept);
        debug_assert!(merged.len() > first);
    }
    merged
}

/// Amplitudes a fingerprint reads: the first this many outside the grid's zero cell.
const FINGERPRINT_AMPLITUDES: usize = 16;

/// A hash of a branch's read bits and its first [`FINGERPRINT_AMPLITUDES`] amplitudes that are
/// not zero on the grid (with their places), global phase taken out: equal branches share it.
fn fingerprint(branch: &Branch) -> u64 {
    let mut hasher = FxHasher::default();
    for &bit in &branch.read_bits {
        hasher.write_u8(u8::from(bit));
    }
    let amplitudes = branch.state.amplitudes();
    let phase = canonical::phase_reference(amplitudes.iter().copied());
    // Amplitudes too small for any cell but the zero one are passed over without computing it.
    let leading = amplitudes
        .iter()
        .enumerate()
        .filter(|(_, a)| a.norm_sqr() >= canonical::SMALLEST_NONZERO_CELL)
        .map(|(place, &a)| (place, canonical::on_grid(a, phase)))
        .filter(|&(_, cell)| cell != (0, 0))
        .take(FINGERPRINT_AMPLITUDES);
    for (place, (re, im)) in leading {
        hasher.write_usize(place);
        hasher.write_i64(re);
        hasher.write_i64(im);
    }
    hasher.finish()
}

fn canonical(state: &DenseState) -> impl Iterator<Item = (i64, i64)> + '_ {
    let phase = canonical::phase_reference(state.amplitudes().iter().copied());
    state.amplitudes().iter().map(move |&a: &Complex64| canonical::on_grid(a, phase))
}

fn canonical_hash(branch: &Branch) -> u64 {
    let mut hasher = FxHasher::default();
    for &bit in &branch.read_bits {
        hasher.write_u8(u8::from(bit));
    }
    for (re, im) in canonical(&branch.state) {
        hasher.write_i64(re);
        hasher.write_i64(im);
    }
    hasher.finish()
}

fn same(a: &Branch, b: &Branch) -> bool {
    a.read_bits == b.read_bits && canonical(&a.state).eq(canonical(&b.state))
}
