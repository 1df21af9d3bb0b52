//! The unitaries a gate can apply, with their exact matrices.

use num_complex::Complex64;
use smallvec::{SmallVec, smallvec};

/// The unitary a gate applies to its targets (before controls).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum GateKind {
    /// Pauli X (NOT).
    X,
    /// Pauli Y.
    Y,
    /// Pauli Z.
    Z,
    /// Hadamard.
    H,
    /// sqrt(Z).
    S,
    /// S dagger.
    Sdg,
    /// sqrt(S).
    T,
    /// T dagger.
    Tdg,
    /// sqrt(X).
    Sx,
    /// sqrt(X) dagger.
    Sxdg,
    /// `exp(-i theta/2 X)`.
    Rx(f64),
    /// `exp(-i theta/2 Y)`.
    Ry(f64),
    /// `exp(-i theta/2 Z)`.
    Rz(f64),
    /// `diag(1, e^{i lambda})`.
    Phase(f64),
    /// OpenQASM 3 `U(theta, phi, lambda)`.
    U(f64, f64, f64),
    /// Exchange of two qubits.
    Swap,
    /// `iSWAP^t = exp(+i pi t/4 (XX + YY))`; the compiler uses t = +-1 and +-1/2.
    ISwap(f64),
    /// `exp(-i theta/2 X(x)X)`.
    Rxx(f64),
    /// `exp(-i theta/2 Y(x)Y)`.
    Ryy(f64),
    /// `exp(-i theta/2 Z(x)Z)`.
    Rzz(f64),
}

/// A 2x2 unitary, row-major.
pub type Matrix2 = [[Complex64; 2]; 2];
/// A 4x4 unitary, row-major, index bit 0 = first target.
pub type Matrix4 = [[Complex64; 4]; 4];

fn c(re: f64, im: f64) -> Complex64 {
    Complex64::new(re, im)
}

impl GateKind {
    /// Number of target qubits: 1 or 2.
    pub const fn arity(self) -> usize {
        match self {
            GateKind::Swap | GateKind::ISwap(_) | GateKind::Rxx(_) | GateKind::Ryy(_) | GateKind::Rzz(_) => 2,
            _ => 1,
        }
    }

    /// The inverse gate.
    pub fn inverse(self) -> GateKind {
        use GateKind::*;
        match self {
            X | Y | Z | H | Swap => self,
            S => Sdg,
            Sdg => S,
            T => Tdg,
            Tdg => T,
            Sx => Sxdg,
            Sxdg => Sx,
            Rx(a) => Rx(-a),
            Ry(a) => Ry(-a),
            Rz(a) => Rz(-a),
            Phase(a) => Phase(-a),
            U(theta, phi, lambda) => U(-theta, -lambda, -phi),
            ISwap(t) => ISwap(-t),
            Rxx(a) => Rxx(-a),
            Ryy(a) => Ryy(-a),
            Rzz(a) => Rzz(-a),
        }
    }

    /// Whether the gate maps basis states to basis states (times a phase): then a sparse
    /// state never grows under it.
    pub fn is_permutation(self) -> bool {
        use GateKind::*;
        match self {
            X | Y | Z | S | Sdg | T | Tdg | Rz(_) | Phase(_) | Swap | Rzz(_) => true,
            ISwap(t) => (t.rem_euclid(2.0) - 1.0).abs() < 1e-15 || t.rem_euclid(2.0) < 1e-15,
            _ => false,
        }
    }

