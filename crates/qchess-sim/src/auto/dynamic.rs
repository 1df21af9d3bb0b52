//! Dynamic programs ([`qchess_circuit::dynamic`]): programs that read their own measurement
//! outcomes, run step by step on sparse branches.
//!
//! * [`probabilities`]: the exact distribution over every qubit as a mixture. A measurement
//!   with two possible outcomes splits a branch in two, each weighted by its probability; a
//!   reset splits it the same way. Branches whose programs have come to the same state (the
//!   same point, the same classical values, the same outcome to receive) and whose quantum
//!   states are equal up to a global phase merge, their weights added. A branch whose weight
//!   falls to 1e-20 or below is dropped as impossible, as the exact simulators drop outcomes
//!   of that probability: a loop that repeats until a measurement succeeds ends that way.
//! * [`sample`]: seeded shots as groups of shots that share a history, divided at each
//!   measurement by one binomial draw (as the circuit sampler does). When a state outgrows
//!   the sparse cap, every shot runs on its own dense state instead.
//!
//! Limits: the live branches ([`Limits::max_branches`](crate::dense::Limits)), the basis
//! states of all branches or waiting groups together ([`AutoLimits::max_sparse_states`]), the
//! deadline, and the program's own bounds on steps.

use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};

use qchess_circuit::dynamic::{Dynamic, Next};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rustc_hash::FxHashMap;

use super::branches::{self, Stop, Workspace, canonical};
use super::shots::draw;
use super::{AutoError, AutoLimits, Engine, Outcomes};
use crate::canonical::MergedBranches;
use crate::dense::{CountKeys, Counts, DenseError, DenseState, MAX_SHOTS};
use crate::sparse::Entry;

/// One branch of the mixture: its program, the outcome it is to receive, its state and weight.
struct Branch<P> {
    program: P,
    feed: Option<bool>,
    entries: Vec<Entry>,
    weight: f64,
}

/// The most basis states one branch may hold: the whole vector, up to
/// [`AutoLimits::max_sparse_states`] (a dynamic program has no dense form to move to for its
/// exact distribution, and its branches are usually far smaller).
fn branch_cap(qubits: usize, limits: &AutoLimits) -> usize {
    limits.max_sparse_states.min(1usize << qubits.min(62)).max(1)
}

fn check_width(qubits: usize) -> Result<(), AutoError> {
    if qubits > 64 { Err(AutoError::TooWide { qubits }) } else { Ok(()) }
}

fn stopped(stop: Stop, states: usize) -> AutoError {
    match stop {
        Stop::NotSparse => AutoError::DynamicNotSparse { states },
        Stop::Failed(error) => error,
    }
}

/// The exact distribution of `program` over all its qubits. See the [module docs](self).
pub fn probabilities<P: Dynamic>(program: &P, limits: &AutoLimits) -> Result<Outcomes, AutoError> {
    let qubits = program.num_qubits();
    check_width(qubits)?;
    let cap = branch_cap(qubits, limits);
    let mut workspace = Workspace::with_qubits(qubits, cap).map_err(|s| stopped(s, cap))?;
    let mut live = vec![Branch { program: program.clone(), feed: None, entries: branches::ground(), weight: 1.0 }];
    let mut totals: FxHashMap<u64, f64> = FxHashMap::default();
    let mut accepted = 0.0;
    while !live.is_empty() {
        let mut next = Vec::with_capacity(live.len() * 2);
        for mut branch in live {
            loop {
                limits.dense.deadline.check()?;
                match branch.program.next(branch.feed.take())? {
                    Next::Gate(gate) => workspace.apply(&mut branch.entries, &gate).map_err(|s| stopped(s, cap))?,
                    Next::Measure(qubit) => {
                        split(branch, qubit.index(), false, &mut next);
                        break;
                    }
                    Next::Reset(qubit) => {
                        split(branch, qubit.index(), true, &mut next);
                        break;
                    }
                    Next::Done => {
                        accepted += branch.weight;
                        for entry in &branch.entries {
                            *totals.entry(entry.key as u64).or_default() += branch.weight * entry.amp.norm_sqr();
                        }
                        break;
                    }
                }
            }
        }
        live = merge(next);
        if live.len() > limits.dense.max_branches {
            return Err(DenseError::TooManyOutcomeBranches { limit: limits.dense.max_branches }.into());
        }
        let total: usize = live.iter().map(|b| b.entries.len()).sum();
        if total > limits.max_sparse_states {
            return Err(AutoError::DynamicNotSparse { states: total });
        }
    }
    let mut probabilities: Vec<(u64, f64)> = totals.into_iter().filter(|&(_, p)| p > 0.0).collect();
    probabilities.sort_unstable_by_key(|&(outcome, _)| outcome);
    Ok(Outcomes {
        num_qubits: qubits,
        probabilities,
        postselection_probability: accepted.min(1.0),
        engine: Engine::Sparse,
    })
}

