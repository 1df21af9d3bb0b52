//! Exact decompositions of controlled gates into CX and uncontrolled one-qubit gates.
//!
//! Everything reduces to two primitives:
//! * a *multi-controlled phase* `MCP(phi)` on a set of qubits (phase `e^{i phi}` on the state
//!   where all of them are 1), built from the phase polynomial
//!   `phi * AND(x) = phi / 2^(m-1) * sum over nonempty S of (-1)^(|S|-1) * XOR_S(x)`: each
//!   parity is accumulated on one qubit by CX gates in Gray-code order and gets a phase gate,
//!   so `m` qubits cost `2^m - 1` phase gates and `2^m - 2` CX gates, without ancillas;
//! * a *multi-controlled X* = `H . MCP(pi) . H` on the target.
//!
//! A controlled one-qubit unitary `U = e^{i alpha} Rz(beta) Ry(gamma) Rz(delta)` is
//! `MCP(alpha)` on the controls times `A . MCX . B . MCX . C` with `ABC = I` (Barenco et al.
//! 1995, lemma 5.1); diagonal, Pauli and rotation kinds take shorter routes, and two-qubit
//! kinds are conjugations whose core alone carries the controls. Every decomposition is exact,
//! global phase included, which is what makes adding controls to its parts correct.

use std::f64::consts::{FRAC_PI_2, PI};

use num_complex::Complex64;
use qchess_circuit::ir::{Gate, GateKind, Matrix2, Qubit};

/// Collects the output gates of a decomposition.
#[derive(Debug, Default)]
pub(crate) struct Emitter {
    pub(crate) gates: Vec<Gate>,
}

impl Emitter {
    fn one(&mut self, kind: GateKind, target: Qubit) {
        self.gates.push(Gate::one(kind, target));
    }

    fn cx(&mut self, control: Qubit, target: Qubit) {
        self.gates.push(Gate::cx(control, target));
    }

    /// `diag(1, e^{i phi})` on `target`, skipped when `phi` is exactly 0.
    fn phase(&mut self, phi: f64, target: Qubit) {
        if phi != 0.0 {
            self.one(GateKind::Phase(phi), target);
        }
    }

    /// Phase `e^{i phi}` on the basis states where every qubit of `qubits` is 1.
    pub(crate) fn mcp(&mut self, phi: f64, qubits: &[Qubit]) {
        if phi == 0.0 || qubits.is_empty() {
            // An empty set is a global phase: invisible once nothing controls it.
            return;
        }
        let m = qubits.len();
        let unit = phi / f64::powi(2.0, m as i32 - 1);
        for top in 0..m {
            // Subsets {qubits[top]} + T, T among the lower qubits in Gray-code order; the parity
            // of the subset lives on qubits[top].
            let holder = qubits[top];
            for step in 0..1usize << top {
                if step > 0 {
                    let flipped = step.trailing_zeros() as usize;
                    self.cx(qubits[flipped], holder);
                }
                let gray = step ^ (step >> 1);
                let sign = if gray.count_ones() % 2 == 0 { 1.0 } else { -1.0 };
                self.phase(sign * unit, holder);
            }
            if top > 0 {
                // The Gray code ends on the subset {qubits[top - 1]}: undo it.
                self.cx(qubits[top - 1], holder);
            }
        }
    }

    /// X on `target` where every control is 1.
    pub(crate) fn mcx(&mut self, controls: &[Qubit], target: Qubit) {
        match controls {
            [] => self.one(GateKind::X, target),
            [control] => self.cx(*control, target),
            _ => {
                self.one(GateKind::H, target);
                self.mcp(PI, &with(controls, &[target]));
                self.one(GateKind::H, target);
            }
        }
    }

