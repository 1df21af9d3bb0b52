//! What a device's calibration says beyond its coupling map: one-qubit gate errors, elements
//! that do not work, the calibration's date; and the error of each ISA operation, from which the
//! estimated success probability (ESP) of a circuit follows.
//!
//! An element is broken when the calibration says it is not operational (IBM's live properties
//! carry an `operational` parameter per qubit and gate) or when its error is at least
//! [`BROKEN_ERROR`] (IBM's published snapshots give a dead coupler a `gate_error` of 1): a qubit
//! by its readout error or the error of its `sx` or `x` gate, a coupler by its two-qubit gate
//! error. A broken qubit breaks every coupler it is on. On a device whose two-qubit gate is
//! symmetric (CZ), a coupler listed both ways is broken when either listing is.
//!
//! ```
//! use qchess_route::target::Target;
//!
//! let torino = Target::resolve("ibm-torino")?;
//! assert!(torino.is_qubit_broken(86), "readout error 0.565");
//! assert!(torino.is_pair_broken(58, 59) && torino.is_pair_broken(59, 58), "gate error 1");
//! assert!(!torino.is_pair_broken(0, 1));
//! assert_eq!(torino.calibration.date.as_deref(), Some("2025-02-26T15:26:08-05:00"));
//! # Ok::<(), qchess_route::target::TargetError>(())
//! ```

use std::collections::BTreeSet;

use super::Target;
use crate::native::{IsaOp, NativeGate};

/// An error rate at or above which an element counts as broken.
pub const BROKEN_ERROR: f64 = 0.5;

/// Calibration data besides the readout and two-qubit errors ([`Target::qubit_error`],
/// [`Target::pair_error`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Calibration {
    /// When the device was calibrated (IBM's `last_update_date`), as the properties write it.
    pub date: Option<String>,
    /// `gate_error` of `sx` per qubit, when known (0 where a qubit has none).
    pub sx_error: Option<Vec<f64>>,
    /// `gate_error` of `x` per qubit, when known (0 where a qubit has none).
    pub x_error: Option<Vec<f64>>,
    /// Qubits the calibration marks not operational.
    pub down_qubits: BTreeSet<u32>,
    /// Two-qubit gates (as listed, `[control, target]`) the calibration marks not operational.
    pub down_pairs: BTreeSet<(u32, u32)>,
}

/// Whether an error rate says the element does not work.
fn broken_rate(error: Option<f64>) -> bool {
    error.is_some_and(|e| e >= BROKEN_ERROR || e.is_nan())
}

/// `1 - error` as a cost that adds up: `-ln(1 - e)` (infinite for a broken element).
pub fn cost_of(error: f64) -> f64 {
    if broken_rate(Some(error)) { f64::INFINITY } else { -(1.0 - error.max(0.0)).ln() }
}

impl Target {
    /// Whether any error rate is known.
    pub fn is_calibrated(&self) -> bool {
        self.qubit_error.is_some() || !self.pair_error.is_empty() || self.calibration.sx_error.is_some()
    }

    /// The readout error of `qubit` (0 when unknown).
    pub fn readout_error(&self, qubit: u32) -> f64 {
        self.qubit_error.as_ref().and_then(|e| e.get(qubit as usize).copied()).unwrap_or(0.0)
    }

    /// Whether `qubit` does not work (see the [module docs](self)).
    pub fn is_qubit_broken(&self, qubit: u32) -> bool {
        let at = |errors: &Option<Vec<f64>>| errors.as_ref().and_then(|e| e.get(qubit as usize).copied());
        self.calibration.down_qubits.contains(&qubit)
            || broken_rate(at(&self.qubit_error))
            || broken_rate(at(&self.calibration.sx_error))
            || broken_rate(at(&self.calibration.x_error))
    }

    /// Whether the listed direction `(a, b)` is marked broken, by its flag or its error.
    fn listing_broken(&self, a: u32, b: u32) -> bool {
        self.calibration.down_pairs.contains(&(a, b)) || broken_rate(self.pair_error.get(&(a, b)).copied())
    }

    /// Whether the two-qubit gate with `a` first and `b` second does not work: one of its qubits
    /// or the coupler is broken (see the [module docs](self)).
    pub fn is_pair_broken(&self, a: u32, b: u32) -> bool {
        self.is_qubit_broken(a)
            || self.is_qubit_broken(b)
            || self.listing_broken(a, b)
            || (self.basis.symmetric() && self.listing_broken(b, a))
    }

