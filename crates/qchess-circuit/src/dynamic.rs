//! Programs whose next operation depends on the outcomes of their own measurements: loops
//! that repeat until a measurement succeeds, classical arithmetic on measured bits,
//! subroutines that return measurement results. Such a program is not a fixed circuit; a
//! simulator runs it step by step, answering each measurement it asks for.
//!
//! The [`Dynamic`] trait is the seam between a program (OpenQASM 3 in `qchess-qasm`) and a
//! simulator (`qchess-sim`), neither of which depends on the other. A program in a given state
//! compares and hashes by that state, so a simulator can merge two runs that have come to the
//! same point with the same classical values.
//!
//! ```
//! use qchess_circuit::dynamic::{Dynamic, Next, ProgramError};
//! use qchess_circuit::ir::{Gate, GateKind, Qubit};
//!
//! /// Flips a coin on qubit 0 until it shows 1, then stops.
//! #[derive(Clone, PartialEq, Eq, Hash)]
//! struct UntilOne { step: u8 }
//!
//! impl Dynamic for UntilOne {
//!     fn num_qubits(&self) -> usize { 1 }
//!     fn result_width(&self) -> usize { 0 }
//!     fn next(&mut self, outcome: Option<bool>) -> Result<Next, ProgramError> {
//!         self.step = match (self.step, outcome) {
//!             (1, _) => 2,
//!             (2, Some(true)) => return Ok(Next::Done),
//!             _ => 1,
//!         };
//!         Ok(match self.step {
//!             1 => Next::Gate(Gate::one(GateKind::H, Qubit(0))),
//!             _ => Next::Measure(Qubit(0)),
//!         })
//!     }
//!     fn result(&self, _: u128) -> u64 { 0 }
//! }
//!
//! let mut program = UntilOne { step: 0 };
//! assert_eq!(program.next(None), Ok(Next::Gate(Gate::one(GateKind::H, Qubit(0)))));
//! assert_eq!(program.next(None), Ok(Next::Measure(Qubit(0))));
//! assert_eq!(program.next(Some(true)), Ok(Next::Done));
//! ```

use std::hash::Hash;

use crate::ir::{Gate, Qubit};

/// What a dynamic program does next.
#[derive(Debug, Clone, PartialEq)]
pub enum Next {
    /// Apply this gate.
    Gate(Gate),
    /// Measure this qubit; the outcome is the argument of the following [`Dynamic::next`].
    Measure(Qubit),
    /// Reset this qubit to |0>.
    Reset(Qubit),
    /// The program has ended.
    Done,
}

/// Why a dynamic program stopped, with the place in the program in its message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProgramError {
    /// The program is wrong for the values it met (an index out of range, a division by zero).
    #[error("{0}")]
    Invalid(String),
    /// A bound on running was reached (steps, nested calls, expanded gates).
    #[error("{0}")]
    Limit(String),
}

/// A program a simulator runs step by step. See the [module docs](self).
pub trait Dynamic: Clone + Eq + Hash {
    /// How many qubits it acts on (qubit `i` is bit `i` of a basis state).
    fn num_qubits(&self) -> usize;

    /// How many bits a shot's result has.
    fn result_width(&self) -> usize;

    /// The next operation; `outcome` answers the [`Next::Measure`] returned last (and is
    /// `None` otherwise).
    fn next(&mut self, outcome: Option<bool>) -> Result<Next, ProgramError>;

    /// The result of a finished run: its output bits, low first, where a measurement whose
    /// outcome was never asked for reads its qubit in `basis`, the final basis state drawn.
    fn result(&self, basis: u128) -> u64;
}
