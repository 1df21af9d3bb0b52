//! OpenQASM and IonQ JSON for qchess circuits: an AST with printers, hardware lowerings, and
//! OpenQASM 2.0 input.
//!
//! Depends on `qchess-core` and `qchess-circuit`.

pub mod lower;
