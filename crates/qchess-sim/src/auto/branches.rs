//! What the mixture and the shot tree share: branches of sparse basis states that live outside
//! a [`SparseState`] and are swapped into one shared state to have gates applied, the split of
//! a branch on a measured qubit, and classical conditions on a branch's bits.

use num_complex::Complex64;
use qchess_circuit::ir::{Circuit, Condition, Gate, Qubit};

use super::AutoError;
use crate::canonical;
use crate::sparse::{Entry, IMPOSSIBLE_PROBABILITY, SimError, SparseState};

/// Why a branching run stopped without an answer or an error: a branch outgrew the sparse cap,
/// and the dense simulator should take over.
pub(super) enum Stop {
    /// The states are not sparse: the dense simulator suits the circuit better.
    NotSparse,
    /// A real failure, reported as is.
    Failed(AutoError),
}

impl From<AutoError> for Stop {
    fn from(error: AutoError) -> Stop {
        Stop::Failed(error)
    }
}

impl From<SimError> for Stop {
    fn from(error: SimError) -> Stop {
        Stop::Failed(error.into())
    }
}

impl From<crate::dense::DenseError> for Stop {
    fn from(error: crate::dense::DenseError) -> Stop {
        Stop::Failed(error.into())
    }
}

impl From<crate::deadline::TimeLimitExceeded> for Stop {
    fn from(error: crate::deadline::TimeLimitExceeded) -> Stop {
        Stop::Failed(error.into())
    }
}

/// The basis states of `|0...0>`.
pub(super) fn ground() -> Vec<Entry> {
    vec![Entry { key: 0, amp: Complex64::new(1.0, 0.0) }]
}

/// Branches up to this many basis states take one-qubit gates on the direct path: a few
/// multiplications, no hashing, no allocation.
const SMALL_BRANCH: usize = 8;

/// Amplitudes with a squared norm below this are dropped as cancelled (as the sparse state
/// drops them).
const CANCELLED: f64 = 1e-24;

/// The one layout every branch uses (qubit `i` at key bit `i`), and gates applied through it.
pub(super) struct Workspace {
    state: SparseState,
    scratch: Vec<Entry>,
}

impl Workspace {
    /// A workspace for `circuit` (at most 64 qubits) whose branches may hold `cap` basis states.
    pub(super) fn new(circuit: &Circuit, cap: usize) -> Result<Workspace, Stop> {
        Workspace::with_qubits(circuit.num_qubits(), cap)
    }

    /// A workspace for `qubits` qubits (at most 64) whose branches may hold `cap` basis states.
    pub(super) fn with_qubits(qubits: usize, cap: usize) -> Result<Workspace, Stop> {
        let mut state = SparseState::with_cap(cap);
        for index in 0..qubits {
            state.add_qubit_at(Qubit(index as u32), index as u8)?;
        }
        Ok(Workspace { state, scratch: Vec::new() })
    }

    /// Applies `gate` to one branch's basis states; a branch past the cap is [`Stop::NotSparse`].
    pub(super) fn apply(&mut self, entries: &mut Vec<Entry>, gate: &Gate) -> Result<(), Stop> {
        if entries.len() <= SMALL_BRANCH
            && let ([target], Some(matrix)) = (gate.targets.as_slice(), gate.kind.matrix2())
        {
            return self.apply_small(entries, target.index(), &matrix, gate);
        }
        self.state.swap_entries(entries);
        let result = self.state.apply_gate(gate);
        self.state.swap_entries(entries);
        match result {
            Ok(()) => Ok(()),
            Err(SimError::StateTooLarge { .. }) => Err(Stop::NotSparse),
            Err(other) => Err(other.into()),
        }
    }
}

impl Workspace {
    /// A one-qubit gate (with any controls) on a branch of a few basis states: each state's
    /// two images are added into the output, found by a short linear search.
    fn apply_small(
        &mut self,
        entries: &mut Vec<Entry>,
        target: usize,
        matrix: &[[Complex64; 2]; 2],
        gate: &Gate,
    ) -> Result<(), Stop> {
        let (mut mask, mut value) = (0u128, 0u128);
        for control in &gate.controls {
            mask |= 1u128 << control.qubit.index();
            if control.on {
                value |= 1u128 << control.qubit.index();
            }
        }
        let bit = 1u128 << target;
        let out = &mut self.scratch;
        out.clear();
        for entry in entries.iter() {
            if entry.key & mask != value {
                out.push(*entry);
                continue;
            }
            let column = usize::from(entry.key & bit != 0);
            for (row, coefficients) in matrix.iter().enumerate() {
                let amp = coefficients[column] * entry.amp;
                if amp == Complex64::new(0.0, 0.0) {
                    continue;
                }
                let key = if row == 1 { entry.key | bit } else { entry.key & !bit };
                match out.iter_mut().find(|e| e.key == key) {
                    Some(existing) => existing.amp += amp,
                    None => out.push(Entry { key, amp }),
                }
            }
        }
        out.retain(|e| e.amp.norm_sqr() >= CANCELLED);
        if out.len() > self.state.cap() {
            return Err(Stop::NotSparse);
        }
        std::mem::swap(entries, out);
        Ok(())
    }
}