    /// The broken qubits, in increasing order.
    pub fn broken_qubits(&self) -> Vec<u32> {
        (0..self.num_qubits).filter(|&q| self.is_qubit_broken(q)).collect()
    }

    /// The couplers broken by their own calibration (not only by a broken qubit), each once as
    /// `(smaller, larger)`, in increasing order.
    pub fn broken_couplers(&self) -> Vec<(u32, u32)> {
        let mut pairs: Vec<(u32, u32)> = self
            .coupling
            .iter()
            .filter(|&&(a, b)| self.listing_broken(a, b) || (self.basis.symmetric() && self.listing_broken(b, a)))
            .map(|&(a, b)| (a.min(b), a.max(b)))
            .collect();
        pairs.sort_unstable();
        pairs.dedup();
        pairs
    }

    /// The calibrated error of the two-qubit gate with `a` first (the best listed direction on a
    /// symmetric gate set; 0 when unknown, 1 when broken).
    pub fn two_qubit_error(&self, a: u32, b: u32) -> f64 {
        if self.is_pair_broken(a, b) {
            return 1.0;
        }
        let error =
            if self.basis.symmetric() { self.pair_error_of(a, b) } else { self.pair_error.get(&(a, b)).copied() };
        error.unwrap_or(0.0)
    }

    /// The calibrated error of the best working direction of the coupler `a`-`b` (a CX either
    /// way takes the two-qubit gate once in a direction the device lists; 0 when unknown, 1 when
    /// no listed direction works).
    pub fn coupler_error(&self, a: u32, b: u32) -> f64 {
        [(a, b), (b, a)]
            .into_iter()
            .filter(|&(x, y)| self.allows(x, y) && !self.is_pair_broken(x, y))
            .map(|(x, y)| self.pair_error.get(&(x, y)).copied().unwrap_or(0.0))
            .fold(1.0, f64::min)
    }

    /// The calibrated error of a one-qubit gate on `qubit`: `sx` and `x` as calibrated, `rz` a
    /// frame change (0), other gate sets' rotations as `sx` (0 when unknown, 1 on a broken qubit).
    pub fn one_qubit_error(&self, gate: NativeGate, qubit: u32) -> f64 {
        if self.is_qubit_broken(qubit) {
            return 1.0;
        }
        let at = |errors: &Option<Vec<f64>>| errors.as_ref().and_then(|e| e.get(qubit as usize).copied());
        match gate {
            NativeGate::Rz(_) => 0.0,
            NativeGate::X => at(&self.calibration.x_error).or(at(&self.calibration.sx_error)).unwrap_or(0.0),
            _ => at(&self.calibration.sx_error).unwrap_or(0.0),
        }
    }

    /// The calibrated error of one ISA operation (measurements: the readout error; resets: 0).
    pub fn op_error(&self, op: &IsaOp) -> f64 {
        match *op {
            IsaOp::One { gate, qubit } => self.one_qubit_error(gate, qubit),
            IsaOp::Two { a, b, .. } => self.two_qubit_error(a, b),
            IsaOp::Measure { qubit, .. } => {
                if self.is_qubit_broken(qubit) {
                    1.0
                } else {
                    self.readout_error(qubit)
                }
            }
            IsaOp::Reset { qubit } => f64::from(u8::from(self.is_qubit_broken(qubit))),
        }
    }

    /// The estimated success probability of `ops`: the product of `1 - error` over every gate
    /// and measurement, `None` when the target has no calibration.
    pub fn estimated_success(&self, ops: &[IsaOp]) -> Option<f64> {
        self.is_calibrated().then(|| ops.iter().map(|op| (1.0 - self.op_error(op)).clamp(0.0, 1.0)).product())
    }

    /// How many operations of `ops` touch a broken qubit or coupler.
    pub fn broken_uses(&self, ops: &[IsaOp]) -> usize {
        ops.iter()
            .filter(|op| match **op {
                IsaOp::Two { a, b, .. } => self.is_pair_broken(a, b),
                _ => op.qubits().any(|q| q < self.num_qubits && self.is_qubit_broken(q)),
            })
            .count()
    }
}
