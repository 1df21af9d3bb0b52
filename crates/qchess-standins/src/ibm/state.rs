//! The state of one group of shots: sparse (sorted arrays of the populated basis states) while few
//! basis states are populated, as in the circuits of games where most qubits are classical, and
//! a dense vector once it fills a quarter of one. Gates are any 2x2 or 4x4 matrices; the no-jump
//! operator of amplitude damping scales the two halves of a qubit.

use num_complex::Complex64;
use qchess_circuit::ir::{Matrix2, Matrix4};
use qchess_route::verify::State;

use super::sparse::Sparse;

/// Past this many qubits a state stays sparse (a dense one would not fit).
pub const MAX_DENSE_QUBITS: usize = 24;

/// The most basis states a sparse state may populate.
pub const MAX_SPARSE_STATES: usize = 1 << 22;

const ZERO: Complex64 = Complex64::new(0.0, 0.0);

#[derive(Debug, Clone)]
enum Repr {
    Sparse(Sparse),
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
        Amplitudes { repr: Repr::Sparse(Sparse::zero()), qubits }
    }

    /// Whether no basis state is populated (never, for a state made by these operations).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Populated basis states.
    pub fn len(&self) -> usize {
        match &self.repr {
            Repr::Sparse(sparse) => sparse.len(),
            Repr::Dense(state) => state.amplitudes().len(),
        }
    }

    /// Goes dense once a sparse state holds a quarter of a dense one, when that fits.
    fn settle(&mut self) -> Result<(), TooLarge> {
        let Repr::Sparse(sparse) = &self.repr else { return Ok(()) };
        if self.qubits <= MAX_DENSE_QUBITS && sparse.len() * 4 >= 1 << self.qubits {
            let mut dense = vec![ZERO; 1 << self.qubits];
            for (state, a) in sparse.entries() {
                dense[state as usize] = a;
            }
            self.repr = Repr::Dense(State::from_amplitudes(dense));
        } else if sparse.len() > MAX_SPARSE_STATES {
            return Err(TooLarge { states: sparse.len() });
        }
        Ok(())
    }

    /// Applies a 2x2 matrix to qubit `q`.
    pub fn apply1(&mut self, q: usize, m: &Matrix2) -> Result<(), TooLarge> {
        match &mut self.repr {
            Repr::Dense(state) => state.apply1(q, m),
            Repr::Sparse(sparse) => sparse.apply1(q, m),
        }
        self.settle()
    }

    /// Applies a 4x4 matrix to `(a, b)` (index bit 0 = `a`).
    pub fn apply2(&mut self, a: usize, b: usize, m: &Matrix4) -> Result<(), TooLarge> {
        match &mut self.repr {
            Repr::Dense(state) => state.apply2(a, b, m),
            Repr::Sparse(sparse) => sparse.apply2(a, b, m),
        }
        self.settle()
    }

    /// The probability that measuring qubit `q` gives 1.
    pub fn probability_of_one(&self, q: usize) -> f64 {
        match &self.repr {
            Repr::Dense(state) => state.probability_of_one(q),
            Repr::Sparse(sparse) => sparse.probability_of_one(q),
        }
    }

    /// Projects qubit `q` onto `value` and renormalises.
    pub fn project(&mut self, q: usize, value: bool) {
        match &mut self.repr {
            Repr::Dense(state) => state.collapse(q, value),
            Repr::Sparse(sparse) => {
                sparse.project(q, value);
                let norm = sparse.norm_sqr();
                if norm > 0.0 {
                    sparse.scale_all(Complex64::new(1.0 / norm.sqrt(), 0.0));
                }
            }
        }
    }

    /// The no-jump operator of amplitude damping, `diag(1, sqrt(1 - gamma))`, renormalised, on a
    /// state where qubit `q` reads 1 with probability `p_one` (so the new norm is known: one pass).
    pub fn damp(&mut self, q: usize, gamma: f64, p_one: f64) {
        let norm = (1.0 - gamma * p_one).sqrt();
        let (zero, one) = (Complex64::new(1.0 / norm, 0.0), Complex64::new((1.0 - gamma).sqrt() / norm, 0.0));
        match &mut self.repr {
            Repr::Dense(state) => state.apply1(q, &[[zero, ZERO], [ZERO, one]]),
            Repr::Sparse(sparse) => sparse.scale_by_value(q, zero, one),
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
            Repr::Sparse(sparse) => sparse.entries().map(|(k, a)| (k, a.norm_sqr())).collect(),
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
            Repr::Sparse(sparse) => sparse.entries().map(|(k, a)| term(k, a, sparse.amplitude(k ^ x_mask))).sum(),
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
        // X gates flip keys lazily in a sparse state: both still agree, and <Z2> changes sign.
        for state in [&mut sparse, &mut dense] {
            state.apply1(2, &m2(GateKind::X)).unwrap();
            state.apply1(0, &m2(GateKind::Y)).unwrap();
            assert!((state.pauli_expectation(0, 0b100) + 0.7f64.cos()).abs() < 1e-12);
            assert!((state.pauli_expectation(0b011, 0) + 0.3f64.cos()).abs() < 1e-12, "<X0 X1> after Y0");
            state.apply1(1, &m2(GateKind::Sx)).unwrap();
        }
        let (a, b) = (sparse.distribution(), dense.distribution());
        assert_eq!(a.iter().map(|x| x.0).collect::<Vec<_>>(), b.iter().map(|x| x.0).collect::<Vec<_>>());
        assert!(a.iter().zip(&b).all(|(x, y)| (x.1 - y.1).abs() < 1e-12), "{a:?} vs {b:?}");
        assert!((sparse.probability_of_one(2) - dense.probability_of_one(2)).abs() < 1e-12);
        let mut ghz = Amplitudes::zero(40);
        ghz.apply1(0, &m2(GateKind::H)).unwrap();
        for q in 0..39 {
            ghz.apply2(q, q + 1, &cx).unwrap();
        }
        assert_eq!(ghz.len(), 2);
    }

    /// A state kept sparse and the same state made dense agree after random gates of every
    /// kind the sampler uses (mixing, diagonal, X-like, two-qubit, damping, projection).
    #[test]
    fn sparse_states_follow_dense_ones_through_random_gates() {
        use proptest::prelude::*;
        use proptest::test_runner::TestRunner;

        let kinds = prop_oneof![
            (0usize..5, -3.0f64..3.0).prop_map(|(q, a)| (0u8, q, 0, a)),
            (0usize..5, -3.0f64..3.0).prop_map(|(q, a)| (1, q, 0, a)),
            (0usize..5).prop_map(|q| (2, q, 0, 0.0)),
            (0usize..5, 0usize..5, -3.0f64..3.0).prop_map(|(a, b, t)| (3, a, b, t)),
            (0usize..5, 0.0f64..1.0).prop_map(|(q, g)| (4, q, 0, g)),
            (0usize..5).prop_map(|q| (5, q, 0, 0.0)),
        ];
        TestRunner::default()
            .run(&proptest::collection::vec(kinds, 1..40), |ops| {
                // Declared over 40 qubits, the sparse state never goes dense.
                let mut sparse = Amplitudes::zero(40);
                let mut dense = Amplitudes {
                    repr: Repr::Dense(State::from_amplitudes({
                        let mut v = vec![ZERO; 32];
                        v[0] = Complex64::new(1.0, 0.0);
                        v
                    })),
                    qubits: 5,
                };
                for (kind, a, b, x) in ops {
                    for state in [&mut sparse, &mut dense] {
                        match kind {
                            0 => state.apply1(a, &m2(GateKind::U(x, 0.3 * x, -x))).unwrap(),
                            1 => state.apply1(a, &m2(GateKind::Rz(x))).unwrap(),
                            2 => state.apply1(a, &m2(GateKind::Y)).unwrap(),
                            3 if a != b => state.apply2(a, b, &GateKind::ISwap(x).matrix4().unwrap()).unwrap(),
                            4 => {
                                let p = state.probability_of_one(a);
                                state.damp(a, x, p);
                            }
                            5 if state.probability_of_one(a) > 1e-9 => state.project(a, true),
                            _ => {}
                        }
                    }
                }
                prop_assert!(matches!(sparse.repr, Repr::Sparse(_)));
                let (a, b) = (sparse.distribution(), dense.distribution());
                let dense_map: std::collections::HashMap<u64, f64> = b.into_iter().collect();
                for (k, p) in &a {
                    prop_assert!((p - dense_map.get(k).copied().unwrap_or(0.0)).abs() < 1e-9, "{a:?} vs {dense_map:?}");
                }
                prop_assert!((a.iter().map(|x| x.1).sum::<f64>() - 1.0).abs() < 1e-9);
                for q in 0..5 {
                    prop_assert!((sparse.probability_of_one(q) - dense.probability_of_one(q)).abs() < 1e-9);
                }
                let (x, z) = (0b10110u64, 0b01101u64);
                prop_assert!((sparse.pauli_expectation(x, z) - dense.pauli_expectation(x, z)).abs() < 1e-9);
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn damping_and_projection_renormalise() {
        let mut state = Amplitudes::zero(1);
        state.apply1(0, &m2(GateKind::H)).unwrap();
        state.damp(0, 0.5, 0.5);
        // |1> loses half its weight before renormalising: P(1) = 0.25 / 0.75.
        assert!((state.probability_of_one(0) - 1.0 / 3.0).abs() < 1e-12);
        state.project(0, true);
        assert!((state.probability_of_one(0) - 1.0).abs() < 1e-12);
        assert!((state.distribution()[0].1 - 1.0).abs() < 1e-12);
    }
}