/// The probability that key bit `bit` reads 1 in a normalised branch.
pub(super) fn probability_of_one(entries: &[Entry], bit: usize) -> f64 {
    let mask = 1u128 << bit;
    let (mut ones, mut total) = (0.0, 0.0);
    for entry in entries {
        let weight = entry.amp.norm_sqr();
        total += weight;
        if entry.key & mask != 0 {
            ones += weight;
        }
    }
    if total > 0.0 { (ones / total).clamp(0.0, 1.0) } else { 0.0 }
}

/// How many of `shots` read 1 where the probability of 1 is `one`: one binomial draw, or all
/// or none when an outcome is impossible.
pub(super) fn shots_reading_one(shots: u64, one: f64, rng: &mut rand_chacha::ChaCha8Rng) -> u64 {
    use rand_distr::{Binomial, Distribution};
    if !possible(one) {
        0
    } else if !possible(1.0 - one) {
        shots
    } else {
        Binomial::new(shots, one).map_or(0, |binomial| binomial.sample(rng))
    }
}

/// Whether outcome probability `p` is a real possibility rather than rounding noise.
pub(super) fn possible(p: f64) -> bool {
    p > IMPOSSIBLE_PROBABILITY
}

/// Keeps the basis states whose bit `bit` reads `value`, renormalised.
pub(super) fn keep(entries: &mut Vec<Entry>, bit: usize, value: bool) {
    let mask = 1u128 << bit;
    let wanted = if value { mask } else { 0 };
    entries.retain(|e| e.key & mask == wanted);
    normalise(entries);
}

/// Splits a branch on bit `bit`: the states reading 0 and those reading 1, each renormalised.
pub(super) fn split(entries: Vec<Entry>, bit: usize) -> (Vec<Entry>, Vec<Entry>) {
    let mask = 1u128 << bit;
    let (mut ones, mut zeros): (Vec<Entry>, Vec<Entry>) = entries.into_iter().partition(|e| e.key & mask != 0);
    normalise(&mut zeros);
    normalise(&mut ones);
    (zeros, ones)
}

/// Flips bit `bit` of every key (the X that brings a reset qubit read as 1 back to 0).
pub(super) fn flip(entries: &mut [Entry], bit: usize) {
    entries.iter_mut().for_each(|e| e.key ^= 1u128 << bit);
}

fn normalise(entries: &mut [Entry]) {
    let norm: f64 = entries.iter().map(|e| e.amp.norm_sqr()).sum();
    if norm > 0.0 {
        let scale = 1.0 / norm.sqrt();
        entries.iter_mut().for_each(|e| e.amp *= scale);
    }
}

/// Sets or clears classical bit `bit` of `clbits`.
pub(super) fn record(clbits: &mut u128, bit: usize, value: bool) {
    if value {
        *clbits |= 1u128 << bit;
    } else {
        *clbits &= !(1u128 << bit);
    }
}

/// Whether a branch with classical bits `clbits` satisfies `condition` (registers of at most
/// 64 bits, checked by the plan).
pub(super) fn condition_holds(circuit: &Circuit, condition: &Condition, clbits: u128) -> bool {
    let Some(register) = circuit.registers.get(condition.register) else { return false };
    let len = register.len.min(64);
    let mask = if len == 64 { u64::MAX } else { (1u64 << len) - 1 };
    ((clbits >> register.start) as u64 & mask) == condition.value
}

/// A sorted state's amplitudes on the merge grid, with the global phase taken out.
pub(super) fn canonical(entries: &[Entry]) -> impl Iterator<Item = (u128, i64, i64)> + '_ {
    let phase = canonical::phase_reference(entries.iter().map(|e| e.amp));
    entries.iter().map(move |e| {
        let (re, im) = canonical::on_grid(e.amp, phase);
        (e.key, re, im)
    })
}
