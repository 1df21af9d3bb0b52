//! Native gates of the targets and the ISA circuit made of them.
//!
//! Conventions as in the IR: for a two-qubit gate on `[a, b]`, matrix index bit 0 is `a`.
//! IonQ's gates take their phases in radians here (`gpi(phi)`, `gpi2(phi)`); `ms` is the fully
//! entangling Molmer-Sorensen gate with both phases 0, `exp(-i pi/4 X(x)X)`, and `zz` IonQ Forte's
//! fully entangling `exp(-i pi/4 Z(x)Z)`. IQM's `prx(theta, phi)` is a rotation by `theta` about
//! the axis at angle `phi` in the XY plane, `Rz(phi) Rx(theta) Rz(-phi)`.

use std::f64::consts::{FRAC_1_SQRT_2, FRAC_PI_2};

use num_complex::Complex64;
use qchess_circuit::ir::{GateKind, Matrix2, Matrix4};

use crate::target::Basis;

/// A gate of some target's native set.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum NativeGate {
    /// `exp(-i theta/2 Z)`.
    Rz(f64),
    /// `exp(-i theta/2 X)` (sqrt-iSWAP devices).
    Rx(f64),
    /// sqrt(X).
    Sx,
    /// Pauli X.
    X,
    /// IonQ `gpi(phi)`: `[[0, e^{-i phi}], [e^{i phi}, 0]]`.
    Gpi(f64),
    /// IonQ `gpi2(phi)`: `[[1, -i e^{-i phi}], [-i e^{i phi}, 1]] / sqrt 2`.
    Gpi2(f64),
    /// Controlled Z.
    Cz,
    /// IBM's echoed cross-resonance gate `(IX - XY)/sqrt 2` (X on the second operand ...), directed.
    Ecr,
    /// sqrt(iSWAP).
    SqrtIswap,
    /// IonQ `ms(0, 0)`: `exp(-i pi/4 X(x)X)`.
    Ms,
    /// IQM `prx(theta, phi)`: `Rz(phi) Rx(theta) Rz(-phi)`.
    Prx(f64, f64),
    /// iSWAP (Rigetti Ankaa).
    ISwap,
    /// IonQ Forte's `zz(pi/2)`: `exp(-i pi/4 Z(x)Z)`.
    Zz,
}

impl NativeGate {
    /// 1 or 2.
    pub const fn arity(self) -> usize {
        match self {
            NativeGate::Cz
            | NativeGate::Ecr
            | NativeGate::SqrtIswap
            | NativeGate::Ms
            | NativeGate::ISwap
            | NativeGate::Zz => 2,
            _ => 1,
        }
    }