    /// The 2x2 matrix of a one-qubit gate, or `None` for a two-qubit gate.
    pub fn matrix2(self) -> Option<Matrix2> {
        use GateKind::*;
        let h = std::f64::consts::FRAC_1_SQRT_2;
        let phase = |a: f64| Complex64::from_polar(1.0, a);
        let zero = c(0.0, 0.0);
        let one = c(1.0, 0.0);
        Some(match self {
            X => [[zero, one], [one, zero]],
            Y => [[zero, c(0.0, -1.0)], [c(0.0, 1.0), zero]],
            Z => [[one, zero], [zero, -one]],
            H => [[c(h, 0.0), c(h, 0.0)], [c(h, 0.0), c(-h, 0.0)]],
            S => [[one, zero], [zero, c(0.0, 1.0)]],
            Sdg => [[one, zero], [zero, c(0.0, -1.0)]],
            T => [[one, zero], [zero, phase(std::f64::consts::FRAC_PI_4)]],
            Tdg => [[one, zero], [zero, phase(-std::f64::consts::FRAC_PI_4)]],
            Sx => [[c(0.5, 0.5), c(0.5, -0.5)], [c(0.5, -0.5), c(0.5, 0.5)]],
            Sxdg => [[c(0.5, -0.5), c(0.5, 0.5)], [c(0.5, 0.5), c(0.5, -0.5)]],
            Rx(a) => {
                let (s, co) = (a / 2.0).sin_cos();
                [[c(co, 0.0), c(0.0, -s)], [c(0.0, -s), c(co, 0.0)]]
            }
            Ry(a) => {
                let (s, co) = (a / 2.0).sin_cos();
                [[c(co, 0.0), c(-s, 0.0)], [c(s, 0.0), c(co, 0.0)]]
            }
            Rz(a) => [[phase(-a / 2.0), zero], [zero, phase(a / 2.0)]],
            Phase(a) => [[one, zero], [zero, phase(a)]],
            U(theta, phi, lambda) => {
                let (s, co) = (theta / 2.0).sin_cos();
                [[c(co, 0.0), -phase(lambda) * s], [phase(phi) * s, phase(phi + lambda) * co]]
            }
            Swap | ISwap(_) | Rxx(_) | Ryy(_) | Rzz(_) => return None,
        })
    }

    /// The 4x4 matrix of a two-qubit gate, or `None` for a one-qubit gate.
    pub fn matrix4(self) -> Option<Matrix4> {
        use GateKind::*;
        let zero = c(0.0, 0.0);
        let one = c(1.0, 0.0);
        let mut m = [[zero; 4]; 4];
        match self {
            Swap => {
                m[0][0] = one;
                m[1][2] = one;
                m[2][1] = one;
                m[3][3] = one;
            }
            ISwap(t) => {
                let (s, co) = (std::f64::consts::FRAC_PI_2 * t).sin_cos();
                m[0][0] = one;
                m[3][3] = one;
                m[1][1] = c(co, 0.0);
                m[2][2] = c(co, 0.0);
                m[1][2] = c(0.0, s);
                m[2][1] = c(0.0, s);
            }
            Rxx(a) => {
                let (s, co) = (a / 2.0).sin_cos();
                for (k, row) in m.iter_mut().enumerate() {
                    row[k] = c(co, 0.0);
                    row[3 - k] = c(0.0, -s);
                }
            }
            Ryy(a) => {
                let (s, co) = (a / 2.0).sin_cos();
                for (k, row) in m.iter_mut().enumerate() {
                    row[k] = c(co, 0.0);
                }
                // Y(x)Y maps |00> -> -|11>, |01> -> |10>.
                m[0][3] = c(0.0, s);
                m[3][0] = c(0.0, s);
                m[1][2] = c(0.0, -s);
                m[2][1] = c(0.0, -s);
            }
            Rzz(a) => {
                let minus = Complex64::from_polar(1.0, -a / 2.0);
                let plus = Complex64::from_polar(1.0, a / 2.0);
                m[0][0] = minus;
                m[1][1] = plus;
                m[2][2] = plus;
                m[3][3] = minus;
            }
            _ => return None,
        }
        Some(m)
    }

    /// One gate of every kind, with parameters that avoid special cases, plus every iSWAP
    /// power the move compiler emits: what exhaustive tests of simulators, emitters and
    /// lowerings run through.
    pub fn samples() -> Vec<GateKind> {
        use GateKind::*;
        vec![
            X,
            Y,
            Z,
            H,
            S,
            Sdg,
            T,
            Tdg,
            Sx,
            Sxdg,
            Rx(0.37),
            Ry(-1.21),
            Rz(2.5),
            Phase(0.81),
            U(0.3, -1.1, 2.2),
            Swap,
            ISwap(1.0),
            ISwap(0.5),
            ISwap(-0.5),
            ISwap(-1.0),
            ISwap(0.3),
            Rxx(0.7),
            Ryy(-0.4),
            Rzz(1.3),
        ]
    }

