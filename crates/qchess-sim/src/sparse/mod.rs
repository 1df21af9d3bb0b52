//! Exact sparse state-vector simulation.
//!
//! A [`SparseState`] maps populated basis states to complex amplitudes. A basis state is a
//! `u128` key: each live qubit has a bit position in it. The local quantum board pins every
//! square's qubit to the square's index in the low 64 bits, so the low word of a key *is* the
//! quantum part of a bitboard; ancillas take the high 64 bits.
//!
//! * Gates (the full [`GateKind`](qchess_circuit::ir::GateKind) set, with controls and
//!   anti-controls) that map basis states to basis states are applied in place; the others go
//!   through an accumulator, and amplitudes that cancel are dropped.
//! * Measurements compute the exact outcome probability, then draw it (any [`rand::Rng`], e.g. a
//!   seeded ChaCha) or take a forced value, project and renormalise. A forced outcome of
//!   probability 0 is an error, never a silent fix.
//! * [`SparseState::retire`] declares that nothing will touch a qubit again. A constant qubit (an
//!   uncomputed flag, a measured qubit) is dropped; an entangled one keeps its bit only as a
//!   *branch label*, and labels are renumbered compactly when positions run short.
//! * A cap on the number of basis states (default [`DEFAULT_STATE_CAP`]) turns runaway growth
//!   into [`SimError::StateTooLarge`], leaving the state as it was before the failing gate.
//!
//! ```
//! use qchess_circuit::ir::{Gate, Qubit};
//! use qchess_sim::sparse::SparseState;
//!
//! let mut state = SparseState::new();
//! let (a, b) = (Qubit(0), Qubit(1));
//! state.add_qubit_at(a, 0)?;
//! state.add_qubit_at(b, 1)?;
//! state.apply_gate(&Gate::x(a))?;
//! state.apply_gate(&Gate::iswap(a, b, 0.5))?; // |a=1> -> (|10> + i|01>)/sqrt2
//! assert!((state.probability(b, true)? - 0.5).abs() < 1e-12);
//! let p = state.project(b, true)?;
//! assert!((p - 0.5).abs() < 1e-12);
//! state.retire(b)?; // b is now constant 1: dropped
//! assert_eq!(state.len(), 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod apply;
mod error;
mod kernel;
mod layout;

use num_complex::Complex64;
use qchess_circuit::ir::{Circuit, Gate, Op, Qubit};
use rand::{Rng, RngExt};
use rustc_hash::FxHashMap;

pub use error::SimError;
use layout::Layout;

/// Default cap on the number of basis states: 2^22.
pub const DEFAULT_STATE_CAP: usize = 1 << 22;

/// Amplitudes with a squared norm below this are dropped as cancelled.
const PRUNE_NORM_SQR: f64 = 1e-24;

/// From this many basis states on, square probabilities are summed through per-byte tables.
const BYTE_TABLE_STATES: usize = 1 << 10;

/// From this many basis states on, gates and probabilities use the state's threads: below it,
/// starting threads costs more than it saves.
const THREADED_FROM: usize = 1 << 16;

/// Low-word probabilities are summed over blocks of this many basis states, then the blocks in
/// order, so the sums do not depend on the thread count.
const PROBABILITY_BLOCK: usize = 1 << 16;

/// Storage for this many basis states (128 KB) is never given back by a shrinking state.
const KEPT_STORAGE: usize = 1 << 12;

/// Outcome probabilities at or below this are impossible.
pub const IMPOSSIBLE_PROBABILITY: f64 = 1e-20;

/// One populated basis state.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Entry {
    pub(crate) key: u128,
    pub(crate) amp: Complex64,
}

/// A sparse state vector over live qubits and branch labels. See the [module docs](self).
#[derive(Debug)]
pub struct SparseState {
    entries: Vec<Entry>,
    layout: Layout,
    cap: usize,
    /// Results of measurements into classical bits, by bit index.
    clbits: Vec<Option<bool>>,
    /// Threads for gates and probabilities on large states (results do not depend on it).
    threads: usize,
}

/// The sums of one collapse pass: which states a measured value keeps, and their weights,
/// summed in storage order as they are met.
#[derive(Debug, Clone, Copy)]
struct Collapse {
    mask: u128,
    wanted: u128,
    /// Weight of the states that read 1, of all states, and of the kept ones.
    ones: f64,
    total: f64,
    norm: f64,
}

