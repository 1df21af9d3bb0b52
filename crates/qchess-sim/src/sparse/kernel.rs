//! A gate prepared for a basis-state key layout: masks for the controls, target bits, and the
//! matrix classified as monomial (one nonzero per column: a permutation with phases, applied in
//! place), exchange (two-qubit, mixing only `|01>` and `|10>`: the iSWAP family, applied in
//! place) or dense (mixes basis states, applied through an accumulator).

use std::f64::consts::FRAC_1_SQRT_2;

use num_complex::Complex64;
use qchess_circuit::ir::{Gate, GateKind};

use super::SimError;
use super::layout::Layout;

/// Entries this close to zero in a gate matrix are exactly zero (`cos(pi/2)` is 6e-17).
const MATRIX_ZERO: f64 = 1e-15;

/// How a prepared gate acts.
#[derive(Debug, Clone, Copy)]
pub(super) enum Action {
    /// Column `j` goes to row `row[j]` times `factor[j]`.
    Monomial { row: [usize; 4], factor: [Complex64; 4] },
    /// A two-qubit matrix that multiplies `|00>` and `|11>` by `diagonal` and mixes `|01>`
    /// and `|10>` by `block` (`block[r][c]` = `matrix[r + 1][c + 1]`).
    Exchange { diagonal: [Complex64; 2], block: [[Complex64; 2]; 2] },
    /// A general matrix, `matrix[row][column]`.
    Dense { matrix: [[Complex64; 4]; 4] },
}

/// A gate ready to run on keys.
#[derive(Debug, Clone, Copy)]
pub(super) struct Kernel {
    pub(super) control_mask: u128,
    pub(super) control_value: u128,
    /// Key bit of each target (the second is 0 for a one-qubit gate).
    pub(super) targets: [u128; 2],
    /// 2 or 4.
    pub(super) dim: usize,
    pub(super) action: Action,
}

impl Kernel {
    pub(super) fn new(gate: &Gate, layout: &Layout) -> Result<Kernel, SimError> {
        let arity = gate.kind.arity();
        if gate.targets.len() != arity {
            return Err(SimError::MalformedGate(format!(
                "{} takes {arity} target(s), got {}",
                gate.kind.name(),
                gate.targets.len()
            )));
        }
        let mut seen = 0u128;
        let mut targets = [0u128; 2];
        for (slot, &qubit) in targets.iter_mut().zip(&gate.targets) {
            *slot = 1u128 << layout.position(qubit)?;
            if seen & *slot != 0 {
                return Err(SimError::MalformedGate(format!("qubit {} is used twice", qubit.0)));
            }
            seen |= *slot;
        }
        let (mut control_mask, mut control_value) = (0u128, 0u128);
        for control in &gate.controls {
            let bit = 1u128 << layout.position(control.qubit)?;
            if seen & bit != 0 {
                return Err(SimError::MalformedGate(format!("qubit {} is used twice", control.qubit.0)));
            }
            seen |= bit;
            control_mask |= bit;
            if control.on {
                control_value |= bit;
            }
        }
        let (dim, action) = match known_action(gate.kind) {
            Some(known) => known,
            None => {
                let (dim, matrix) = matrix_of(gate.kind);
                (dim, classify(dim, &matrix))
            }
        };
        Ok(Kernel { control_mask, control_value, targets, dim, action })
    }

    /// The target-bit index of a key: bit 0 from the first target, bit 1 from the second.
    #[inline]
    pub(super) fn index(&self, key: u128) -> usize {
        usize::from(key & self.targets[0] != 0) | (usize::from(key & self.targets[1] != 0) << 1)
    }

    /// The target bits of index `index`.
    #[inline]
    pub(super) fn bits(&self, index: usize) -> u128 {
        (if index & 1 != 0 { self.targets[0] } else { 0 }) | (if index & 2 != 0 { self.targets[1] } else { 0 })
    }

    #[inline]
    pub(super) fn applies(&self, key: u128) -> bool {
        key & self.control_mask == self.control_value
    }

    pub(super) fn target_mask(&self) -> u128 {
        self.targets[0] | self.targets[1]
    }
}

/// The action of the gates every move uses, written out exactly instead of derived from a
/// matrix with trigonometry: X, SWAP, and iSWAP to the powers +-1 and +-1/2.
fn known_action(kind: GateKind) -> Option<(usize, Action)> {
    let one = Complex64::new(1.0, 0.0);
    let exchange = [0, 2, 1, 3];
    match kind {
        GateKind::X => Some((2, Action::Monomial { row: [1, 0, 2, 3], factor: [one; 4] })),
        GateKind::Swap => Some((4, Action::Monomial { row: exchange, factor: [one; 4] })),
        GateKind::ISwap(power) if power == 1.0 || power == -1.0 => {
            let phase = Complex64::new(0.0, power);
            Some((4, Action::Monomial { row: exchange, factor: [one, phase, phase, one] }))
        }
        GateKind::ISwap(power) if power == 0.5 || power == -0.5 => {
            // 1/sqrt2 on the diagonal of the |01>, |10> block, +-i/sqrt2 off it.
            let (on, off) = (Complex64::new(FRAC_1_SQRT_2, 0.0), Complex64::new(0.0, 2.0 * power * FRAC_1_SQRT_2));
            Some((4, Action::Exchange { diagonal: [one; 2], block: [[on, off], [off, on]] }))
        }
        _ => None,
    }
}

