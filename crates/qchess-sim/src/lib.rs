//! State-vector simulators for circuits in the `qchess-circuit` IR.
//!
//! * [`sparse`]: a map from basis states to amplitudes, exact and fast while few basis states
//!   are populated; it backs the local quantum board.
//! * [`dense`]: a full `2^n` amplitude vector for general circuits.
//! * [`auto`]: runs a general circuit sparsely while that pays off, densely otherwise.
//! * [`local_board`]: the exact local [`QuantumBoard`](qchess_core::QuantumBoard), the move
//!   compiler driving the sparse simulator.
//!
//! Depends on `qchess-core` and `qchess-circuit`.

pub mod auto;
mod canonical;
pub mod deadline;
pub mod dense;
pub mod local_board;
pub mod sparse;
