//! Explicit unitary matrices of small circuits, for equivalence tests.

use num_complex::Complex64;
use qchess_circuit::ir::{Circuit, Op};

use super::error::DenseError;
use super::plan::plan;
use super::state::{DenseState, Limits};

/// The largest circuit [`unitary`] builds: `4^12` amplitudes are 256 MiB.
pub const MAX_UNITARY_QUBITS: usize = 12;

/// The unitary matrix of a circuit, column by column: column `k` is the image of the basis
/// state `|k>`, and row `j` of it the amplitude of `|j>` (qubit `i` = bit `i`).
#[derive(Debug, Clone, PartialEq)]
pub struct Unitary {
    num_qubits: usize,
    columns: Vec<Vec<Complex64>>,
}

impl Unitary {
    /// Number of qubits.
    pub fn num_qubits(&self) -> usize {
        self.num_qubits
    }

    /// Side length `2^n` of the matrix.
    pub fn dim(&self) -> usize {
        self.columns.len()
    }

    /// Entry `(row, column)`.
    pub fn entry(&self, row: usize, column: usize) -> Complex64 {
        self.columns[column][row]
    }

    /// Column `column`: the image of basis state `|column>`.
    pub fn column(&self, column: usize) -> &[Complex64] {
        &self.columns[column]
    }

    /// The largest entry-wise distance between `self` and `other` after removing the global
    /// phase that best aligns them (read off their largest entry); infinite if the sizes
    /// differ.
    pub fn distance_up_to_global_phase(&self, other: &Unitary) -> f64 {
        if self.num_qubits != other.num_qubits {
            return f64::INFINITY;
        }
        let mut pivot = (0, 0);
        let mut largest = -1.0;
        for (c, column) in self.columns.iter().enumerate() {
            for (r, value) in column.iter().enumerate() {
                if value.norm_sqr() > largest {
                    largest = value.norm_sqr();
                    pivot = (r, c);
                }
            }
        }
        let (mine, theirs) = (self.entry(pivot.0, pivot.1), other.entry(pivot.0, pivot.1));
        if theirs.norm() == 0.0 {
            return f64::INFINITY;
        }
        // Multiply `other` by the phase that makes the pivots agree.
        let phase = (mine / theirs) / (mine / theirs).norm();
        self.columns
            .iter()
            .zip(&other.columns)
            .flat_map(|(a, b)| a.iter().zip(b).map(move |(x, y)| (x - y * phase).norm()))
            .fold(0.0, f64::max)
    }

    /// Whether the two matrices are equal up to a global phase, entry by entry within `tolerance`.
    pub fn approx_eq_up_to_global_phase(&self, other: &Unitary, tolerance: f64) -> bool {
        self.distance_up_to_global_phase(other) <= tolerance
    }
}

/// The unitary of a circuit made only of unconditional gates, on at most
/// [`MAX_UNITARY_QUBITS`] qubits.
///
/// ```
/// use qchess_circuit::ir::{Circuit, Gate, GateKind, QubitRole};
/// use qchess_sim::dense::unitary;
///
/// let mut circuit = Circuit::new();
/// let a = circuit.add_qubit(QubitRole::General);
/// let b = circuit.add_qubit(QubitRole::General);
/// circuit.push_gate(Gate::iswap(a, b, 1.0));
/// let u = unitary(&circuit).unwrap();
/// // iSWAP sends |01> (a = 1) to i|10>.
/// assert!((u.entry(0b10, 0b01).im - 1.0).abs() < 1e-15);
/// ```
pub fn unitary(circuit: &Circuit) -> Result<Unitary, DenseError> {
    let num_qubits = circuit.num_qubits();
    if num_qubits > MAX_UNITARY_QUBITS {
        return Err(DenseError::UnitaryTooLarge { qubits: num_qubits, limit: MAX_UNITARY_QUBITS });
    }
    plan(circuit)?;
    for (index, op) in circuit.ops.iter().enumerate() {
        let what = match op {
            Op::Gate { condition: None, .. } => continue,
            Op::Gate { .. } => "a conditional gate",
            Op::Measure { .. } => "a measurement",
            Op::Reset { .. } => "a reset",
        };
        return Err(DenseError::NotUnitary { op: index, what });
    }
    let limits = Limits::with_max_qubits(MAX_UNITARY_QUBITS);
    let columns = (0..1usize << num_qubits)
        .map(|k| {
            let mut state = DenseState::basis(num_qubits, k, &limits)?;
            for op in &circuit.ops {
                if let Op::Gate { gate, .. } = op {
                    state.apply_checked(gate);
                }
            }
            Ok(state.into_amplitudes())
        })
        .collect::<Result<Vec<_>, DenseError>>()?;
    Ok(Unitary { num_qubits, columns })
}