    /// The OpenQASM name.
    pub const fn name(self) -> &'static str {
        match self {
            NativeGate::Rz(_) => "rz",
            NativeGate::Rx(_) => "rx",
            NativeGate::Sx => "sx",
            NativeGate::X => "x",
            NativeGate::Gpi(_) => "gpi",
            NativeGate::Gpi2(_) => "gpi2",
            NativeGate::Cz => "cz",
            NativeGate::Ecr => "ecr",
            NativeGate::SqrtIswap => "sqrt_iswap",
            NativeGate::Ms => "ms",
            NativeGate::Prx(..) => "prx",
            NativeGate::ISwap => "iswap",
            NativeGate::Zz => "zz",
        }
    }

    /// The angle parameters, in the order OpenQASM writes them (none, one, or `prx`'s two).
    pub fn parameters(self) -> Vec<f64> {
        match self {
            NativeGate::Rz(a) | NativeGate::Rx(a) | NativeGate::Gpi(a) | NativeGate::Gpi2(a) => vec![a],
            NativeGate::Prx(theta, phi) => vec![theta, phi],
            _ => Vec::new(),
        }
    }

    /// The names of the angle parameters in an OpenQASM `gate` definition.
    const fn parameter_names(self) -> &'static str {
        match self {
            NativeGate::Prx(..) => "(theta, phi)",
            NativeGate::Rz(_) | NativeGate::Rx(_) | NativeGate::Gpi(_) | NativeGate::Gpi2(_) => "(phi)",
            _ => "",
        }
    }

    /// The `gate` definition of a gate outside the standard library (see
    /// [`NativeGate::definition`]), on one line.
    pub fn definition_line(self) -> Option<String> {
        let body = self.definition()?.split_whitespace().collect::<Vec<_>>().join(" ");
        let operands = if self.arity() == 2 { "a, b" } else { "a" };
        Some(format!("gate {}{} {operands} {{ {body} }}", self.name(), self.parameter_names()))
    }

    /// Whether the gate belongs to `basis`.
    pub fn in_basis(self, basis: Basis) -> bool {
        basis.gate_names().contains(&self.name())
    }

    /// The matrix of a one-qubit gate.
    pub fn matrix2(self) -> Option<Matrix2> {
        let c = Complex64::new;
        let h = FRAC_1_SQRT_2;
        Some(match self {
            NativeGate::Rz(a) => GateKind::Rz(a).matrix2()?,
            NativeGate::Rx(a) => GateKind::Rx(a).matrix2()?,
            NativeGate::Sx => GateKind::Sx.matrix2()?,
            NativeGate::X => GateKind::X.matrix2()?,
            NativeGate::Gpi(phi) => {
                [[c(0.0, 0.0), Complex64::from_polar(1.0, -phi)], [Complex64::from_polar(1.0, phi), c(0.0, 0.0)]]
            }
            NativeGate::Gpi2(phi) => [
                [c(h, 0.0), c(0.0, -h) * Complex64::from_polar(1.0, -phi)],
                [c(0.0, -h) * Complex64::from_polar(1.0, phi), c(h, 0.0)],
            ],
            NativeGate::Prx(theta, phi) => {
                let (cos, sin) = ((theta / 2.0).cos(), (theta / 2.0).sin());
                [
                    [c(cos, 0.0), c(0.0, -sin) * Complex64::from_polar(1.0, -phi)],
                    [c(0.0, -sin) * Complex64::from_polar(1.0, phi), c(cos, 0.0)],
                ]
            }
            _ => return None,
        })
    }

    /// The matrix of a two-qubit gate.
    pub fn matrix4(self) -> Option<Matrix4> {
        let c = Complex64::new;
        let h = FRAC_1_SQRT_2;
        let z = c(0.0, 0.0);
        Some(match self {
            NativeGate::Cz => {
                let mut m = [[z; 4]; 4];
                (0..4).for_each(|k| m[k][k] = c(if k == 3 { -1.0 } else { 1.0 }, 0.0));
                m
            }
            // Qiskit's ECRGate matrix (index bit 0 = first operand).
            NativeGate::Ecr => [
                [z, c(h, 0.0), z, c(0.0, h)],
                [c(h, 0.0), z, c(0.0, -h), z],
                [z, c(0.0, h), z, c(h, 0.0)],
                [c(0.0, -h), z, c(h, 0.0), z],
            ],
            NativeGate::SqrtIswap => GateKind::ISwap(0.5).matrix4()?,
            NativeGate::Ms => GateKind::Rxx(FRAC_PI_2).matrix4()?,
            NativeGate::ISwap => GateKind::ISwap(1.0).matrix4()?,
            NativeGate::Zz => GateKind::Rzz(FRAC_PI_2).matrix4()?,
            _ => return None,
        })
    }

    /// The body of the OpenQASM `gate` definition of a gate outside the standard library, over
    /// operands `a` and `b`, as standard gates; `None` for `rz`, `rx`, `sx`, `x`, `cz`.
    pub fn definition(self) -> Option<&'static str> {
        Some(match self {
            NativeGate::Ecr => "s a; sx b; cx a, b; x a;",
            // Rxx(-pi/4) then Ryy(-pi/4) = (S (x) S) Rxx(-pi/4) (Sdg (x) Sdg).
            NativeGate::SqrtIswap => {
                "h a; h b; cx a, b; rz(-pi/4) b; cx a, b; h a; h b; \
                 sdg a; sdg b; h a; h b; cx a, b; rz(-pi/4) b; cx a, b; h a; h b; s a; s b;"
            }
            NativeGate::Ms => "h a; h b; cx a, b; rz(pi/2) b; cx a, b; h a; h b;",
            NativeGate::Gpi(_) => "U(pi, phi - pi/2, pi/2 - phi) a;",
            NativeGate::Gpi2(_) => "U(pi/2, phi - pi/2, pi/2 - phi) a;",
            NativeGate::Prx(..) => "U(theta, phi - pi/2, pi/2 - phi) a;",
            NativeGate::ISwap => "s a; s b; h a; cx a, b; cx b, a; h b;",
            NativeGate::Zz => "cx a, b; rz(pi/2) b; cx a, b;",
            _ => return None,
        })
    }
}

/// One operation of an ISA circuit over physical qubits.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum IsaOp {
    /// A one-qubit native gate.
    One {
        /// The gate.
        gate: NativeGate,
        /// Its physical qubit.
        qubit: u32,
    },
    /// A two-qubit native gate on a coupled pair, `a` first.
    Two {
        /// The gate.
        gate: NativeGate,
        /// First operand (the control of ECR).
        a: u32,
        /// Second operand.
        b: u32,
    },
    /// A measurement of a physical qubit into a classical bit.
    Measure {
        /// The physical qubit.
        qubit: u32,
        /// The classical bit.
        clbit: u32,
    },
    /// A reset of a physical qubit.
    Reset {
        /// The physical qubit.
        qubit: u32,
    },
}

