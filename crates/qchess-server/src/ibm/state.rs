//! The state of one group of shots: sparse (a map of populated basis states) while few basis
//! states are populated, as in the circuits of games where most qubits are classical, and a
//! dense vector once it fills up. Gates are any 2x2 or 4x4 matrices, so the no-jump operator of
//! amplitude damping applies as a gate followed by renormalisation.

use num_complex::Complex64;
use qchess_circuit::ir::{Matrix2, Matrix4};
use qchess_route::verify::State;
use rustc_hash::FxHashMap;

/// Amplitudes below this squared norm are dropped as cancelled.
const PRUNE: f64 = 1e-28;

/// Past this many qubits a state stays sparse (a dense one would not fit).
pub const MAX_DENSE_QUBITS: usize = 24;

/// The most basis states a sparse state may populate.
pub const MAX_SPARSE_STATES: usize = 1 << 22;

const ZERO: Complex64 = Complex64::new(0.0, 0.0);

#[derive(Debug, Clone)]
enum Repr {
    Sparse(FxHashMap<u64, Complex64>),
    Dense(State),
}

/// A normalised state over `qubits` qubits (bit `i` of a basis state is qubit `i`).
#[derive(Debug, Clone)]
pub struct Amplitudes {
    repr: Repr,
    qubits: usize,
}

/// Why a state cannot go on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TooLarge {
    /// Basis states it would populate.
    pub states: usize,
}

impl Amplitudes {
    /// |0...0> over `qubits` qubits (at most 64).
    pub fn zero(qubits: usize) -> Amplitudes {
        let mut map = FxHashMap::default();
        map.insert(0, Complex64::new(1.0, 0.0));
        Amplitudes { repr: Repr::Sparse(map), qubits }
    }

    /// Whether no basis state is populated (never, for a state made by these operations).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Populated basis states.
    pub fn len(&self) -> usize {
        match &self.repr {
            Repr::Sparse(map) => map.len(),
            Repr::Dense(state) => state.amplitudes().len(),
        }
    }

    /// Goes dense once a sparse state holds a quarter of a dense one, when that fits.
    fn settle(&mut self) -> Result<(), TooLarge> {
        let Repr::Sparse(map) = &self.repr else { return Ok(()) };
        if self.qubits <= MAX_DENSE_QUBITS && map.len() * 4 >= 1 << self.qubits {
            let mut dense = vec![ZERO; 1 << self.qubits];
            for (&k, &a) in map {
                dense[k as usize] = a;
            }
            self.repr = Repr::Dense(State::from_amplitudes(dense));
        } else if map.len() > MAX_SPARSE_STATES {
            return Err(TooLarge { states: map.len() });
        }
        Ok(())
    }

    /// Applies a 2x2 matrix to qubit `q`.
    pub fn apply1(&mut self, q: usize, m: &Matrix2) -> Result<(), TooLarge> {
        match &mut self.repr {
            Repr::Dense(state) => state.apply1(q, m),
            Repr::Sparse(map) => {
                let bit = 1u64 << q;
                if m[0][1] == ZERO && m[1][0] == ZERO {
                    for (k, a) in map.iter_mut() {
                        *a *= m[(k >> q & 1) as usize][(k >> q & 1) as usize];
                    }
                    map.retain(|_, a| a.norm_sqr() > PRUNE);
                } else if m[0][0] == ZERO && m[1][1] == ZERO {
                    *map = map
                        .drain()
                        .map(|(k, a)| (k ^ bit, a * m[(k >> q & 1 ^ 1) as usize][(k >> q & 1) as usize]))
                        .collect();
                } else {
                    let mut out: FxHashMap<u64, Complex64> = FxHashMap::default();
                    out.reserve(map.len() * 2);
                    for (&k, &a) in map.iter() {
                        let b = (k >> q & 1) as usize;
                        let base = k & !bit;
                        for (row, target) in [(0, base), (1, base | bit)] {
                            let factor = m[row][b];
                            if factor != ZERO {
                                *out.entry(target).or_insert(ZERO) += factor * a;
                            }
                        }
                    }
                    out.retain(|_, a| a.norm_sqr() > PRUNE);
                    *map = out;
                }
            }
        }
        self.settle()
    }