    /// `kind` (one qubit) on `target` where every control is 1, exactly.
    pub(crate) fn controlled_one(&mut self, kind: GateKind, controls: &[Qubit], target: Qubit) {
        use GateKind::*;
        if controls.is_empty() {
            self.one(kind, target);
            return;
        }
        let all = with(controls, &[target]);
        match kind {
            X => self.mcx(controls, target),
            Z => self.mcp(PI, &all),
            S => self.mcp(FRAC_PI_2, &all),
            Sdg => self.mcp(-FRAC_PI_2, &all),
            T => self.mcp(PI / 4.0, &all),
            Tdg => self.mcp(-PI / 4.0, &all),
            Phase(phi) => self.mcp(phi, &all),
            Rz(theta) => {
                // Rz(theta) = e^{-i theta/2} P(theta).
                self.mcp(theta, &all);
                self.mcp(-theta / 2.0, controls);
            }
            Y => {
                // Y = S X S^dagger.
                self.one(Sdg, target);
                self.mcx(controls, target);
                self.one(S, target);
            }
            Rx(theta) => {
                self.one(H, target);
                self.controlled_one(Rz(theta), controls, target);
                self.one(H, target);
            }
            Ry(theta) => {
                // Ry = S Rx S^dagger.
                self.one(Sdg, target);
                self.controlled_one(Rx(theta), controls, target);
                self.one(S, target);
            }
            Sx | Sxdg => {
                // sqrt(X) = H S H.
                self.one(H, target);
                self.controlled_one(if kind == Sx { S } else { Sdg }, controls, target);
                self.one(H, target);
            }
            H | U(..) => {
                let matrix = kind.matrix2().unwrap_or_default();
                self.controlled_matrix(&matrix, controls, target);
            }
            Swap | ISwap(_) | Rxx(_) | Ryy(_) | Rzz(_) => {
                unreachable!("two-qubit kinds go through controlled_two")
            }
        }
    }

    /// Any one-qubit unitary under controls, by the ABC construction.
    fn controlled_matrix(&mut self, matrix: &Matrix2, controls: &[Qubit], target: Qubit) {
        let Zyz { alpha, beta, gamma, delta } = zyz(matrix);
        self.mcp(alpha, controls);
        self.rz(-(beta - delta) / 2.0, target); // C = Rz((delta - beta)/2)
        self.mcx(controls, target);
        self.rz(-(delta + beta) / 2.0, target); // B = Ry(-gamma/2) Rz(-(delta + beta)/2)
        self.ry(-gamma / 2.0, target);
        self.mcx(controls, target);
        self.ry(gamma / 2.0, target); // A = Rz(beta) Ry(gamma/2)
        self.rz(beta, target);
    }

    fn rz(&mut self, theta: f64, target: Qubit) {
        if theta != 0.0 {
            self.one(GateKind::Rz(theta), target);
        }
    }

    fn ry(&mut self, theta: f64, target: Qubit) {
        if theta != 0.0 {
            self.one(GateKind::Ry(theta), target);
        }
    }

    /// A two-qubit `kind` on `(a, b)` where every control is 1, exactly.
    pub(crate) fn controlled_two(&mut self, kind: GateKind, controls: &[Qubit], a: Qubit, b: Qubit) {
        use GateKind::*;
        match kind {
            Swap => {
                if controls.is_empty() {
                    self.cx(a, b);
                    self.cx(b, a);
                    self.cx(a, b);
                } else {
                    self.cx(b, a);
                    self.mcx(&with(controls, &[a]), b);
                    self.cx(b, a);
                }
            }
            ISwap(t) => {
                // C-iSWAP^t(c; a, b) = CX(a,b) . [X^-t on a, controls c + b] . [phase pi t/2 on
                // c + b] . CX(a,b), with X^-t = H P(-pi t) H.
                self.cx(a, b);
                self.one(H, a);
                self.mcp(-PI * t, &with(controls, &[b, a]));
                self.one(H, a);
                self.mcp(PI * t / 2.0, &with(controls, &[b]));
                self.cx(a, b);
            }
            Rzz(theta) => {
                self.cx(a, b);
                self.controlled_one(Rz(theta), controls, b);
                self.cx(a, b);
            }
            Rxx(theta) => {
                self.one(H, a);
                self.one(H, b);
                self.controlled_two(Rzz(theta), controls, a, b);
                self.one(H, a);
                self.one(H, b);
            }
            Ryy(theta) => {
                // Y (x) Y = (S (x) S)(X (x) X)(S (x) S)^dagger.
                self.one(Sdg, a);
                self.one(Sdg, b);
                self.controlled_two(Rxx(theta), controls, a, b);
                self.one(S, a);
                self.one(S, b);
            }
            _ => unreachable!("one-qubit kinds go through controlled_one"),
        }
    }
}

