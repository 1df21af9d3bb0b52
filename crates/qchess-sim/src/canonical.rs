//! States compared up to a global phase, for merging the equal branches of a mixture (the
//! sparse one in `auto`, the dense one in `dense`).
//!
//! A state's global phase is taken out by the conjugate phase of a reference amplitude (its
//! first of some size, in basis order), and each amplitude is then put in a cell of a fine grid
//! (truncated, one instruction, where rounding is a library call): states closer than rounding
//! noise compare equal, and a pair that straddles a cell boundary merely stays apart, which costs
//! time but never correctness.

use num_complex::Complex64;
use rustc_hash::FxHashMap;

/// Amplitudes are compared on this grid after the global phase is taken out.
const GRID: f64 = (1u64 << 36) as f64;

/// Below this squared magnitude an amplitude is in the zero cell whatever its phase.
pub(crate) const SMALLEST_NONZERO_CELL: f64 = 1.0 / (GRID * GRID);

/// A global phase is read from the first amplitude with at least this squared magnitude.
const PHASE_REFERENCE: f64 = 1e-6;

/// The phase that takes the global phase out of a state given by its amplitudes in basis order:
/// the conjugate phase of its first amplitude of some size (its largest if none is).
pub(crate) fn phase_reference(amplitudes: impl Iterator<Item = Complex64> + Clone) -> Complex64 {
    let reference = amplitudes
        .clone()
        .find(|a| a.norm_sqr() >= PHASE_REFERENCE)
        .or_else(|| amplitudes.max_by(|a, b| a.norm_sqr().total_cmp(&b.norm_sqr())))
        .filter(|a| a.norm_sqr() > 0.0)
        .unwrap_or(Complex64::new(1.0, 0.0));
    reference.conj() / reference.norm()
}

/// The grid cell of `amplitude` with the global phase taken out by `phase`.
pub(crate) fn on_grid(amplitude: Complex64, phase: Complex64) -> (i64, i64) {
    let a = amplitude * phase;
    ((a.re * GRID) as i64, (a.im * GRID) as i64)
}

/// Branches merged as they come: each is indexed by the hash of its canonical form, and one equal
/// to a branch already kept adds its weight to that one. A hash already taken by a different
/// branch moves on to the next value, so unequal branches never merge.
pub(crate) struct MergedBranches<B> {
    index: FxHashMap<u64, usize>,
    /// The distinct branches so far.
    pub(crate) kept: Vec<B>,
}

impl<B> MergedBranches<B> {
    /// Room for `capacity` distinct branches.
    pub(crate) fn with_capacity(capacity: usize) -> MergedBranches<B> {
        let mut index = FxHashMap::default();
        index.reserve(capacity);
        MergedBranches { index, kept: Vec::with_capacity(capacity) }
    }

    /// Adds `branch`, whose canonical form hashes to `hash`: merged by `absorb` into a kept
    /// branch that `same` finds equal, else kept.
    pub(crate) fn add(
        &mut self,
        branch: B,
        mut hash: u64,
        same: impl Fn(&B, &B) -> bool,
        absorb: impl FnOnce(&mut B, B),
    ) {
        loop {
            match self.index.get(&hash) {
                Some(&at) if same(&self.kept[at], &branch) => return absorb(&mut self.kept[at], branch),
                Some(_) => hash = hash.wrapping_add(1),
                None => {
                    self.index.insert(hash, self.kept.len());
                    self.kept.push(branch);
                    return;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_equal_up_to_a_global_phase_share_their_grid_form() {
        let state = [Complex64::new(0.6, 0.0), Complex64::new(0.0, 0.8)];
        let turned: Vec<Complex64> = state.iter().map(|a| a * Complex64::from_polar(1.0, 0.7)).collect();
        let form = |amps: &[Complex64]| {
            let phase = phase_reference(amps.iter().copied());
            amps.iter().map(|&a| on_grid(a, phase)).collect::<Vec<_>>()
        };
        assert_eq!(form(&state), form(&turned));
        let other = [Complex64::new(0.6, 0.0), Complex64::new(0.0, -0.8)];
        assert_ne!(form(&state), form(&other));
    }
}