impl Collapse {
    fn of(position: u8, value: bool) -> Collapse {
        let mask = 1u128 << position;
        Collapse { mask, wanted: if value { mask } else { 0 }, ones: 0.0, total: 0.0, norm: 0.0 }
    }

    /// Adds the state's weight to the sums; says whether the collapse keeps it. Adds 0 to
    /// the sums a state is not part of rather than branching on the random bit (the same sums:
    /// they are never -0).
    fn keeps(&mut self, entry: &Entry) -> bool {
        let p = entry.amp.norm_sqr();
        let bit = entry.key & self.mask;
        let keep = bit == self.wanted;
        self.total += p;
        self.ones += if bit != 0 { p } else { 0.0 };
        self.norm += if keep { p } else { 0.0 };
        keep
    }
}

impl Clone for SparseState {
    fn clone(&self) -> SparseState {
        SparseState {
            entries: self.entries.clone(),
            layout: self.layout.clone(),
            cap: self.cap,
            clbits: self.clbits.clone(),
            threads: self.threads,
        }
    }

    /// Copies into the storage already held: undo snapshots reuse their buffers.
    fn clone_from(&mut self, source: &SparseState) {
        self.entries.clone_from(&source.entries);
        self.layout.clone_from(&source.layout);
        self.cap = source.cap;
        self.clbits.clone_from(&source.clbits);
        self.threads = source.threads;
    }
}

impl Default for SparseState {
    fn default() -> SparseState {
        SparseState::new()
    }
}

impl SparseState {
    /// The state with no qubits (one basis state, amplitude 1) and the default cap.
    pub fn new() -> SparseState {
        SparseState::with_cap(DEFAULT_STATE_CAP)
    }

    /// The state with no qubits and a cap on the number of basis states.
    pub fn with_cap(cap: usize) -> SparseState {
        SparseState {
            entries: vec![Entry { key: 0, amp: Complex64::new(1.0, 0.0) }],
            layout: Layout::new(),
            cap: cap.max(1),
            clbits: Vec::new(),
            threads: 1,
        }
    }

    /// Sets the threads used by gates and probabilities on states of at least 2^16 basis
    /// states (1 by default). Results are the same whatever the number.
    pub fn set_threads(&mut self, threads: usize) {
        self.threads = threads.max(1);
    }

    /// The threads in use on large states.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// The threads worth starting for a pass over `len` basis states.
    fn threads_for(&self, len: usize) -> usize {
        if len >= THREADED_FROM { self.threads } else { 1 }
    }

    /// Number of populated basis states.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Heap memory the basis states hold now (by capacity): 32 bytes each, a little more
    /// while storage is spare. Gates keep no buffers between them.
    pub fn heap_bytes(&self) -> usize {
        self.entries.capacity() * std::mem::size_of::<Entry>()
    }

    /// Gives back storage a shrunken state no longer needs (more than a quarter spare), so the
    /// state keeps close to 32 bytes per basis state. Storage of up to [`KEPT_STORAGE`] basis
    /// states is kept: a search measures and grows small states all the time, and
    /// reallocating each time costs more than the few kilobytes.
    fn trim_storage(&mut self) {
        let len = self.entries.len();
        let capacity = self.entries.capacity();
        if capacity > KEPT_STORAGE && capacity - len > len / 4 + 16 {
            self.entries.shrink_to_fit();
        }
    }

    /// Exchanges the basis states with `entries`, keeping the layout: branches of a mixture
    /// share one layout and are swapped in to have gates applied.
    pub(crate) fn swap_entries(&mut self, entries: &mut Vec<Entry>) {
        std::mem::swap(&mut self.entries, entries);
    }

    /// Whether no basis state is populated (never true for a normalised state).
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The cap on the number of basis states.
    pub fn cap(&self) -> usize {
        self.cap
    }

