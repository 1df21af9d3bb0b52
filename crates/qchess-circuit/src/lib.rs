//! Quantum circuits for Quantum Chess: the circuit IR every backend and exporter shares, and the
//! compiler from typed moves to circuit fragments, and the qubit recycling that fits a long game's
//! circuit on a device.
//!
//! Depends only on `qchess-core`.

pub mod compiler;
pub mod ir;
pub mod recycle;
