//! Applying gates to the populated basis states.
//!
//! * Monomial gates (permutations with phases: X, SWAP, iSWAP) rewrite each key and amplitude
//!   in place.
//! * Exchange gates (the square-root iSWAPs of splits and merges: `|00>` and `|11>` only take a
//!   phase, `|01>` and `|10>` mix) work in place too. A state whose partner (same key with the
//!   two target bits swapped) is not populated keeps its slot and appends the partner; only
//!   when both kinds are present are partners paired, through a map over the smaller kind that
//!   lives for the gate. A split allocates nothing but the exact room for its new states.
//! * Other mixing gates (H, rotations: general circuits only) go through an accumulator.
//!
//! Growth past the cap is refused before anything changes, with the exact count needed.

use num_complex::Complex64;
use rustc_hash::FxHashMap;

use super::kernel::{Action, Kernel};
use super::{Entry, PRUNE_NORM_SQR, SimError, SparseState};

/// Marks a paired state in the partner map.
const PAIRED: usize = usize::MAX;

const ZERO: Complex64 = Complex64::new(0.0, 0.0);
const ONE: Complex64 = Complex64::new(1.0, 0.0);

impl SparseState {
    /// Applies a gate. On error (an unknown qubit, or growth past the cap) the state is unchanged.
    pub fn apply_gate(&mut self, gate: &qchess_circuit::ir::Gate) -> Result<(), SimError> {
        let kernel = Kernel::new(gate, &self.layout)?;
        match kernel.action {
            Action::Monomial { row, factor } => {
                self.apply_monomial(&kernel, row, factor);
                Ok(())
            }
            Action::Exchange { diagonal, block } => self.apply_exchange(&kernel, diagonal, block),
            Action::Dense { matrix } => self.apply_dense(&kernel, &matrix),
        }
    }

    fn apply_monomial(&mut self, kernel: &Kernel, row: [usize; 4], factor: [Complex64; 4]) {
        let threads = self.threads_for(self.entries.len());
        if threads > 1 {
            let part = self.entries.len().div_ceil(threads);
            std::thread::scope(|scope| {
                for chunk in self.entries.chunks_mut(part) {
                    scope.spawn(move || monomial_on(chunk, kernel, row, factor));
                }
            });
            return;
        }
        monomial_on(&mut self.entries, kernel, row, factor);
    }

    /// An exchange gate: `diagonal` multiplies `|00>` and `|11>`; `block[r][c]` maps `|c>` to
    /// `|r>` for `r, c` in `{01, 10}` (index 0 = `|01>`: first target set, 1 = `|10>`).
    fn apply_exchange(
        &mut self,
        kernel: &Kernel,
        diagonal: [Complex64; 2],
        block: [[Complex64; 2]; 2],
    ) -> Result<(), SimError> {
        let clear = !kernel.target_mask();
        let threads = self.threads_for(self.entries.len());
        let counts = if threads > 1 {
            let part = self.entries.len().div_ceil(threads);
            std::thread::scope(|scope| {
                let handles: Vec<_> =
                    self.entries.chunks(part).map(|chunk| scope.spawn(move || side_counts(chunk, kernel))).collect();
                handles.into_iter().map(joined).fold([0, 0], |acc, c| [acc[0] + c[0], acc[1] + c[1]])
            })
        } else {
            side_counts(&self.entries, kernel)
        };
        // Only the two middle states mix, and only a populated pair interferes: pair them
        // through a map over the smaller side.
        let smaller = usize::from(counts[1] < counts[0]);
        let larger = 1 - smaller;
        let pairing = counts[0] > 0 && counts[1] > 0;
        let mut matched = 0;
        let mut partners: FxHashMap<u128, usize> = FxHashMap::default();
        if pairing {
            partners.reserve(counts[smaller]);
            for (index, entry) in self.entries.iter().enumerate() {
                if kernel.applies(entry.key) && side(kernel, entry.key) == Some(smaller) {
                    partners.insert(entry.key & clear, index);
                }
            }
            matched = self
                .entries
                .iter()
                .filter(|e| kernel.applies(e.key) && side(kernel, e.key) == Some(larger))
                .filter(|e| partners.contains_key(&(e.key & clear)))
                .count();
        }
        let spawning = |s: usize| block[s][s] != ZERO && block[1 - s][s] != ZERO;
        let spawns = [larger, smaller].into_iter().filter(|&s| spawning(s)).map(|s| counts[s] - matched).sum::<usize>();
        let needed = self.entries.len() + spawns;
        if needed > self.cap {
            return Err(SimError::StateTooLarge { needed, limit: self.cap });
        }
        self.entries.reserve_exact(spawns);
        let len = self.entries.len();
        if !pairing && threads > 1 {
            let tiny = self.exchange_unpaired_threaded(kernel, diagonal, block, threads);
            self.prune_if(tiny);
            return Ok(());
        }
        let mut tiny = false;
        // The diagonal states, the larger side and the pairs.
        for index in 0..len {
            let Entry { key, amp } = self.entries[index];
            if !kernel.applies(key) {
                continue;
            }
            match side(kernel, key) {
                None => tiny |= scale_diagonal(kernel, &mut self.entries[index], &diagonal),
                Some(s) if pairing && s == smaller => {}
                Some(s) => {
                    let slot = if pairing { partners.get_mut(&(key & clear)) } else { None };
                    match slot {
                        Some(slot) => {
                            let partner = std::mem::replace(slot, PAIRED);
                            let y = self.entries[partner].amp;
                            let here = block[s][s] * amp + block[s][1 - s] * y;
                            let there = block[1 - s][s] * amp + block[1 - s][1 - s] * y;
                            self.entries[index].amp = here;
                            self.entries[partner].amp = there;
                            tiny |= here.norm_sqr() < PRUNE_NORM_SQR || there.norm_sqr() < PRUNE_NORM_SQR;
                        }
                        None => tiny |= self.mix_alone(kernel, index, s, &block),
                    }
                }
            }
        }
        // The smaller side's states without a partner, in storage order.
        if pairing {
            for index in 0..len {
                let key = self.entries[index].key;
                let alone = kernel.applies(key)
                    && side(kernel, key) == Some(smaller)
                    && partners.get(&(key & clear)) != Some(&PAIRED);
                if alone {
                    tiny |= self.mix_alone(kernel, index, smaller, &block);
                }
            }
        }
        self.prune_if(tiny);
        Ok(())
    }

