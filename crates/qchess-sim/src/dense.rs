//! Dense state-vector simulator: a full vector of `2^n` complex amplitudes for general
//! circuits (arbitrary OpenQASM, provider jobs), where the sparse simulator stops paying off.
//!
//! * [`DenseState`]: the amplitudes and the in-place operations on them (gates with any
//!   controls and anti-controls, measurement, reset, sampling).
//! * [`DenseSimulator`]: whole circuits. [`DenseSimulator::probabilities`] gives the exact
//!   distribution over every qubit (branching on mid-circuit measurements, conditioned on
//!   post-selections); [`DenseSimulator::sample`] draws seeded shots, simulating once and
//!   sampling the final distribution when every measurement is final, and running each shot
//!   otherwise.
//! * [`unitary`]: the explicit matrix of a small circuit, for equivalence tests.
//!
//! Memory is checked against [`Limits`] before anything is allocated, and an allocation the
//! system refuses is an error, not an abort.
//!
//! ```
//! use qchess_circuit::ir::{Circuit, Gate, GateKind, QubitRole};
//! use qchess_sim::dense::{DenseError, DenseSimulator, Limits};
//!
//! let mut ghz = Circuit::new();
//! let qubits: Vec<_> = (0..3).map(|_| ghz.add_qubit(QubitRole::General)).collect();
//! ghz.push_gate(Gate::one(GateKind::H, qubits[0]));
//! ghz.push_gate(Gate::cx(qubits[0], qubits[1]));
//! ghz.push_gate(Gate::cx(qubits[1], qubits[2]));
//! let exact = DenseSimulator::new().probabilities(&ghz).unwrap();
//! assert!((exact.probabilities[0b111] - 0.5).abs() < 1e-12);
//!
//! let small = DenseSimulator::with_limits(Limits::with_max_qubits(2));
//! assert!(matches!(small.probabilities(&ghz), Err(DenseError::TooManyQubits { qubits: 3, limit: 2 })));
//! ```

mod accelerated;
mod block_kernel;
mod buffer;
mod error;
pub mod fusion;
mod kernels;
mod memory;
mod mixture;
pub(crate) mod plan;
mod planar;
mod planar_kernel;
mod planar_state;
pub mod profile;
mod run;
mod sampling;
mod schedule;
mod state;
mod tiled;
mod unitary;
mod workers;

pub use accelerated::{Acceleration, DEFAULT_FUSED_QUBITS, Precision};
pub use block_kernel::Real;
pub use error::DenseError;
pub use run::{CountKeys, Counts, DenseSimulator, Distribution, MAX_SHOTS};
pub use state::{DEFAULT_MAX_BRANCHES, DEFAULT_MAX_QUBITS, DenseState, Limits};
pub use unitary::{MAX_UNITARY_QUBITS, Unitary, unitary};

#[cfg(test)]
mod calibrate_tests;
#[cfg(test)]
mod fusion_tests;
#[cfg(test)]
mod planar_tests;
#[cfg(test)]
mod tests;