/// Splits a branch at a measurement (or reset) of key bit `bit` into the branches of its
/// possible outcomes, each to receive its outcome; a reset's branch that read 1 is flipped
/// back to 0 (a reset receives no outcome).
fn split<P: Dynamic>(branch: Branch<P>, bit: usize, is_reset: bool, out: &mut Vec<Branch<P>>) {
    let one = branches::probability_of_one(&branch.entries, bit);
    let mut push = |mut entries: Vec<Entry>, value: bool, weight: f64| {
        if !branches::possible(weight) {
            return;
        }
        if is_reset && value {
            branches::flip(&mut entries, bit);
        }
        let feed = (!is_reset).then_some(value);
        out.push(Branch { program: branch.program.clone(), feed, entries, weight });
    };
    match (branches::possible(1.0 - one), branches::possible(one)) {
        (true, true) => {
            let (zeros, ones) = branches::split(branch.entries.clone(), bit);
            push(zeros, false, branch.weight * (1.0 - one));
            push(ones, true, branch.weight * one);
        }
        (false, true) | (true, false) => {
            let value = one > 0.5;
            let mut entries = branch.entries.clone();
            branches::keep(&mut entries, bit, value);
            push(entries, value, branch.weight);
        }
        (false, false) => {}
    }
}

fn merge<P: Dynamic>(live: Vec<Branch<P>>) -> Vec<Branch<P>> {
    let mut merged = MergedBranches::with_capacity(live.len());
    for mut branch in live {
        branch.entries.sort_unstable_by_key(|e| e.key);
        let mut hasher = rustc_hash::FxHasher::default();
        branch.program.hash(&mut hasher);
        branch.feed.hash(&mut hasher);
        canonical(&branch.entries).for_each(|item| item.hash(&mut hasher));
        let same = |a: &Branch<P>, b: &Branch<P>| {
            a.feed == b.feed
                && a.program == b.program
                && a.entries.len() == b.entries.len()
                && canonical(&a.entries).eq(canonical(&b.entries))
        };
        merged.add(branch, hasher.finish(), same, |kept, branch| kept.weight += branch.weight);
    }
    merged.kept
}

/// A group of shots with one history.
struct Group<P> {
    program: P,
    feed: Option<bool>,
    entries: Vec<Entry>,
    shots: u64,
}

/// How counts are keyed: the program's result bits, or every qubit when it has none.
fn keys<P: Dynamic>(program: &P) -> Result<CountKeys, AutoError> {
    match program.result_width() {
        0 => Ok(CountKeys::Qubits(program.num_qubits())),
        bits if bits > 64 => Err(DenseError::TooManyResultBits { bits }.into()),
        bits => Ok(CountKeys::Clbits(bits)),
    }
}

fn key<P: Dynamic>(program: &P, keys: CountKeys, basis: u128) -> u64 {
    match keys {
        CountKeys::Qubits(_) => basis as u64,
        CountKeys::Clbits(_) => program.result(basis),
    }
}

/// `shots` seeded runs of `program`. See the [module docs](self).
pub fn sample<P: Dynamic>(
    program: &P,
    shots: u64,
    seed: u64,
    limits: &AutoLimits,
) -> Result<(Counts, Engine), AutoError> {
    if !(1..=MAX_SHOTS).contains(&shots) {
        return Err(DenseError::InvalidShots { shots, max: MAX_SHOTS }.into());
    }
    let qubits = program.num_qubits();
    check_width(qubits)?;
    let keys = keys(program)?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    match sample_sparse(program, shots, keys, &mut rng, limits) {
        Ok(counts) => Ok((Counts { keys, shots, counts }, Engine::Sparse)),
        Err(Stop::NotSparse) => {
            let counts = sample_dense(program, shots, keys, seed, limits)?;
            Ok((Counts { keys, shots, counts }, Engine::Dense))
        }
        Err(Stop::Failed(error)) => Err(error),
    }
}