    /// Drops negligible amplitudes when a gate wrote one.
    fn prune_if(&mut self, tiny: bool) {
        if tiny {
            self.entries.retain(|e| e.amp.norm_sqr() >= PRUNE_NORM_SQR);
            self.trim_storage();
        }
    }

    /// An exchange gate where no state has its partner populated, on `threads` contiguous
    /// parts: each part updates its states in place and collects the partners they spawn,
    /// which are appended in part order, so the result is the one-thread result whatever
    /// `threads` is. Returns whether an amplitude written is negligible.
    fn exchange_unpaired_threaded(
        &mut self,
        kernel: &Kernel,
        diagonal: [Complex64; 2],
        block: [[Complex64; 2]; 2],
        threads: usize,
    ) -> bool {
        let part = self.entries.len().div_ceil(threads);
        let results: Vec<(Vec<Entry>, bool)> = std::thread::scope(|scope| {
            let handles: Vec<_> = self
                .entries
                .chunks_mut(part)
                .map(|chunk| scope.spawn(move || exchange_unpaired_on(chunk, kernel, &diagonal, &block)))
                .collect();
            handles.into_iter().map(joined).collect()
        });
        let mut tiny = false;
        for (spawned, negligible) in results {
            self.entries.extend(spawned);
            tiny |= negligible;
        }
        tiny
    }

    /// Applies an exchange block to the state at `index` (on side `s`) whose partner is not
    /// populated: it keeps its share and appends the partner's. Returns whether an amplitude
    /// written is negligible.
    fn mix_alone(&mut self, kernel: &Kernel, index: usize, s: usize, block: &[[Complex64; 2]; 2]) -> bool {
        let (spawned, tiny) = mix_entry(kernel, &mut self.entries[index], s, block);
        self.entries.extend(spawned);
        tiny
    }

    fn apply_dense(&mut self, kernel: &Kernel, matrix: &[[Complex64; 4]; 4]) -> Result<(), SimError> {
        let clear = !kernel.target_mask();
        let untouched = self.entries.iter().filter(|e| !kernel.applies(e.key)).count();
        let mut sums: FxHashMap<u128, Complex64> = FxHashMap::default();
        for entry in &self.entries {
            if !kernel.applies(entry.key) {
                continue;
            }
            let column = kernel.index(entry.key);
            let base = entry.key & clear;
            for (r, values) in matrix.iter().enumerate().take(kernel.dim) {
                let m = values[column];
                if m != ZERO {
                    *sums.entry(base | kernel.bits(r)).or_default() += m * entry.amp;
                }
            }
            if untouched + sums.len() > self.cap {
                let needed = untouched + sums.len();
                return Err(SimError::StateTooLarge { needed, limit: self.cap });
            }
        }
        self.entries.retain(|e| !kernel.applies(e.key));
        self.entries.extend(
            sums.into_iter().filter(|(_, amp)| amp.norm_sqr() >= PRUNE_NORM_SQR).map(|(key, amp)| Entry { key, amp }),
        );
        self.trim_storage();
        Ok(())
    }
}

/// Which side of an exchange block a key is on: 0 for `|01>` (first target set), 1 for
/// `|10>`, `None` for `|00>` and `|11>`.
fn side(kernel: &Kernel, key: u128) -> Option<usize> {
    match kernel.index(key) {
        1 => Some(0),
        2 => Some(1),
        _ => None,
    }
}