/// `first` followed by `rest`, as a new list.
fn with(first: &[Qubit], rest: &[Qubit]) -> Vec<Qubit> {
    first.iter().chain(rest).copied().collect()
}

/// `M = e^{i alpha} Rz(beta) Ry(gamma) Rz(delta)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Zyz {
    pub(crate) alpha: f64,
    pub(crate) beta: f64,
    pub(crate) gamma: f64,
    pub(crate) delta: f64,
}

/// The Z-Y-Z Euler decomposition of a 2x2 unitary.
pub(crate) fn zyz(m: &Matrix2) -> Zyz {
    let det = m[0][0] * m[1][1] - m[0][1] * m[1][0];
    let alpha = det.arg() / 2.0;
    let unphase = Complex64::from_polar(1.0, -alpha);
    // V = e^{-i alpha} M = [[a, -b*], [b, a*]] with a = e^{-i(beta+delta)/2} cos(gamma/2) and
    // b = e^{i(beta-delta)/2} sin(gamma/2).
    let a = m[0][0] * unphase;
    let b = m[1][0] * unphase;
    let gamma = 2.0 * b.norm().atan2(a.norm());
    let (beta, delta) = if b.norm() < 1e-14 {
        (-2.0 * a.arg(), 0.0)
    } else if a.norm() < 1e-14 {
        (2.0 * b.arg(), 0.0)
    } else {
        (b.arg() - a.arg(), -a.arg() - b.arg())
    };
    Zyz { alpha, beta, gamma, delta }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn product(kinds: &[GateKind]) -> Matrix2 {
        // Time order: the first kind acts first.
        let mut m = [
            [Complex64::new(1.0, 0.0), Complex64::new(0.0, 0.0)],
            [Complex64::new(0.0, 0.0), Complex64::new(1.0, 0.0)],
        ];
        for kind in kinds {
            let g = kind.matrix2().expect("one-qubit");
            let mut next = [[Complex64::new(0.0, 0.0); 2]; 2];
            for (i, row) in next.iter_mut().enumerate() {
                for (j, entry) in row.iter_mut().enumerate() {
                    *entry = g[i][0] * m[0][j] + g[i][1] * m[1][j];
                }
            }
            m = next;
        }
        m
    }

    #[test]
    fn zyz_reconstructs_every_one_qubit_kind_exactly() {
        use GateKind::*;
        let kinds = [
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
            Rx(0.3),
            Ry(-2.0),
            Rz(1.7),
            Phase(-0.6),
            U(0.4, 1.9, -2.8),
            U(0.0, 0.5, 0.2),
            U(PI, 0.5, 0.2),
        ];
        for kind in kinds {
            let m = kind.matrix2().expect("one-qubit");
            let Zyz { alpha, beta, gamma, delta } = zyz(&m);
            let rebuilt = product(&[Rz(delta), Ry(gamma), Rz(beta)]);
            let phase = Complex64::from_polar(1.0, alpha);
            for i in 0..2 {
                for j in 0..2 {
                    assert!((rebuilt[i][j] * phase - m[i][j]).norm() < 1e-12, "{kind:?} entry {i},{j}");
                }
            }
        }
    }

    #[test]
    fn multi_controlled_phase_uses_the_gray_code_budget() {
        for m in 1..=5usize {
            let qubits: Vec<Qubit> = (0..m as u32).map(Qubit).collect();
            let mut out = Emitter::default();
            out.mcp(0.7, &qubits);
            let cx = out.gates.iter().filter(|g| !g.controls.is_empty()).count();
            assert_eq!(out.gates.len() - cx, (1 << m) - 1, "phases for {m} qubits");
            assert_eq!(cx, (1 << m) - 2, "CX for {m} qubits");
        }
    }
}
