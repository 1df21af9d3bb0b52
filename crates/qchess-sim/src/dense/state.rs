//! The dense state vector and the operations on it.

use num_complex::Complex64;
use qchess_circuit::ir::{Gate, GateKind, Qubit};
use rand::{Rng, RngExt};

use super::error::{DenseError, state_bytes};
use super::kernels::{self, ControlMask};
use super::memory;
use crate::deadline::Deadline;

/// The most qubits a dense state may have by default (16 GiB of amplitudes).
pub const DEFAULT_MAX_QUBITS: usize = 30;

/// Hard ceiling on the qubit limit: past it the byte count no longer fits the address space.
const ABSOLUTE_MAX_QUBITS: usize = 58;

/// The most measurement branches an exact run may enumerate by default.
pub const DEFAULT_MAX_BRANCHES: usize = 1 << 18;

/// Resource limits, checked before anything is allocated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The most qubits a state vector may have. It also sets the memory budget of exact
    /// probabilities with mid-circuit measurements: all pending branches together may use at
    /// most what one state of this many qubits would.
    pub max_qubits: usize,
    /// The most measurement branches exact probabilities may enumerate: every mid-circuit
    /// measurement or reset with two possible outcomes adds one.
    pub max_branches: usize,
    /// When to give up (see [`Deadline`]).
    pub deadline: Deadline,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits { max_qubits: DEFAULT_MAX_QUBITS, max_branches: DEFAULT_MAX_BRANCHES, deadline: Deadline::none() }
    }
}

impl Limits {
    /// Limits with the given qubit ceiling.
    pub fn with_max_qubits(max_qubits: usize) -> Limits {
        Limits { max_qubits, ..Limits::default() }
    }

    /// These limits with another branch limit.
    pub fn max_branches(self, max_branches: usize) -> Limits {
        Limits { max_branches, ..self }
    }

    /// These limits with a deadline.
    pub fn deadline(self, deadline: Deadline) -> Limits {
        Limits { deadline, ..self }
    }

    /// Checks that a `qubits`-qubit state is within the limits.
    pub fn check(&self, qubits: usize) -> Result<(), DenseError> {
        let limit = self.max_qubits.min(ABSOLUTE_MAX_QUBITS);
        if qubits > limit {
            return Err(DenseError::TooManyQubits { qubits, limit });
        }
        Ok(())
    }
}

/// A pure state of `n` qubits as `2^n` complex amplitudes; amplitude `k` belongs to the basis
/// state whose qubit `i` is bit `i` of `k`.
#[derive(Debug, Clone, PartialEq)]
pub struct DenseState {
    num_qubits: usize,
    amplitudes: Vec<Complex64>,
}

/// Allocates `2^qubits` zero amplitudes, reporting failure instead of aborting.
pub(crate) fn zeroed_amplitudes(qubits: usize, limits: &Limits) -> Result<Vec<Complex64>, DenseError> {
    limits.check(qubits)?;
    memory::check_available(state_bytes(qubits), qubits)?;
    let len = 1usize << qubits;
    let mut amplitudes = Vec::new();
    amplitudes.try_reserve_exact(len).map_err(|_| DenseError::OutOfMemory { qubits })?;
    amplitudes.resize(len, Complex64::new(0.0, 0.0));
    Ok(amplitudes)
}

impl DenseState {
    /// `|0...0>` on `num_qubits` qubits, after checking `limits`.
    pub fn zero(num_qubits: usize, limits: &Limits) -> Result<DenseState, DenseError> {
        DenseState::basis(num_qubits, 0, limits)
    }

    /// The basis state `|index>` on `num_qubits` qubits, after checking `limits`.
    pub fn basis(num_qubits: usize, index: usize, limits: &Limits) -> Result<DenseState, DenseError> {
        let mut amplitudes = zeroed_amplitudes(num_qubits, limits)?;
        let slot = amplitudes.get_mut(index).ok_or_else(|| DenseError::InvalidAmplitudes {
            reason: format!("basis state {index} does not exist on {num_qubits} qubits"),
        })?;
        *slot = Complex64::new(1.0, 0.0);
        Ok(DenseState { num_qubits, amplitudes })
    }