fn snap(z: Complex64) -> Complex64 {
    let clean = |x: f64| if x.abs() < MATRIX_ZERO { 0.0 } else { x };
    Complex64::new(clean(z.re), clean(z.im))
}

fn matrix_of(kind: GateKind) -> (usize, [[Complex64; 4]; 4]) {
    let zero = Complex64::new(0.0, 0.0);
    let mut matrix = [[zero; 4]; 4];
    if let Some(m2) = kind.matrix2() {
        for (row, values) in m2.iter().enumerate() {
            for (column, &value) in values.iter().enumerate() {
                matrix[row][column] = snap(value);
            }
        }
        (2, matrix)
    } else {
        let m4 = kind.matrix4().unwrap_or(matrix);
        for (row, values) in m4.iter().enumerate() {
            for (column, &value) in values.iter().enumerate() {
                matrix[row][column] = snap(value);
            }
        }
        (4, matrix)
    }
}

fn classify(dim: usize, matrix: &[[Complex64; 4]; 4]) -> Action {
    let mut row = [0usize; 4];
    let mut factor = [Complex64::new(1.0, 0.0); 4];
    for column in 0..dim {
        let mut nonzero = (0..dim).filter(|&r| matrix[r][column] != Complex64::new(0.0, 0.0));
        match (nonzero.next(), nonzero.next()) {
            (Some(r), None) => {
                row[column] = r;
                factor[column] = matrix[r][column];
            }
            _ => return exchange_or_dense(dim, matrix),
        }
    }
    Action::Monomial { row, factor }
}

/// [`Action::Exchange`] when only `|01>` and `|10>` mix, else [`Action::Dense`].
fn exchange_or_dense(dim: usize, matrix: &[[Complex64; 4]; 4]) -> Action {
    let zero = Complex64::new(0.0, 0.0);
    let outside_block = [(0, 1), (0, 2), (0, 3), (1, 0), (1, 3), (2, 0), (2, 3), (3, 0), (3, 1), (3, 2)];
    if dim == 4 && outside_block.iter().all(|&(r, c)| matrix[r][c] == zero) {
        return Action::Exchange {
            diagonal: [matrix[0][0], matrix[3][3]],
            block: [[matrix[1][1], matrix[1][2]], [matrix[2][1], matrix[2][2]]],
        };
    }
    Action::Dense { matrix: *matrix }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The written-out actions equal what the matrices give, entry for entry.
    #[test]
    fn known_actions_match_the_matrices() {
        for kind in [
            GateKind::X,
            GateKind::Swap,
            GateKind::ISwap(1.0),
            GateKind::ISwap(-1.0),
            GateKind::ISwap(0.5),
            GateKind::ISwap(-0.5),
        ] {
            let (dim, known) = known_action(kind).expect("written out");
            let (matrix_dim, matrix) = matrix_of(kind);
            assert_eq!(dim, matrix_dim, "{kind:?}");
            let dense = |action: Action| -> [[Complex64; 4]; 4] {
                match action {
                    Action::Dense { matrix } => matrix,
                    Action::Exchange { diagonal, block } => {
                        let mut m = [[Complex64::new(0.0, 0.0); 4]; 4];
                        (m[0][0], m[3][3]) = (diagonal[0], diagonal[1]);
                        for (r, row) in block.iter().enumerate() {
                            for (c, &value) in row.iter().enumerate() {
                                m[r + 1][c + 1] = value;
                            }
                        }
                        m
                    }
                    Action::Monomial { row, factor } => {
                        let mut m = [[Complex64::new(0.0, 0.0); 4]; 4];
                        for column in 0..dim {
                            m[row[column]][column] = factor[column];
                        }
                        m
                    }
                }
            };
            let (a, b) = (dense(known), dense(classify(dim, &matrix)));
            for row in 0..dim {
                for column in 0..dim {
                    assert!((a[row][column] - b[row][column]).norm() < 1e-15, "{kind:?} [{row}][{column}]");
                }
            }
            let kind_of = |action: Action| std::mem::discriminant(&action);
            assert_eq!(kind_of(known), kind_of(classify(dim, &matrix)), "{kind:?}");
        }
    }
}
