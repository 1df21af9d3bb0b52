//! A sparse state vector as two sorted arrays (keys and amplitudes), so that every gate is a
//! linear pass or a linear merge over contiguous memory.
//!
//! A key is the basis state XOR `flip`: an X-like gate flips one bit of `flip` and scales the
//! amplitudes in place, leaving the keys (and their order) alone. A diagonal gate scales in
//! place. A mixing gate on qubit `q` pairs each key with its partner across bit `q`: the keys
//! with the bit clear and those with it set (bit cleared) are two sorted lists, merged by that
//! base; each base gives two outputs, again two sorted lists, merged into the result. Two-qubit
//! mixing gates collect their outputs and sort them.

use num_complex::Complex64;
use qchess_circuit::ir::{Matrix2, Matrix4};

const ZERO: Complex64 = Complex64::new(0.0, 0.0);

/// Amplitudes below this squared norm are dropped as cancelled.
const PRUNE: f64 = 1e-28;

/// See the [module docs](self).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Sparse {
    keys: Vec<u64>,
    amps: Vec<Complex64>,
    flip: u64,
}

impl Sparse {
    /// |0...0>.
    pub(super) fn zero() -> Sparse {
        Sparse { keys: vec![0], amps: vec![Complex64::new(1.0, 0.0)], flip: 0 }
    }

    pub(super) fn len(&self) -> usize {
        self.keys.len()
    }