    /// A state from explicit amplitudes; their number must be a power of two. The amplitudes
    /// are taken as given (not normalised).
    pub fn from_amplitudes(amplitudes: Vec<Complex64>) -> Result<DenseState, DenseError> {
        if !amplitudes.len().is_power_of_two() {
            return Err(DenseError::InvalidAmplitudes {
                reason: format!("{} amplitudes is not a power of two", amplitudes.len()),
            });
        }
        let num_qubits = amplitudes.len().trailing_zeros() as usize;
        Ok(DenseState { num_qubits, amplitudes })
    }

    /// Number of qubits.
    pub fn num_qubits(&self) -> usize {
        self.num_qubits
    }

    /// The amplitudes, index `k` = basis state `k`.
    pub fn amplitudes(&self) -> &[Complex64] {
        &self.amplitudes
    }

    /// The amplitudes, mutable (for building states by hand).
    pub fn amplitudes_mut(&mut self) -> &mut [Complex64] {
        &mut self.amplitudes
    }

    /// The amplitudes, consuming the state.
    pub fn into_amplitudes(self) -> Vec<Complex64> {
        self.amplitudes
    }

    /// Overwrites this state with `other`'s amplitudes without allocating (same size).
    pub(crate) fn copy_from(&mut self, other: &DenseState) {
        self.amplitudes.copy_from_slice(&other.amplitudes);
    }

    /// A copy of this state, with allocation failure reported instead of aborting.
    pub(crate) fn try_clone(&self) -> Result<DenseState, DenseError> {
        memory::check_available(state_bytes(self.num_qubits), self.num_qubits)?;
        let mut amplitudes = Vec::new();
        amplitudes
            .try_reserve_exact(self.amplitudes.len())
            .map_err(|_| DenseError::OutOfMemory { qubits: self.num_qubits })?;
        amplitudes.extend_from_slice(&self.amplitudes);
        Ok(DenseState { num_qubits: self.num_qubits, amplitudes })
    }

    /// The squared norm (1 for a normalised state).
    pub fn norm_sqr(&self) -> f64 {
        self.amplitudes.iter().map(|a| a.norm_sqr()).sum()
    }

    /// `|amplitude|^2` of every basis state.
    pub fn probabilities(&self) -> Vec<f64> {
        self.amplitudes.iter().map(|a| a.norm_sqr()).collect()
    }

    fn check_qubit(&self, qubit: Qubit) -> Result<usize, DenseError> {
        let index = qubit.index();
        if index < self.num_qubits {
            Ok(index)
        } else {
            Err(DenseError::QubitOutOfRange { qubit: index, qubits: self.num_qubits })
        }
    }

    /// Applies a unitary gate with its controls.
    pub fn apply_gate(&mut self, gate: &Gate) -> Result<(), DenseError> {
        gate.check_shape(self.num_qubits)
            .map_err(|error| DenseError::InvalidGate { gate: gate.to_string(), reason: error.to_string() })?;
        self.apply_checked(gate);
        Ok(())
    }