/// Rewrites the keys and amplitudes of `entries` by a monomial gate.
fn monomial_on(entries: &mut [Entry], kernel: &Kernel, row: [usize; 4], factor: [Complex64; 4]) {
    // A state's target bits spell its column; moving it to its row flips the bits that differ.
    let flip: [u128; 4] = std::array::from_fn(|column| kernel.bits(column) ^ kernel.bits(row[column]));
    // A gate on squares' qubits alone (the low word) need not look at the high word.
    if (kernel.target_mask() | kernel.control_mask) >> 64 == 0 {
        monomial_in::<u64>(entries, kernel, flip, factor);
    } else {
        monomial_in::<u128>(entries, kernel, flip, factor);
    }
}

/// [`monomial_on`] reading keys as `W` (the low word, or the whole key).
fn monomial_in<W: KeyWord>(entries: &mut [Entry], kernel: &Kernel, flip: [u128; 4], factor: [Complex64; 4]) {
    let [first, second] = kernel.targets.map(W::of);
    let (control_mask, control_value) = (W::of(kernel.control_mask), W::of(kernel.control_value));
    let flip = flip.map(W::of);
    let scaled = factor.map(|f| f != ONE);
    for entry in entries {
        let key = W::of(entry.key);
        if key & control_mask != control_value {
            continue;
        }
        let column = usize::from(key & first != W::ZERO) | usize::from(key & second != W::ZERO) << 1;
        entry.key ^= flip[column].widen();
        if scaled[column] {
            entry.amp *= factor[column];
        }
    }
}

/// The part of a key a gate reads: the low word when all its qubits are there.
trait KeyWord: Copy + Eq + std::ops::BitAnd<Output = Self> {
    const ZERO: Self;
    /// The part of `key` this word holds.
    fn of(key: u128) -> Self;
    /// Back to a whole key (the high word 0 for the low word).
    fn widen(self) -> u128;
}

impl KeyWord for u64 {
    const ZERO: u64 = 0;
    fn of(key: u128) -> u64 {
        key as u64
    }
    fn widen(self) -> u128 {
        u128::from(self)
    }
}

impl KeyWord for u128 {
    const ZERO: u128 = 0;
    fn of(key: u128) -> u128 {
        key
    }
    fn widen(self) -> u128 {
        self
    }
}

/// The result of a scoped thread, its panic passed on.
fn joined<T>(handle: std::thread::ScopedJoinHandle<'_, T>) -> T {
    handle.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// How many states of `entries` that the gate applies to are on each side of an exchange.
fn side_counts(entries: &[Entry], kernel: &Kernel) -> [usize; 2] {
    let mut counts = [0usize; 2];
    for entry in entries.iter().filter(|e| kernel.applies(e.key)) {
        if let Some(s) = side(kernel, entry.key) {
            counts[s] += 1;
        }
    }
    counts
}

/// Multiplies a `|00>` or `|11>` state by its factor. Returns whether the result is negligible.
#[inline]
fn scale_diagonal(kernel: &Kernel, entry: &mut Entry, diagonal: &[Complex64; 2]) -> bool {
    let d = diagonal[usize::from(kernel.index(entry.key) == 3)];
    if d == ONE {
        return false;
    }
    entry.amp *= d;
    entry.amp.norm_sqr() < PRUNE_NORM_SQR
}

/// Applies an exchange block to a state (on side `s`) whose partner is not populated: it keeps
/// its share and returns the partner's, if any. Also returns whether an amplitude written is
/// negligible.
#[inline]
fn mix_entry(kernel: &Kernel, entry: &mut Entry, s: usize, block: &[[Complex64; 2]; 2]) -> (Option<Entry>, bool) {
    let Entry { key, amp } = *entry;
    let other_key = (key & !kernel.target_mask()) | kernel.bits(2 - s);
    let (stay, go) = (block[s][s] * amp, block[1 - s][s] * amp);
    match (block[s][s] != ZERO, block[1 - s][s] != ZERO) {
        (true, true) => {
            entry.amp = stay;
            (
                Some(Entry { key: other_key, amp: go }),
                stay.norm_sqr() < PRUNE_NORM_SQR || go.norm_sqr() < PRUNE_NORM_SQR,
            )
        }
        (true, false) => {
            entry.amp = stay;
            (None, stay.norm_sqr() < PRUNE_NORM_SQR)
        }
        (false, _) => {
            *entry = Entry { key: other_key, amp: go };
            (None, go.norm_sqr() < PRUNE_NORM_SQR)
        }
    }
}

/// An exchange gate on part of the states when no partner is populated: the states updated in
/// place, the partners they spawn returned in storage order, with whether any amplitude is
/// negligible.
fn exchange_unpaired_on(
    entries: &mut [Entry],
    kernel: &Kernel,
    diagonal: &[Complex64; 2],
    block: &[[Complex64; 2]; 2],
) -> (Vec<Entry>, bool) {
    let mut spawned = Vec::new();
    let mut tiny = false;
    for entry in entries.iter_mut().filter(|e| kernel.applies(e.key)) {
        match side(kernel, entry.key) {
            None => tiny |= scale_diagonal(kernel, entry, diagonal),
            Some(s) => {
                let (partner, negligible) = mix_entry(kernel, entry, s, block);
                spawned.extend(partner);
                tiny |= negligible;
            }
        }
    }
    (spawned, tiny)
}