    /// Applies a 4x4 matrix to `(a, b)` (index bit 0 = `a`).
    pub fn apply2(&mut self, a: usize, b: usize, m: &Matrix4) -> Result<(), TooLarge> {
        match &mut self.repr {
            Repr::Dense(state) => state.apply2(a, b, m),
            Repr::Sparse(map) => {
                let (ba, bb) = (1u64 << a, 1u64 << b);
                let diagonal = (0..4).all(|r| (0..4).all(|c| r == c || m[r][c] == ZERO));
                if diagonal {
                    for (k, amp) in map.iter_mut() {
                        let i = (k >> a & 1 | (k >> b & 1) << 1) as usize;
                        *amp *= m[i][i];
                    }
                    map.retain(|_, amp| amp.norm_sqr() > PRUNE);
                } else {
                    let mut out: FxHashMap<u64, Complex64> = FxHashMap::default();
                    out.reserve(map.len() * 2);
                    for (&k, &amp) in map.iter() {
                        let column = (k >> a & 1 | (k >> b & 1) << 1) as usize;
                        let base = k & !ba & !bb;
                        for (row, factors) in m.iter().enumerate() {
                            let factor = factors[column];
                            if factor != ZERO {
                                let with_a = if row & 1 == 1 { ba } else { 0 };
                                let with_b = if row & 2 == 2 { bb } else { 0 };
                                *out.entry(base | with_a | with_b).or_insert(ZERO) += factor * amp;
                            }
                        }
                    }
                    out.retain(|_, amp| amp.norm_sqr() > PRUNE);
                    *map = out;
                }
            }
        }
        self.settle()
    }

    /// The probability that measuring qubit `q` gives 1.
    pub fn probability_of_one(&self, q: usize) -> f64 {
        match &self.repr {
            Repr::Dense(state) => state.probability_of_one(q),
            Repr::Sparse(map) => map.iter().filter(|(k, _)| *k >> q & 1 == 1).map(|(_, a)| a.norm_sqr()).sum(),
        }
    }

    /// Projects qubit `q` onto `value` and renormalises.
    pub fn project(&mut self, q: usize, value: bool) {
        match &mut self.repr {
            Repr::Dense(state) => state.collapse(q, value),
            Repr::Sparse(map) => {
                map.retain(|k, _| (k >> q & 1 == 1) == value);
                self.normalise();
            }
        }
    }

    /// Scales the amplitudes where qubit `q` is 1 by `factor`, then renormalises (the no-jump
    /// operator of amplitude damping).
    pub fn damp(&mut self, q: usize, factor: f64) {
        match &mut self.repr {
            Repr::Dense(state) => {
                let one = Complex64::new(1.0, 0.0);
                state.apply1(q, &[[one, ZERO], [ZERO, Complex64::new(factor, 0.0)]]);
            }
            Repr::Sparse(map) => map.iter_mut().filter(|(k, _)| *k >> q & 1 == 1).for_each(|(_, a)| *a *= factor),
        }
        self.normalise();
    }

    fn normalise(&mut self) {
        let norm: f64 = self.norm_sqr();
        if norm <= 0.0 {
            return;
        }
        let scale = Complex64::new(1.0 / norm.sqrt(), 0.0);
        match &mut self.repr {
            // Scaling both rows of one qubit scales the whole vector.
            Repr::Dense(state) => state.apply1(0, &[[scale, ZERO], [ZERO, scale]]),
            Repr::Sparse(map) => map.values_mut().for_each(|a| *a *= scale),
        }
    }

    fn norm_sqr(&self) -> f64 {
        match &self.repr {
            Repr::Dense(state) => state.amplitudes().iter().map(|a| a.norm_sqr()).sum(),
            Repr::Sparse(map) => map.values().map(|a| a.norm_sqr()).sum(),
        }
    }

    /// `(basis state, probability)` of every populated basis state, in increasing order.
    pub fn distribution(&self) -> Vec<(u64, f64)> {
        let mut out: Vec<(u64, f64)> = match &self.repr {
            Repr::Dense(state) => state
                .amplitudes()
                .iter()
                .enumerate()
                .map(|(k, a)| (k as u64, a.norm_sqr()))
                .filter(|&(_, p)| p > 0.0)
                .collect(),
            Repr::Sparse(map) => map.iter().map(|(&k, a)| (k, a.norm_sqr())).collect(),
        };
        out.sort_unstable_by_key(|&(k, _)| k);
        out
    }

