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
        let clear = !kernel.target_mask();
        for entry in &mut self.entries {
            if !kernel.applies(entry.key) {
                continue;
            }
            let column = kernel.index(entry.key);
            entry.key = (entry.key & clear) | kernel.bits(row[column]);
            if factor[column] != ONE {
                entry.amp *= factor[column];
            }
        }
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
        let mut counts = [0usize; 2];
        for entry in self.entries.iter().filter(|e| kernel.applies(e.key)) {
            if let Some(s) = side(kernel, entry.key) {
                counts[s] += 1;
            }
        }
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
        let mut tiny = false;
        // The diagonal states, the larger side and the pairs.
        for index in 0..len {
            let Entry { key, amp } = self.entries[index];
            if !kernel.applies(key) {
                continue;
            }
            match side(kernel, key) {
                None => {
                    let d = diagonal[usize::from(kernel.index(key) == 3)];
                    if d != ONE {
                        self.entries[index].amp = d * amp;
                        tiny |= (d * amp).norm_sqr() < PRUNE_NORM_SQR;
                    }
                }
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
        if tiny {
            self.entries.retain(|e| e.amp.norm_sqr() >= PRUNE_NORM_SQR);
            self.trim_storage();
        }
        Ok(())
    }

    /// Applies an exchange block to the state at `index` (on side `s`) whose partner is not
    /// populated: it keeps its share and appends the partner's. Returns whether an amplitude
    /// written is negligible.
    fn mix_alone(&mut self, kernel: &Kernel, index: usize, s: usize, block: &[[Complex64; 2]; 2]) -> bool {
        let Entry { key, amp } = self.entries[index];
        let other_key = (key & !kernel.target_mask()) | kernel.bits(2 - s);
        let (stay, go) = (block[s][s] * amp, block[1 - s][s] * amp);
        match (block[s][s] != ZERO, block[1 - s][s] != ZERO) {
            (true, true) => {
                self.entries[index].amp = stay;
                self.entries.push(Entry { key: other_key, amp: go });
                stay.norm_sqr() < PRUNE_NORM_SQR || go.norm_sqr() < PRUNE_NORM_SQR
            }
            (true, false) => {
                self.entries[index].amp = stay;
                stay.norm_sqr() < PRUNE_NORM_SQR
            }
            (false, _) => {
                self.entries[index] = Entry { key: other_key, amp: go };
                go.norm_sqr() < PRUNE_NORM_SQR
            }
        }
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