impl IsaOp {
    /// The physical qubits it touches.
    pub fn qubits(&self) -> impl Iterator<Item = u32> {
        let (first, second) = match *self {
            IsaOp::One { qubit, .. } | IsaOp::Measure { qubit, .. } | IsaOp::Reset { qubit } => (qubit, None),
            IsaOp::Two { a, b, .. } => (a, Some(b)),
        };
        std::iter::once(first).chain(second)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linalg::{equal_up_to_phase, mul2, mul4};

    /// The matrix of a definition body, read by a tiny interpreter of the gates it uses.
    fn definition_matrix(gate: NativeGate) -> Matrix4 {
        let (theta, phi) = match gate.parameters()[..] {
            [theta, phi] => (theta, phi),
            [phi] => (0.0, phi),
            _ => (0.0, 0.0),
        };
        let pi = std::f64::consts::PI;
        let mut m = crate::linalg::kron(&crate::linalg::identity2(), &crate::linalg::identity2());
        for statement in gate.definition().expect("defined").split(';').map(str::trim).filter(|s| !s.is_empty()) {
            let split = statement.find(')').map_or_else(|| statement.find(' ').expect("operands"), |i| i + 1);
            let (call, operands) = (&statement[..split], statement[split..].trim());
            let operands: Vec<usize> = operands.split(',').map(|o| if o.trim() == "a" { 0 } else { 1 }).collect();
            let angle = |text: &str| -> f64 {
                match text {
                    "pi/4" => pi / 4.0,
                    "-pi/4" => -pi / 4.0,
                    "pi/2" => pi / 2.0,
                    "pi" => pi,
                    "phi - pi/2" => phi - pi / 2.0,
                    "pi/2 - phi" => pi / 2.0 - phi,
                    "theta" => theta,
                    other => panic!("angle {other}"),
                }
            };
            let step: Matrix4 = if let Some(args) = call.strip_prefix("U(") {
                let args: Vec<f64> = args.trim_end_matches(')').split(", ").map(angle).collect();
                lift(GateKind::U(args[0], args[1], args[2]).matrix2().expect("1q"), operands[0])
            } else if let Some(arg) = call.strip_prefix("rz(") {
                lift(GateKind::Rz(angle(arg.trim_end_matches(')'))).matrix2().expect("1q"), operands[0])
            } else if call == "cx" {
                let mut cx = [[Complex64::new(0.0, 0.0); 4]; 4];
                for (k, column) in
                    (0..4usize).map(|k| (k, if k >> operands[0] & 1 == 1 { k ^ (1 << operands[1]) } else { k }))
                {
                    cx[column][k] = Complex64::new(1.0, 0.0);
                }
                cx
            } else {
                let kind = match call {
                    "s" => GateKind::S,
                    "sdg" => GateKind::Sdg,
                    "sx" => GateKind::Sx,
                    "x" => GateKind::X,
                    "h" => GateKind::H,
                    other => panic!("gate {other}"),
                };
                lift(kind.matrix2().expect("1q"), operands[0])
            };
            m = mul4(&step, &m);
        }
        m
    }

    fn lift(m: Matrix2, operand: usize) -> Matrix4 {
        let id = crate::linalg::identity2();
        if operand == 0 { crate::linalg::kron(&m, &id) } else { crate::linalg::kron(&id, &m) }
    }

    fn flat4(m: &Matrix4) -> Vec<Complex64> {
        m.iter().flatten().copied().collect()
    }

    #[test]
    fn qasm_definitions_match_the_matrices() {
        for gate in [NativeGate::Ecr, NativeGate::SqrtIswap, NativeGate::Ms, NativeGate::ISwap, NativeGate::Zz] {
            let defined = definition_matrix(gate);
            assert!(equal_up_to_phase(&flat4(&defined), &flat4(&gate.matrix4().expect("2q"))), "{gate:?}");
        }
        for gate in [
            NativeGate::Gpi(0.7),
            NativeGate::Gpi2(-1.3),
            NativeGate::Gpi(0.0),
            NativeGate::Gpi2(2.0),
            NativeGate::Prx(0.4, -2.1),
            NativeGate::Prx(std::f64::consts::PI, 0.3),
        ] {
            let defined = definition_matrix(gate);
            let expected = lift(gate.matrix2().expect("1q"), 0);
            assert!(equal_up_to_phase(&flat4(&defined), &flat4(&expected)), "{gate:?}");
        }
    }

    #[test]
    fn ecr_is_its_own_inverse_and_gpi2_squares_to_gpi_up_to_phase() {
        let ecr = NativeGate::Ecr.matrix4().expect("2q");
        let id = crate::linalg::kron(&crate::linalg::identity2(), &crate::linalg::identity2());
        assert!(equal_up_to_phase(&flat4(&mul4(&ecr, &ecr)), &flat4(&id)));
        let g = NativeGate::Gpi2(0.4).matrix2().expect("1q");
        let squared = mul2(&g, &g);
        let gpi = NativeGate::Gpi(0.4).matrix2().expect("1q");
        assert!(crate::linalg::equal_up_to_phase2(&squared, &gpi));
    }
}