fn sample_sparse<P: Dynamic>(
    program: &P,
    shots: u64,
    keys: CountKeys,
    rng: &mut ChaCha8Rng,
    limits: &AutoLimits,
) -> Result<BTreeMap<u64, u64>, Stop> {
    let cap = branch_cap(program.num_qubits(), limits);
    let mut workspace = Workspace::with_qubits(program.num_qubits(), cap)?;
    let mut stack = vec![Group { program: program.clone(), feed: None, entries: branches::ground(), shots }];
    let mut waiting = 1usize;
    let mut counts = BTreeMap::new();
    while let Some(mut group) = stack.pop() {
        waiting -= group.entries.len();
        loop {
            limits.dense.deadline.check()?;
            let step = group.program.next(group.feed.take()).map_err(AutoError::from)?;
            let qubit = match step {
                Next::Gate(gate) => {
                    workspace.apply(&mut group.entries, &gate)?;
                    continue;
                }
                Next::Done => {
                    for (basis, hits) in draw(&group.entries, group.shots, rng) {
                        *counts.entry(key(&group.program, keys, basis)).or_insert(0) += hits;
                    }
                    break;
                }
                Next::Measure(qubit) | Next::Reset(qubit) => qubit,
            };
            let reset = matches!(step, Next::Reset(_));
            let bit = qubit.index();
            let one = branches::probability_of_one(&group.entries, bit);
            let to_one = branches::shots_reading_one(group.shots, one, rng);
            let settle = |entries: &mut Vec<Entry>, value: bool| {
                if reset && value {
                    branches::flip(entries, bit);
                }
                (!reset).then_some(value)
            };
            if to_one > 0 && to_one < group.shots {
                let (mut zeros, mut ones) = branches::split(std::mem::take(&mut group.entries), bit);
                let feed = settle(&mut ones, true);
                waiting += ones.len();
                stack.push(Group { program: group.program.clone(), feed, entries: ones, shots: to_one });
                group.feed = settle(&mut zeros, false);
                group.entries = zeros;
                group.shots -= to_one;
            } else {
                let value = to_one > 0;
                branches::keep(&mut group.entries, bit, value);
                group.feed = settle(&mut group.entries, value);
            }
            if waiting + group.entries.len() > limits.max_sparse_states {
                return Err(Stop::NotSparse);
            }
        }
    }
    Ok(counts)
}

/// Every shot on a dense state of its own (states too large for sparse branches).
fn sample_dense<P: Dynamic>(
    program: &P,
    shots: u64,
    keys: CountKeys,
    seed: u64,
    limits: &AutoLimits,
) -> Result<BTreeMap<u64, u64>, AutoError> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut counts = BTreeMap::new();
    for _ in 0..shots {
        let mut state = DenseState::zero(program.num_qubits(), &limits.dense)?;
        let mut run = program.clone();
        let mut feed = None;
        loop {
            limits.dense.deadline.check()?;
            match run.next(feed.take())? {
                Next::Gate(gate) => state.apply_gate(&gate)?,
                Next::Measure(qubit) => feed = Some(state.measure(qubit, &mut rng)?),
                Next::Reset(qubit) => state.reset(qubit, &mut rng)?,
                Next::Done => {
                    let basis = state.sample_index(&mut rng) as u128;
                    *counts.entry(key(&run, keys, basis)).or_insert(0) += 1;
                    break;
                }
            }
        }
    }
    Ok(counts)
}

#[cfg(test)]
mod tests {
    use qchess_circuit::dynamic::ProgramError;
    use qchess_circuit::ir::{Gate, GateKind, Qubit};

    use super::*;

    /// Active reset with a result: H on qubit 0, measure it into the result, flip it back to 0
    /// when it read 1; then H on qubit 1.
    #[derive(Clone, PartialEq, Eq, Hash)]
    struct ActiveReset {
        step: u8,
        read: Option<bool>,
    }

    impl Dynamic for ActiveReset {
        fn num_qubits(&self) -> usize {
            2
        }
        fn result_width(&self) -> usize {
            1
        }
        fn next(&mut self, outcome: Option<bool>) -> Result<Next, ProgramError> {
            if outcome.is_some() {
                self.read = outcome;
            }
            self.step += 1;
            Ok(match self.step {
                1 => Next::Gate(Gate::one(GateKind::H, Qubit(0))),
                2 => Next::Measure(Qubit(0)),
                3 if self.read == Some(true) => Next::Gate(Gate::x(Qubit(0))),
                3 | 4 => Next::Gate(Gate::one(GateKind::H, Qubit(1))),
                _ => Next::Done,
            })
        }
        fn result(&self, _: u128) -> u64 {
            u64::from(self.read == Some(true))
        }
    }

    #[test]
    fn exact_runs_branch_at_measurements_and_sample_by_history() {
        let program = ActiveReset { step: 0, read: None };
        let exact = probabilities(&program, &AutoLimits::default()).expect("runs");
        // Qubit 0 ends in 0 either way; qubit 1 is |+> (H once on the 1 branch, twice on the 0
        // branch, where the step count differs: |0> there).
        assert_eq!(exact.probabilities.len(), 2);
        let p: Vec<(u64, f64)> = exact.probabilities;
        assert_eq!(p[0].0, 0);
        assert!((p[0].1 - 0.75).abs() < 1e-12 && (p[1].1 - 0.25).abs() < 1e-12, "{p:?}");
        let (counts, engine) = sample(&program, 2000, 5, &AutoLimits::default()).expect("runs");
        assert_eq!(engine, Engine::Sparse);
        assert_eq!(counts.keys, CountKeys::Clbits(1));
        // Half the shots read 1 (2000 fair flips: 1000 +- 5 sigma).
        assert!((888..=1112).contains(&counts.counts[&1]), "{:?}", counts.counts);
    }
}