    /// `(basis state, amplitude)` of every entry, in key order.
    pub(super) fn entries(&self) -> impl Iterator<Item = (u64, Complex64)> + '_ {
        self.keys.iter().zip(&self.amps).map(|(&k, &a)| (k ^ self.flip, a))
    }

    fn prune(&mut self) {
        let mut kept = 0;
        for i in 0..self.keys.len() {
            if self.amps[i].norm_sqr() > PRUNE {
                self.keys[kept] = self.keys[i];
                self.amps[kept] = self.amps[i];
                kept += 1;
            }
        }
        self.keys.truncate(kept);
        self.amps.truncate(kept);
    }

    /// Multiplies each amplitude by `factor(value of the state's bits)`.
    fn scale(&mut self, factor: impl Fn(u64) -> Complex64) {
        for (k, a) in self.keys.iter().zip(self.amps.iter_mut()) {
            *a *= factor(k ^ self.flip);
        }
    }

    /// Applies a 2x2 matrix to qubit `q`.
    pub(super) fn apply1(&mut self, q: usize, m: &Matrix2) {
        let bit = 1u64 << q;
        let value = |state: u64| (state >> q & 1) as usize;
        if m[0][1] == ZERO && m[1][0] == ZERO {
            self.scale(|state| m[value(state)][value(state)]);
        } else if m[0][0] == ZERO && m[1][1] == ZERO {
            self.scale(|state| m[value(state) ^ 1][value(state)]);
            self.flip ^= bit;
        } else {
            self.mix1(q, m);
            return;
        }
        if [m[0][0], m[0][1], m[1][0], m[1][1]].iter().any(|x| *x != ZERO && (x.norm_sqr() - 1.0).abs() > 1e-12) {
            self.prune();
        }
    }

    /// A mixing one-qubit gate: see the [module docs](self).
    fn mix1(&mut self, q: usize, m: &Matrix2) {
        let bit = 1u64 << q;
        let flipped = self.flip >> q & 1;
        // Entries by stored bit, each list sorted by base (key with the bit cleared).
        let (mut low, mut high) = (Vec::with_capacity(self.len()), Vec::with_capacity(self.len()));
        for (&k, &a) in self.keys.iter().zip(&self.amps) {
            if k & bit == 0 { low.push((k, a)) } else { high.push((k & !bit, a)) }
        }
        // Amplitudes of value 0 and value 1 for each base.
        let (mut outputs_low, mut outputs_high) = (Vec::with_capacity(self.len()), Vec::with_capacity(self.len()));
        let (mut i, mut j) = (0, 0);
        while i < low.len() || j < high.len() {
            let base = match (low.get(i), high.get(j)) {
                (Some(&(a, _)), Some(&(b, _))) => a.min(b),
                (Some(&(a, _)), None) => a,
                (None, Some(&(b, _))) => b,
                (None, None) => break,
            };
            let stored_low = if low.get(i).is_some_and(|&(k, _)| k == base) {
                i += 1;
                low[i - 1].1
            } else {
                ZERO
            };
            let stored_high = if high.get(j).is_some_and(|&(k, _)| k == base) {
                j += 1;
                high[j - 1].1
            } else {
                ZERO
            };
            // Value v of the qubit is stored bit v ^ flipped.
            let (zero, one) = if flipped == 0 { (stored_low, stored_high) } else { (stored_high, stored_low) };
            let new_zero = m[0][0] * zero + m[0][1] * one;
            let new_one = m[1][0] * zero + m[1][1] * one;
            let (to_low, to_high) = if flipped == 0 { (new_zero, new_one) } else { (new_one, new_zero) };
            if to_low.norm_sqr() > PRUNE {
                outputs_low.push((base, to_low));
            }
            if to_high.norm_sqr() > PRUNE {
                outputs_high.push((base | bit, to_high));
            }
        }
        self.keys.clear();
        self.amps.clear();
        let (mut i, mut j) = (0, 0);
        while i < outputs_low.len() || j < outputs_high.len() {
            let take_low = match (outputs_low.get(i), outputs_high.get(j)) {
                (Some(&(a, _)), Some(&(b, _))) => a < b,
                (Some(_), None) => true,
                _ => false,
            };
            let (k, a) = if take_low {
                i += 1;
                outputs_low[i - 1]
            } else {
                j += 1;
                outputs_high[j - 1]
            };
            self.keys.push(k);
            self.amps.push(a);
        }
    }

    /// Applies a 4x4 matrix to `(a, b)` (index bit 0 = `a`).
    pub(super) fn apply2(&mut self, a: usize, b: usize, m: &Matrix4) {
        let index = |state: u64| (state >> a & 1 | (state >> b & 1) << 1) as usize;
        if (0..4).all(|r| (0..4).all(|c| r == c || m[r][c] == ZERO)) {
            self.scale(|state| m[index(state)][index(state)]);
            if (0..4).any(|i| (m[i][i].norm_sqr() - 1.0).abs() > 1e-12) {
                self.prune();
            }
            return;
        }
        let (ba, bb) = (1u64 << a, 1u64 << b);
        let mut outputs: Vec<(u64, Complex64)> = Vec::with_capacity(self.len() * 2);
        for (&k, &amp) in self.keys.iter().zip(&self.amps) {
            let state = k ^ self.flip;
            let column = index(state);
            let base = state & !ba & !bb;
            for (row, factors) in m.iter().enumerate() {
                if factors[column] != ZERO {
                    let target = base | if row & 1 == 1 { ba } else { 0 } | if row & 2 == 2 { bb } else { 0 };
                    outputs.push((target ^ self.flip, factors[column] * amp));
                }
            }
        }
        outputs.sort_unstable_by_key(|&(k, _)| k);
        self.keys.clear();
        self.amps.clear();
        for (k, a) in outputs {
            if self.keys.last() == Some(&k) {
                if let Some(last) = self.amps.last_mut() {
                    *last += a;
                }
            } else {
                self.keys.push(k);
                self.amps.push(a);
            }
        }
        self.prune();
    }

    pub(super) fn probability_of_one(&self, q: usize) -> f64 {
        self.keys
            .iter()
            .zip(&self.amps)
            .filter(|(k, _)| (**k ^ self.flip) >> q & 1 == 1)
            .map(|(_, a)| a.norm_sqr())
            .sum()
    }

    /// Keeps the entries where qubit `q` is `value` (not renormalised).
    pub(super) fn project(&mut self, q: usize, value: bool) {
        let flip = self.flip;
        for (k, a) in self.keys.iter().zip(self.amps.iter_mut()) {
            if ((k ^ flip) >> q & 1 == 1) != value {
                *a = ZERO;
            }
        }
        self.prune();
    }

    /// Multiplies amplitudes where qubit `q` is 0 by `zero` and where it is 1 by `one`.
    pub(super) fn scale_by_value(&mut self, q: usize, zero: Complex64, one: Complex64) {
        self.scale(|state| if state >> q & 1 == 1 { one } else { zero });
    }

    pub(super) fn scale_all(&mut self, factor: Complex64) {
        self.amps.iter_mut().for_each(|a| *a *= factor);
    }

    pub(super) fn norm_sqr(&self) -> f64 {
        self.amps.iter().map(|a| a.norm_sqr()).sum()
    }

    /// The amplitude of basis state `state`.
    pub(super) fn amplitude(&self, state: u64) -> Complex64 {
        self.keys.binary_search(&(state ^ self.flip)).map_or(ZERO, |i| self.amps[i])
    }
}
