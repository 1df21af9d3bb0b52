//! State-vector simulators for circuits in the `qchess-circuit` IR.
//!
//! * [`sparse`]: a map from basis states to amplitudes, exact and fast while few basis states
//!   are populated; it backs the local quantum board.
//! * [`dense`]: a full `2^n` amplitude vector for general circuits.
//!
//! Depends on `qchess-core` and `qchess-circuit`.

pub mod dense;
pub mod sparse;
