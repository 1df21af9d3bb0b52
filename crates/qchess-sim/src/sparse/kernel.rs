//! A gate prepared for a basis-state key layout: masks for the controls, target bits, and the
//! matrix classified as monomial (one nonzero per column: a permutation with phases, applied in
//! place) or dense (mixes basis states, applied through an accumulator).

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
        let (dim, matrix) = matrix_of(gate.kind);
        Ok(Kernel { control_mask, control_value, targets, dim, action: classify(dim, &matrix) })
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
            _ => return Action::Dense { matrix: *matrix },
        }
    }
    Action::Monomial { row, factor }
}
