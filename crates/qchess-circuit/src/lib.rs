//! Quantum circuits for Quantum Chess: the circuit IR every backend and exporter shares, and the
//! compiler from typed moves to circuit fragments.
//!
//! Depends only on `qchess-core`.

pub mod compiler;
pub mod ir;