    /// The populated basis states: key and amplitude, in storage order.
    pub fn amplitudes(&self) -> impl Iterator<Item = (u128, Complex64)> + '_ {
        self.entries.iter().map(|e| (e.key, e.amp))
    }

    /// The key position of a live qubit.
    pub fn position(&self, qubit: Qubit) -> Option<u8> {
        self.layout.position(qubit).ok()
    }

    /// The live qubit at a key position.
    pub fn qubit_at(&self, position: u8) -> Option<Qubit> {
        if position < 128 { self.layout.owner(position) } else { None }
    }

    /// The live qubits with their key positions, in position order.
    pub fn live_qubits(&self) -> impl Iterator<Item = (Qubit, u8)> + '_ {
        self.layout.live()
    }

    /// Key positions held by live qubits, as a mask.
    pub fn live_positions(&self) -> u128 {
        self.layout.live_mask()
    }

    /// Key positions that hold branch labels of retired qubits.
    pub fn label_mask(&self) -> u128 {
        self.layout.labels()
    }

    /// The recorded value of a classical bit, if it was measured.
    pub fn clbit(&self, index: usize) -> Option<bool> {
        self.clbits.get(index).copied().flatten()
    }

    /// Adds a qubit in |0> at an explicit key position (0..128).
    pub fn add_qubit_at(&mut self, qubit: Qubit, position: u8) -> Result<(), SimError> {
        if position >= 128 {
            return Err(SimError::OutOfPositions);
        }
        self.layout.place(qubit, position)
    }

    /// Adds a qubit in |0> at the lowest free position of the high word.
    pub fn add_qubit(&mut self, qubit: Qubit) -> Result<u8, SimError> {
        let position = match self.layout.free_high() {
            Some(position) => position,
            None => {
                self.compact_labels();
                self.layout.free_high().ok_or(SimError::OutOfPositions)?
            }
        };
        self.layout.place(qubit, position)?;
        Ok(position)
    }

    // ---- measurement ----

    /// The probability that `qubit` reads `value`, normalised by the state's norm.
    pub fn probability(&self, qubit: Qubit, value: bool) -> Result<f64, SimError> {
        let mask = 1u128 << self.layout.position(qubit)?;
        let (mut ones, mut total) = (0.0, 0.0);
        for entry in &self.entries {
            let p = entry.amp.norm_sqr();
            total += p;
            if entry.key & mask != 0 {
                ones += p;
            }
        }
        let one = if total > 0.0 { ones / total } else { 0.0 };
        Ok(if value { one } else { 1.0 - one })
    }

    /// Post-selects `qubit` on `value`: keeps the matching basis states and renormalises.
    /// Returns the probability the outcome had; an outcome of probability 0 is an error and
    /// leaves the state unchanged.
    pub fn project(&mut self, qubit: Qubit, value: bool) -> Result<f64, SimError> {
        let probability = self.probability(qubit, value)?;
        if probability <= IMPOSSIBLE_PROBABILITY {
            return Err(SimError::ImpossibleOutcome { qubit, value });
        }
        self.collapse(qubit, value)?;
        Ok(probability)
    }

    /// [`SparseState::project`] for a caller that has just found the outcome possible (so its
    /// probability is not computed again).
    pub(crate) fn collapse(&mut self, qubit: Qubit, value: bool) -> Result<(), SimError> {
        self.collapse_counting(qubit, value).map(|_| ())
    }

    /// Post-selects `qubit` on `value` as [`SparseState::project`] does, whatever the outcome's
    /// probability, and returns the probability that the qubit read 1 before (the same sums
    /// as [`SparseState::probability`], from the same pass). For a caller whose outcome is
    /// forced, which puts the state back itself when that outcome had probability 0.
    pub(crate) fn collapse_counting(&mut self, qubit: Qubit, value: bool) -> Result<f64, SimError> {
        let mut collapse = Collapse::of(self.layout.position(qubit)?, value);
        self.entries.retain(|e| collapse.keeps(e));
        Ok(self.normalize_after(collapse))
    }

    /// [`SparseState::collapse_counting`] of `source`, written over this state (its storage
    /// reused): the same state and probability from one pass over `source`, for an undo
    /// snapshot that keeps `source` as it was instead of copying it.
    pub(crate) fn collapse_counting_from(
        &mut self,
        source: &SparseState,
        qubit: Qubit,
        value: bool,
    ) -> Result<f64, SimError> {
        let mut collapse = Collapse::of(source.layout.position(qubit)?, value);
        self.layout.clone_from(&source.layout);
        self.clbits.clone_from(&source.clbits);
        self.cap = source.cap;
        self.threads = source.threads;
        self.entries.clear();
        self.entries.reserve(source.entries.len());
        self.entries.extend(source.entries.iter().filter(|e| collapse.keeps(e)).copied());
        Ok(self.normalize_after(collapse))
    }

    /// Rescales the states a collapse kept to norm 1 (none left: nothing to scale); returns
    /// the probability that the qubit read 1 before.
    fn normalize_after(&mut self, collapse: Collapse) -> f64 {
        let Collapse { ones, total, norm, .. } = collapse;
        let one = if total > 0.0 { ones / total } else { 0.0 };
        if norm <= 0.0 {
            return one;
        }
        self.trim_storage();
        let scale = 1.0 / f64::sqrt(norm);
        for entry in &mut self.entries {
            entry.amp *= scale;
        }
        one
    }

    /// Measures `qubit`: draws the outcome from `rng` with its exact probability and projects.
    /// Returns the outcome and the probability it had.
    pub fn measure(&mut self, qubit: Qubit, rng: &mut impl Rng) -> Result<(bool, f64), SimError> {
        let one = self.probability(qubit, true)?;
        let value = rng.random::<f64>() < one;
        let probability = self.project(qubit, value)?;
        Ok((value, probability))
    }

    /// The key positions whose bit is the same in every basis state, and the positions among
    /// them where that bit is 1: `(constant, ones)`, from one pass over the state.
    pub fn constant_positions(&self) -> (u128, u128) {
        let (mut all, mut any) = (u128::MAX, 0u128);
        for entry in &self.entries {
            all &= entry.key;
            any |= entry.key;
        }
        (!(all ^ any), all)
    }

    /// Retires the live qubits at `positions`, where every basis state reads `ones` (as
    /// [`SparseState::constant_positions`] found them): they are dropped together, with one
    /// pass over the state at most. A position that holds no live qubit is an error.
    pub(crate) fn retire_constant(&mut self, positions: u128, ones: u128) -> Result<(), SimError> {
        debug_assert_eq!(self.constant_positions().0 & positions, positions, "retiring qubits that are not constant");
        let ones = positions & ones;
        if ones != 0 {
            for entry in &mut self.entries {
                entry.key &= !ones;
            }
        }
        let mut remaining = positions;
        while remaining != 0 {
            let position = remaining.trailing_zeros() as u8;
            remaining &= remaining - 1;
            let qubit = self.qubit_at(position).ok_or(SimError::OutOfPositions)?;
            self.layout.remove(qubit)?;
        }
        Ok(())
    }

    /// Declares that no operation will touch `qubit` again. A qubit with the same value in every
    /// basis state is dropped; an entangled one becomes a branch label in the high word.
    pub fn retire(&mut self, qubit: Qubit) -> Result<(), SimError> {
        let position = self.layout.position(qubit)?;
        let mask = 1u128 << position;
        let first = self.entries.first().map_or(0, |e| e.key & mask);
        if self.entries.iter().all(|e| e.key & mask == first) {
            if first != 0 {
                for entry in &mut self.entries {
                    entry.key &= !mask;
                }
            }
            self.layout.remove(qubit)?;
            return Ok(());
        }
        let label = if position >= 64 {
            position
        } else {
            let target = match self.layout.free_high() {
                Some(target) => target,
                None => {
                    self.compact_labels();
                    self.layout.free_high().ok_or(SimError::OutOfPositions)?
                }
            };
            let target_mask = 1u128 << target;
            for entry in &mut self.entries {
                if entry.key & mask != 0 {
                    entry.key = (entry.key & !mask) | target_mask;
                }
            }
            target
        };
        self.layout.remove(qubit)?;
        self.layout.add_label(label);
        Ok(())
    }

    /// Renumbers the branch labels densely: only which branches differ matters, so the distinct
    /// label values are replaced by the smallest ids that tell them apart.
    fn compact_labels(&mut self) {
        let labels = self.layout.labels();
        if labels == 0 {
            return;
        }
        let mut ids: FxHashMap<u128, u128> = FxHashMap::default();
        for entry in &self.entries {
            let next = ids.len() as u128;
            ids.entry(entry.key & labels).or_insert(next);
        }
        let bits = if ids.len() <= 1 { 0 } else { 128 - (ids.len() as u128 - 1).leading_zeros() };
        let mut positions = 0u128;
        let mut remaining = labels;
        for _ in 0..bits {
            positions |= remaining & remaining.wrapping_neg();
            remaining &= remaining - 1;
        }
        for entry in &mut self.entries {
            let id = ids.get(&(entry.key & labels)).copied().unwrap_or(0);
            entry.key = (entry.key & !labels) | deposit(id, positions);
        }
        self.layout.set_labels(positions);
    }

    // ---- whole circuits ----

    /// Runs a whole circuit from |0...0> with qubit `i` at key position `i` (at most 128 qubits).
    /// Measurements whose classical bit has a recorded post-selection are forced to that value
    /// (deferred measurement); the others are drawn from `rng`. `Reset` measures and flips back
    /// to |0>; classical conditions read the bits measured so far (unmeasured bits read 0).
    pub fn run_circuit(circuit: &Circuit, cap: usize, rng: &mut impl Rng) -> Result<SparseState, SimError> {
        let mut state = SparseState::with_cap(cap);
        if circuit.num_qubits() > 128 {
            return Err(SimError::OutOfPositions);
        }
        for index in 0..circuit.num_qubits() {
            state.add_qubit_at(Qubit(index as u32), index as u8)?;
        }
        state.clbits = vec![None; circuit.clbits as usize];
        let forced: FxHashMap<u32, bool> = circuit.postselect.iter().map(|p| (p.clbit.0, p.value)).collect();
        for op in &circuit.ops {
            match op {
                Op::Gate { gate, condition } => {
                    if let Some(condition) = condition {
                        let register = circuit
                            .registers
                            .get(condition.register)
                            .ok_or(SimError::UnknownRegister(condition.register))?;
                        let value = (0..register.len).fold(0u64, |acc, i| {
                            let bit = state.clbit((register.start + i) as usize).unwrap_or(false);
                            acc | (u64::from(bit) << i.min(63))
                        });
                        if value != condition.value {
                            continue;
                        }
                    }
                    state.apply_gate(gate)?;
                }
                Op::Measure { qubit, clbit } => {
                    let value = match forced.get(&clbit.0) {
                        Some(&value) => {
                            state.project(*qubit, value)?;
                            value
                        }
                        None => state.measure(*qubit, rng)?.0,
                    };
                    if let Some(slot) = state.clbits.get_mut(clbit.index()) {
                        *slot = Some(value);
                    }
                }
                Op::Reset { qubit } => {
                    if state.measure(*qubit, rng)?.0 {
                        state.apply_gate(&Gate::x(*qubit))?;
                    }
                }
            }
        }
        Ok(state)
    }

    // ---- read-out ----

    /// Exact distribution over the live qubits: each outcome as an integer with qubit `i` (by
    /// circuit index) as bit `i`, zero-probability outcomes omitted, sorted by outcome. Branch
    /// labels are summed over. Qubits must have indices below 128.
    pub fn qubit_distribution(&self) -> Vec<(u128, f64)> {
        let live: Vec<(u128, u128)> =
            self.layout.live().map(|(q, p)| (1u128 << p, 1u128 << q.index().min(127))).collect();
        let mut totals: FxHashMap<u128, f64> = FxHashMap::default();
        let norm = self.norm_sqr();
        for entry in &self.entries {
            let outcome = live.iter().filter(|(bit, _)| entry.key & bit != 0).fold(0u128, |acc, (_, out)| acc | out);
            *totals.entry(outcome).or_default() += entry.amp.norm_sqr() / norm;
        }
        let mut distribution: Vec<(u128, f64)> = totals.into_iter().collect();
        distribution.sort_by_key(|&(outcome, _)| outcome);
        distribution
    }

    /// [`SparseState::low_word_probabilities`] given `before`, the probabilities of an earlier
    /// state that differs from this one only on the positions in `changed` (gates on those
    /// positions' qubits since, which leave every other qubit's probability as it was): only
    /// those are read again, summed exactly as the full read sums them, and the others are
    /// kept, so a square a move did not touch keeps its probability to the bit. States of
    /// 2^10 basis states or more are read in full. The result is written into `out`.
    pub fn low_word_probabilities_after(&self, before: &[f64; 64], changed: u64, out: &mut [f64; 64]) {
        if self.entries.len() >= BYTE_TABLE_STATES {
            *out = self.low_word_probabilities();
            return;
        }
        *out = *before;
        self.sum_low_words(changed, out);
    }

    /// Writes the probability of each low-word position in `positions` into `out`, one
    /// addition per set bit of each state (the read of small states); the other positions of
    /// `out` are left as they are. A position no state sets is 0.
    fn sum_low_words(&self, positions: u64, out: &mut [f64; 64]) {
        let mut sums = [0.0; 64];
        let (mut norm, mut set) = (0.0, 0u64);
        for entry in &self.entries {
            let p = entry.amp.norm_sqr();
            norm += p;
            let mut bits = entry.key as u64 & positions;
            set |= bits;
            while bits != 0 {
                sums[bits.trailing_zeros() as usize] += p;
                bits &= bits - 1;
            }
        }
        let mut remaining = positions;
        while remaining != 0 {
            let position = remaining.trailing_zeros() as usize;
            remaining &= remaining - 1;
            out[position] = if set >> position & 1 == 1 { sums[position] / norm } else { 0.0 };
        }
    }

    /// Probability that each low-word position is 1.
    pub fn low_word_probabilities(&self) -> [f64; 64] {
        let mut weights = [0.0; 64];
        if self.entries.len() < BYTE_TABLE_STATES {
            self.sum_low_words(u64::MAX, &mut weights);
            return weights;
        }
        let mut norm = 0.0;
        // One addition per byte of the word instead of one per set bit: the weight of each
        // value of each byte, then each bit's weight from the values that set it.
        let blocks: Vec<&[Entry]> = self.entries.chunks(PROBABILITY_BLOCK).collect();
        let threads = self.threads_for(self.entries.len()).min(blocks.len());
        let partials: Vec<ByteTables> = if threads > 1 {
            let per_thread = blocks.len().div_ceil(threads);
            std::thread::scope(|scope| {
                let handles: Vec<_> = blocks
                    .chunks(per_thread)
                    .map(|mine| scope.spawn(move || mine.iter().map(|b| byte_tables(b)).collect::<Vec<_>>()))
                    .collect();
                handles.into_iter().flat_map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p))).collect()
            })
        } else {
            blocks.iter().map(|b| byte_tables(b)).collect()
        };
        let mut tables = [[0.0f64; 256]; 8];
        for partial in &partials {
            norm += partial.norm;
            for (total, part) in tables.iter_mut().zip(partial.tables.iter()) {
                total.iter_mut().zip(part).for_each(|(t, p)| *t += p);
            }
        }
        for (byte, table) in tables.iter().enumerate() {
            for (value, &weight) in table.iter().enumerate().skip(1) {
                let mut bits = value;
                while bits != 0 {
                    weights[8 * byte + bits.trailing_zeros() as usize] += weight;
                    bits &= bits - 1;
                }
            }
        }
        weights.map(|w| w / norm)
    }

    /// Exact distribution of the low word (summed over ancillas and labels), most likely first,
    /// ties by increasing value.
    pub fn low_word_distribution(&self) -> Vec<(u64, f64)> {
        let mut totals: FxHashMap<u64, f64> = FxHashMap::default();
        let norm = self.norm_sqr();
        for entry in &self.entries {
            *totals.entry(entry.key as u64).or_default() += entry.amp.norm_sqr() / norm;
        }
        let mut distribution: Vec<(u64, f64)> = totals.into_iter().collect();
        distribution.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        distribution
    }

    /// `shots` low words drawn from the state.
    pub fn sample_low_words(&self, shots: usize, rng: &mut impl Rng) -> Vec<u64> {
        let mut cumulative = Vec::with_capacity(self.entries.len());
        let mut total = 0.0;
        for entry in &self.entries {
            total += entry.amp.norm_sqr();
            cumulative.push(total);
        }
        (0..shots)
            .map(|_| {
                let u = rng.random::<f64>() * total;
                let index = cumulative.partition_point(|&c| c <= u).min(self.entries.len().saturating_sub(1));
                self.entries.get(index).map_or(0, |e| e.key as u64)
            })
            .collect()
    }

    /// The squared norm (1 up to rounding).
    pub fn norm_sqr(&self) -> f64 {
        self.entries.iter().map(|e| e.amp.norm_sqr()).sum()
    }
}

/// The squared amplitudes of some basis states summed by the value of each byte of the low
/// word, with their total.
struct ByteTables {
    tables: Box<[[f64; 256]; 8]>,
    norm: f64,
}

fn byte_tables(entries: &[Entry]) -> ByteTables {
    let mut tables = Box::new([[0.0f64; 256]; 8]);
    let mut norm = 0.0;
    for entry in entries {
        let p = entry.amp.norm_sqr();
        norm += p;
        let word = entry.key as u64;
        for (byte, table) in tables.iter_mut().enumerate() {
            table[((word >> (8 * byte)) & 0xFF) as usize] += p;
        }
    }
    ByteTables { tables, norm }
}

/// Scatters the low bits of `value` onto the set bits of `mask`, lowest first.
fn deposit(mut value: u128, mask: u128) -> u128 {
    let mut out = 0u128;
    let mut remaining = mask;
    while remaining != 0 && value != 0 {
        let bit = remaining & remaining.wrapping_neg();
        if value & 1 != 0 {
            out |= bit;
        }
        value >>= 1;
        remaining &= remaining - 1;
    }
    out
}

#[cfg(test)]
mod tests;