    /// `<psi| P |psi>` for the Pauli operator with X on `x_mask`, Z on `z_mask` (Y where both).
    pub fn pauli_expectation(&self, x_mask: u64, z_mask: u64) -> f64 {
        let ys = (x_mask & z_mask).count_ones();
        // P|k> = i^ys (-1)^{popcount(k & z)} |k ^ x>, with Y = i X Z.
        let phase = match ys % 4 {
            0 => Complex64::new(1.0, 0.0),
            1 => Complex64::new(0.0, 1.0),
            2 => Complex64::new(-1.0, 0.0),
            _ => Complex64::new(0.0, -1.0),
        };
        let term = |k: u64, a: Complex64, partner: Complex64| {
            let sign = if (k & z_mask).count_ones() % 2 == 1 { -1.0 } else { 1.0 };
            partner.conj() * a * phase * sign
        };
        let total: Complex64 = match &self.repr {
            Repr::Dense(state) => {
                let amps = state.amplitudes();
                amps.iter().enumerate().map(|(k, &a)| term(k as u64, a, amps[k ^ x_mask as usize])).sum()
            }
            Repr::Sparse(map) => {
                map.iter().map(|(&k, &a)| map.get(&(k ^ x_mask)).map_or(ZERO, |&partner| term(k, a, partner))).sum()
            }
        };
        total.re
    }
}

#[cfg(test)]
mod tests {
    use qchess_circuit::ir::GateKind;

    use super::*;

    fn m2(kind: GateKind) -> Matrix2 {
        kind.matrix2().expect("one qubit")
    }

    /// The same gates on a sparse and a dense state give the same distribution; GHZ stays at
    /// two basis states however many qubits.
    #[test]
    fn sparse_and_dense_agree() {
        let mut sparse = Amplitudes::zero(3);
        let mut dense = Amplitudes::zero(3);
        dense.repr = Repr::Dense(State::from_amplitudes({
            let mut v = vec![ZERO; 8];
            v[0] = Complex64::new(1.0, 0.0);
            v
        }));
        let cx = {
            let mut m = [[ZERO; 4]; 4];
            let one = Complex64::new(1.0, 0.0);
            m[0][0] = one;
            m[2][2] = one;
            m[3][1] = one;
            m[1][3] = one;
            m
        };
        for state in [&mut sparse, &mut dense] {
            state.apply1(0, &m2(GateKind::H)).unwrap();
            state.apply2(0, 1, &cx).unwrap();
            state.apply1(2, &m2(GateKind::Ry(0.7))).unwrap();
            state.apply1(1, &m2(GateKind::Rz(0.3))).unwrap();
        }
        let (a, b) = (sparse.distribution(), dense.distribution());
        assert_eq!(a.len(), b.len());
        for (x, y) in a.iter().zip(&b) {
            assert_eq!(x.0, y.0);
            assert!((x.1 - y.1).abs() < 1e-12);
        }
        // The Bell pair with Rz(0.3) on its second qubit: <Z0 Z1> = 1, <X0 X1> = cos 0.3,
        // <Y0 Y1> = -cos 0.3; and <Z2> = cos 0.7.
        for state in [&sparse, &dense] {
            assert!((state.pauli_expectation(0, 0b011) - 1.0).abs() < 1e-12);
            assert!((state.pauli_expectation(0b011, 0) - 0.3f64.cos()).abs() < 1e-12);
            assert!((state.pauli_expectation(0, 0b100) - 0.7f64.cos()).abs() < 1e-12);
            assert!((state.pauli_expectation(0b011, 0b011) + 0.3f64.cos()).abs() < 1e-12);
        }
        let mut ghz = Amplitudes::zero(40);
        ghz.apply1(0, &m2(GateKind::H)).unwrap();
        for q in 0..39 {
            ghz.apply2(q, q + 1, &cx).unwrap();
        }
        assert_eq!(ghz.len(), 2);
    }

    #[test]
    fn damping_and_projection_renormalise() {
        let mut state = Amplitudes::zero(1);
        state.apply1(0, &m2(GateKind::H)).unwrap();
        state.damp(0, 0.5f64.sqrt());
        // |1> loses half its weight before renormalising: P(1) = 0.5 / 1.5.
        assert!((state.probability_of_one(0) - 1.0 / 3.0).abs() < 1e-12);
        state.project(0, true);
        assert!((state.probability_of_one(0) - 1.0).abs() < 1e-12);
        assert!((state.distribution()[0].1 - 1.0).abs() < 1e-12);
    }
}