    /// Applies a gate already checked by [`Gate::check_shape`].
    pub(crate) fn apply_checked(&mut self, gate: &Gate) {
        let mut controls = ControlMask::default();
        for control in &gate.controls {
            let bit = 1usize << control.qubit.index();
            controls.mask |= bit;
            if control.on {
                controls.value |= bit;
            }
        }
        let amps = &mut self.amplitudes;
        let one = Complex64::new(1.0, 0.0);
        match (gate.kind, gate.targets.as_slice()) {
            (GateKind::X, &[t]) => kernels::apply_x(amps, t.index(), controls),
            (GateKind::Swap, &[a, b]) => {
                let zero = Complex64::new(0.0, 0.0);
                kernels::apply_exchange(amps, a.index(), b.index(), one, one, [[zero, one], [one, zero]], controls)
            }
            (GateKind::ISwap(_), &[a, b]) => {
                let m = gate.kind.matrix4().unwrap_or_default();
                let block = [[m[1][1], m[1][2]], [m[2][1], m[2][2]]];
                kernels::apply_exchange(amps, a.index(), b.index(), one, one, block, controls)
            }
            (GateKind::Rzz(_), &[a, b]) => {
                let m = gate.kind.matrix4().unwrap_or_default();
                kernels::apply_diagonal4(amps, a.index(), b.index(), [m[0][0], m[1][1], m[2][2], m[3][3]], controls)
            }
            (kind, &[t]) => {
                let m = kind.matrix2().unwrap_or_default();
                let zero = Complex64::new(0.0, 0.0);
                if m[0][1] == zero && m[1][0] == zero {
                    kernels::apply_diagonal2(amps, t.index(), m[0][0], m[1][1], controls);
                } else {
                    kernels::apply_matrix2(amps, t.index(), &m, controls);
                }
            }
            (kind, &[a, b]) => {
                let m = kind.matrix4().unwrap_or_default();
                kernels::apply_matrix4(amps, a.index(), b.index(), &m, controls);
            }
            // Ruled out by `Gate::check_shape`.
            _ => {}
        }
    }

    /// The probability that measuring `qubit` gives 1 (relative to the state's norm).
    pub fn probability_of_one(&self, qubit: Qubit) -> Result<f64, DenseError> {
        let index = self.check_qubit(qubit)?;
        let norm = self.norm_sqr();
        Ok(if norm > 0.0 { kernels::weight_of_one(&self.amplitudes, index) / norm } else { 0.0 })
    }

    /// Unnormalised weights `(w0, w1)` of the two outcomes of measuring qubit `index`.
    pub(crate) fn outcome_weights(&self, index: usize) -> (f64, f64) {
        kernels::outcome_weights(&self.amplitudes, index)
    }

    /// Projects qubit `index` onto `value`, multiplying the kept amplitudes by `scale`.
    pub(crate) fn project_scaled(&mut self, index: usize, value: bool, scale: f64) {
        kernels::project(&mut self.amplitudes, index, value, scale);
    }

    /// Measures `qubit` in the computational basis: draws the outcome with its Born
    /// probability, collapses the state onto it and renormalises.
    pub fn measure<R: Rng + ?Sized>(&mut self, qubit: Qubit, rng: &mut R) -> Result<bool, DenseError> {
        let index = self.check_qubit(qubit)?;
        Ok(self.measure_index(index, rng))
    }

    pub(crate) fn measure_index<R: Rng + ?Sized>(&mut self, index: usize, rng: &mut R) -> bool {
        let (w0, w1) = self.outcome_weights(index);
        let total = w0 + w1;
        let draw: f64 = rng.random::<f64>() * total;
        // A zero-weight outcome is never chosen, even when rounding puts `draw` on the edge.
        let outcome = if w0 == 0.0 {
            true
        } else if w1 == 0.0 {
            false
        } else {
            draw >= w0
        };
        let kept = if outcome { w1 } else { w0 };
        self.project_scaled(index, outcome, 1.0 / kept.sqrt());
        outcome
    }

    /// Resets `qubit` to |0>: measures it and flips it back when it read 1.
    pub fn reset<R: Rng + ?Sized>(&mut self, qubit: Qubit, rng: &mut R) -> Result<(), DenseError> {
        let index = self.check_qubit(qubit)?;
        if self.measure_index(index, rng) {
            kernels::apply_x(&mut self.amplitudes, index, ControlMask::default());
        }
        Ok(())
    }

    /// Draws one basis state with its Born probability (the state is left unchanged).
    pub fn sample_index<R: Rng + ?Sized>(&self, rng: &mut R) -> usize {
        let mut draw = rng.random::<f64>() * self.norm_sqr();
        let mut last_nonzero = 0;
        for (index, amplitude) in self.amplitudes.iter().enumerate() {
            let weight = amplitude.norm_sqr();
            if weight > 0.0 {
                if draw < weight {
                    return index;
                }
                draw -= weight;
                last_nonzero = index;
            }
        }
        // Rounding left a sliver past the last weight: it belongs to the last possible state.
        last_nonzero
    }
}