    /// Lower-case name for debug output (`iswap^0.5`, `rz(1.5708)`).
    pub fn name(self) -> String {
        use GateKind::*;
        match self {
            X => "x".into(),
            Y => "y".into(),
            Z => "z".into(),
            H => "h".into(),
            S => "s".into(),
            Sdg => "sdg".into(),
            T => "t".into(),
            Tdg => "tdg".into(),
            Sx => "sx".into(),
            Sxdg => "sxdg".into(),
            Rx(a) => format!("rx({a})"),
            Ry(a) => format!("ry({a})"),
            Rz(a) => format!("rz({a})"),
            Phase(a) => format!("p({a})"),
            U(t, p, l) => format!("u({t},{p},{l})"),
            Swap => "swap".into(),
            ISwap(t) => format!("iswap^{t}"),
            Rxx(a) => format!("rxx({a})"),
            Ryy(a) => format!("ryy({a})"),
            Rzz(a) => format!("rzz({a})"),
        }
    }
}

impl GateKind {
    /// The kind's real parameters (angles, or the power of `ISwap`), in declaration order.
    pub fn parameters(self) -> SmallVec<[f64; 3]> {
        use GateKind::*;
        match self {
            Rx(a) | Ry(a) | Rz(a) | Phase(a) | ISwap(a) | Rxx(a) | Ryy(a) | Rzz(a) => smallvec![a],
            U(theta, phi, lambda) => smallvec![theta, phi, lambda],
            X | Y | Z | H | S | Sdg | T | Tdg | Sx | Sxdg | Swap => SmallVec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: Complex64, b: Complex64) -> bool {
        (a - b).norm() < 1e-12
    }

    fn mul4(a: &Matrix4, b: &Matrix4) -> Matrix4 {
        let mut m = [[c(0.0, 0.0); 4]; 4];
        for i in 0..4 {
            for j in 0..4 {
                m[i][j] = (0..4).map(|k| a[i][k] * b[k][j]).sum();
            }
        }
        m
    }

    #[test]
    fn sqrt_iswap_squared_is_iswap() {
        let half = GateKind::ISwap(0.5).matrix4().expect("two-qubit");
        let full = GateKind::ISwap(1.0).matrix4().expect("two-qubit");
        let squared = mul4(&half, &half);
        for i in 0..4 {
            for j in 0..4 {
                assert!(close(squared[i][j], full[i][j]), "{i},{j}");
            }
        }
        assert!(close(full[1][2], c(0.0, 1.0)));
        assert!(close(full[2][1], c(0.0, 1.0)));
    }

    #[test]
    fn rxx_ryy_compose_to_iswap() {
        // iSW^t = RXX(-pi t/2) RYY(-pi t/2) (reference notes, checked numerically there).
        for t in [1.0, 0.5, -0.5, -1.0] {
            let a = -std::f64::consts::FRAC_PI_2 * t;
            let product = mul4(&GateKind::Rxx(a).matrix4().expect("2q"), &GateKind::Ryy(a).matrix4().expect("2q"));
            let iswap = GateKind::ISwap(t).matrix4().expect("2q");
            for i in 0..4 {
                for j in 0..4 {
                    assert!(close(product[i][j], iswap[i][j]), "t={t} {i},{j}");
                }
            }
        }
    }

    #[test]
    fn inverses_multiply_to_identity() {
        let kinds = [
            GateKind::S,
            GateKind::T,
            GateKind::Sx,
            GateKind::Rx(0.3),
            GateKind::Ry(0.7),
            GateKind::Rz(1.1),
            GateKind::Phase(0.4),
            GateKind::U(0.3, 0.5, 0.9),
        ];
        for kind in kinds {
            let m = kind.matrix2().expect("1q");
            let inv = kind.inverse().matrix2().expect("1q");
            for (i, row) in m.iter().enumerate() {
                for j in 0..2 {
                    let v: Complex64 = row.iter().zip(&inv).map(|(a, inv_row)| a * inv_row[j]).sum();
                    let expected = if i == j { c(1.0, 0.0) } else { c(0.0, 0.0) };
                    assert!(close(v, expected), "{kind:?}");
                }
            }
        }
    }
}
